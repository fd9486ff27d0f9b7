"""The analytics page in a real browser, and its API: charts drawn by Chart.js, numbers that match what was stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.store import Store
from web_support import Site, axe_problems

MONDAY = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
RECIPE: dict[str, Any] = {
    "template_name": "Recipe",
    "fields": [
        {"name": "dish", "type": "string", "required": True},
        {"name": "cuisine", "type": "string"},
        {"name": "minutes", "type": "integer"},
    ],
    "auto_apply": True,
    "trigger_keywords": ["recipe", "cooked"],
}
# (day after MONDAY, type or None for a recipe, the recipe's fields)
SEEDED: list[tuple[int, str | None, dict[str, Any]]] = [
    (0, "note", {}),
    (2, "note", {}),
    (8, "note", {}),
    (9, None, {"dish": "Dal", "cuisine": "Indian", "minutes": 30}),
    (15, None, {"dish": "Pho", "cuisine": "Vietnamese"}),
    (16, None, {"dish": "Toast"}),
    (17, "idea", {}),
]


class Clock:
    def __init__(self) -> None:
        self.now = MONDAY

    def __call__(self) -> datetime:
        return self.now


def seed(store: Store, user: str, *, secret: bool = False) -> str:
    """The memories of SEEDED for ``user`` (or, with ``secret``, ones of type ``secret``), stored on their days;
    the id of the user's Recipe template."""
    clock = Clock()
    services = Services.over(store, clock)
    recipe = services.templates.create(Caller(user), RECIPE).id
    for n, (day, kind, fields) in enumerate(SEEDED):
        clock.now = MONDAY + timedelta(days=day, minutes=n)
        if secret:
            services.memories.create(Caller(user), {"content": f"secret {n} of {user}", "type": "secret"})
        elif kind is None:
            services.memories.create(Caller(user), {"template_id": recipe, "structured_content": fields})
        else:
            services.memories.create(Caller(user), {"content": f"{kind} {n} of {user}", "type": kind})
    clock.now = MONDAY + timedelta(days=1)
    services.suggestions.suggest(Caller(user), "I cooked a recipe for dal")
    return recipe


def open_as(site: Site, page: Any, user: str, address: str) -> None:
    """Open ``address`` of the dashboard as ``user`` straight away (``Site.log_in`` opens the memories page
    first, whose drawing could land after this page's)."""
    site.open_as(page, site.session(user), address)


def table_of(page: Any, title: str) -> list[list[str]]:
    """The cells of the numbers table under the chart headed ``title``, opened from the keyboard."""
    summary = page.get_by_text(f"{title}: the numbers", exact=True)
    summary.focus()
    page.keyboard.press("Enter")
    table = page.get_by_role("table", name=title)
    expect(table).to_be_visible()
    rows: list[list[str]] = table.evaluate("t => [...t.rows].map(r => [...r.cells].map(c => c.textContent.trim()))")
    return rows


