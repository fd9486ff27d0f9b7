"""Export and import of a shared space over the dashboard's API, on both backends: any member exports the space
(within the session's trust level, the file named after it), a writer imports a remember export or another
server's data into it as ``remember import --space`` does (the importer recorded as author, ids in another of the
importer's spaces refused, a space's export refused without a space chosen, dry run), and hostile choices (another
user's space, a space one only reads, an unknown one, no token, a session below full trust) are refused with a
message naming the fix while nothing stored changes."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx2
import pytest

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.models import MemoryQuery
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.store import Store
from web_support import WRITE, client

GRAPH = "\n".join(
    json.dumps({"type": "entity", "name": f"Item {i}", "entityType": "thing", "observations": [f"item {i}"]})
    for i in range(3)
)


def space(services: Services, name: str, admin: str = "ann", **members: str) -> str:
    """A space named ``name`` administered by ``admin``, with ``members`` (user: role); its key."""
    key = services.spaces.create(Caller(admin), name).space.key
    for user, role in members.items():
        services.spaces.add_member(Caller(admin), key, user, role)
        services.spaces.accept(Caller(user), key)
    return key


def held(store: Store, key: str) -> str:
    """Everything the space holds, as an export's records: equal means unchanged."""
    records = [r for r in export_records(store, [Caller(key, actor="ann")]) if "format" not in r]
    return json.dumps(records, sort_keys=True, default=str)


def contents(store: Store, key: str) -> list[str]:
    return sorted(m.content for m in store.memories.page(key, MemoryQuery(limit=100)).items)


def finished(http: httpx2.Client, job: dict[str, Any]) -> dict[str, Any]:
    for _ in range(1200):
        if job["state"] != "running":
            return job
        time.sleep(0.05)
        job = http.get(f"/api/imports/{job['id']}").json()
    raise AssertionError(f"the import did not finish: {job}")


