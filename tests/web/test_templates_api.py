"""The templates pages' API, called directly: listing, checks without saving, versions, compliance,
and bad input (malformed, missing, oversized, hostile) answered clearly with nothing stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.store import Store
from web_support import Site

BOOK = """
name: Reading log
description: Books I read
fields:
  - name: title
    type: string
    required: true
  - name: rating
    type: integer
    validation: {min: 1, max: 5}
"""
WRITE = {"X-Remember-Request": "1"}


class Api:
    """httpx2 against a server, as one user (a bearer token and the dashboard's write header)."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx2.Client(base_url=url, headers={"Authorization": f"Bearer {token}", **WRITE}, timeout=30)

    def __call__(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        return self.client.request(method, path, **kwargs)

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = self(method, path, **kwargs)
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest.fixture
def api(site: Site) -> Iterator[Api]:
    made = Api(site.url, site.token(site.user("api")))
    yield made
    made.client.close()


def test_the_library_and_own_templates_are_listed_and_searched_by_name(api: Api) -> None:
    made = api.ok("POST", "/api/templates", json={"definition": BOOK})
    everything = api.ok("GET", "/api/templates")
    assert made["id"] in [t["id"] for t in everything["templates"]]
    assert any(t["id"] == "builtin:book_review" for t in everything["templates"])
    mine = api.ok("GET", "/api/templates", params={"origin": "mine"})
    assert [t["id"] for t in mine["templates"]] == [made["id"]]
    found = api.ok("GET", "/api/templates", params={"search": "BOOK rev"})
    assert [t["id"] for t in found["templates"]] == ["builtin:book_review"]
    paged = api.ok("GET", "/api/templates", params={"limit": 2, "offset": 1})
    assert len(paged["templates"]) == 2 and paged["offset"] == 1 and paged["has_more"]


def test_a_definition_is_checked_without_saving_with_every_problem(api: Api) -> None:
    before = api.ok("GET", "/api/templates", params={"origin": "mine"})["total"]
    bad = (
        "name: Broken\nfields:\n  - name: Bad Name\n    type: strnig\n"
        "  - name: ok\n    type: number\n    validation: {min: 5, max: 1}\n"
    )
    answer = api.ok("POST", "/api/templates/check", json={"definition": bad})
    assert answer["valid"] is False
    assert "3 problems" in answer["message"]
    assert [(e["field"], e["code"]) for e in answer["errors"]] == [
        ("fields[0]", "name"), ("fields[0]", "unknown_type"), ("ok", "range"),
    ]  # fmt: skip
    good = api.ok("POST", "/api/templates/check", json={"definition": BOOK})
    assert good["valid"] is True and good["json_schema"]["required"] == ["title"]
    assert api.ok("GET", "/api/templates", params={"origin": "mine"})["total"] == before


def test_the_check_reports_a_name_taken_and_yaml_mistakes_with_their_place(api: Api) -> None:
    api.ok("POST", "/api/templates", json={"definition": BOOK})
    taken = api.ok("POST", "/api/templates/check", json={"definition": BOOK})
    assert taken["valid"] is False and taken["errors"][0]["code"] == "conflict"
    broken = api.ok("POST", "/api/templates/check", json={"definition": "name: [unclosed"})
    assert broken["valid"] is False and "line 1" in broken["message"]
    assert broken["errors"][0]["field"] == "definition"


def test_sample_content_is_checked_against_a_draft_and_a_saved_template(api: Api) -> None:
    draft = api.ok("POST", "/api/templates/check-content", json={"definition": BOOK, "content": "rating: 9"})
    assert draft["valid"] is False
    assert {e["field"]: e["code"] for e in draft["errors"]} == {"title": "required", "rating": "max"}
    saved = api.ok(
        "POST",
        "/api/templates/check-content",
        json={
            "template_id": "builtin:book_review",
            "content": {"title": "Dune", "author": "Frank Herbert", "rating": 5},
        },
    )
    assert saved["valid"] is True


def test_a_template_shows_its_inheritance_and_its_versions(api: Api) -> None:
    parent = api.ok("POST", "/api/templates", json={"definition": BOOK})
    child_text = (
        f"name: Audiobook\nparent_template_id: {parent['id']}\nfields:\n"
        "  - {name: narrator, type: string}\n  - {name: rating, type: number}\n"
    )
    child = api.ok("POST", "/api/templates", json={"definition": child_text})
    shown = api.ok("GET", f"/api/templates/{child['id']}")
    assert [c["id"] for c in shown["inheritance"]["chain"]] == [parent["id"], child["id"]]
    origins = {f["name"]: f for f in shown["inheritance"]["fields"]}
    assert origins["title"]["source"] == parent["id"] and origins["title"]["inherited"]
    assert origins["rating"]["source"] == child["id"] and origins["rating"]["overrides"] == [parent["id"]]
    assert origins["narrator"]["inherited"] is False
    new = {**shown["definition"], "description": "Heard, not read"}
    saved = api.ok("PUT", f"/api/templates/{child['id']}", json={"definition": new, "base_version": "1.0"})
    assert saved["version"] == "1.1"
    assert saved["changes"]["attributes"] == [{"name": "description", "before": "", "after": "Heard, not read"}]
    versions = api.ok("GET", f"/api/templates/{child['id']}/versions")["versions"]
    assert [v["version"] for v in versions] == ["1.1", "1.0"]
    assert versions[0]["changes"]["attributes"][0]["name"] == "description" and versions[1]["changes"] is None


def test_an_edit_from_a_stale_version_is_refused(api: Api) -> None:
    made = api.ok("POST", "/api/templates", json={"definition": BOOK})
    api.ok("PUT", f"/api/templates/{made['id']}", json={"definition": BOOK.replace("Books I", "All books I")})
    stale = api("PUT", f"/api/templates/{made['id']}", json={"definition": BOOK, "base_version": "1.0"})
    assert stale.status_code == 409 and "load it again" in stale.json()["message"]


def test_a_built_in_cannot_be_changed_or_deleted(api: Api) -> None:
    changed = api("PUT", "/api/templates/builtin:book_review", json={"definition": BOOK})
    assert changed.status_code == 403 and "is a built-in template and cannot be changed" in changed.json()["message"]
    deleted = api("DELETE", "/api/templates/builtin:book_review")
    assert deleted.status_code == 403 and "cannot be deleted" in deleted.json()["message"]
    copied = api.ok("POST", "/api/templates/builtin:book_review/copy", json={"name": "My books"})
    assert copied["derived_from"] == "builtin:book_review"


def test_memories_made_with_a_template_show_their_compliance_after_a_change(site: Site, api: Api) -> None:
    made = api.ok("POST", "/api/templates", json={"definition": BOOK})
    user = api.ok("GET", "/api/me")["user"]
    for title in ("Dune", "Emma"):
        site.services.memories.create(Caller(user), {"template_id": made["id"], "structured_content": {"title": title}})
    before = api.ok("GET", f"/api/templates/{made['id']}/memories")
    assert before["counts"] == {"valid": 2, "invalid": 0}
    needs_author = BOOK + "  - name: author\n    type: string\n    required: true\n"
    saved = api.ok("PUT", f"/api/templates/{made['id']}", json={"definition": needs_author})
    assert saved["rechecked_memories"] == 2 and saved["changes"]["added_fields"] == ["author"]
    after = api.ok("GET", f"/api/templates/{made['id']}/memories", params={"compliance": "invalid", "limit": 1})
    assert after["counts"] == {"valid": 0, "invalid": 2} and after["total"] == 2 and after["has_more"]
    row = after["memories"][0]
    assert row["compliant"] is False and row["template_version"] == "1.0"
    assert row["errors"][0]["field"] == "author" and row["errors"][0]["code"] == "required"


BAD: list[tuple[str, str, Any, int, str]] = [
    ("POST", "/api/templates", None, 422, "JSON object"),
    ("POST", "/api/templates", {"definition": ""}, 422, "Send the template definition"),
    ("POST", "/api/templates", {"definition": "- a\n- b"}, 422, "an object with name and fields"),
    ("POST", "/api/templates", {"definition": "x: " + "y" * 200_001}, 422, "longer than 200000"),
    ("POST", "/api/templates", {"definition": "a: &x [1]\nb: *x"}, 422, "aliases"),
    ("POST", "/api/templates", {"definition": "[" * 3000}, 422, "nested too deeply"),
    ("POST", "/api/templates", {"definition": {"name": "T", "fields": "nope"}}, 422, "invalid"),
    ("POST", "/api/templates/check", {"definition": BOOK, "template_id": 7}, 422, "template_id"),
    ("POST", "/api/templates/check-content", {"definition": BOOK}, 422, "sample content"),
    ("POST", "/api/templates/check-content", {"content": {}}, 422, "Name the template"),
    ("PUT", "/api/templates/tpl_someone_else", {"definition": BOOK}, 404, "No template with id"),
    ("DELETE", "/api/templates/tpl_someone_else", None, 404, "No template with id"),
    ("GET", "/api/templates/" + "x" * 5000, None, 404, "characters)"),
    ("GET", "/api/templates", {"limit": "1000"}, 422, "limit is a whole number"),
    ("GET", "/api/templates", {"origin": "theirs"}, 422, "origin is all, builtin or mine"),
    ("GET", "/api/templates/builtin:book_review/memories", {"compliance": "maybe"}, 422, "compliance is"),
    ("GET", "/api/templates", {"sort_by": "size"}, 422, "sort_by must be usage_count, name or recent"),
    ("GET", "/api/templates", {"search": "w" * 201}, 422, "search is a text of at most 200"),
    ("POST", "/api/templates/check-content", {"template_id": "builtin:book_review", "content": "a: [b"}, 422, "YAML"),
    ("POST", "/api/templates/builtin:book_review/copy", {"name": 5}, 422, "name is the copy's name"),
    ("PUT", "/api/templates/builtin:book_review", {"definition": BOOK, "base_version": 1}, 422, "base_version"),
    ("PUT", "/api/templates/builtin:book_review", {"definition": BOOK}, 403, "cannot be changed"),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "words"), BAD)
def test_bad_input_is_answered_with_what_to_fix(
    api: Api, method: str, path: str, body: Any, status: int, words: str
) -> None:
    answer = _send(api, method, path, body)
    assert answer.status_code == status, answer.text
    assert words in answer.json()["message"]


def _send(api: Api, method: str, path: str, body: Any) -> httpx2.Response:
    if method == "GET":
        return api(method, path, params=body)
    return api(method, path, json=body) if body is not None else api(method, path)


def test_a_definition_cannot_choose_its_id_nor_make_itself_a_built_in(api: Api) -> None:
    made = api.ok("POST", "/api/templates", json={"definition": "id: builtin:evil\nis_default: true\n" + BOOK})
    assert made["id"].startswith("tpl_reading_log_")
    shown = api.ok("GET", f"/api/templates/{made['id']}")
    assert shown["is_default"] is False
    again = {**shown["definition"], "id": "builtin:book_review", "is_default": True, "derived_from": "x"}
    replaced = api.ok("PUT", f"/api/templates/{made['id']}", json={"definition": again})
    assert replaced["id"] == made["id"]
    shown = api.ok("GET", f"/api/templates/{made['id']}")
    assert (shown["is_default"], shown.get("derived_from")) == (False, None)


def test_a_body_nested_too_deeply_is_refused(api: Api) -> None:
    answer = api("POST", "/api/templates/check", content=b"[" * 100_000, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422 and "nested too deeply" in answer.json()["message"]


def test_another_users_template_is_out_of_reach_on_both_backends(store: Store, tmp_path: Path) -> None:
    services = Services.over(store)
    theirs = services.templates.create(
        Caller("bob"), {"name": "Secret", "fields": [{"name": "x", "type": "string"}]}
    ).id
    services.memories.create(Caller("bob"), {"template_id": theirs, "structured_content": {"x": "hidden"}})
    fingerprint = logical_fingerprint(store, ["bob"])
    server = HttpServer(tmp_path / "home", store.url).start()
    alice = Api(server.url, services.tokens.create("alice").secret)
    try:
        for method, path, body in [
            ("GET", f"/api/templates/{theirs}", None),
            ("GET", f"/api/templates/{theirs}/versions", None),
            ("GET", f"/api/templates/{theirs}/memories", None),
            ("PUT", f"/api/templates/{theirs}", {"definition": BOOK}),
            ("DELETE", f"/api/templates/{theirs}", None),
            ("POST", f"/api/templates/{theirs}/copy", {}),
            ("POST", "/api/templates/check-content", {"template_id": theirs, "content": {}}),
            ("POST", "/api/templates/check", {"definition": BOOK, "template_id": theirs}),
        ]:
            answer = alice(method, path, json=body) if body is not None else alice(method, path)
            assert answer.status_code == 404, (path, answer.text)
            assert "No template with id" in answer.json()["message"]
        assert theirs not in str(alice.ok("GET", "/api/templates").get("templates"))
        child = f"name: Mine\nparent_template_id: {theirs}\nfields: []\n"
        refused = alice.ok("POST", "/api/templates/check", json={"definition": child})
        assert refused["valid"] is False and refused["errors"][0]["code"] == "missing_parent"
        mine = logical_fingerprint(store, ["alice"])
        for method, path, body, status, words in BAD:
            answer = _send(alice, method, path, body)
            assert answer.status_code == status and words in answer.json()["message"], (path, answer.text)
        assert logical_fingerprint(store, ["alice"]) == mine
        made = alice.ok("POST", "/api/templates", json={"definition": BOOK})
        replaced = alice.ok("PUT", f"/api/templates/{made['id']}", json={"definition": BOOK + "version: '2.0'\n"})
        assert replaced["version"] == "2.0"
    finally:
        alice.client.close()
        server.stop()
    assert logical_fingerprint(store, ["bob"]) == fingerprint
