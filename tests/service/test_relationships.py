"""Relationships between memories over both backends: writes, tenancy, trust, the trash, search and walks."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed
from remember.service import RelationshipDraft, Services
from remember.service.related import MAX_RELATED, Criteria

ALICE, BOB = "alice", "bob"


def memory(services: Services, content: str, user: str = ALICE, **fields: Any) -> str:
    return services.memories.create(Caller(user), {"content": content, **fields}).id


def relate(
    services: Services, ids: list[str], kind: str = "works_with", user: str | Caller = ALICE, **more: Any
) -> str:
    draft = RelationshipDraft(memory_ids=ids, relationship_type=kind, **more)
    return services.relationships.create(user if isinstance(user, Caller) else Caller(user), draft).id


@pytest.fixture
def people(services: Services) -> list[str]:
    return [
        memory(services, "Sarah is a product manager at Google."),
        memory(services, "Tom is an engineer on Sarah's team."),
        memory(services, "Priya mentors Tom in distributed systems."),
        memory(services, "The Lisbon offsite is in May."),
    ]


def problems(exc: pytest.ExceptionInfo[ValidationFailed]) -> list[tuple[str, str]]:
    return [(e.field, e.code) for e in exc.value.errors]


def test_create_applies_defaults_and_reads_back(services: Services, people: list[str]) -> None:
    rid = relate(services, people[:2], observation="Tom reports to Sarah since March.")
    rel = services.relationships.get(Caller(ALICE), rid)
    assert rel.memory_ids == tuple(people[:2])
    assert (rel.relationship_type, rel.strength, rel.confidence, rel.version, rel.tags) == (
        "works_with",
        0.5,
        0.8,
        1,
        (),
    )
    assert rel.observation == "Tom reports to Sarah since March."
    links = services.relationships.links(Caller(ALICE), [people[0], people[3]])
    assert [r.id for r in links[people[0]]] == [rid] and links[people[3]] == []


def test_bad_input_is_refused_all_at_once_and_nothing_is_stored(services: Services, people: list[str]) -> None:
    bad = RelationshipDraft(
        memory_ids=[people[0]], relationship_type="", observation="x" * 10_001, strength=2, confidence="high",
        tags=[""],
    )  # fmt: skip
    with pytest.raises(ValidationFailed) as exc:
        services.relationships.create(Caller(ALICE), bad)
    fields = {f for f, _ in problems(exc)}
    assert {"memory_ids", "relationship_type", "observation", "strength", "confidence", "tags[0]"} <= fields
    for ids in ([people[0], people[0]], "not a list", [people[0], 7], [people[0], "\x00" * 300]):
        with pytest.raises(ValidationFailed):
            relate(services, ids)  # type: ignore[arg-type]
    with pytest.raises(ValidationFailed):
        relate(services, people * 6)  # 24 members: more than 20
    assert services.related.search(Caller(ALICE)).hits == []


def test_other_users_memories_cannot_be_linked_seen_or_changed(services: Services, people: list[str]) -> None:
    bobs = memory(services, "Bob's dentist is Dr Who.", user=BOB)
    with pytest.raises(NotFound, match="No memory with id"):
        relate(services, [people[0], bobs])
    with pytest.raises(NotFound):
        relate(services, [people[0], bobs], user=BOB)
    rid = relate(services, people[:2])
    with pytest.raises(NotFound, match="No relationship"):
        services.relationships.get(Caller(BOB), rid)
    with pytest.raises(NotFound):
        services.relationships.update(Caller(BOB), rid, {"strength": 0.1})
    with pytest.raises(NotFound):
        services.relationships.delete(Caller(BOB), rid)
    assert services.related.search(Caller(BOB), "Sarah").hits == []
    with pytest.raises(NotFound):
        services.related.related(Caller(BOB), people[0])
    assert services.relationships.get(Caller(ALICE), rid).strength == 0.5


def test_update_is_partial_bumps_the_version_and_keeps_history(services: Services, people: list[str]) -> None:
    rid = relate(services, people[:2], observation="Colleagues.")
    after = services.relationships.update(
        Caller(ALICE), rid, {"strength": 0.9, "memory_ids": people[:3], "tags": ["Work"]}, reason="Priya joined"
    )
    assert (after.version, after.strength, after.memory_ids, after.tags) == (2, 0.9, tuple(people[:3]), ("work",))
    assert after.observation == "Colleagues." and after.confidence == 0.8
    assert services.relationships.get(Caller(ALICE), rid) == after
    [entry] = services.relationships.history(Caller(ALICE), rid)
    assert entry.version == 1 and entry.reason == "Priya joined"
    assert entry.previous == {"strength": 0.5, "memory_ids": people[:2], "tags": []}
    with pytest.raises(ValidationFailed):
        services.relationships.update(Caller(ALICE), rid, {"memory_ids": [people[0]]})
    assert services.relationships.get(Caller(ALICE), rid).version == 2


def test_delete_keeps_the_memories(services: Services, people: list[str]) -> None:
    rid = relate(services, people[:2])
    services.relationships.delete(Caller(ALICE), rid)
    with pytest.raises(NotFound):
        services.relationships.get(Caller(ALICE), rid)
    assert services.memories.get(Caller(ALICE), people[0], record_access=False).content.startswith("Sarah")
    assert services.relationships.links(Caller(ALICE), [people[0]])[people[0]] == []


def test_a_trashed_member_hides_the_relationship_until_restored(services: Services, people: list[str]) -> None:
    rid = relate(services, people[:3], observation="The platform team.")
    services.memories.delete(Caller(ALICE), people[2])
    with pytest.raises(NotFound):
        services.relationships.get(Caller(ALICE), rid)
    assert services.relationships.links(Caller(ALICE), [people[0]])[people[0]] == []
    assert services.related.search(Caller(ALICE), "platform team").hits == []
    with pytest.raises(ValidationFailed, match="trash"):
        relate(services, [people[0], people[2]])
    services.memories.restore(Caller(ALICE), people[2])
    assert services.relationships.get(Caller(ALICE), rid).memory_ids == tuple(people[:3])


def test_erasing_a_member_removes_it_and_drops_a_link_left_with_one(services: Services, people: list[str]) -> None:
    trio = relate(services, people[:3])
    pair = relate(services, [people[2], people[3]])
    services.memories.delete(Caller(ALICE), people[2], permanent=True)
    assert services.relationships.get(Caller(ALICE), trio).memory_ids == tuple(people[:2])
    with pytest.raises(NotFound):
        services.relationships.get(Caller(ALICE), pair)
    assert services.relationships.links(Caller(ALICE), [people[3]])[people[3]] == []


def test_trust_hides_links_to_memories_above_the_callers_level(services: Services, people: list[str]) -> None:
    secret = memory(services, "Sarah's salary is confidential.", trust=0.9)
    rid = relate(services, [people[0], secret], kind="about", observation="Sarah salary details")
    open_rid = relate(services, people[:2], observation="Sarah leads Tom")
    with pytest.raises(NotFound):
        services.relationships.get(Caller(ALICE, 0.5), rid)
    with pytest.raises(NotFound, match="No memory"):
        relate(services, [people[1], secret], user=Caller(ALICE, 0.5))
    assert [h.relationship.id for h in services.related.search(Caller(ALICE, 0.5), "Sarah").hits] == [open_rid]
    assert [r.id for r in services.relationships.links(Caller(ALICE, 0.5), [people[0]])[people[0]]] == [open_rid]
    assert [r.memory.id for r in services.related.related(Caller(ALICE, 0.5), people[0])] == [people[1]]
    with pytest.raises(NotFound):
        services.related.related(Caller(ALICE, 0.5), secret)
    with pytest.raises(NotFound):
        services.relationships.delete(Caller(ALICE, 0.5), rid)
    assert services.relationships.get(Caller(ALICE), rid).memory_ids == (people[0], secret)


def test_search_is_hybrid_and_filters(services: Services, people: list[str]) -> None:
    mentor = relate(services, [people[1], people[2]], kind="mentors", observation="Priya mentors Tom weekly",
                    strength=0.9, tags=["growth"])  # fmt: skip
    team = relate(services, people[:2], kind="works_with", observation="Sarah manages Tom's team", strength=0.4)
    trip = relate(services, [people[0], people[3]], kind="attends", observation="Sarah is going to Lisbon")
    search = services.related.search
    assert search(Caller(ALICE), "mentoring", alpha=0.0).hits[0].relationship.id == mentor  # stemmed keyword
    assert search(Caller(ALICE), "a trip to Portugal", alpha=1.0).hits[0].relationship.id == trip  # by meaning
    assert {h.relationship.id for h in search(Caller(ALICE), "Tom", criteria=Criteria(min_strength=0.6)).hits} == {
        mentor
    }
    assert [h.relationship.id for h in search(Caller(ALICE), "Sarah", criteria=Criteria(types=["attends"])).hits] == [
        trip
    ]
    by_member = search(Caller(ALICE), criteria=Criteria(memory_id=people[3]))
    assert [h.relationship.id for h in by_member.hits] == [trip] and by_member.total == 1
    assert [h.relationship.id for h in search(Caller(ALICE), "Tom", criteria=Criteria(tags=["growth"])).hits] == [
        mentor
    ]
    page = search(Caller(ALICE), limit=2)
    assert (len(page.hits), page.has_more, page.total) == (2, True, 3)
    assert [h.relationship.id for h in search(Caller(ALICE), limit=2, offset=2).hits] == [mentor]
    assert team in {h.relationship.id for h in search(Caller(ALICE), "team").hits}
    later = search(Caller(ALICE), criteria=Criteria(created_after="2999-01-01"))
    assert later.hits == []
    with pytest.raises(ValidationFailed) as exc:
        search(Caller(ALICE), "x", alpha=3, criteria=None)
    with pytest.raises(ValidationFailed) as exc:
        search(Caller(ALICE), criteria=Criteria(types="mentors", min_strength=-1, created_before="soon"))
    assert {f for f, _ in problems(exc)} == {"types", "min_strength", "created_before"}


def test_related_walks_with_paths_within_depth(services: Services, people: list[str]) -> None:
    first = relate(services, people[:2], kind="manages")
    second = relate(services, people[1:3], kind="mentored_by", strength=0.3)
    third = relate(services, [people[2], people[3]], kind="attends")
    one = services.related.related(Caller(ALICE), people[0])
    assert [(r.memory.id, r.depth) for r in one] == [(people[1], 1)]
    three = services.related.related(Caller(ALICE), people[0], depth=3)
    assert [(r.memory.id, r.depth) for r in three] == [(people[1], 1), (people[2], 2), (people[3], 3)]
    assert [s.relationship_id for s in three[-1].path] == [first, second, third]
    strong = services.related.related(Caller(ALICE), people[0], depth=3, min_strength=0.5)
    assert [r.memory.id for r in strong] == [people[1]]
    typed = services.related.related(Caller(ALICE), people[1], depth=2, types=["manages"])
    assert [r.memory.id for r in typed] == [people[0]]
    for bad in (0, 4, "2"):
        with pytest.raises(ValidationFailed):
            services.related.related(Caller(ALICE), people[0], depth=bad)


def test_a_walk_from_a_hub_stops_at_its_bounds(services: Services) -> None:
    hub = memory(services, "the hub")
    made = services.memories.create_many(Caller(ALICE), [{"content": f"spoke {i}"} for i in range(190)])
    spokes = [m.id for m in made]
    for at in range(0, len(spokes), 19):
        relate(services, [hub, *spokes[at : at + 19]], kind="part_of")
    walked = services.related.related(Caller(ALICE), hub, depth=3)
    assert len(walked) == MAX_RELATED and all(r.depth == 1 for r in walked)
    links = services.store.relationships.links_of(ALICE, [hub, *spokes[:40]], trust=1.0, limit=25)
    assert sum(len(found) for found in links.values()) == 25
    assert len(services.store.relationships.links_of(ALICE, [hub], trust=1.0)[hub]) == 10


def test_the_filter_language_counts_relationships(services: Services, people: list[str]) -> None:
    relate(services, people[:2])
    relate(services, people[1:3])

    def listed(filters: dict[str, Any]) -> set[str]:
        return {m.id for m in services.memories.list(Caller(ALICE), filters=filters).items}

    assert listed({"relationship_count": {"gte": 2}}) == {people[1]}
    assert listed({"relationship_count": 0}) == {people[3]}
    assert listed({"relationship_count": {"gte": 1, "lte": 1}}) == {people[0], people[2]}
    assert listed({"relationship_count": {"nin": [0, 2]}}) == {people[0], people[2]}
    found = services.search.search(Caller(ALICE), "Tom", filters={"relationship_count": {"gt": 1}}, record_access=False)
    assert [h.memory.id for h in found.hits] == [people[1]]
    for bad in ({"relationship_count": {"gte": -1}}, {"relationship_count": "two"}, {"relationship_count": 1.5},
                {"relationship_count": {"contains": 1}}):  # fmt: skip
        with pytest.raises(ValidationFailed):
            services.memories.list(Caller(ALICE), filters=bad)