def problem(answer: httpx2.Response, status: int) -> str:
    assert answer.status_code == status, answer.text
    message: str = answer.json()["message"]
    return message


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_member_exports_a_space_within_the_sessions_trust_named_after_it(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = space(services, "Team Notes", bob="reader")
    in_team = services.spaces.writing(Caller("ann"), key)
    services.memories.create(in_team, {"content": "the team's everyday plan", "trust": 0.2})
    services.memories.create(in_team, {"content": "the team's guarded plan", "trust": 0.9})
    services.memories.create(Caller("bob"), {"content": "bob's own note"})
    with client(server, services, "bob", trust_level=0.5) as http:
        answer = http.get("/api/export", params={"space": "Team Notes"})
        graph = http.get("/api/export", params={"space": key, "format": "server-memory"})
        personal = http.get("/api/export", params={"space": "personal"}).text
    assert answer.status_code == 200, answer.text
    assert 'filename="remember-Team-Notes-' in answer.headers["content-disposition"]
    records = lines(answer.text)
    assert records[0]["spaces"] == {key: "Team Notes"}
    assert [(r["memory"]["content"], r["user_id"]) for r in records if r.get("kind") == "memory"] == [
        ("the team's everyday plan", key)
    ]
    assert "everyday" in graph.text and "guarded" not in graph.text
    assert "bob's own note" in personal and "team's" not in personal


@pytest.mark.parametrize(
    ("given", "status", "expected"),
    [
        ("Elsewhere", 404, "Unknown space 'Elsewhere'"),
        ("sp_0000000000000000", 404, "Unknown space"),
        ("x" * 5000, 404, "Unknown space"),
    ],
)
def test_an_export_of_a_space_one_is_not_in_is_refused(
    served: tuple[HttpServer, Services], given: str, status: int, expected: str
) -> None:
    server, services = served
    key = space(services, "Theirs")
    services.memories.create(services.spaces.writing(Caller("ann"), key), {"content": "a secret of theirs"})
    space(services, "Elsewhere", admin="carl")
    with client(server, services, "eve") as http:
        assert expected in problem(http.get("/api/export", params={"space": given}), status)
        refused = http.get("/api/export", params={"space": key})
        assert "Unknown space" in problem(refused, 404) and "secret" not in refused.text
        limited = client(server, services, "ann", spaces=frozenset({"ann"}))
        with limited:
            assert "Unknown space" in problem(limited.get("/api/export", params={"space": key}), 404)
    with httpx2.Client(base_url=server.url, headers=WRITE) as anonymous:
        assert anonymous.get("/api/export", params={"space": key}).status_code == 401


def test_a_writer_imports_an_export_into_a_space_as_its_author_after_a_dry_run(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    source = space(services, "Old team")
    for i in range(3):
        services.memories.create(services.spaces.writing(Caller("ann"), source), {"content": f"fact {i}"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller(source, actor="ann")]))
    services.spaces.delete(Caller("ann"), source)
    key = space(services, "Team", bob="writer")
    with client(server, services, "bob") as http:
        dry = finished(http, http.post("/api/imports", params={"space": "Team", "dry_run": "1"}, content=export).json())
        assert dry["state"] == "done" and (dry["read"], dry["report"]["dry_run"]) == (3, True), dry
        assert contents(store, key) == []
        job = finished(http, http.post("/api/imports", params={"space": key}, content=export).json())
        assert job["state"] == "done" and job["stored"] == 3, job
        graph = finished(
            http, http.post("/api/imports", params={"space": "Team", "format": "server-memory"}, content=GRAPH).json()
        )
        assert graph["state"] == "done" and graph["report"]["created"] == 3, graph
    stored = store.memories.page(key, MemoryQuery(limit=100)).items
    assert sorted(m.content for m in stored) == ["fact 0", "fact 1", "fact 2", "item 0", "item 1", "item 2"]
    assert {m.created_by for m in stored} == {"bob"}
    assert logical_fingerprint(store, ["bob"]) == logical_fingerprint(store, ["nobody"])  # nothing personal


def test_a_spaces_export_without_a_space_chosen_is_refused_naming_the_choice(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    source = space(services, "Old")
    services.memories.create(services.spaces.writing(Caller("ann"), source), {"content": "an old fact"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller(source, actor="ann")]))
    services.spaces.delete(Caller("ann"), source)
    before = logical_fingerprint(store, ["ann"])
    with client(server, services, "ann") as http:
        job = finished(http, http.post("/api/imports", params={"dry_run": "1"}, content=export).json())
        assert job["state"] == "failed", job
        assert "choose it under Import into" in job["error"]["message"], job
        assert "Nothing was imported" in job["error"]["message"]
        assert logical_fingerprint(store, ["ann"]) == before
        chosen = {"space": "personal", "dry_run": "1"}  # named, as `remember import --user`: checked, not stored
        job = finished(http, http.post("/api/imports", params=chosen, content=export).json())
        assert job["state"] == "done" and job["read"] == 1, job
    assert logical_fingerprint(store, ["ann"]) == before


def test_ids_in_another_of_the_importers_spaces_are_refused(served: tuple[HttpServer, Services], store: Store) -> None:
    server, services = served
    team = space(services, "Team")
    other = space(services, "Other")
    services.memories.create(services.spaces.writing(Caller("ann"), team), {"content": "the team's plan"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller(team, actor="ann")]))
    before = held(store, team), held(store, other)
    with client(server, services, "ann") as http:
        job = finished(http, http.post("/api/imports", params={"space": "Other"}, content=export).json())
    assert job["state"] == "failed" and "are in your space 'Team' already" in job["error"]["message"], job
    assert (held(store, team), held(store, other)) == before


def test_hostile_choices_of_space_are_refused_and_nothing_changes(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    key = space(services, "Team", rita="reader")
    theirs = space(services, "Theirs", admin="carl")
    before = held(store, key), held(store, theirs), logical_fingerprint(store, ["rita", "eve"])
    with client(server, services, "rita") as http:
        post = lambda **params: http.post("/api/imports", params=params, content=GRAPH)  # noqa: E731
        assert "You are a reader in space Team" in problem(post(space="Team"), 403)
        assert "Unknown space 'Theirs'" in problem(post(space="Theirs"), 404)
        assert "Unknown space" in problem(post(space=theirs), 404)
        assert "Unknown space 'Nowhere'" in problem(post(space="Nowhere"), 404)
        assert "at most 500 characters" in problem(post(space="x" * 600), 422)
    with client(server, services, "eve") as http:
        assert "Unknown space" in problem(http.post("/api/imports", params={"space": key}, content=GRAPH), 404)
    with client(server, services, "ann", spaces=frozenset({key})) as http:  # the dashboard needs the personal space
        assert "reaches only some shared spaces" in problem(http.post("/api/imports", content=GRAPH), 403)
        assert "reaches only some shared spaces" in problem(http.get("/api/export", params={"space": key}), 403)
    with httpx2.Client(base_url=server.url, headers=WRITE) as anonymous:
        assert anonymous.post("/api/imports", params={"space": key}, content=GRAPH).status_code == 401
    assert (held(store, key), held(store, theirs), logical_fingerprint(store, ["rita", "eve"])) == before


def test_a_session_below_full_trust_imports_into_a_space_only_what_it_may_read(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    source = space(services, "Old")
    services.memories.create(services.spaces.writing(Caller("ann"), source), {"content": "guarded", "trust": 0.9})
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller(source, actor="ann")]))
    services.spaces.delete(Caller("ann"), source)
    key = space(services, "Team", bob="writer")
    before = held(store, key)
    with client(server, services, "bob", trust_level=0.5) as http:
        job = finished(http, http.post("/api/imports", params={"space": "Team"}, content=export).json())
    assert job["state"] == "failed" and "need a trust level above this session's" in job["error"]["message"], job
    assert held(store, key) == before


