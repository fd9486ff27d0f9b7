"""A search over several spaces answers exactly what the spaces searched one by one and merged answer.

The spaces' shared work (the question embedded once, the full-text candidates of every space found in one
query: ``service/shared_search.py``) is checked against each space's own search over random memories, on
both backends, with every option that changes a space's search.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.models import IndexEntry, Memory
from remember.search import text
from remember.service import Services, space_reads
from remember.service.indexer import Indexer
from remember.service.search import Hit

ANN = Caller("ann")
WORDS = [f"w{n}" for n in range(40)] + ["boiler", "garden", "launch", "piano", "river", "ticket"]


def _word(rng: random.Random) -> str:
    """A word of the vocabulary, the first ones far more often (common and rare terms, ties in bm25)."""
    return WORDS[min(int(rng.expovariate(0.12)), len(WORDS) - 1)]


def _fill(services: Services, owner: str, count: int, rng: random.Random) -> None:
    """``count`` random memories of ``owner``, embedded by the real model, some deleted, some of conversations."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    memories = []
    for n in range(count):
        at = start + timedelta(minutes=rng.randrange(500_000))
        content = " ".join(_word(rng) for _ in range(rng.randint(1, 8)))
        memories.append(
            Memory(
                id=f"{owner.strip('~')[:6]}-{n:04}",
                user_id=owner,
                content=content,
                type="note",
                weight=round(rng.random(), 2),
                trust=rng.choice([0.3, 0.6, 1.0]),
                created_at=at,
                updated_at=at,
                occurred_at=at,
                tags=(rng.choice(["red", "blue"]),),
                deleted_at=at if rng.random() < 0.1 else None,
                context={"conversation_id": f"c{rng.randrange(6)}"} if rng.random() < 0.5 else {},
            )
        )
    vectors = services.indexer.vectors([m.content for m in memories])
    services.store.memories.insert_many(
        [
            (m, IndexEntry(Indexer.keyword_text(m, None), text.date_text(m.occurred_at), v))
            for m, v in zip(memories, vectors, strict=True)
        ]
    )


@pytest.fixture
def spaces(services: Services) -> list[Caller]:
    """Ann's personal space and three spaces of hers, of random memories."""
    rng = random.Random(45)
    services.indexer.state()
    owners = ["ann"] + [services.spaces.create(ANN, f"Space {n}").space.key for n in range(3)]
    for owner, count in zip(owners, (40, 120, 90, 60), strict=True):
        _fill(services, owner, count, rng)
    return services.spaces.reading(ANN, None)


def _one_by_one(services: Services, callers: list[Caller], query: str, limit: int, **options: Any) -> list[Hit]:
    """Each space searched alone, the hits merged by score: what a search over the spaces answers."""
    hits = [
        h for c in callers for h in services.search.search(c, query, limit=limit, record_access=False, **options).hits
    ]
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    return hits[:limit]


def _seen(hits: list[Hit]) -> list[tuple[str, str, float]]:
    return [(h.memory.user_id, h.memory.id, h.score) for h in hits]


