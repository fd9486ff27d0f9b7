"""Creating a memory over the dashboard's API on both backends: stored as remember_create_memory stores it,
checked as the template engine checks it, suggested as `remember suggest` suggests; bad input (missing,
malformed, oversized, another user's template, above the session's trust) refused clearly, nothing stored."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.store import Store
from web_support import WRITE, client

BOOK = "builtin:book_review"
DUNE = {"title": "Dune", "author": "Frank Herbert", "rating": 5, "favorite_quotes": ["Fear is the mind-killer."]}


def test_a_memory_is_created_free_or_with_a_template(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        free = http.post("/api/memories", json={"content": "Call the plumber on Monday", "tags": ["home"]})
        assert free.status_code == 200, free.text
        book = http.post("/api/memories", json={"template_id": BOOK, "structured_content": DUNE, "tags": ["sf"]})
        assert book.status_code == 200, book.text
    stored = services.memories.get(Caller("ann"), book.json()["id"], record_access=False)
    assert stored.template_id == BOOK and stored.structured_content is not None
    assert stored.structured_content["favorite_quotes"] == DUNE["favorite_quotes"]
    assert stored.title == "Dune" and stored.tags == ("sf",)
    assert services.memories.get(Caller("ann"), free.json()["id"], record_access=False).tags == ("home",)


def test_check_answers_the_engines_problems_and_the_hidden_fields(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    with client(server, services, "ann") as http:
        partial = http.post("/api/memories/check", json={"template_id": BOOK, "structured_content": {"rating": 9}})
        answer = partial.json()
        assert partial.status_code == 200 and answer["valid"] is False
        assert {e["field"]: e["message"] for e in answer["errors"]}["rating"] == "Rate from 1 to 5"
        assert {"title", "author"} <= {e["field"] for e in answer["errors"]}
        assert "recommend_to" in answer["hidden_fields"]
        shown = {"would_recommend": True}
        assert (
            "recommend_to"
            not in http.post("/api/memories/check", json={"template_id": BOOK, "structured_content": shown}).json()[
                "hidden_fields"
            ]
        )
        assert http.post("/api/memories/check", json={"structured_content": {}}).status_code == 422
    assert services.memories.list(Caller("ann"), limit=10).items == ()


def test_suggestions_name_the_template_and_are_not_logged_as_shown(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    text = "Finished reading Dune by Frank Herbert, rated it 5 stars, a great science fiction novel"
    with client(server, services, "ann") as http:
        found = http.post("/api/suggestions", json={"content": text}).json()["suggestions"]
        assert found and found[0]["template_id"] == BOOK and found[0]["name"] == "Book Review"
        assert found[0]["prefill"].get("author") == "Frank Herbert"
        assert http.post("/api/suggestions", json={"content": "  "}).json() == {"suggestions": []}
        refused = http.post("/api/suggestions", json={"content": 5})
        assert refused.status_code == 422 and "content" in refused.json()["message"]
    assert services.suggestions.acceptance(Caller("ann"), BOOK).suggested == 0


def bad_inputs(theirs: str) -> list[tuple[Any, int, str]]:
    return [
        ({}, 422, "content"),
        ({"content": ""}, 422, "content"),
        ({"content": 42}, 422, "content"),
        ({"content": "x", "owner": "bob"}, 422, "not a memory field"),
        ({"content": "x", "weight": 7}, 422, "weight"),
        ({"content": "x", "tags": "not a list"}, 422, "tags"),
        ({"content": "z" * 200_000}, 422, "content"),
        ({"content": "x" * 2_000_000}, 413, "REMEMBER_HTTP_MAX_BODY"),
        ([1, 2], 422, "JSON object"),
        (b"{broken", 422, "not JSON"),
        ({"template_id": BOOK, "structured_content": {"title": "Dune", "rating": 9}}, 422, "Rate from 1 to 5"),
        ({"template_id": BOOK, "structured_content": {"rating": 4}}, 422, "author"),
        ({"template_id": theirs, "structured_content": {"wine": "Rioja"}}, 422, "No template with id"),
        ({"template_id": "nope:nothing", "structured_content": {}}, 422, "No template with id"),
    ]


def test_bad_input_is_refused_clearly_and_nothing_is_stored(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    theirs = services.templates.create(Caller("bob"), {"name": "Wine", "fields": [{"name": "wine", "type": "string"}]})
    before = logical_fingerprint(store, ["ann", "bob"])
    with client(server, services, "ann") as http:
        for body, status, says in bad_inputs(theirs.id):
            sent = {"content": body} if isinstance(body, bytes) else {"json": body}
            answer = http.post("/api/memories", **sent)
            assert answer.status_code == status, (body if not isinstance(body, dict) else list(body), answer.text)
            assert says in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text
        unsigned = http.post("/api/memories", json={"content": "forged"}, headers={"X-Remember-Request": ""})
        assert unsigned.status_code == 403 and "X-Remember-Request" in unsigned.json()["message"]
    assert httpx2.post(f"{server.url}/api/memories", json={"content": "anon"}, headers=WRITE).status_code == 401
    assert logical_fingerprint(store, ["ann", "bob"]) == before


def test_a_session_cannot_create_above_its_trust(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    before = logical_fingerprint(store, ["ann"])
    with client(server, services, "ann", trust_level=0.5) as http:
        refused = http.post("/api/memories", json={"content": "a secret", "trust": 0.9})
        assert refused.status_code in (403, 422), refused.text
        assert "trust" in refused.json()["message"] + json.dumps(refused.json().get("errors", []))
        assert logical_fingerprint(store, ["ann"]) == before
        made = http.post("/api/memories", json={"content": "an ordinary note"})
        assert made.status_code == 200 and made.json()["trust"] <= 0.5


def test_a_relationship_links_the_callers_memories_and_refuses_anything_else(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    ann = Caller("ann")
    dune = services.memories.create(ann, {"content": "Dune, the novel", "title": "Dune"})
    herbert = services.memories.create(ann, {"content": "Frank Herbert, the author", "title": "Herbert"})
    secret = services.memories.create(ann, {"content": "a secret", "trust": 0.9})
    bobs = services.memories.create(Caller("bob"), {"content": "bob's own"})
    with client(server, services, "ann") as http:
        made = http.post("/api/relationships", json={
            "memory_ids": [dune.id, herbert.id], "relationship_type": "written_by",
            "observation": "Herbert wrote Dune in 1965", "strength": 0.9,
        })  # fmt: skip
        assert made.status_code == 200, made.text
        assert made.json()["relationship_type"] == "written_by"
    linked = services.relationships.links(ann, [dune.id])[dune.id]
    assert [(r.relationship_type, r.observation, r.strength) for r in linked] == [
        ("written_by", "Herbert wrote Dune in 1965", 0.9)
    ]
    before = logical_fingerprint(store, ["ann", "bob"])
    refusals: list[tuple[Any, int, str]] = [
        ({"memory_ids": [dune.id, bobs.id], "relationship_type": "x"}, 404, "No memory"),
        ({"memory_ids": [dune.id], "relationship_type": "x"}, 422, "memory_ids"),
        ({"memory_ids": [dune.id, herbert.id]}, 422, "relationship_type"),
        ({"memory_ids": "nope", "relationship_type": "x"}, 422, "memory_ids"),
        ({"memory_ids": [dune.id, herbert.id], "relationship_type": "x", "strength": 3}, 422, "strength"),
        ({"memory_ids": [dune.id, herbert.id], "relationship_type": "x", "owner": "bob"}, 422, "owner"),
        (
            {"memory_ids": [dune.id, herbert.id], "relationship_type": "x", "observation": "o" * 2_000_000},
            413,
            "MAX_BODY",
        ),
        ([1], 422, "JSON object"),
    ]
    with client(server, services, "ann", trust_level=0.5) as http:
        refusals.append(({"memory_ids": [dune.id, secret.id], "relationship_type": "x"}, 404, "No memory"))
        for body, status, says in refusals:
            answer = http.post("/api/relationships", json=body)
            assert answer.status_code == status, (body, answer.text[:300])
            assert says in answer.json()["message"] + json.dumps(answer.json().get("errors", [])), answer.text[:300]
    assert logical_fingerprint(store, ["ann", "bob"]) == before
