"""Duplicates over the dashboard's API on both backends: a memory names the ones it may duplicate, and a merge
keeps one, folds in the other's tags, references and relationships, records it in the kept one's history and
moves the other to the trash, restorable; another user's ids, above-trust memories and bad bodies change nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.service.relationships import RelationshipDraft
from remember.store import Store
from web_support import WRITE, client


def test_a_duplicate_is_named_then_merged_into_the_one_kept(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    ann = Caller("ann")
    keep = services.memories.create(ann, {"content": "The dentist is on Elm Street", "tags": ["health"]})
    twin = services.memories.create(ann, {"content": "The dentist is on Elm Street", "title": "Dentist",
                                          "tags": ["town"], "references": ["https://example.org/dentist"]})  # fmt: skip
    friend = services.memories.create(ann, {"content": "Dr Okafor", "title": "Okafor"})
    unrelated = services.memories.create(ann, {"content": "Tulips flower in April"})
    works = services.relationships.create(ann, RelationshipDraft([friend.id, twin.id], "works_at"))
    same = services.relationships.create(ann, RelationshipDraft([keep.id, twin.id], "same_as"))
    trio = services.relationships.create(ann, RelationshipDraft([friend.id, twin.id, keep.id], "met_at"))
    with client(server, services, "ann") as http:
        found = http.get(f"/api/memories/{keep.id}/duplicates").json()["duplicates"]
        assert [(d["memory_id"], d["match"], d["title"]) for d in found] == [(twin.id, "same", "Dentist")]
        assert http.get(f"/api/memories/{unrelated.id}/duplicates").json() == {"duplicates": []}
        merged = http.post("/api/memories/merge", json={"keep": keep.id, "merge": twin.id, "versions": [1, 1]})
        assert merged.status_code == 200, merged.text
        assert merged.json() == {"kept": keep.id, "version": 2, "trashed": twin.id,
                                 "relationships_moved": sorted([works.id, trio.id]),
                                 "relationships_dropped": [same.id]}  # fmt: skip
        history = http.get(f"/api/memories/{keep.id}").json()["history"]
        assert history[0]["action"] == "merge" and twin.id in history[0]["reason"]
        assert history[0]["previous"] == {"tags": ["health"], "references": [], "title": None}
        assert http.get(f"/api/memories/{keep.id}/duplicates").json() == {"duplicates": []}
        assert http.post(f"/api/memories/{twin.id}/restore").status_code == 200  # restorable
    kept = services.memories.get(ann, keep.id, record_access=False)
    assert (kept.tags, kept.references, kept.title) == (("health", "town"), ("https://example.org/dentist",), "Dentist")
    links = services.relationships.links(ann, [keep.id])[keep.id]
    assert sorted((r.relationship_type, r.memory_ids) for r in links) == [
        ("met_at", (friend.id, keep.id)),
        ("works_at", (friend.id, keep.id)),
    ]
    assert services.relationships.history(ann, works.id)[0].reason == f"merged {twin.id} into {keep.id}"


def test_a_bad_merge_changes_nothing(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    ann, bob = Caller("ann"), Caller("bob")
    mine = services.memories.create(ann, {"content": "mine"}).id
    other = services.memories.create(ann, {"content": "mine too"}).id
    secret = services.memories.create(ann, {"content": "mine, secret", "trust": 0.9}).id
    trashed = services.memories.create(ann, {"content": "mine, trashed"}).id
    services.memories.delete(ann, trashed)
    theirs = services.memories.create(bob, {"content": "bob's"}).id
    services.memories.create(ann, {"content": "mine", "trust": 0.9})  # a twin the session cannot see
    services.memories.create(bob, {"content": "mine"})  # another user's twin
    before = logical_fingerprint(store, ["ann", "bob"])
    cases: list[tuple[Any, int, str]] = [
        ({"keep": mine, "merge": theirs}, 404, "No memory"),
        ({"keep": theirs, "merge": mine}, 404, "No memory"),
        ({"keep": mine, "merge": secret}, 404, "No memory"),
        ({"keep": mine, "merge": mine}, 422, "two different memories"),
        ({"keep": mine, "merge": trashed}, 422, "restore it first"),
        ({"keep": mine, "merge": other, "versions": [1, 5]}, 409, "changed since you read it"),
        ({"keep": mine, "merge": other, "versions": "1,1"}, 422, "versions"),
        ({"keep": mine}, 422, "merge is the id"),
        ({"keep": mine, "merge": ["x"]}, 422, "merge is the id"),
        ({"keep": mine, "merge": "x" * 201}, 422, "merge is the id"),
        ({"keep": mine, "merge": other, "purge": True}, 422, "Send only"),
        ([mine, other], 422, "JSON object"),
    ]
    with client(server, services, "ann", trust_level=0.5) as http:
        for body, status, says in cases:
            answer = http.post("/api/memories/merge", json=body)
            assert answer.status_code == status, (body, answer.text[:300])
            assert says in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text[:300]
        assert http.get(f"/api/memories/{mine}/duplicates").json() == {"duplicates": []}
        assert http.get(f"/api/memories/{theirs}/duplicates").status_code == 404
        assert http.get(f"/api/memories/{secret}/duplicates").status_code == 404
    with httpx2.Client(base_url=server.url, headers=WRITE) as anonymous:
        assert anonymous.post("/api/memories/merge", json={"keep": mine, "merge": other}).status_code == 401
    with client(server, services, "ann") as http:
        without_header = http.post("/api/memories/merge", json={"keep": mine, "merge": other},
                                   headers={"X-Remember-Request": ""})  # fmt: skip
        assert without_header.status_code == 403
    assert logical_fingerprint(store, ["ann", "bob"]) == before