OPTIONS: list[dict[str, Any]] = [
    {},
    {"alpha": 0.0},
    {"alpha": 0.4},
    {"alpha": 1.0},
    {"deleted": "include"},
    {"deleted": "only"},
    {"filters": {"tags": {"contains": "red"}}},
    {"min_score": 0.0},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_the_spaces_searched_together_answer_as_each_searched_alone(
    services: Services, spaces: list[Caller], options: dict[str, Any]
) -> None:
    rng = random.Random(str(options))
    answered = 0
    for _ in range(12):
        query = " ".join(_word(rng) for _ in range(rng.randint(1, 5))) + rng.choice(["", " nowhere"])
        limit = rng.choice([1, 5, 10, 30])
        together = space_reads.search(services.search, spaces, query, limit=limit, record_access=False, **options)
        assert _seen(together.hits) == _seen(_one_by_one(services, spaces, query, limit, **options)), query
        answered += bool(together.hits)
    assert answered >= 6  # most queries find something: the comparison is never of two empty lists


def test_a_token_below_full_trust_sees_the_same_through_the_shared_search(
    services: Services, spaces: list[Caller]
) -> None:
    low = services.spaces.reading(Caller("ann", 0.6), None)
    rng = random.Random(6)
    for _ in range(12):
        query = " ".join(_word(rng) for _ in range(rng.randint(1, 4)))
        together = space_reads.search(services.search, low, query, limit=10, record_access=False)
        assert _seen(together.hits) == _seen(_one_by_one(services, low, query, 10))
        assert together.hits and all(h.memory.trust <= 0.6 for h in together.hits)


def test_the_store_finds_every_owner_s_keyword_candidates_as_it_finds_each_alone(
    services: Services, spaces: list[Caller]
) -> None:
    index = services.store.index
    owners = [c.user for c in spaces]
    rng = random.Random(9)
    for _ in range(30):
        terms = sorted({_word(rng) for _ in range(rng.randint(1, 4))})
        also = [_word(rng) for _ in range(rng.randint(0, 2))]
        deleted = rng.choice(["exclude", "include", "only"])
        limit = rng.choice([1, 3, 50])
        together = index.keyword_candidates_of(owners, terms, deleted=deleted, limit=limit, also=also)
        alone = {
            o: index.keyword_candidates(o, terms, filter=None, deleted=deleted, limit=limit, also=also) for o in owners
        }
        assert together == alone
        assert any(together.values())
    assert index.keyword_candidates_of(owners, [], deleted="exclude", limit=5) == {o: [] for o in owners}
    assert index.keyword_candidates_of(["nobody", owners[1]], ["boiler"], deleted="exclude", limit=5)["nobody"] == []


def test_an_owner_alone_in_the_database_is_found_as_alone(services: Services) -> None:
    """One owner holding every row is ranked by its own route (the full-text index alone), as alone."""
    services.indexer.state()
    _fill(services, "ann", 80, random.Random(3))
    index = services.store.index
    for terms in (["w0"], ["w1", "w7"], ["garden", "w2"]):
        together = index.keyword_candidates_of(["ann", "ben"], terms, deleted="exclude", limit=10)
        assert together == {
            o: index.keyword_candidates(o, terms, filter=None, deleted="exclude", limit=10) for o in ("ann", "ben")
        }
        assert together["ann"] and together["ben"] == []


@pytest.mark.parametrize(
    ("query", "options", "field"),
    [
        ("", {}, "query"),
        ("   ", {}, "query"),
        ("x" * 100_000, {}, "query"),
        (None, {}, "query"),
        ("boiler", {"deleted": "sometimes"}, "deleted"),
        ("boiler", {"alpha": 3}, "alpha"),
        ("boiler", {"alpha": "half"}, "alpha"),
        ("boiler", {"filters": {"tags": {"near": 1}}}, "filters"),
        ("boiler", {"alpha": 3, "deleted": "sometimes"}, "alpha"),  # the first problem, as one space's search says
        ("boiler", {"min_score": 7, "deleted": "sometimes"}, "min_score"),
    ],
)
def test_a_bad_search_over_spaces_says_what_to_fix_and_changes_nothing(
    services: Services, spaces: list[Caller], query: Any, options: dict[str, Any], field: str
) -> None:
    with services.store.sql.reading() as s:
        before = sorted(map(repr, s.all("SELECT * FROM memories")))
    with pytest.raises(ValidationFailed) as caught:
        space_reads.search(services.search, spaces, query, limit=10, **options)
    assert [e.field.split(".")[0] for e in caught.value.errors] == [field]
    with pytest.raises(ValidationFailed) as alone:
        services.search.search(spaces[1], query, limit=10, **options)
    assert str(caught.value) == str(alone.value)
    with services.store.sql.reading() as s:
        assert sorted(map(repr, s.all("SELECT * FROM memories"))) == before


def test_a_space_the_caller_is_not_in_is_not_searched(services: Services, spaces: list[Caller]) -> None:
    from remember.errors import NotFound

    theirs = services.spaces.create(Caller("ben"), "Ben's").space.key
    _fill(services, theirs, 30, random.Random(8))
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.reading(ANN, [theirs])
    found = space_reads.search(services.search, spaces, "w0 w1 w2", limit=100, record_access=False)
    assert found.hits and theirs not in {h.memory.user_id for h in found.hits}


def test_the_spaces_full_text_candidates_are_found_together_and_the_question_embedded_once(
    services: Services, spaces: list[Caller], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    index, indexer = services.store.index, services.indexer
    calls: dict[str, list[Any]] = {"alone": [], "together": [], "embedded": []}
    alone, together, embed = index.keyword_candidates, index.keyword_candidates_of, indexer.query_vector

    def one(owner: str, *args: Any, **kwargs: Any) -> Any:
        calls["alone"].append(owner)
        return alone(owner, *args, **kwargs)

    def many(owners: list[str], *args: Any, **kwargs: Any) -> Any:
        calls["together"].append(list(owners))
        return together(owners, *args, **kwargs)

    def embedded(question: str) -> Any:
        calls["embedded"].append(question)
        return embed(question)

    monkeypatch.setattr(index, "keyword_candidates", one)
    monkeypatch.setattr(index, "keyword_candidates_of", many)
    monkeypatch.setattr(indexer, "query_vector", embedded)
    found = space_reads.search(services.search, spaces, "garden river w3", limit=10, record_access=False)
    assert found.hits and calls["embedded"] == ["garden river w3"]
    owners = sorted(c.user for c in spaces)
    # SQLite finds them in one query; PostgreSQL ranks each owner's rows by its own query, side by side
    together = sorted(o for group in calls["together"] for o in group)
    assert (together, sorted(calls["alone"])) == ((owners, []) if backend == "sqlite" else ([], owners))


def test_memories_similar_to_a_text_over_spaces_are_each_space_s_merged_the_text_embedded_once(
    services: Services, spaces: list[Caller], monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded: list[str] = []
    embed = services.indexer.query_vector

    def counted(question: str) -> Any:
        embedded.append(question)
        return embed(question)

    monkeypatch.setattr(services.indexer, "query_vector", counted)
    for text_query, limit in (("garden river", 10), ("w0 w1 piano", 3), ("ticket", 50)):
        embedded.clear()
        found = space_reads.similar(services.search, spaces, text_query=text_query, limit=limit)
        assert embedded == [text_query]
        each = [h for c in spaces for h in services.search.similar(c, text_query=text_query, limit=limit)]
        each.sort(key=lambda h: (-h.score, h.memory.id))
        assert _seen(found) == _seen(each[:limit]) and found
    with pytest.raises(ValidationFailed) as caught:
        space_reads.similar(services.search, spaces, text_query="  ", limit=5)
    assert [e.field for e in caught.value.errors] == ["text"]
