"""Search over a small hand-checked corpus, with the real embedding model, on each backend."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import ConfigError, NotFound, ValidationFailed
from remember.search.embedders import HashEmbedder
from remember.service import Services
from remember.service.question_context import question_context
from remember.service.reindex import reindex
from remember.store import Store

ALICE, BOB = "alice", "bob"
CORPUS: list[dict[str, Any]] = [
    {"content": "Sarah Chen is a product manager at Google; we met at PyCon.", "type": "person", "tags": ["people"]},
    {"content": "Had great sushi at Nobu last Friday with Tom.", "type": "restaurant", "tags": ["food"]},
    {"content": "My dog Rex loves running on the beach.", "type": "note", "tags": ["pets"], "weight": 0.9},
    {"content": "Dentist appointment moved to Tuesday at 3pm.", "type": "event", "tags": ["health"]},
    {"content": "Finished reading Dune by Frank Herbert; five stars.", "type": "book", "tags": ["books"]},
    {"content": "The quarterly planning meeting decided to ship the mobile app in May.", "type": "meeting"},
    {"content": "Mom's birthday is on the 14th of March; she likes orchids.", "type": "person", "tags": ["family"]},
    {"content": "Learned that Python dictionaries keep insertion order since 3.7.", "type": "fact", "tags": ["tech"]},
]


@pytest.fixture
def corpus(services: Services) -> dict[str, str]:
    """content prefix (first word) -> memory id

    Each note is its own conversation: stored together without one, they would be taken
    for one conversation and carry each other's text as context (tested below).
    """
    made = services.memories.create_many(Caller(ALICE), [{**m, "context": {"conversation_id": f"note-{i}"}}
                                                 for i, m in enumerate(CORPUS)])  # fmt: skip
    services.memories.create(Caller(BOB), {"content": "Bob's secret: sushi at Nobu is overrated."})
    return {m.content.split()[0].strip("'s").lower(): m.id for m in made}


def top(services: Services, query: str, **kwargs: Any) -> list[str]:
    return [h.memory.id for h in services.search.search(Caller(ALICE), query, **kwargs).hits]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Sarah Chen", "sarah"),  # an exact name
        ("Nobu", "had"),
        ("Frank Herbert", "finished"),
        ("who works at Google?", "sarah"),
        ("Japanese food we ate", "had"),  # a paraphrase: no shared words
        ("my pet", "my"),
        ("when is the tooth doctor", "dentist"),
        ("what gift for my mother", "mom"),
        ("what did we decide about the phone application", "the"),
        ("programming language facts", "learned"),
    ],
)
def test_the_right_memory_comes_first(services: Services, corpus: dict[str, str], query: str, expected: str) -> None:
    assert top(services, query)[0] == corpus[expected]


def test_keyword_only_and_semantic_only(services: Services, corpus: dict[str, str]) -> None:
    assert top(services, "Herbert", alpha=0.0) == [corpus["finished"]]
    assert top(services, "raw fish cuisine", alpha=0.0) == []  # no shared words
    assert top(services, "raw fish cuisine", alpha=1.0)[0] == corpus["had"]
    result = services.search.search(Caller(ALICE), "beach", alpha=0.0)
    assert result.alpha == 0.0


def test_default_alpha_comes_from_preferences(services: Services, corpus: dict[str, str]) -> None:
    chosen = services.search.search(Caller(ALICE), "sushi", explain=True)  # auto: from the candidates
    assert chosen.plan is not None and chosen.plan["alpha_chosen"] == "from the candidates"
    assert 0.0 <= chosen.alpha <= 1.0 and chosen.plan["alpha"] == chosen.alpha
    services.preferences.update(Caller(ALICE), "search.default_alpha", 1.0)
    assert services.search.search(Caller(ALICE), "sushi").alpha == 1.0
    services.preferences.update(Caller(ALICE), "search.default_alpha", "auto")
    assert services.search.search(Caller(ALICE), "sushi").alpha == chosen.alpha


def test_filters_narrow_in_the_database(services: Services, corpus: dict[str, str]) -> None:
    every = {"min_score": -1.0}  # whatever the query's relevance: the filter alone decides
    assert set(top(services, "anything", filters={"type": "person"}, **every)) == {corpus["sarah"], corpus["mom"]}
    assert top(services, "anything", filters={"tags": {"all": ["pets"]}}, **every) == [corpus["my"]]
    assert top(services, "anything", filters={"weight": {"gte": 0.8}}, **every) == [corpus["my"]]
    assert top(services, "dog", filters={"not": {"tags": "pets"}}, alpha=0.0) == []
    assert top(services, "anything", filters={"content": {"contains": "orchid"}}, **every) == [corpus["mom"]]


def test_structured_filters(services: Services) -> None:
    for title, rating in (("Dune", 5), ("Emma", 3), ("Hyperion", 4)):
        services.memories.create(
            Caller(ALICE),
            {
                "template_id": "builtin:book_review",
                "structured_content": {"title": title, "author": "X", "rating": rating},
            },
        )
    hits = top(
        services, "books", filters={"template_id": "builtin:book_review", "structured_content.rating": {"gte": 4}}
    )
    titles = {services.memories.get(Caller(ALICE), i, record_access=False).title for i in hits}
    assert titles == {"Dune", "Hyperion"}


def test_pages_are_stable_and_cover_everything(services: Services, corpus: dict[str, str]) -> None:
    seen = []
    for offset in range(0, 8, 3):
        page = services.search.search(Caller(ALICE), "things I should remember", limit=3, offset=offset, min_score=-1)
        seen += [h.memory.id for h in page.hits]
    assert sorted(seen) == sorted(corpus.values())
    first = [
        h.memory.id
        for h in services.search.search(Caller(ALICE), "things I should remember", limit=8, min_score=-1).hits
    ]
    assert seen == first


def test_deleted_memories_are_hidden_unless_asked(services: Services, corpus: dict[str, str]) -> None:
    services.memories.delete(Caller(ALICE), corpus["had"])
    assert corpus["had"] not in top(services, "sushi at Nobu")
    assert top(services, "sushi at Nobu", deleted="only") == [corpus["had"]]
    assert top(services, "sushi at Nobu", deleted="include")[0] == corpus["had"]
    services.memories.restore(Caller(ALICE), corpus["had"])
    assert top(services, "sushi at Nobu")[0] == corpus["had"]


def test_other_users_memories_never_come_back(services: Services, corpus: dict[str, str]) -> None:
    for alpha in (0.0, 0.3, 1.0):
        hits = services.search.search(Caller(ALICE), "Bob's secret overrated sushi", alpha=alpha, limit=100).hits
        assert all(h.memory.user_id == ALICE for h in hits)
    assert services.search.search(Caller(BOB), "dog beach", limit=100, min_score=-1).hits[0].memory.user_id == BOB
    assert len(services.search.search(Caller("carol"), "sushi").hits) == 0


def test_updates_reach_the_index(services: Services, corpus: dict[str, str]) -> None:
    services.memories.update(Caller(ALICE), corpus["my"], {"content": "My cat Luna sleeps all day."})
    assert top(services, "Luna", alpha=0.0) == [corpus["my"]]
    assert top(services, "Rex", alpha=0.0) == []
    assert top(services, "kitten napping", alpha=1.0)[0] == corpus["my"]


def test_a_reply_is_found_by_the_question_before_it(services: Services) -> None:
    conversation = {"conversation_id": "chat-1"}
    services.memories.create(
        Caller(ALICE), {"content": "Tom: how long have you had your guitar?", "context": conversation}
    )
    reply = services.memories.create(Caller(ALICE), {"content": "Me: about seven years now.", "context": conversation})
    services.memories.create(
        Caller(ALICE), {"content": "Unrelated: the weather is nice.", "context": {"conversation_id": "c2"}}
    )
    assert reply.id in top(services, "guitar", alpha=0.0)


def test_purged_text_leaves_the_index_entirely(services: Services) -> None:
    conversation = {"conversation_id": "chat-1"}
    secret = services.memories.create(Caller(ALICE), {"content": "my bank pin is zebracorn", "context": conversation})
    services.memories.create(Caller(ALICE), {"content": "ok, noted", "context": conversation})
    assert top(services, "zebracorn", alpha=0.0)  # found (the reply carries it as context)
    services.memories.delete(Caller(ALICE), secret.id, permanent=True)
    assert top(services, "zebracorn", alpha=0.0) == []


def test_search_counts_access(services: Services, corpus: dict[str, str]) -> None:
    services.search.search(Caller(ALICE), "Sarah Chen", limit=1)
    assert services.memories.get(Caller(ALICE), corpus["sarah"], record_access=False).access_count == 1
    services.search.search(Caller(ALICE), "Sarah Chen", limit=1, record_access=False)
    assert services.memories.get(Caller(ALICE), corpus["sarah"], record_access=False).access_count == 1


def test_explain_says_why(services: Services, corpus: dict[str, str]) -> None:
    hit = services.search.search(Caller(ALICE), "Frank Herbert books", explain=True).hits[0]
    assert hit.why is not None
    assert hit.why["matched_terms"] == ["frank", "herbert", "books"]  # "books" is a tag
    assert hit.why["keyword"] == 1.0 and hit.why["cosine"] > 0.3


def test_weight_boost_orders_equal_matches(services: Services) -> None:
    light = services.memories.create(
        Caller(ALICE), {"content": "Project Falcon kickoff notes", "weight": 0.1, "context": {"conversation_id": "a"}}
    )
    heavy = services.memories.create(
        Caller(ALICE), {"content": "Project Falcon kickoff notes", "weight": 0.9, "context": {"conversation_id": "b"}}
    )
    assert top(services, "Project Falcon")[:2] == [heavy.id, light.id]
    services.preferences.update(Caller(ALICE), "search.weight_boost", 0.0)
    tied = services.search.search(Caller(ALICE), "Project Falcon").hits[:2]
    assert tied[0].score == tied[1].score


def test_recency_boost_orders_equal_matches(services: Services) -> None:
    old = services.memories.create(Caller(ALICE), {"content": "Budget review", "context": {"timestamp": "2020-01-01"}})
    new = services.memories.create(Caller(ALICE), {"content": "Budget review", "context": {"timestamp": "2026-02-28"}})
    services.preferences.update(Caller(ALICE), "search.recency_boost", 0.2)
    assert top(services, "budget review")[:2] == [new.id, old.id]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": None}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": "x", "alpha": 1.5}, "alpha"),
        ({"query": "x", "alpha": -0.1}, "alpha"),
        ({"query": "x", "alpha": "high"}, "alpha"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 101}, "limit"),
        ({"query": "x", "offset": -1}, "offset"),
        ({"query": "x", "deleted": "maybe"}, "deleted"),
        ({"query": "x", "filters": {"colour": "red"}}, "filters.colour"),
        ({"query": "x", "filters": {"weight": {"near": 1}}}, "filters.weight.near"),
    ],
)
def test_bad_searches_are_refused(
    services: Services, corpus: dict[str, str], kwargs: dict[str, Any], field: str
) -> None:
    query = kwargs.pop("query")
    with pytest.raises(ValidationFailed) as exc:
        services.search.search(Caller(ALICE), query, **kwargs)
    assert exc.value.errors[0].field == field


@pytest.mark.parametrize(
    "query", ['"', 'NEAR("a" "b")', "a AND OR NOT", "col:value", "*", "^start", "(((", "'; DROP TABLE memories; --"]
)
def test_fts_syntax_in_queries_is_just_text(services: Services, corpus: dict[str, str], query: str) -> None:
    for alpha in (0.0, 0.3):
        services.search.search(Caller(ALICE), query, alpha=alpha)
    assert len(services.memories.list(Caller(ALICE)).items) == len(CORPUS)


def test_find_similar(services: Services, corpus: dict[str, str]) -> None:
    hits = services.search.similar(Caller(ALICE), text_query="animals and pets", limit=3)
    assert hits[0].memory.id == corpus["my"]
    like_sarah = services.search.similar(Caller(ALICE), memory_id=corpus["mom"], limit=3)
    assert corpus["mom"] not in [h.memory.id for h in like_sarah]
    strict = services.search.similar(Caller(ALICE), text_query="animals and pets", min_similarity=0.99)
    assert strict == []
    filtered = services.search.similar(Caller(ALICE), text_query="animals", filters={"type": "book"})
    assert [h.memory.id for h in filtered] == [corpus["finished"]]


def test_find_similar_bad_input(services: Services, corpus: dict[str, str]) -> None:
    with pytest.raises(ValidationFailed, match="either memory_id or text"):
        services.search.similar(Caller(ALICE))
    with pytest.raises(ValidationFailed, match="either memory_id or text"):
        services.search.similar(Caller(ALICE), memory_id=corpus["my"], text_query="x")
    with pytest.raises(NotFound):
        services.search.similar(Caller(BOB), memory_id=corpus["my"])
    with pytest.raises(ValidationFailed, match="min_similarity"):
        services.search.similar(Caller(ALICE), text_query="x", min_similarity=2)


def test_question_context_fits_the_budget(services: Services, corpus: dict[str, str]) -> None:
    packed = question_context(
        services.search, Caller(ALICE), "What is Sarah's job?", templates=services.templates, token_budget=100
    )
    assert packed.sources[0].memory_id == corpus["sarah"]
    assert packed.text.startswith("[1] ")
    assert packed.tokens <= 100
    with pytest.raises(ValidationFailed, match="token_budget"):
        question_context(services.search, Caller(ALICE), "x", templates=services.templates, token_budget=5)


def test_a_changed_embedder_is_detected_and_reindex_fixes_it(
    store: Store, services: Services, corpus: dict[str, str], clock: Any
) -> None:
    other = Services.over(store, clock, HashEmbedder())
    with pytest.raises(ConfigError, match="remember reindex"):
        other.search.search(Caller(ALICE), "dog", alpha=1.0)
    assert other.search.search(Caller(ALICE), "Rex", alpha=0.0).hits  # keywords still work
    other.memories.create(Caller(ALICE), {"content": "written while the models differ"})
    assert reindex(other.store, other.indexer, other.templates) == len(CORPUS) + 2
    fresh = Services.over(store, clock, HashEmbedder())
    assert fresh.search.search(Caller(ALICE), "dog Rex beach", alpha=1.0).hits
    with pytest.raises(ConfigError, match="remember reindex"):
        Services.over(store, clock, services.indexer.embedder).search.search(Caller(ALICE), "dog", alpha=1.0)


def test_without_an_embedder_search_is_by_keywords(store: Store) -> None:
    plain = Services.over(store)
    plain.memories.create(Caller(ALICE), {"content": "keyword only memory"})
    assert plain.search.search(Caller(ALICE), "keyword", alpha=0.0).hits
    with pytest.raises(ConfigError, match="alpha 0"):
        plain.search.search(Caller(ALICE), "keyword", alpha=0.5)


def test_batch_create_is_all_or_nothing(services: Services) -> None:
    with pytest.raises(ValidationFailed) as exc:
        services.memories.create_many(Caller(ALICE), [{"content": "fine"}, {"content": ""}, {"weight": 3}])
    assert [e.field for e in exc.value.errors] == ["[1].content", "[2].content"]
    assert services.memories.list(Caller(ALICE)).total == 0


def test_purged_memories_leave_the_vector_search(services: Services, corpus: dict[str, str]) -> None:
    for key in ("had", "my", "dentist"):
        services.memories.delete(Caller(ALICE), corpus[key], permanent=True)
    nearest = services.search.similar(Caller(ALICE), text_query="anything at all", limit=3)
    assert len(nearest) == 3
    assert not {h.memory.id for h in nearest} & {corpus["had"], corpus["my"], corpus["dentist"]}


def test_trashed_text_no_longer_finds_the_next_memory(services: Services) -> None:
    conversation = {"conversation_id": "chat-2"}
    secret = services.memories.create(Caller(ALICE), {"content": "my bank pin is zebracorn", "context": conversation})
    reply = services.memories.create(Caller(ALICE), {"content": "ok, noted", "context": conversation})
    services.memories.delete(Caller(ALICE), secret.id)
    assert top(services, "zebracorn", alpha=0.0) == []
    services.memories.restore(Caller(ALICE), secret.id)
    assert set(top(services, "zebracorn", alpha=0.0)) == {secret.id, reply.id}


def test_other_users_words_never_change_a_users_search(store: Store, clock: Any) -> None:
    keywords_only = Services.over(store, clock)
    keywords_only.memories.create_many(Caller(ALICE), [{"content": f"invoice number {i} paid"} for i in range(1_500)])
    mine = keywords_only.memories.create(Caller(BOB), {"content": "the invoice from the plumber"})
    assert [h.memory.id for h in keywords_only.search.search(Caller(BOB), "invoice", alpha=0.0).hits] == [mine.id]


def test_a_query_of_common_words_still_searches(store: Store, clock: Any) -> None:
    keywords_only = Services.over(store, clock)
    keywords_only.memories.create_many(Caller(ALICE), [{"content": f"meeting notes {i}"} for i in range(1_200)])
    assert keywords_only.search.search(Caller(ALICE), "meeting", alpha=0.0).hits


def test_similar_never_returns_the_memory_itself(services: Services, corpus: dict[str, str]) -> None:
    near = services.search.similar(Caller(ALICE), memory_id=f"  {corpus['mom']} ", limit=3)
    assert corpus["mom"] not in [h.memory.id for h in near]


def test_the_query_is_embedded_beside_the_keyword_side(
    services: Services, corpus: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    caller = threading.get_ident()
    seen: dict[str, int] = {}
    embed, keywords = services.indexer.query_vector, services.store.index.keyword_candidates

    def embedding(question: str) -> Any:
        seen["embedded on"] = threading.get_ident()
        return embed(question)

    def keyword_side(*args: Any, **kwargs: Any) -> Any:
        seen["keywords on"] = threading.get_ident()
        return keywords(*args, **kwargs)

    expected = top(services, "who works at Google?")
    monkeypatch.setattr(services.indexer, "query_vector", embedding)
    monkeypatch.setattr(services.store.index, "keyword_candidates", keyword_side)
    assert top(services, "who works at Google?") == expected
    assert seen["keywords on"] == caller != seen["embedded on"]
    services.close()  # stops the embedding threads
    assert not any(t.name.startswith("query-vector") for t in threading.enumerate())
