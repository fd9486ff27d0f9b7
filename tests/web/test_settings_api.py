"""The settings API directly: malformed, missing, oversized and hostile input answered clearly, nothing changed.

Most tests use the module's server over SQLite; the ones that touch storage in a
way the backends could differ in (imports, revocation, other users' ids) run on
SQLite and PostgreSQL.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.models import MemoryQuery
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.store import Store
from web_support import Site

WRITE = {"X-Remember-Request": "1"}
GRAPH = "\n".join(
    json.dumps({"type": "entity", "name": f"Item {i}", "entityType": "thing", "observations": [f"item {i}"]})
    for i in range(5)
)


def client(url: str, token: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, headers={"Authorization": f"Bearer {token}", **WRITE}, timeout=30)


@pytest.fixture
def alice(site: Site) -> Iterator[tuple[str, httpx2.Client]]:
    user = site.user("alice")
    with client(site.url, site.token(user)) as http:
        yield user, http


def finished(http: httpx2.Client, job: dict[str, Any]) -> dict[str, Any]:
    """The job once it has stopped running (polled as the page does)."""
    for _ in range(600):
        if job["state"] != "running":
            return job
        time.sleep(0.05)
        job = http.get(f"/api/imports/{job['id']}").json()
    raise AssertionError(f"the import did not finish: {job}")


def problem(answer: httpx2.Response, status: int) -> str:
    assert answer.status_code == status, answer.text
    message: str = answer.json()["message"]
    return message


# ---- preferences ----


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"not json", "The request body is not JSON"),
        (b"[1, 2]", "Send a JSON object"),
        (b"{}", '{"values": {"search.default_limit": 20}}'),
        (b'{"values": {}}', '{"values": {"search.default_limit": 20}}'),
        (b'{"values": {"search.nope": 1}}', "Unknown preference 'search.nope'"),
        (b'{"values": {"search.default_limit": "ten"}}', "must be a whole number from 1 to 100; got 'ten'"),
        (b'{"values": {"search.default_limit": 5}, "reason": 7}', "reason"),
        (json.dumps({"values": {f"x.{i}": 1 for i in range(500)}}).encode(), "Change at most"),
        (json.dumps({"values": {"x" * 100_000: 1}}).encode(), "Unknown preference"),
    ],
)
def test_preferences_refuse_malformed_input_and_change_nothing(
    site: Site, alice: tuple[str, httpx2.Client], body: bytes, expected: str
) -> None:
    user, http = alice
    before = logical_fingerprint(site.store, [user])
    answer = http.patch("/api/preferences", content=body, headers={"Content-Type": "application/json"})
    assert expected in problem(answer, 422)
    assert len(answer.text) < 20_000  # the error echoes an excerpt, not the input
    assert logical_fingerprint(site.store, [user]) == before


def test_one_bad_value_among_good_ones_changes_none_and_names_each_field(
    site: Site, alice: tuple[str, httpx2.Client]
) -> None:
    user, http = alice
    values = {"search.default_limit": 30, "search.default_alpha": 7, "memory.on_duplicate": "shout"}
    answer = http.patch("/api/preferences", json={"values": values})
    assert problem(answer, 422).startswith("No preference was changed")
    fields = {e["field"]: e["code"] for e in answer.json()["errors"]}
    assert fields == {"search.default_alpha": "range", "memory.on_duplicate": "options"}
    assert site.services.preferences.effective(Caller(user))["search.default_limit"] == 10
    good = http.patch("/api/preferences", json={"values": {"search.default_limit": 30}})
    assert good.status_code == 200 and good.json()["changes"][0]["new_value"] == 30
    assert (
        http.get("/api/preferences", params={"category": "search"}).json()["preferences"]["search"]["default_limit"]
        == 30
    )
    assert "Unknown preference category" in problem(http.get("/api/preferences", params={"category": "x"}), 422)


def test_the_settings_api_needs_a_token_and_the_write_header(site: Site) -> None:
    token = site.token(site.user())
    assert httpx2.get(f"{site.url}/api/preferences").status_code == 401
    assert httpx2.get(f"{site.url}/api/tokens").status_code == 401
    assert httpx2.post(f"{site.url}/api/imports", content=GRAPH).status_code in (401, 403)
    bare = {"Authorization": f"Bearer {token}"}
    for answer in (
        httpx2.post(f"{site.url}/api/tokens", json={}, headers=bare),
        httpx2.post(f"{site.url}/api/imports", content=GRAPH, headers=bare),
        httpx2.patch(f"{site.url}/api/preferences", json={"values": {"search.default_limit": 5}}, headers=bare),
    ):
        assert "X-Remember-Request" in problem(answer, 403)


# ---- tokens ----


@pytest.mark.parametrize(
    ("body", "field", "expected"),
    [
        ({"name": 5}, "name", "A token's name is a text"),
        ({"name": "x" * 300}, "name", "A token's name is 1-200 characters"),
        ({"expires": "soon"}, "expires", "'soon' is not a duration"),
        ({"expires": 30}, "expires", "A lifetime is a text"),
        ({"trust_level": "high"}, "trust_level", "A trust level is a number"),
        ({"trust_level": True}, "trust_level", "A trust level is a number"),
        ({"trust_level": -0.1}, "trust_level", "from 0 to 1"),
        ({"trust_level": 0.9}, "trust_level", "This session's trust level is 0.5"),
    ],
)
def test_making_a_token_refuses_bad_input_and_more_trust_than_the_session_has(
    site: Site, body: dict[str, Any], field: str, expected: str
) -> None:
    user = site.user("limited")
    with client(site.url, site.token(user, trust_level=0.5)) as http:
        answer = http.post("/api/tokens", json=body)
        assert expected in problem(answer, 422)
        assert [e["field"] for e in answer.json()["errors"]] == [field]
        assert len(site.services.tokens.list(user)) == 1


def test_a_token_made_through_the_api_is_the_callers_at_most_at_the_callers_trust(site: Site) -> None:
    user = site.user("maker")
    with client(site.url, site.token(user, trust_level=0.5)) as http:
        made = http.post("/api/tokens", json={"name": " ci ", "expires": "2w"}).json()
        assert made["trust_level"] == 0.5 and made["name"] == "ci" and made["token"].startswith("rmb_")
        listed = http.get("/api/tokens").json()["tokens"]
    assert all("token" not in t and "secret_sha256" not in t for t in listed)
    assert [t["current"] for t in listed] == [True, False]
    found = site.services.tokens.verify(made["token"])
    assert found is not None and found.user_id == user


# ---- imports and exports ----


def test_uploads_over_the_limit_empty_or_with_bad_options_are_refused(
    site: Site, alice: tuple[str, httpx2.Client]
) -> None:
    user, http = alice
    before = logical_fingerprint(site.store, [user])
    big = http.post("/api/imports", params={"format": "server-memory"}, content=b"x" * ((1 << 20) + 1))
    assert "larger than this server takes in one request (1 MiB, REMEMBER_HTTP_MAX_BODY)" in problem(big, 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while the body is read
        for _ in range(40):
            yield b"y" * 65_536

    streamed = http.post("/api/imports", params={"format": "server-memory"}, content=chunks())
    assert "REMEMBER_HTTP_MAX_BODY" in problem(streamed, 413)
    assert "it was empty" in problem(http.post("/api/imports", content=b""), 422)
    assert "format is one of remember" in problem(http.post("/api/imports", params={"format": "x"}, content=GRAPH), 422)
    assert "dry_run is true or false" in problem(
        http.post("/api/imports", params={"dry_run": "maybe"}, content=GRAPH), 422
    )
    name = http.post("/api/imports", params={"name": "n" * 600}, content=GRAPH)
    assert "A file name is at most" in problem(name, 422)
    assert logical_fingerprint(site.store, [user]) == before
    limits = http.get("/api/imports").json()
    assert limits["max_bytes"] == 1 << 20 and "mem0" in limits["formats"]


@pytest.mark.parametrize(
    ("format", "content", "expected"),
    [
        ("remember", GRAPH, "This is not a remember export"),
        ("remember", '{"format": "remember-export"}\nnot json', "Line 2 is not JSON"),
        ("remember", '{"format": "remember-export"}\n{"kind": "memory", "user_id": "u"}', "cannot be read"),
        (
            "remember",
            '{"format": "remember-export"}\n{"kind": "preference", "user_id": "a", "path": "p", "value": 1}\n'
            '{"kind": "preference", "user_id": "b", "path": "p", "value": 1}',
            "This export holds 2 users",
        ),
        ("server-memory", "{not json", "line 1 is not JSON"),
        ("mem0", '{"nothing": 1}', "it holds no list of memories"),
        ("mcp-memory-service", "\xff\xfe", "not UTF-8"),
    ],
)
def test_a_file_that_cannot_be_read_fails_its_job_with_the_reason_and_stores_nothing(
    site: Site, alice: tuple[str, httpx2.Client], format: str, content: str, expected: str
) -> None:
    user, http = alice
    before = logical_fingerprint(site.store, [user])
    data = content.encode("latin-1") if format == "mcp-memory-service" else content.encode()
    started = http.post("/api/imports", params={"format": format}, content=data)
    assert started.status_code == 202, started.text
    job = finished(http, started.json())
    assert job["state"] == "failed" and expected in job["error"]["message"], job
    assert logical_fingerprint(site.store, [user]) == before


def test_records_that_cannot_be_stored_are_reported_and_the_rest_go_in(
    site: Site, alice: tuple[str, httpx2.Client]
) -> None:
    user, http = alice
    payload = json.dumps({"results": [{"memory": "kept"}, {"memory": ""}, {"memory": "also kept", "created_at": "x"}]})
    job = finished(http, http.post("/api/imports", params={"format": "mem0"}, content=payload).json())
    assert job["state"] == "done", job
    assert (job["read"], job["stored"], job["skipped"]) == (1, 1, 2)
    assert {s["where"] for s in job["report"]["skipped"]} == {"record 2", "record 3"}
    assert [m.content for m in site.services.memories.list(Caller(user)).items] == ["kept"]


def test_a_basic_memory_note_is_imported_with_its_file_name_as_title(
    site: Site, alice: tuple[str, httpx2.Client]
) -> None:
    user, http = alice
    note = "---\ntags: [garden]\n---\nPlant the tulips in October."
    started = http.post("/api/imports", params={"format": "basic-memory", "name": "../../Tulips"}, content=note)
    job = finished(http, started.json())
    assert job["state"] == "done", job
    [memory] = site.services.memories.list(Caller(user)).items
    assert (memory.title, list(memory.tags)) == ("Tulips", ["garden"])


def test_an_export_of_an_unknown_format_is_refused(alice: tuple[str, httpx2.Client]) -> None:
    _, http = alice
    assert "format is one of jsonl, markdown, server-memory" in problem(
        http.get("/api/export", params={"format": "csv"}), 422
    )


# ---- both backends: other users' ids ----


def test_other_users_tokens_jobs_and_memories_are_out_of_reach(store: Store, tmp_path: Path) -> None:
    services = Services.over(store)
    server = HttpServer(tmp_path / "home", store.url).start()
    try:
        eve_token = services.tokens.create("eve").secret
        bob_token = services.tokens.create("bob", name="bob's laptop")
        services.memories.create(Caller("bob"), {"content": "bob's private note"})
        with client(server.url, services.tokens.create("bob").secret) as bob:
            job = finished(bob, bob.post("/api/imports", params={"format": "server-memory"}, content=GRAPH).json())
        assert job["state"] == "done" and job["stored"] == 5
        before = logical_fingerprint(store, ["bob"])
        with client(server.url, eve_token) as eve:
            assert "No token with id" in problem(eve.delete(f"/api/tokens/{bob_token.token.id}"), 404)
            for hostile in ("' OR 1=1 --", "x" * 5000, bob_token.token.id.upper()):
                assert "No token with id" in problem(eve.delete(f"/api/tokens/{hostile}"), 404)
                assert "No import with id" in problem(eve.get(f"/api/imports/{hostile}"), 404)
            assert "No import with id" in problem(eve.get(f"/api/imports/{job['id']}"), 404)
            assert all(t["id"] != bob_token.token.id for t in eve.get("/api/tokens").json()["tokens"])
            exported = eve.get("/api/export").text.splitlines()
            again = finished(eve, eve.post("/api/imports", params={"format": "server-memory"}, content=GRAPH).json())
        assert services.tokens.verify(bob_token.secret) is not None
        assert len(exported) == 1  # the header: eve has nothing yet
        assert again["stored"] == 5  # eve's own copy; bob's memories do not count as present for her
        assert logical_fingerprint(store, ["bob"]) == before
        assert len(services.memories.list(Caller("bob")).items) == 6
        with client(server.url, services.tokens.create("bob").secret) as bob:
            export = bob.get("/api/export").content
        with client(server.url, services.tokens.create("carl").secret) as carl:
            restored = finished(carl, carl.post("/api/imports", params={"format": "remember"}, content=export).json())
        assert restored["state"] == "done" and restored["stored"] == 6, restored
        assert sorted(m.content for m in services.memories.list(Caller("carl")).items) == sorted(
            m.content for m in services.memories.list(Caller("bob")).items
        )
    finally:
        server.stop()


def test_revoking_the_requests_own_token_says_so_and_its_next_request_is_refused(site: Site) -> None:
    user = site.user("self")
    with client(site.url, site.token(user)) as http:
        [own] = http.get("/api/tokens").json()["tokens"]
        revoked = http.delete(f"/api/tokens/{own['id']}").json()
        assert revoked["logged_out"] is True and revoked["revoked_at"]
        assert "unknown, revoked or expired" in problem(http.get("/api/tokens"), 401)


def test_an_export_holds_only_what_the_sessions_trust_level_reaches(site: Site) -> None:
    user = site.user("trusting")
    site.services.memories.create(Caller(user), {"content": "an everyday note", "trust": 0.2})
    site.services.memories.create(Caller(user), {"content": "a guarded note", "trust": 0.9})
    with client(site.url, site.token(user, trust_level=0.5)) as http:
        lines = http.get("/api/export").text.splitlines()
        graph = http.get("/api/export", params={"format": "server-memory"}).text
    memories = [json.loads(line)["memory"]["content"] for line in lines if '"kind": "memory"' in line]
    assert memories == ["an everyday note"]
    assert "everyday" in graph and "guarded" not in graph


def test_a_dry_run_of_a_remember_export_checks_it_and_stores_nothing(site: Site) -> None:
    source, user = site.user("origin"), site.user("checker")
    for i in range(3):
        site.services.memories.create(Caller(source), {"content": f"fact {i}"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(site.store, [Caller(source)]))
    with client(site.url, site.token(user)) as http:
        job = finished(
            http, http.post("/api/imports", params={"format": "remember", "dry_run": "1"}, content=export).json()
        )
    assert job["state"] == "done", job
    assert (job["read"], job["stored"], job["report"]["dry_run"]) == (3, 3, True)
    assert logical_fingerprint(site.store, [user]) == logical_fingerprint(site.store, ["nobody"])


def test_a_remember_export_into_an_account_with_its_records_is_refused_skipped_or_replaced(site: Site) -> None:
    source, user = site.user("restore-from"), site.user("restore-to")
    made = [site.services.memories.create(Caller(source), {"content": f"fact {i}"}) for i in range(3)]
    export = "".join(json.dumps(r) + "\n" for r in export_records(site.store, [Caller(source)]))
    with client(site.url, site.token(user)) as http:

        def started(**params: str) -> dict[str, Any]:
            answer = http.post("/api/imports", params={"format": "remember", **params}, content=export)
            return finished(http, answer.json())

        assert started()["stored"] == 3
        site.services.memories.update(Caller(user), made[0].id, {"content": "changed here"})
        before = logical_fingerprint(site.store, [user])
        refused = started()
        assert (
            refused["state"] == "failed" and f"stored already (user {user}: 3 memories" in refused["error"]["message"]
        )
        assert "Choose with the choice for records you have already (on_conflict)" in refused["error"]["message"]
        skipped = started(on_conflict="skip")
        assert (skipped["stored"], skipped["report"]["already_present"], skipped["report"]["replaced"]) == (0, 3, 0)
        assert logical_fingerprint(site.store, [user]) == before
        replaced = started(on_conflict="replace")
        assert (replaced["stored"], replaced["report"]["replaced"]) == (3, 3)
        assert site.services.memories.get(Caller(user), made[0].id, record_access=False).content == "fact 0"
        for params, message in (
            ({"format": "remember", "on_conflict": "merge"}, "on_conflict is one of refuse, skip, replace"),
            ({"format": "mem0", "on_conflict": "skip"}, "on_conflict is for a remember export"),
        ):
            assert message in problem(http.post("/api/imports", params=params, content=export), 422)


def test_a_session_below_full_trust_cannot_replace_what_it_cannot_see(site: Site) -> None:
    user = site.user("guarded")
    site.services.memories.create(Caller(user), {"content": "an everyday note", "trust": 0.2})
    site.services.memories.create(Caller(user), {"content": "a guarded note", "trust": 0.9})
    export = "".join(json.dumps(r) + "\n" for r in export_records(site.store, [Caller(user)]))  # full trust
    before = logical_fingerprint(site.store, [user])
    with client(site.url, site.token(user, trust_level=0.5)) as http:

        def started(mode: str) -> dict[str, Any]:
            answer = http.post("/api/imports", params={"format": "remember", "on_conflict": mode}, content=export)
            return finished(http, answer.json())

        refused = started("replace")
        assert refused["state"] == "failed", refused
        assert (
            "1 of the stored records the file would replace are above this session's trust level (0.5)"
            in (refused["error"]["message"])
        )
        assert started("skip")["report"]["already_present"] == 2
    assert logical_fingerprint(site.store, [user]) == before


def test_an_import_acts_with_the_sessions_rights(site: Site) -> None:
    source, user = site.user("planted-from"), site.user("planted-into")
    site.services.memories.create(Caller(source), {"content": "an everyday note", "trust": 0.2})
    site.services.memories.create(Caller(source), {"content": "a guarded note", "trust": 0.9})
    site.services.preferences.update(Caller(source), "privacy.default_trust", 0.0)
    records = [r for r in export_records(site.store, [Caller(source)]) if r.get("kind") != "preference"]
    everyday = [r for r in records if r.get("memory", {}).get("trust", 0) < 0.5]
    before = logical_fingerprint(site.store, [user])
    with client(site.url, site.token(user, trust_level=0.3)) as http:

        def started(records: list[dict[str, Any]]) -> dict[str, Any]:
            export = "".join(json.dumps(r) + "\n" for r in records)
            return finished(http, http.post("/api/imports", params={"format": "remember"}, content=export).json())

        whole = started(records)
        assert whole["state"] == "failed"
        assert "1 of the file's memories (the first on line" in whole["error"]["message"]
        assert "need a trust level above this session's (0.3)" in whole["error"]["message"]
        privacy = [*everyday, {"kind": "preference", "user_id": source, "path": "privacy.default_trust", "value": 0}]
        refused = started(privacy)
        assert refused["state"] == "failed" and "privacy.default_trust" in refused["error"]["message"]
        huge = [*everyday, {"kind": "preference", "user_id": source, "path": "search.default_limit", "value": 10**8}]
        refused = started(huge)
        assert refused["state"] == "failed" and "search.default_limit" in refused["error"]["message"]
        assert logical_fingerprint(site.store, [user]) == before
        assert started(everyday)["stored"] == 1  # what the session may store goes in
    assert site.services.preferences.effective(Caller(user))["search.default_limit"] != 10**8


def test_a_json_body_over_the_limit_is_refused_before_it_is_read_whole(
    site: Site, alice: tuple[str, httpx2.Client]
) -> None:
    user, http = alice
    before = logical_fingerprint(site.store, [user])
    huge = json.dumps({"values": {"search.default_limit": 5}, "reason": "r" * (1 << 20)})
    answer = http.patch("/api/preferences", content=huge, headers={"Content-Type": "application/json"})
    assert "larger than this server takes in one request (1 MiB" in problem(answer, 413)
    assert answer.json()["errors"][0]["code"] == "max_size"

    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(40):
            yield b"n" * 65_536

    assert "REMEMBER_HTTP_MAX_BODY" in problem(http.post("/api/tokens", content=chunks()), 413)
    assert logical_fingerprint(site.store, [user]) == before
    assert len(site.services.tokens.list(user)) == 1


def test_logging_in_with_a_body_over_the_limit_is_refused(site: Site) -> None:
    answer = httpx2.post(f"{site.url}/api/session", content=b"x" * ((1 << 20) + 10), headers=WRITE)
    assert "REMEMBER_HTTP_MAX_BODY" in problem(answer, 413)


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_the_markdown_export_zip_imports_back_as_basic_memory_notes(site: Site) -> None:
    source, user = site.user("notes-from"), site.user("notes-to")
    site.services.memories.create(
        Caller(source), {"content": "Water the ferns weekly.", "title": "Ferns", "tags": ["home"]}
    )
    site.services.memories.create(Caller(source), {"content": "Call the plumber.", "title": "Plumber"})
    chore = site.services.templates.create(
        Caller(source), {"name": "Chore", "fields": [{"name": "task", "type": "string", "required": True}]}
    )
    site.services.memories.create(Caller(source), {"template_id": chore.id, "structured_content": {"task": "Dust"}})
    with client(site.url, site.token(source)) as http:
        archive = http.get("/api/export", params={"format": "markdown"}).content
    with zipfile.ZipFile(io.BytesIO(archive)) as exported:
        members = {name: exported.read(name) for name in exported.namelist()}
    assert sum(name.startswith("remember-templates/") for name in members) == 1
    members["elsewhere/stray.yaml"] = b"id: tpl_stray"  # only the template folder's YAML is unpacked
    with client(site.url, site.token(user)) as http:
        job = finished(
            http, http.post("/api/imports", params={"format": "basic-memory"}, content=zipped(members)).json()
        )
    assert job["state"] == "done" and job["stored"] == 3, job
    assert job["report"]["templates"] == {"created": 1}
    got = {(m.title, m.content, tuple(m.tags)) for m in site.services.memories.list(Caller(user)).items}
    assert got == {
        ("Ferns", "Water the ferns weekly.", ("home",)), ("Plumber", "Call the plumber.", ()),
        ("Dust", "Task: Dust", ()),
    }  # fmt: skip
    assert [r.id for r in site.store.templates.of_user(user)] == [chore.id]


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ({"../escape.md": b"out"}, "points outside the archive"),
        ({"/etc/escape.md": b"out"}, "points outside the archive"),
        ({"bomb.md": b"\0" * (65 << 20)}, "unpack to more than 64 MiB"),
    ],
)
def test_a_hostile_zip_of_notes_is_refused_and_nothing_is_imported(
    site: Site, alice: tuple[str, httpx2.Client], members: dict[str, bytes], expected: str
) -> None:
    user, http = alice
    data = zipped(members)
    assert len(data) < 1 << 20
    job = finished(http, http.post("/api/imports", params={"format": "basic-memory"}, content=data).json())
    assert job["state"] == "failed" and expected in job["error"]["message"], job
    assert not site.services.memories.list(Caller(user)).items
    junk = http.post("/api/imports", params={"format": "basic-memory"}, content=b"PK\x03\x04junk")
    broken = finished(http, junk.json())
    assert "not a readable zip" in broken["error"]["message"]


def test_an_export_of_a_space_one_is_in_is_not_imported_again_into_ones_account(site: Site) -> None:
    """By id, a memory is found in the first space holding it: a copy in the personal space would be out of reach."""
    user = site.user("member")
    key = site.services.spaces.create(Caller(user), "Team").space.key
    in_team = site.services.spaces.writing(Caller(user), key)
    site.services.memories.create(in_team, {"content": "the team's plan"})
    export = "".join(json.dumps(r) + "\n" for r in export_records(site.store, [in_team]))
    team = lambda: len(site.store.memories.page(key, MemoryQuery(limit=100)).items)  # noqa: E731
    before = logical_fingerprint(site.store, [user]), team()
    with client(site.url, site.token(user)) as http:
        job = finished(http, http.post("/api/imports", params={"format": "remember"}, content=export).json())
    assert job["state"] == "failed" and "This file is the export of shared space" in job["error"]["message"]
    assert (
        logical_fingerprint(site.store, [user]),
        len(site.store.memories.page(key, MemoryQuery(limit=100)).items),
    ) == before