def test_tokens_made_limited_to_spaces_are_listed_with_them_and_hostile_limits_are_refused(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = space(services, "Team", bob="reader")
    theirs = space(services, "Theirs", admin="carl")
    with client(server, services, "bob") as http:
        made = http.post("/api/tokens", json={"name": "team", "spaces": ["Team", "personal"]})
        assert made.status_code == 200, made.text
        assert sorted(made.json()["spaces"]) == sorted([key, "bob"])
        listed = {t["name"]: t["spaces"] for t in http.get("/api/tokens").json()["tokens"]}
        assert sorted(listed["team"]) == sorted([key, "bob"]) and listed[None] is None
        before = http.get("/api/tokens").json()
        post = lambda spaces: http.post("/api/tokens", json={"name": "x", "spaces": spaces})  # noqa: E731
        assert "Unknown space 'Theirs'" in problem(post(["Theirs"]), 404)
        assert "Unknown space" in problem(post([theirs]), 404)
        assert "Name the spaces the token reaches" in problem(post([]), 422)
        assert "a list of names, keys or 'personal'" in problem(post("Team"), 422)
        assert "a list of names, keys or 'personal'" in problem(post([1]), 422)
        assert "Name at most" in problem(post(["Team"] * 5000), 422)
        assert http.get("/api/tokens").json() == before
    limited = services.tokens.create("bob", spaces=frozenset({"bob"})).secret
    with httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {limited}", **WRITE}) as http:
        assert "Unknown space 'Team'" in problem(http.post("/api/tokens", json={"spaces": ["Team"]}), 404)
        made = http.post("/api/tokens", json={"name": "as limited"})
        assert made.status_code == 200 and made.json()["spaces"] == ["bob"], made.text
    with httpx2.Client(base_url=server.url, headers=WRITE) as anonymous:
        assert anonymous.post("/api/tokens", json={"spaces": ["Team"]}).status_code == 401


def test_a_users_export_goes_into_a_space_without_its_preferences_which_are_counted(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    fact = services.memories.create(Caller("dora"), {"content": "dora's fact"})
    services.preferences.update(Caller("dora"), "search.default_limit", 7)
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller("dora")]))
    services.memories.delete(Caller("dora"), fact.id, permanent=True)  # a space keeps no id used elsewhere
    key = space(services, "Team", bob="writer")
    with client(server, services, "bob") as http:
        job = finished(http, http.post("/api/imports", params={"space": "Team"}, content=export).json())
    assert job["state"] == "done" and job["report"]["left_out"] == {"preferences": 1}, job
    assert contents(store, key) == ["dora's fact"]
    assert services.preferences.effective(Caller("bob"))["search.default_limit"] != 7


def test_only_a_spaces_admins_import_its_templates_or_replace_its_records(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    key = space(services, "Team", bob="writer")
    as_ann = services.spaces.administering(Caller("ann"), "Team")
    services.templates.create(as_ann, {"name": "Wine", "fields": [{"name": "wine", "type": "string"}]})
    services.memories.create(services.spaces.writing(Caller("ann"), key), {"content": "Budget approved: 5M"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(store, [Caller(key, actor="ann")]))
    before = held(store, key)
    with client(server, services, "bob") as http:
        job = finished(http, http.post("/api/imports", params={"space": "Team", "on_conflict": "skip"},
                                       content=export).json())  # fmt: skip
        assert job["state"] == "failed" and "only the space's admins change its templates" in job["error"]["message"]
        plain = "".join(line + "\n" for line in export.splitlines() if '"kind": "template"' not in line)
        job = finished(http, http.post("/api/imports", params={"space": "Team", "on_conflict": "replace"},
                                       content=plain).json())  # fmt: skip
        assert job["state"] == "failed" and "only the space's admins do that" in job["error"]["message"], job
    assert held(store, key) == before
    with client(server, services, "ann") as http:
        job = finished(http, http.post("/api/imports", params={"space": "Team", "on_conflict": "replace"},
                                       content=export).json())  # fmt: skip
        assert job["state"] == "done", job