def charts_drawn(page: Any) -> list[str]:
    """The ids of the canvases Chart.js has drawn a chart on (once every canvas has one)."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('canvas')].every(c => window.Chart && Chart.getChart(c))"
    )
    found: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('canvas')].filter(c => window.Chart && Chart.getChart(c)).map(c => c.id)"
    )
    return found


def test_the_overview_charts_memories_per_week_by_type_and_template(site: Site, page: Any) -> None:
    user, other = site.user("ana"), site.user("otto")
    seed(site.store, user)
    seed(site.store, other, secret=True)
    open_as(site, page, user, "#/analytics")
    expect(page.get_by_role("heading", name="Analytics", exact=True)).to_be_visible()
    page.get_by_label("Period").select_option("week")
    expect(page.get_by_role("heading", name="Memories per week by type")).to_be_visible()
    assert charts_drawn(page) == ["by-type-chart", "by-template-chart"]
    assert page.evaluate("() => Object.keys(Chart.instances).length") == 2  # the day charts before were destroyed
    weeks = ["2026-01-05", "2026-01-12", "2026-01-19"]
    assert table_of(page, "Memories per week by type") == [
        ["Period starting", "note", "recipe", "idea"],
        [weeks[0], "2", "0", "0"],
        [weeks[1], "1", "1", "0"],
        [weeks[2], "0", "2", "1"],
    ]
    assert table_of(page, "Memories per week by template") == [
        ["Period starting", "(no template)", "Recipe"],
        [weeks[0], "2", "0"],
        [weeks[1], "1", "1"],
        [weeks[2], "1", "2"],
    ]
    label = page.locator("#by-type-chart").get_attribute("aria-label")
    assert label == "Memories per week by type, 2026-01-05 to 2026-01-19: note 3, recipe 3, idea 1."
    expect(page.get_by_label("Totals")).to_contain_text("Memories7")
    expect(page.locator("main")).not_to_contain_text("secret")
    site.shot(page, "analytics")


def test_a_template_shows_its_completion_fill_rates_values_and_suggestions(site: Site, page: Any) -> None:
    user = site.user("bea")
    seed(site.store, user)
    someone = site.user("someone")
    theirs = seed(site.store, someone)  # a Recipe of their own, with other figures
    for dish in ("Soup", "Stew"):
        fields = {"dish": dish, "cuisine": "French", "minutes": 90}
        site.services.memories.create(Caller(someone), {"template_id": theirs, "structured_content": fields})
    open_as(site, page, user, "#/analytics")
    options = page.get_by_label("Template", exact=True).locator("option")
    expect(options).to_have_text(["All memories (overview)", "Recipe (3)"])
    page.get_by_label("Template", exact=True).select_option(label="Recipe (3)")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", name="Template analytics")).to_be_visible()
    expect(page.get_by_role("heading", name="Fill rate per field")).to_be_visible()
    assert charts_drawn(page) == [
        "completion-chart", "fill-chart", "values-0-chart", "values-1-chart", "values-2-chart", "acceptance-chart"
    ]  # fmt: skip
    assert table_of(page, "Fill rate per field") == [
        ["Field", "Filled", "Fill rate"],
        ["dish", "3", "100%"],
        ["cuisine", "2", "66.7%"],
        ["minutes", "1", "33.3%"],
    ]
    assert table_of(page, "Completion") == [
        ["Fields filled", "Memories"], ["0-24%", "0"], ["25-49%", "1"], ["50-74%", "1"], ["75-99%", "0"], ["100%", "1"]
    ]  # fmt: skip
    assert table_of(page, "Common values of cuisine") == [["Value", "Memories"], ["Indian", "1"], ["Vietnamese", "1"]]
    expect(page.locator("main")).not_to_contain_text("French")
    shown = table_of(page, "Suggestions per day: shown and applied")
    assert shown == [["Period starting", "Shown", "Applied"], ["2026-01-06", "1", "0"]]
    site.shot(page, "analytics-template")


def test_a_bucket_too_fine_for_the_data_is_refused_and_another_can_be_chosen(site: Site, page: Any) -> None:
    user = site.user("historian")
    site.services.memories.create(Caller(user), {"content": "The first flight", "context": {"timestamp": "1903-12-17"}})
    site.services.memories.create(Caller(user), {"content": "Today's note"})
    open_as(site, page, user, "#/analytics")
    page.get_by_label("Count memories by").select_option("occurred")
    expect(page.get_by_role("heading", name="Memories per year by type")).to_be_visible()
    page.get_by_label("Period").select_option("day")
    expect(page.get_by_role("alert")).to_have_text(
        "The data spans more than 1000 periods of a day; choose week, month, year."
    )
    page.get_by_label("Period").select_option("month")
    expect(page.get_by_role("alert")).to_have_text("The data spans more than 1000 periods of a month; choose year.")
    page.get_by_label("Period").select_option("year")
    expect(page.get_by_role("heading", name="Memories per year by type")).to_be_visible()
    assert charts_drawn(page) == ["by-type-chart", "by-template-chart"]


def test_a_new_user_sees_that_nothing_is_counted_yet(site: Site, page: Any) -> None:
    open_as(site, page, site.user("new"), "#/analytics")
    expect(page.get_by_text("No memories yet")).to_be_visible()
    assert charts_drawn(page) == []


def test_another_users_template_is_not_found_in_the_page(site: Site, page: Any) -> None:
    owner, intruder = site.user("owner"), site.user("intruder")
    recipe = seed(site.store, owner)
    open_as(site, page, intruder, f"#/analytics/{recipe}")
    expect(page.get_by_role("alert")).to_contain_text(f"No template with id '{recipe}'")
    expect(page.locator("main")).not_to_contain_text("Indian")
    assert charts_drawn(page) == []


def test_the_template_picker_is_reachable_from_the_keyboard(site: Site, page: Any) -> None:
    user = site.user("kim")
    seed(site.store, user)
    open_as(site, page, user, "#/analytics")
    expect(page.get_by_label("Template", exact=True)).to_be_visible()
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'page'")  # drawn
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.name") == "template":
            break
    expect(page.get_by_label("Template", exact=True)).to_be_focused()
    page.keyboard.press("ArrowDown")  # the first template: the one used most
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Fill rate per field")).to_be_visible()


def get(site_url: str, token: str | None, path: str) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.get(f"{site_url}{path}", headers=headers)


def test_the_api_answers_only_for_the_callers_data(site: Site) -> None:
    owner, intruder = site.user("api-owner"), site.user("api-intruder")
    recipe = seed(site.store, owner)
    mine = get(site.url, site.token(owner), "/api/analytics/overview?bucket=week").json()
    assert mine["totals"]["memories"] == 7 and [r["total"] for r in mine["by_type"]] == [3, 3, 1]
    theirs = get(site.url, site.token(intruder), "/api/analytics/overview").json()
    assert theirs["totals"]["memories"] == 0 and theirs["by_type"] == [] and theirs["periods"] == []
    assert get(site.url, site.token(intruder), "/api/analytics/templates").json() == {"templates": []}
    refused = get(site.url, site.token(intruder), f"/api/analytics/templates/{recipe}")
    assert refused.status_code == 404 and f"No template with id '{recipe}'" in refused.json()["message"]
    assert get(site.url, None, "/api/analytics/overview").status_code == 401
    low = site.token(owner, trust_level=0.0)
    assert get(site.url, low, "/api/analytics/overview").json()["totals"]["memories"] == 0


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/api/analytics/overview?bucket=hour", 422, "bucket is one of day, week, month, year"),
        ("/api/analytics/overview?when=tomorrow", 422, "when is created (when stored) or occurred"),
        ("/api/analytics/overview?bucket=" + "w" * 5000, 422, "bucket is one of"),
        ("/api/analytics/templates/" + "x" * 5000, 404, "(5000 characters)"),
        ("/api/analytics/templates/%3Cscript%3E", 404, "No template with id '<script>'"),
        ("/api/analytics/templates/builtin:book_review?bucket=decade", 422, "bucket is one of"),
    ],
)
def test_bad_input_is_answered_with_the_fix(site: Site, path: str, status: int, says: str) -> None:
    user = site.user()
    seed(site.store, user)
    before = logical_fingerprint(site.store, [user])
    answer = get(site.url, site.token(user), path)
    assert answer.status_code == status
    assert says in answer.json()["message"]
    assert len(answer.content) < 4000
    assert logical_fingerprint(site.store, [user]) == before


def test_the_api_counts_on_both_backends(store: Store, tmp_path: Path) -> None:
    recipe = seed(store, "dana")
    seed(store, "eve", secret=True)
    services = Services.over(store)
    token = services.tokens.create("dana").secret
    server = HttpServer(tmp_path / "home", store.url).start()
    try:
        overview = get(server.url, token, "/api/analytics/overview?bucket=week").json()
        template = get(server.url, token, f"/api/analytics/templates/{recipe}?bucket=week").json()
    finally:
        server.stop()
    assert overview["periods"] == ["2026-01-05", "2026-01-12", "2026-01-19"]
    assert [(r["type"], r["counts"]) for r in overview["by_type"]] == [
        ("note", [2, 1, 0]), ("recipe", [0, 1, 2]), ("idea", [0, 0, 1])
    ]  # fmt: skip
    assert template["field_usage_statistics"]["cuisine"]["filled"] == 2
    assert template["acceptance_over_time"] == {"bucket": "week", "periods": ["2026-01-05"], "shown": [1],
                                                "applied": [0]}  # fmt: skip


@pytest.mark.parametrize("template", [False, True])
def test_the_pages_with_their_charts_have_no_serious_accessibility_problem(
    site: Site, browser: Any, template: bool
) -> None:
    user = site.user("axe")
    recipe = seed(site.store, user)
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 860})
    try:
        page = context.new_page()
        open_as(site, page, user, f"#/analytics/{recipe}" if template else "#/analytics")
        expect(page.locator("#acceptance-chart" if template else "#by-template-chart")).to_be_visible()
        for summary in page.locator("details summary").all():
            summary.click()
        assert axe_problems(page) == []
    finally:
        context.close()
