"""The settings pages and shared spaces in the browser, at a desktop's and a phone's width: a space chosen for
an export names the file after it and holds its memories, an import goes into a space where one writes (only
those are offered), and the tokens page shows each token's spaces and makes a token limited to some."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from remember.models import MemoryQuery
from remember.service.import_export.jsonl import export_records
from web_support import Site, axe_problems_at, sideways

GRAPH = "\n".join(
    json.dumps({"type": "entity", "name": f"Item {i}", "entityType": "thing", "observations": [f"item {i}"]})
    for i in range(2)
)


def team(site: Site, admin: str, name: str, **members: str) -> str:
    key = site.services.spaces.create(Caller(admin), name).space.key
    for user, role in members.items():
        site.services.spaces.add_member(Caller(admin), key, user, role)
        site.services.spaces.accept(Caller(user), key)
    return key


def opened(site: Site, page: Any, user: str, section: str) -> None:
    site.open_as(page, site.session(user), f"#/settings/{section}")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()


def test_a_member_exports_a_shared_space(site: Site, sized: Any, browser: Any) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key = team(site, ann, "Launch crew", **{bob: "reader"})
    site.services.memories.create(site.services.spaces.writing(Caller(ann), key), {"content": "the crew's plan"})
    site.services.memories.create(Caller(bob), {"content": "bob's own note"})
    opened(site, page, bob, "export")
    chooser = page.get_by_label("Space to export")
    expect(chooser.locator("option")).to_have_text(["Personal", "Launch crew"])
    chooser.select_option(label="Launch crew")
    with page.expect_download() as jsonl:
        page.get_by_role("button", name="remember export (JSON Lines)").click()
    assert jsonl.value.suggested_filename.startswith("remember-Launch-crew-")
    records = [json.loads(line) for line in Path(jsonl.value.path()).read_text(encoding="utf-8").splitlines()]
    assert records[0]["spaces"] == {key: "Launch crew"}
    assert [r["memory"]["content"] for r in records if r.get("kind") == "memory"] == ["the crew's plan"]
    assert sideways(page) == 0
    site.shot_at_width(page, "settings-export-space")
    ready = lambda p: expect(p.get_by_label("Space to export")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []


def test_a_writer_imports_into_a_space_and_a_reader_is_not_offered_it(
    site: Site, sized: Any, browser: Any, tmp_path: Path
) -> None:
    page, ann, bob = sized, site.user("ann"), site.user("bob")
    key = team(site, ann, "Writers", **{bob: "writer"})
    team(site, ann, "Readers only", **{bob: "reader"})
    graph = tmp_path / "graph.jsonl"
    graph.write_text(GRAPH, encoding="utf-8")
    opened(site, page, bob, "import")
    into = page.get_by_label("Import into")
    expect(into.locator("option")).to_have_text(["Personal", "Writers"])
    page.get_by_label("File to import").set_input_files(str(graph))
    page.get_by_label("Format").select_option("server-memory")
    into.select_option(label="Writers")
    page.get_by_role("button", name="Start import").click()
    expect(page.get_by_role("region", name="Import report")).to_contain_text("Stored 2 memories of 2 read")
    stored = site.store.memories.page(key, MemoryQuery(limit=10)).items
    assert sorted(m.content for m in stored) == ["item 0", "item 1"] and {m.created_by for m in stored} == {bob}
    assert not site.services.memories.list(Caller(bob), limit=10).items
    dora = site.user("dora")
    fact = site.services.memories.create(Caller(dora), {"content": "dora's fact"})
    site.services.preferences.update(Caller(dora), "search.default_limit", 7)
    export = tmp_path / "dora.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in export_records(site.store, [Caller(dora)])), "utf-8")
    site.services.memories.delete(Caller(dora), fact.id, permanent=True)  # a space keeps no id used elsewhere
    page.get_by_label("File to import").set_input_files(str(export))
    page.get_by_label("Format").select_option("remember")
    page.get_by_role("button", name="Start import").click()
    report = page.get_by_role("region", name="Import report")
    expect(report).to_contain_text("Stored 1 memory of 1 read (remember).")
    expect(report).to_contain_text("Left out: 1 preference (a shared space has none of its own).")
    assert sideways(page) == 0
    site.shot_at_width(page, "settings-import-space")
    ready = lambda p: expect(p.get_by_label("Import into")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []


def test_the_tokens_page_shows_and_makes_tokens_limited_to_spaces(site: Site, sized: Any, browser: Any) -> None:
    page, ann = sized, site.user("ann")
    key = team(site, ann, "Ops")
    site.services.tokens.create(ann, name="everywhere")
    opened(site, page, ann, "tokens")
    expect(page.get_by_role("row", name="everywhere")).to_contain_text("all")
    page.get_by_label("Name").fill("ops-only")
    limit = page.get_by_role("group", name="Limit to spaces")
    limit.get_by_label("Ops").check()
    page.get_by_role("button", name="Make token").click()
    secret = page.get_by_label("Secret of token").input_value()
    verified = site.services.tokens.verify(secret)
    assert verified is not None and verified.spaces == frozenset({key})
    expect(page.get_by_role("row", name="ops-only")).to_contain_text("Ops")
    expect(limit.get_by_label("Ops")).not_to_be_checked()
    assert sideways(page) == 0
    site.shot_at_width(page, "settings-tokens-spaces")
    ready = lambda p: expect(p.get_by_role("row", name="ops-only")).to_be_visible()  # noqa: E731
    assert axe_problems_at(browser, page, ready) == []
