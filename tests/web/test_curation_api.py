"""Curation over the dashboard's API on both backends: a selection tagged, untagged or trashed at once (checked
whole first: one id not the caller's changes nothing), and a memory erased for good only from the trash."""

from __future__ import annotations

import json
from typing import Any

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.service.relationships import RelationshipDraft
from remember.store import Store
from web_support import client


def test_a_selection_is_tagged_untagged_and_trashed(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    ann = Caller("ann")
    made = [services.memories.create(ann, {"content": f"note {n}", "tags": ["old"]}) for n in range(3)]
    ids = [m.id for m in made]
    with client(server, services, "ann") as http:
        tagged = http.post(
            "/api/memories/bulk", json={"memory_ids": ids, "add_tags": ["garden"], "remove_tags": ["old"]}
        )
        assert tagged.json() == {"selected": 3, "changed": 3}, tagged.text
        assert {services.memories.get(ann, i, record_access=False).tags for i in ids} == {("garden",)}
        again = http.post("/api/memories/bulk", json={"memory_ids": ids, "add_tags": ["garden"]})
        assert again.json() == {"selected": 3, "changed": 0}
        trashed = http.post("/api/memories/bulk", json={"memory_ids": ids[:2], "trash": True})
        assert trashed.json() == {"selected": 2, "changed": 2}
    assert [services.memories.get(ann, i, record_access=False).is_deleted for i in ids] == [True, True, False]


def test_a_bad_selection_changes_nothing(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    mine = services.memories.create(Caller("ann"), {"content": "ann's"}).id
    theirs = services.memories.create(Caller("bob"), {"content": "bob's"}).id
    before = logical_fingerprint(store, ["ann", "bob"])
    cases: list[tuple[Any, int, str]] = [
        ({"memory_ids": [mine, theirs], "trash": True}, 404, "No memory"),
        ({"memory_ids": [mine, theirs], "add_tags": ["x"]}, 404, "No memory"),
        ({"memory_ids": [], "trash": True}, 422, "memory_ids"),
        ({"memory_ids": [mine]}, 422, "Say what to do"),
        ({"memory_ids": [mine], "add_tags": "x"}, 422, "add_tags"),
        ({"memory_ids": [mine], "add_tags": [""]}, 422, "add_tags"),
        ({"memory_ids": [mine], "trash": "yes"}, 422, "trash"),
        ({"memory_ids": [mine] * 101, "trash": True}, 422, "at most 100"),
        ({"memory_ids": [mine], "trash": True, "purge": True}, 422, "purge"),
        ({"memory_ids": [mine], "add_tags": ["t" * 500]}, 422, "tag"),
    ]
    with client(server, services, "ann") as http:
        for body, status, says in cases:
            answer = http.post("/api/memories/bulk", json=body)
            assert answer.status_code == status, (body, answer.text[:300])
            assert says in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text[:300]
    assert logical_fingerprint(store, ["ann", "bob"]) == before


def test_only_a_memory_in_the_trash_is_erased_with_its_history(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    ann = Caller("ann")
    doomed = services.memories.create(ann, {"content": "to be erased", "title": "Doomed"})
    friend = services.memories.create(ann, {"content": "stays", "title": "Friend"})
    services.relationships.create(ann, RelationshipDraft([doomed.id, friend.id], "related_to"))
    theirs = services.memories.create(Caller("bob"), {"content": "bob's"})
    services.memories.delete(Caller("bob"), theirs.id)
    with client(server, services, "ann") as http:
        live = http.delete(f"/api/memories/{doomed.id}", params={"permanent": "true"})
        assert live.status_code == 422 and "move it to the trash first" in live.json()["message"]
        foreign = http.delete(f"/api/memories/{theirs.id}", params={"permanent": "true"})
        assert foreign.status_code == 404
        http.delete(f"/api/memories/{doomed.id}")
        what = http.get(f"/api/memories/{doomed.id}/erasure").json()
        assert what == {"memory_id": doomed.id, "in_trash": True, "history": 1, "relationships": 1}
        assert http.get(f"/api/memories/{theirs.id}/erasure").status_code == 404
        erased = http.delete(f"/api/memories/{doomed.id}", params={"permanent": "true"})
        assert erased.status_code == 200 and erased.json()["permanent"] is True, erased.text
        assert http.get(f"/api/memories/{doomed.id}").status_code == 404
    assert services.relationships.links(ann, [friend.id]).get(friend.id, []) == []
    assert services.memories.get(Caller("bob"), theirs.id, record_access=False).is_deleted


def test_a_template_is_applied_to_a_selection_each_memory_answered(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    ann = Caller("ann")
    idea = services.memories.create(ann, {"content": "Idea: a solar kettle for camping"}).id
    milk = services.memories.create(ann, {"content": "Buy milk"}).id
    theirs = services.memories.create(Caller("bob"), {"content": "Idea: bob's"}).id
    before = logical_fingerprint(store, ["ann", "bob"])
    with client(server, services, "ann") as http:
        refused: list[tuple[Any, int, str]] = [
            ({"memory_ids": [idea, theirs], "template_id": "builtin:idea"}, 404, "No memory"),
            ({"memory_ids": [idea], "template_id": "builtin:nothing"}, 404, "No template"),
            ({"memory_ids": [idea]}, 422, "template_id"),
            ({"memory_ids": [idea], "template_id": 3}, 422, "template_id"),
            ({"memory_ids": [idea] * 101, "template_id": "builtin:idea"}, 422, "at most 100"),
            ({"memory_ids": [idea], "template_id": "builtin:idea", "fields": {}}, 422, "fields"),
        ]
        for body, status, says in refused:
            answer = http.post("/api/memories/apply-template", json=body)
            assert answer.status_code == status, (body, answer.text[:300])
            assert says in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text[:300]
        assert logical_fingerprint(store, ["ann", "bob"]) == before
        answer = http.post(
            "/api/memories/apply-template", json={"memory_ids": [idea, milk], "template_id": "builtin:idea"}
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
    assert (body["selected"], body["applied"], body["template_id"]) == (2, 1, "builtin:idea")
    by_id = {r["memory_id"]: r for r in body["results"]}
    assert by_id[idea]["status"] == "applied" and by_id[idea]["template_compliance"] is True
    assert by_id[milk]["status"] == "failed" and "does not fit template 'Idea'" in by_id[milk]["message"]
    assert [e["field"] for e in by_id[milk]["errors"]] == ["title"]
    assert services.memories.get(ann, idea, record_access=False).template_id == "builtin:idea"
    assert services.memories.get(ann, milk, record_access=False).template_id is None
