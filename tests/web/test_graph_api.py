"""The graph of the whole memory over the dashboard's API, on both backends: filters narrow it, ended
relationships stay hidden unless asked for, the most connected memories are kept past the limit and the answer
says so, another user's or an above-trust memory never appears (nor a relationship touching one), and hostile
filters are refused with a message naming the fix."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.service.relationships import RelationshipDraft
from remember.store import Store
from web_support import client

PERSON = "builtin:person"


def person(services: Services, user: str, name: str, **more: Any) -> str:
    draft = {"template_id": PERSON, "structured_content": {"name": name, "relationship": "friend"}, **more}
    return services.memories.create(Caller(user), draft).id


def note(services: Services, user: str, text: str, **more: Any) -> str:
    return services.memories.create(Caller(user), {"content": text, "title": text, **more}).id


def relate(services: Services, user: str, ids: list[str], kind: str, **more: Any) -> str:
    return services.relationships.create(Caller(user), RelationshipDraft(ids, kind, **more)).id


def labels(answer: dict[str, Any]) -> set[str]:
    return {n["label"] for n in answer["nodes"]}


def test_filters_narrow_the_graph(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    ann = person(services, "ann", "Ann")
    bob = person(services, "ann", "Bob")
    trip = note(services, "ann", "Trip to Lisbon", tags=["travel"], context={"timestamp": "2024-05-01"})
    book = note(services, "ann", "A book on Lisbon", context={"timestamp": "2021-01-01"})
    relate(services, "ann", [ann, trip], "went_on")
    relate(services, "ann", [bob, trip], "went_on")
    relate(services, "ann", [book, trip], "inspired")
    relate(services, "ann", [ann, bob], "knows", valid_from="2010-01-01", valid_until="2015-01-01")
    with client(server, services, "ann") as http:
        whole = http.get("/api/graph").json()
        assert labels(whole) == {"Ann", "Bob", "Trip to Lisbon", "A book on Lisbon"}
        assert len(whole["edges"]) == 3 and whole["total_relationships"] == 3 and whole["sampled"] is False
        assert {t["relationship_type"]: t["count"] for t in whole["types"]} == {"went_on": 2, "inspired": 1, "knows": 1}
        assert whole["template_names"] == {PERSON: "Person Profile"}
        by_type = http.get("/api/graph", params={"type": "inspired"}).json()
        assert labels(by_type) == {"Trip to Lisbon", "A book on Lisbon"}
        by_template = http.get("/api/graph", params={"template": PERSON}).json()
        assert labels(by_template) == {"Ann", "Bob", "Trip to Lisbon"}  # a person in each, their members drawn
        by_tag = http.get("/api/graph", params={"tag": "Travel"}).json()
        assert len(by_tag["edges"]) == 3
        happened = http.get("/api/graph", params={"since": "2020-01-01", "until": "2022-01-01"}).json()
        assert [e["relationship_type"] for e in happened["edges"]] == ["inspired"]
        ended = http.get("/api/graph", params={"include_ended": "true", "type": "knows"}).json()
        assert [e["relationship_type"] for e in ended["edges"]] == ["knows"]
        assert ended["edges"][0]["valid_until"].startswith("2015-01-01")
        valid = {"include_ended": "1", "dated_by": "valid", "since": "2012-01-01", "until": "2013-01-01"}
        assert [e["relationship_type"] for e in http.get("/api/graph", params=valid).json()["edges"]] == ["knows"]
        none = http.get("/api/graph", params={"type": "no_such_type"}).json()
        assert none["nodes"] == [] and none["edges"] == [] and none["total_memories"] == 0


def test_past_the_limit_the_most_connected_are_kept_and_it_says_so(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    hub = note(services, "ann", "Hub")
    second = note(services, "ann", "Second")
    leaves = [note(services, "ann", f"Leaf {n}") for n in range(4)]
    for leaf in leaves:
        relate(services, "ann", [hub, leaf], "holds")
    relate(services, "ann", [second, hub], "near")
    relate(services, "ann", [second, leaves[0]], "near")
    relate(services, "ann", [second, leaves[3]], "near")
    relate(services, "ann", [hub, second, leaves[0]], "trio")
    relate(services, "ann", [hub, second, leaves[1]], "other_trio")
    with client(server, services, "ann") as http:
        answer = http.get("/api/graph", params={"limit": 3}).json()
    assert answer["sampled"] is True and answer["limit"] == 3 and answer["max_edges"] == 5_000
    assert answer["total_memories"] == 6 and answer["total_relationships"] == 9
    assert [(n["label"], n["degree"]) for n in answer["nodes"]] == [("Hub", 7), ("Second", 5), ("Leaf 0", 3)]
    drawn = sorted((e["relationship_type"], e["memory_ids"]) for e in answer["edges"])
    assert drawn == sorted([
        ("holds", [hub, leaves[0]]), ("near", [second, hub]), ("near", [second, leaves[0]]),
        ("other_trio", [hub, second]),  # a member left out of the graph is left out of the line
        ("trio", [hub, second, leaves[0]]),
    ])  # fmt: skip


def test_another_users_and_above_trust_memories_never_appear(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    mine = note(services, "ann", "Mine")
    other = note(services, "ann", "Other")
    secret = note(services, "ann", "Secret", trust=0.9)
    trashed = note(services, "ann", "Trashed")
    relate(services, "ann", [mine, other], "plain")
    relate(services, "ann", [mine, secret], "hidden")
    relate(services, "ann", [mine, trashed], "gone")
    services.memories.delete(Caller("ann"), trashed)
    bobs = [note(services, "bob", f"Bob's {n}") for n in range(2)]
    relate(services, "bob", bobs, "bobs")
    with client(server, services, "ann", trust_level=0.5) as http:
        low = http.get("/api/graph").json()
        assert labels(low) == {"Mine", "Other"} and [e["relationship_type"] for e in low["edges"]] == ["plain"]
        assert low["total_relationships"] == 1 and low["total_memories"] == 2
        assert [t["relationship_type"] for t in low["types"]] == ["plain"]
        assert http.get("/api/graph", params={"type": "hidden"}).json()["nodes"] == []
    with client(server, services, "ann") as http:
        assert labels(http.get("/api/graph").json()) == {"Mine", "Other", "Secret"}
    with client(server, services, "bob") as http:
        assert labels(http.get("/api/graph").json()) == {"Bob's 0", "Bob's 1"}
    assert httpx2.get(f"{server.url}/api/graph").status_code == 401


def test_hostile_filters_are_refused_clearly(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    relate(services, "ann", [note(services, "ann", "a"), note(services, "ann", "b")], "knows")
    before = logical_fingerprint(store, ["ann"])
    cases: list[tuple[Any, str]] = [
        ({"limit": "0"}, "limit is a whole number from 1 to 2000"),
        ({"limit": "2001"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"since": "yesterday"}, "since"),
        ({"since": "2024-01-01", "until": "2023-01-01"}, "until must be after since"),
        ({"dated_by": "created"}, "dated_by is happened"),
        ({"include_ended": "maybe"}, "include_ended is true or false"),
        ({"type": "x" * 101}, "the limit is 100"),
        ({"type": "a\tb"}, "one line"),
        ({"template": "t\x00"}, "NUL"),
        ({"tag": ["t"] * 21}, "at most 20"),
        ({"colour": "red"}, "Filter the graph by type, template, tag"),
        ({"limit": ["1", "2"]}, "Give limit once"),
    ]
    with client(server, services, "ann") as http:
        for params, says in cases:
            answer = http.get("/api/graph", params=params)
            assert answer.status_code == 422, (params, answer.text[:300])
            body = answer.json()
            assert says in body["message"] + json.dumps(body.get("errors", [])), (params, answer.text[:300])
            assert len(answer.content) < 4_000
    assert logical_fingerprint(store, ["ann"]) == before
