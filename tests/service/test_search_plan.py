"""A search's plan, explained: the route each side took, how the filter applied, the terms used."""

from __future__ import annotations

from pathlib import Path

from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import open_store

ALICE = Caller("alice")
NOTES = [f"Guitar lesson {n}: practised the F chord and a new strumming pattern" for n in range(30)]


def test_without_explain_there_is_no_plan(services: Services) -> None:
    services.memories.create(ALICE, {"content": "Pedro is moving to Lisbon"})
    assert services.search.search(ALICE, "Pedro").plan is None


def test_the_plan_names_each_side_its_route_and_the_terms(services: Services) -> None:
    services.memories.create(ALICE, {"content": "Had lunch with Pedro at the Thai place"})
    plan = services.search.search(ALICE, "lunch with Pedro", explain=True).plan
    assert plan is not None and plan["alpha_chosen"] == "from the candidates" and plan["pool"] == 50
    assert plan["keyword"]["route"] == plan["keyword"]["ran"] == "full text"
    assert plan["keyword"]["terms"] == {"find": ["lunch", "pedro"], "score": [], "left_out": []}
    assert plan["vector"]["route"] in ("exact", "approximate") and plan["vector"]["ran"]
    keywords_only = services.search.search(ALICE, "lunch", alpha=0.0, explain=True).plan
    assert keywords_only is not None and keywords_only["vector"] == {"route": "off"}
    assert (keywords_only["alpha"], keywords_only["alpha_chosen"]) == (0.0, "given")


def test_a_filter_is_checked_on_the_best_first_and_the_plan_says_so(services: Services) -> None:
    services.memories.create_many(ALICE, [{"content": t, "tags": ["music"]} for t in NOTES[:5]])
    found = services.search.search(ALICE, "guitar", filters={"tags": {"any": ["music"]}}, explain=True)
    assert found.plan is not None and len(found.hits) == 5
    assert found.plan["keyword"]["filter"] == "checked on every match: 5 passed"
    assert "filter" in found.plan["vector"]["ran"] or found.plan["vector"]["ran"].startswith("exact")
    none_pass = services.search.search(ALICE, "guitar", filters={"tags": {"any": ["cooking"]}}, explain=True)
    assert none_pass.hits == [] and none_pass.plan is not None
    assert none_pass.plan["keyword"]["filter"] == "checked on every match: 0 passed"
    services.memories.create_many(ALICE, [{"content": t} for t in NOTES * 8])  # 240 more, untagged
    rare = services.search.search(ALICE, "guitar", filters={"tags": {"any": ["music"]}}, explain=True)
    assert rare.plan is not None and {h.memory.id for h in rare.hits} == {h.memory.id for h in found.hits}
    assert rare.plan["keyword"]["filter"] == "checked on the best 200: too few passed, so in the search"


def test_a_large_user_is_answered_by_the_ranked_index(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    services = Services.over(open_store(str(tmp_path / "many.db"), keyword_index_min=10), embedder=embedder)
    try:
        services.memories.create_many(ALICE, [{"content": text} for text in NOTES])
        assert services.store.index.build_keyword_index(ALICE.user)
        plan = services.search.search(ALICE, "strumming pattern", explain=True).plan
        assert plan is not None and plan["keyword"]["route"] == plan["keyword"]["ran"] == "ranked index"
        trash = services.search.search(ALICE, "strumming", deleted="include", explain=True).plan
        assert trash is not None and trash["keyword"]["route"] == "full text"  # the index holds live memories
    finally:
        services.close()
