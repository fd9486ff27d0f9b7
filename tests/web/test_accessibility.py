"""Every page of the dashboard passes axe-core's WCAG 2.1 A/AA checks (no serious or critical problem)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from web_support import Site, axe_problems

PAGES = ["login", "settings/preferences", "settings/tokens", "settings/import", "settings/export"]


@pytest.fixture
def checked_page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_the_page_has_no_serious_accessibility_problem(site: Site, checked_page: Any, name: str) -> None:
    user = site.user("a11y")
    if name != "login":
        site.log_in(checked_page, user)
    checked_page.goto(f"{site.url}/#/{name}")
    expect(checked_page.locator("main h1")).to_be_visible()
    checked_page.wait_for_load_state("networkidle")
    assert axe_problems(checked_page) == []


def test_the_checker_finds_an_unlabelled_control(checked_page: Any) -> None:
    checked_page.set_content("<!doctype html><html lang='en'><title>t</title><main><input type='text'></main></html>")
    assert any(problem.startswith("label (critical)") for problem in axe_problems(checked_page))
