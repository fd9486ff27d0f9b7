"""The graph of the whole memory in Chromium at 1280 and 390 px: it draws every relationship, filters narrow it
and live in the address, choosing a node opens its memory, pan and zoom answer the buttons and the wheel, and past
the limit the page says how much it left out; no console error, no sideways scroll, axe without serious problems."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from remember.caller import Caller
from remember.service.relationships import RelationshipDraft
from web_support import Site, axe_problems_at, sideways

PERSON = "builtin:person"


def made(site: Site, user: str) -> dict[str, str]:
    me = Caller(user)
    memories, relationships = site.services.memories, site.services.relationships

    def person(name: str) -> str:
        draft = {"template_id": PERSON, "structured_content": {"name": name, "relationship": "friend"}}
        return memories.create(me, draft).id

    ids = {"Ann": person("Ann"), "Bob": person("Bob")}
    trip = {"content": "Trip to Lisbon", "title": "Trip to Lisbon", "tags": ["travel"]}
    trip["context"] = {"timestamp": "2024-05-01"}
    ids["Trip to Lisbon"] = memories.create(me, trip).id
    ids["A book on Lisbon"] = memories.create(me, {"content": "A book on Lisbon", "title": "A book on Lisbon"}).id
    for who in ("Ann", "Bob"):
        relationships.create(me, RelationshipDraft([ids[who], ids["Trip to Lisbon"]], "went_on"))
    relationships.create(me, RelationshipDraft([ids["A book on Lisbon"], ids["Trip to Lisbon"]], "inspired"))
    return ids


def nodes(page: Any) -> Any:
    return page.locator("svg.whole a.node")


def test_the_graph_draws_narrows_and_opens_a_memory(site: Site, sized: Any, browser: Any) -> None:
    user = site.user("graph")
    made(site, user)
    site.log_in(sized, user)
    if sized.viewport_size["width"] < 800:
        sized.get_by_role("button", name="Menu").click()
    sized.get_by_role("link", name="Graph").click()
    expect(sized.locator(".graph-summary")).to_have_text("4 memories, 3 relationships.")
    expect(nodes(sized)).to_have_count(4)
    expect(sized.locator("svg.whole line")).to_have_count(3)
    assert sideways(sized) == 0
    site.shot_at_width(sized, "graph")
    ready = lambda p: expect(p.locator("svg.whole a.node")).to_have_count(4)  # noqa: E731
    assert axe_problems_at(browser, sized, ready) == []

    sized.get_by_label("Relationship type").select_option("inspired")
    sized.get_by_role("button", name="Draw").click()
    expect(sized.locator(".graph-summary")).to_have_text("2 memories, 1 relationship.")
    assert "type=inspired" in sized.url
    sized.get_by_role("button", name="Clear the filters").click()
    expect(nodes(sized)).to_have_count(4)
    sized.get_by_label("Template").select_option(label="Person Profile")
    sized.get_by_role("button", name="Draw").click()
    expect(sized.locator(".graph-summary")).to_have_text("3 memories, 2 relationships.")
    sized.reload()  # the filters live in the address
    expect(sized.locator(".graph-summary")).to_have_text("3 memories, 2 relationships.")
    expect(sized.get_by_label("Template")).to_have_value(PERSON)

    sized.locator("svg.whole a.node", has_text="Ann").locator("circle").click()
    expect(sized.get_by_role("heading", level=1)).to_have_text("Ann")
    sized.go_back()
    expect(nodes(sized)).to_have_count(3)


def test_pan_and_zoom_answer_the_buttons_the_keys_and_the_wheel(site: Site, page: Any) -> None:
    user = site.user("pan")
    made(site, user)
    site.open_as(page, site.session(user), "#/graph")
    expect(nodes(page)).to_have_count(4)
    assert [w.url.rsplit("/", 1)[1] for w in page.workers] == ["graph-worker.js"]  # the layout ran off the page
    view = page.locator("svg.whole > g")
    fitted = view.get_attribute("transform")
    page.get_by_role("button", name="Zoom in").click()
    zoomed = view.get_attribute("transform")
    assert zoomed != fitted and _scale(zoomed) > _scale(fitted)
    page.get_by_role("button", name="Move left").click()
    assert view.get_attribute("transform") != zoomed
    page.get_by_role("button", name="Fit the graph in view").click()
    assert view.get_attribute("transform") == fitted
    page.locator("svg.whole").focus()
    page.keyboard.press("-")
    assert _scale(view.get_attribute("transform")) < _scale(fitted)
    page.locator("svg.whole").hover()
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"() => document.querySelector('svg.whole > g').getAttribute('transform') !== {fitted!r}")
    box = page.locator("svg.whole").bounding_box()
    before = view.get_attribute("transform")
    page.mouse.move(box["x"] + 20, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 120, box["y"] + 80, steps=5)
    page.mouse.up()
    assert view.get_attribute("transform") != before
    assert "#/graph" in page.url  # a drag opens nothing


def test_past_the_limit_the_page_says_what_it_left_out(site: Site, sized: Any) -> None:
    user = site.user("limit")
    made(site, user)
    site.open_as(sized, site.session(user), "#/graph?limit=2")
    expect(sized.get_by_role("note")).to_have_text(
        "Showing 2 of 4 memories: the most connected, with 1 of the 3 relationships; "
        "narrow the filters to see the rest."
    )
    expect(nodes(sized)).to_have_count(2)
    assert sideways(sized) == 0
    site.shot_at_width(sized, "graph-sampled", phone_only=True)


def test_another_users_graph_is_not_drawn(site: Site, page: Any) -> None:
    owner = site.user("owner")
    made(site, owner)
    stranger = site.user("stranger")
    site.open_as(page, site.session(stranger), "#/graph")
    expect(page.get_by_role("status").filter(has_text="No relationships match")).to_be_visible()
    expect(nodes(page)).to_have_count(0)


def _scale(transform: str | None) -> float:
    assert transform is not None
    return float(transform.split("scale(")[1].rstrip(")"))


def test_ended_relationships_and_dates_from_the_form_and_a_bad_address(site: Site, page: Any) -> None:
    user = site.user("dates")
    ids = made(site, user)
    ended = RelationshipDraft([ids["Ann"], ids["Bob"]], "married_to", valid_from="2001-01-01", valid_until="2009-01-01")
    site.services.relationships.create(Caller(user), ended)
    site.open_as(page, site.session(user), "#/graph")
    expect(page.locator(".graph-summary")).to_have_text("4 memories, 3 relationships.")
    page.get_by_label("Also what has ended").check()
    page.get_by_role("button", name="Draw").click()
    expect(page.locator(".graph-summary")).to_have_text("4 memories, 4 relationships.")
    expect(page.locator("svg.whole line.ended")).to_have_count(1)
    page.get_by_label("From").fill("2024-01-01")
    page.get_by_label("Until").fill("2025-01-01")
    page.get_by_role("button", name="Draw").click()
    # every link but the marriage holds the trip, which happened in 2024
    expect(page.locator(".graph-summary")).to_have_text("4 memories, 3 relationships.")
    expect(page.locator("svg.whole line.ended")).to_have_count(0)
    page.get_by_label("Dates are when").select_option("valid")
    page.get_by_label("From").fill("2005-01-01")
    page.get_by_label("Until").fill("2006-01-01")
    page.get_by_role("button", name="Draw").click()
    expect(page.locator(".graph-summary")).to_have_text("2 memories, 1 relationship.")
    page.goto(f"{site.url}/#/graph?since=someday")
    expect(page.get_by_role("alert")).to_contain_text("since")
    expect(nodes(page)).to_have_count(0)


def test_a_finger_moves_the_graph_and_two_pinch_it(site: Site, browser: Any) -> None:
    user = site.user("touch")
    made(site, user)
    context = browser.new_context(viewport={"width": 390, "height": 860}, is_mobile=True, has_touch=True)
    try:
        phone = context.new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda error: errors.append(str(error)))
        site.open_as(phone, site.session(user), "#/graph")
        expect(nodes(phone)).to_have_count(4)
        view = phone.locator("svg.whole > g")
        fitted = view.get_attribute("transform")
        touch = """(steps) => {
          const svg = document.querySelector('svg.whole'), box = svg.getBoundingClientRect();
          for (const [type, id, x, y] of steps) {
            svg.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', bubbles: true,
              clientX: box.left + x, clientY: box.top + y, isPrimary: id === 1 }));
          }
        }"""
        drag = [["pointerdown", 1, 100, 100], ["pointermove", 1, 140, 130], ["pointerup", 1, 140, 130]]
        phone.evaluate(touch, drag)
        moved = view.get_attribute("transform")
        assert moved != fitted and _scale(moved) == _scale(fitted)
        pinch = [["pointerdown", 1, 150, 200], ["pointerdown", 2, 200, 200], ["pointermove", 2, 260, 200],
                 ["pointerup", 1, 150, 200], ["pointerup", 2, 260, 200]]  # fmt: skip
        phone.evaluate(touch, pinch)
        assert _scale(view.get_attribute("transform")) > _scale(moved)
        assert "#/graph" in phone.url
        assert errors == []
    finally:
        context.close()
