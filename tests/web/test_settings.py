"""The settings pages in the browser: preferences, tokens, import with progress, export downloads."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from http_support import logical_fingerprint
from remember.caller import Caller
from remember.service.import_export.jsonl import export_records
from web_support import Site


def contents(site: Site, user: str) -> list[str]:
    return sorted(m.content for m in site.services.memories.list(Caller(user), limit=100).items)


def entities(path: Path, count: int, name: str = "Person") -> Path:
    lines = [
        json.dumps({"type": "entity", "name": f"{name} {i}", "entityType": "person", "observations": [f"likes {i}"]})
        for i in range(count)
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def open_settings(site: Site, page: Any, user: str, section: str) -> None:
    """The page loaded at ``#/settings/<section>`` with a session for ``user`` (straight there: a view
    still drawing after a quick change of address could draw over the next one)."""
    site.open_as(page, site.session(user), f"#/settings/{section}")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()


def test_a_preference_is_saved_and_a_bad_value_is_refused_with_its_message(site: Site, page: Any) -> None:
    user = site.user("prefs")
    open_settings(site, page, user, "preferences")
    expect(page.get_by_role("group", name="Search")).to_be_visible()
    limit = page.get_by_label("Default limit")
    expect(limit).to_have_value("10")
    limit.fill("25")
    page.get_by_label("Reason (optional)").fill("longer lists")
    page.get_by_role("button", name="Save preferences").click()
    expect(page.get_by_role("main").get_by_text("Saved 1 preference.")).to_be_visible()
    assert site.services.preferences.effective(Caller(user))["search.default_limit"] == 25

    limit.fill("500")
    page.get_by_label("Auto suggest").uncheck()
    page.get_by_role("button", name="Save preferences").click()
    expect(page.locator("#problem-search-default_limit")).to_have_text(
        "search.default_limit must be a whole number from 1 to 100; got 500."
    )
    expect(limit).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert")).to_contain_text("No preference was changed")
    site.shot(page, "settings-preferences")
    stored = site.services.preferences.effective(Caller(user))
    assert stored["search.default_limit"] == 25 and stored["templates.auto_suggest"] is True

    limit.fill("40")
    page.get_by_label("Default type").fill("Book Note")
    page.get_by_role("button", name="Save preferences").click()
    expect(page.get_by_role("main").get_by_text("Saved 3 preferences.")).to_be_visible()
    expect(page.get_by_label("Default type")).to_have_value("book_note")  # as stored
    expect(page.locator("#problem-search-default_limit")).to_be_empty()
    stored = site.services.preferences.effective(Caller(user))
    assert (stored["search.default_limit"], stored["memory.default_type"], stored["templates.auto_suggest"]) == (
        40,
        "book_note",
        False,
    )


def test_a_token_is_made_its_secret_shown_once_and_revoked(site: Site, page: Any) -> None:
    user = site.user("tokens")
    open_settings(site, page, user, "tokens")
    page.get_by_label("Name").fill("laptop")
    page.get_by_label("Expires after").fill("30d")
    page.get_by_label("Trust level").fill("0.6")
    page.get_by_role("button", name="Make token").click()
    secret_box = page.get_by_label("Secret of token")
    expect(secret_box).to_have_value(re.compile(r"^rmb_[0-9a-f]{16}_"))
    expect(page.get_by_text("Copy this token now: it is not shown again.")).to_be_visible()
    secret = secret_box.input_value()
    assert secret.startswith("rmb_")
    verified = site.services.tokens.verify(secret)
    assert verified is not None and verified.user_id == user and verified.trust_level == 0.6
    assert verified.expires_at is not None
    expect(page.get_by_role("row", name="laptop")).to_be_visible()
    site.shot(page, "settings-tokens")

    page.reload()
    expect(page.get_by_role("row", name="laptop")).to_be_visible()
    expect(page.get_by_label("Secret of token")).to_have_count(0)
    assert secret not in page.content()
    page.get_by_role("button", name="Revoke laptop").click()
    page.get_by_role("button", name="Yes, revoke").click()
    expect(page.get_by_role("row", name="laptop")).to_contain_text("revoked")
    assert site.services.tokens.verify(secret) is None
    expect(page.locator("#who")).to_contain_text(user)  # this session's own token still works


def test_revoking_the_sessions_own_token_logs_the_browser_out(site: Site, page: Any) -> None:
    user = site.user("own")
    open_settings(site, page, user, "tokens")
    own = page.get_by_role("row").filter(has_text="this session")
    expect(own).to_have_count(1)
    own.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("This is the token of this session: you will be logged out.")).to_be_visible()
    page.get_by_role("button", name="Yes, revoke").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.locator("#nav")).to_be_hidden()


def test_an_import_of_an_export_shows_its_progress_and_its_memories_are_stored(
    site: Site, page: Any, tmp_path: Path
) -> None:
    source, user = site.user("source"), site.user("importer")
    for i in range(12):
        site.services.memories.create(Caller(source), {"content": f"imported fact number {i}", "tags": ["moved"]})
    export = tmp_path / "export.jsonl"
    export.write_text(
        "".join(json.dumps(r) + "\n" for r in export_records(site.store, [Caller(source)])), encoding="utf-8"
    )
    open_settings(site, page, user, "import")
    expect(page.get_by_text("A file of at most 1 MiB (the server's REMEMBER_HTTP_MAX_BODY)")).to_be_visible()
    page.get_by_label("File to import").set_input_files(str(export))
    page.get_by_label("Format").select_option("remember")
    page.get_by_role("button", name="Start import").click()
    expect(page.get_by_text("Done: read 12, stored 12, skipped 0.")).to_be_visible()
    bar = page.get_by_role("progressbar", name="Progress of export.jsonl")
    expect(bar).to_have_attribute("value", "12")
    expect(bar).to_have_attribute("max", "12")
    report = page.get_by_role("region", name="Import report")
    expect(report).to_contain_text("Stored 12 memories of 12 read (remember).")
    site.shot(page, "settings-import")
    assert contents(site, user) == contents(site, source)

    page.get_by_role("button", name="Start import").click()  # the account has these now: refused, nothing added
    expect(page.get_by_role("alert")).to_contain_text("The file holds records that are stored already")
    expect(page.get_by_role("alert")).to_contain_text("the choice for records you have already")
    assert len(contents(site, user)) == 12
    page.get_by_label("Records of a remember export you have already (same id)").select_option("skip")
    page.get_by_role("button", name="Start import").click()
    expect(report).to_contain_text("Stored 0 memories of 12 read (remember).")
    expect(report).to_contain_text("Stored already (not stored again): 12.")
    assert len(contents(site, user)) == 12


def test_a_dry_run_stores_nothing_and_says_what_it_would(site: Site, page: Any, tmp_path: Path) -> None:
    user = site.user("dry")
    before = logical_fingerprint(site.store, [user])
    open_settings(site, page, user, "import")
    page.get_by_label("File to import").set_input_files(str(entities(tmp_path / "graph.jsonl", 3)))
    page.get_by_label("Format").select_option("server-memory")
    page.get_by_label("Dry run").check()
    page.get_by_role("button", name="Start import").click()
    report = page.get_by_role("region", name="Import report")
    expect(report).to_contain_text("Would store 3 memories of 3 read (server-memory).")
    expect(report).to_contain_text("[person] Person 0: likes 0")
    assert logical_fingerprint(site.store, [user]) == before

    page.get_by_label("Dry run").uncheck()
    page.get_by_role("button", name="Start import").click()
    expect(report).to_contain_text("Stored 3 memories of 3 read (server-memory).")
    assert contents(site, user) == ["likes 0", "likes 1", "likes 2"]


def test_a_file_over_the_limit_is_refused_before_it_is_sent(site: Site, page: Any, tmp_path: Path) -> None:
    user = site.user("big")
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * ((1 << 20) + 1))
    open_settings(site, page, user, "import")
    page.get_by_label("File to import").set_input_files(str(big))
    page.get_by_role("button", name="Start import").click()
    expect(page.get_by_role("alert")).to_contain_text("this server takes at most 1 MiB in one upload")
    assert contents(site, user) == []


def test_an_export_downloads_the_users_memories_only(site: Site, page: Any) -> None:
    mine, other = site.user("exporter"), site.user("bystander")
    site.services.memories.create(Caller(mine), {"content": "my own note to take along", "title": "Mine"})
    site.services.memories.create(Caller(other), {"content": "someone else's secret"})
    open_settings(site, page, mine, "export")
    with page.expect_download() as jsonl:
        page.get_by_role("button", name="remember export (JSON Lines)").click()
    records = [json.loads(line) for line in Path(jsonl.value.path()).read_text(encoding="utf-8").splitlines()]
    assert records[0]["format"] == "remember-export"
    assert {r["user_id"] for r in records[1:]} == {mine}
    assert [r["memory"]["content"] for r in records if r.get("kind") == "memory"] == ["my own note to take along"]
    assert jsonl.value.suggested_filename.endswith(".jsonl")

    with page.expect_download() as graph:
        page.get_by_role("button", name="server-memory file (JSON Lines)").click()
    lines = [json.loads(line) for line in Path(graph.value.path()).read_text(encoding="utf-8").splitlines()]
    assert [entity["observations"] for entity in lines] == [["my own note to take along"]]

    with page.expect_download() as notes:
        page.get_by_role("button", name="Markdown notes (zip)").click()
    with zipfile.ZipFile(notes.value.path()) as archive:
        texts = [archive.read(name).decode() for name in archive.namelist()]
    assert len(texts) == 1 and "my own note to take along" in texts[0] and "secret" not in texts[0]
