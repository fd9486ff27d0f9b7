"""The memories API on both backends: keyset pages, the version check, and hostile or malformed
input answered with a clear message while nothing stored changes."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.store import Store

WRITE = {"X-Remember-Request": "1"}


def client(server: HttpServer, services: Services, user: str) -> httpx2.Client:
    token = services.tokens.create(user).secret
    return httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_keyset_pages_walk_every_memory_once_in_order(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    made = [services.memories.create(Caller("ann"), {"content": f"note {n}", "weight": n / 30}) for n in range(23)]
    services.memories.create(Caller("bob"), {"content": "not ann's"})
    with client(server, services, "ann") as http:
        for sort_by, order in (("created_at", "desc"), ("weight", "asc"), ("updated_at", "asc")):
            seen: list[dict[str, Any]] = []
            cursor = None
            while True:
                query = {"limit": 5, "sort_by": sort_by, "sort_order": order, "cursor": cursor}
                page = http.get("/api/memories", params={k: v for k, v in query.items() if v}).json()
                seen += page["memories"]
                if page["next_cursor"] is None:
                    break
                cursor = page["next_cursor"]
            flipped = {"sort_by": sort_by, "sort_order": "asc" if order == "desc" else "desc", "cursor": cursor}
            refused = http.get("/api/memories", params=flipped)
            assert refused.status_code == 422 and "start again without a cursor" in refused.json()["message"]
            assert sorted(m["id"] for m in seen) == sorted(m.id for m in made)
            keys = [(m[sort_by], m["id"]) for m in seen]
            assert keys == sorted(keys, reverse=order == "desc")
        books = {"structured_content.rating": {"gte": 4}}
        assert http.get("/api/memories", params={"filters": json.dumps(books)}).json()["memories"] == []
        http.get("/api/search", params={"q": "note", "alpha": 0})
    assert all(m.access_count == 0 for m in services.memories.list(Caller("ann"), limit=100).items)


def test_a_stale_edit_is_refused_with_409_and_changes_nothing(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    memory = services.memories.create(Caller("ann"), {"content": "first words"})
    services.memories.update(Caller("ann"), memory.id, {"title": "changed elsewhere"})
    path = f"/api/memories/{memory.id}"
    with client(server, services, "ann") as http:
        stale = http.patch(path, json={"version": 1, "changes": {"content": "x"}}, headers=WRITE)
        assert stale.status_code == 409
        assert "reload it and reapply" in stale.json()["message"]
        fresh = http.patch(path, json={"version": 2, "changes": {"content": "x"}}, headers=WRITE)
        assert fresh.status_code == 200 and fresh.json()["version"] == 3
    assert services.memories.get(Caller("ann"), memory.id).content == "x"


HOSTILE: list[tuple[str, str, dict[str, Any], int, str]] = [
    ("GET", "/api/memories", {"params": {"filters": "{not json"}}, 422, "not JSON"),
    ("GET", "/api/memories", {"params": {"filters": "[1]"}}, 422, "a JSON object"),
    ("GET", "/api/memories", {"params": {"filters": json.dumps({"nope": 1})}}, 422, "nope"),
    ("GET", "/api/memories", {"params": {"filters": "x" * 30_000}}, 422, "at most 20,000"),
    ("GET", "/api/memories", {"params": {"cursor": "garbage!!"}}, 422, "start again without a cursor"),
    ("GET", "/api/memories", {"params": {"limit": "1000"}}, 422, "limit is a whole number from 1 to 100"),
    ("GET", "/api/memories", {"params": {"sort_by": "id; DROP TABLE memories"}}, 422, "sort_by must be one of"),
    ("GET", "/api/search", {"params": {"q": "x", "alpha": "lots"}}, 422, "alpha is a number"),
    ("GET", "/api/search", {"params": {"q": "x", "alpha": "7"}}, 422, "alpha"),
    ("GET", "/api/search", {"params": {"q": "x" * 5000}}, 422, "query"),
    ("GET", "/api/memories/{theirs}", {}, 404, "No memory"),
    ("GET", "/api/memories/{theirs}/related", {}, 404, "No memory"),
    ("GET", "/api/memories/{mine}/related", {"params": {"depth": "3"}}, 422, "depth is a whole number from 1 to 2"),
    ("GET", "/api/memories/{long}", {}, 422, "memory id"),
    ("PATCH", "/api/memories/{theirs}", {"json": {"version": 1, "changes": {"content": "mine now"}}}, 404, "No memory"),
    ("PATCH", "/api/memories/{mine}", {"json": {"changes": {"content": "y"}}}, 422, "Send the version"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {"owner": "bob"}}}, 422, "not a memory field"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {"weight": 5}}}, 422, "weight"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {"user_id": "bob"}}}, 422, "user_id"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {}}}, 422, "Nothing to update"),
    ("PATCH", "/api/memories/{mine}", {"json": [1, 2]}, 422, "JSON object"),
    ("PATCH", "/api/memories/{mine}", {"content": b"{broken"}, 422, "not JSON"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {"content": "z" * 200_000}}}, 422, "content"),
    ("PATCH", "/api/memories/{mine}", {"json": {"version": 1, "changes": {"x": 1}, "sudo": True}}, 422, "sudo"),
    ("DELETE", "/api/memories/{theirs}", {}, 404, "No memory"),
    ("POST", "/api/memories/{theirs}/restore", {}, 404, "No memory"),
    ("GET", "/api/memory-templates/nope:nothing", {}, 404, "nope:nothing"),
]


def test_hostile_and_malformed_input_is_refused_clearly_and_changes_nothing(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    mine = services.memories.create(Caller("ann"), {"content": "ann's own"})
    theirs = services.memories.create(Caller("bob"), {"content": "bob's secret"})
    services.memories.delete(Caller("bob"), theirs.id)
    before = logical_fingerprint(store, ["ann", "bob"])
    ids = {"mine": mine.id, "theirs": theirs.id, "long": "x" * 300}
    with client(server, services, "ann") as http:
        for method, path, options, status, message in HOSTILE:
            answer = http.request(method, path.format(**ids), headers=WRITE, **options)
            assert answer.status_code == status, (method, path, answer.text)
            assert message in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text
        unsigned = http.patch(f"/api/memories/{mine.id}", json={"version": 1, "changes": {"content": "forged"}})
        assert unsigned.status_code == 403 and "X-Remember-Request" in unsigned.json()["message"]
        assert theirs.id not in http.get("/api/trash").text
        assert "bob's secret" not in http.get("/api/search", params={"q": "secret", "alpha": 0}).text
    assert httpx2.get(f"{server.url}/api/memories/{mine.id}").status_code == 401
    assert logical_fingerprint(store, ["ann", "bob"]) == before


def test_the_trash_pages_deleted_memories_and_restore_brings_one_back(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    made = [services.memories.create(Caller("ann"), {"content": f"old note {n}"}) for n in range(7)]
    for memory in made[:5]:
        services.memories.delete(Caller("ann"), memory.id)
    with client(server, services, "ann") as http:
        first = http.get("/api/trash", params={"limit": 3}).json()
        second = http.get("/api/trash", params={"limit": 3, "cursor": first["next_cursor"]}).json()
        assert second["next_cursor"] is None
        assert [m["id"] for m in first["memories"] + second["memories"]] == [m.id for m in reversed(made[:5])]
        back = http.post(f"/api/memories/{made[0].id}/restore", headers=WRITE)
        assert back.status_code == 200 and back.json()["version"] == 3
        listed = http.get("/api/memories", params={"limit": 100}).json()["memories"]
        assert {m["id"] for m in listed} == {made[0].id, made[5].id, made[6].id}
        assert made[0].id not in http.get("/api/trash").text
