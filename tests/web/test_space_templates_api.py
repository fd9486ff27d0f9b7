"""The templates pages and template analytics in shared spaces, over the dashboard's API on both backends: the
list reads the spaces asked for (all by default), each template naming its space; a space's template is read by
any member and changed only by its admins, the page saying why not to the others; one is created or copied into
the space ``space`` names; the home page's templates in use count the chosen spaces' memories. Another user's
space, a non-member, a reader or writer editing, and no token are refused, and nothing stored changes."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from http_support import HttpServer
from remember.caller import Caller
from remember.models import MemoryQuery
from remember.service import Services
from remember.store import Store
from web_support import WRITE, client

RECIPE = """
name: Recipe
description: A dish we cook
fields:
  - name: dish
    type: string
    required: true
  - name: minutes
    type: integer
"""


def team(services: Services) -> str:
    """Space Team: ann its admin, bob a writer, cid a reader; its key."""
    key = services.spaces.create(Caller("ann"), "Team").space.key
    for user, role in (("bob", "writer"), ("cid", "reader")):
        services.spaces.add_member(Caller("ann"), key, user, role)
        services.spaces.accept(Caller(user), key)
    return key


def stored(store: Store, owners: list[str]) -> str:
    """The templates, their versions and the memories of ``owners`` (users or space keys), as text: equal means
    unchanged."""
    found: list[Any] = []
    for owner in owners:
        records = store.templates.of_user(owner)
        found += [repr(r) for r in records]
        found += [repr(store.templates.versions(owner, r.id)) for r in records]
        found += [m.as_dict() for m in store.memories.page(owner, MemoryQuery(deleted="include", limit=500)).items]
    return json.dumps(found, default=str)


def ok(answer: httpx2.Response) -> Any:
    assert answer.status_code == 200, answer.text
    return answer.json()


def listed(http: httpx2.Client, **query: Any) -> dict[str, str | None]:
    """The own and the spaces' templates listed (not the built-ins): name -> space."""
    page = ok(http.get("/api/templates", params={"origin": "mine", **query}))
    return {t["name"]: t.get("space") for t in page["templates"]}


def test_the_list_follows_the_chosen_space_and_a_space_template_is_made_there(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = team(services)
    with client(server, services, "ann") as http:
        made = ok(http.post("/api/templates", params={"space": key}, json={"definition": RECIPE}))
        assert made["space"] == key
        own = ok(http.post("/api/templates", json={"definition": RECIPE.replace("Recipe", "Diary")}))
        assert "space" not in own
        assert listed(http) == {"Recipe": key, "Diary": None}
        assert listed(http, space=key) == {"Recipe": key}
        assert listed(http, space="Team") == {"Recipe": key}
        assert listed(http, space="personal") == {"Diary": None}
        with_builtins = ok(http.get("/api/templates", params={"space": key, "limit": 100}))
        assert any(t["is_default"] for t in with_builtins["templates"])
        copied = ok(http.post(f"/api/templates/{own['id']}/copy", params={"space": key}, json={"name": "Team diary"}))
        assert copied["space"] == key and copied["derived_from"] == own["id"]
        assert listed(http, space=key) == {"Recipe": key, "Team diary": key}
    with client(server, services, "cid") as http:  # a reader lists the space's templates, not ann's own
        assert listed(http) == {"Recipe": key, "Team diary": key}
        assert listed(http, space="personal") == {}


def test_its_admin_edits_a_space_template_and_a_writer_or_reader_sees_why_not(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = team(services)
    template_id = services.templates.create(services.spaces.administering(Caller("ann"), key), _recipe()).id
    with client(server, services, "ann") as http:
        page = ok(http.get(f"/api/templates/{template_id}"))
        assert page["space"] == key and page["editable"] is True and "read_only" not in page
        changed = ok(http.put(f"/api/templates/{template_id}", json={"definition": RECIPE + "    required: true\n"}))
        assert changed["version"] != page["version"]
        assert ok(http.post("/api/templates/check", json={"definition": RECIPE, "template_id": template_id}))["valid"]
    before = stored(services.store, [key, "bob", "cid"])
    for user, role in (("bob", "writer"), ("cid", "reader")):
        with client(server, services, user) as http:
            page = ok(http.get(f"/api/templates/{template_id}"))
            assert page["editable"] is False and f"You are a {role} in space Team" in page["read_only"]
            assert ok(http.get(f"/api/templates/{template_id}/versions"))["template_id"] == template_id
            assert ok(http.get(f"/api/templates/{template_id}/memories"))["template_id"] == template_id
            for refused in (
                http.put(f"/api/templates/{template_id}", json={"definition": RECIPE}),
                http.delete(f"/api/templates/{template_id}"),
                http.post("/api/templates", params={"space": key}, json={"definition": RECIPE}),
                http.post(f"/api/templates/{template_id}/copy", params={"space": key}, json={}),
            ):
                assert refused.status_code == 403, refused.text
                assert "only its admins create, change or delete its templates" in refused.json()["message"]
    assert stored(services.store, [key, "bob", "cid"]) == before


def test_a_member_copies_a_space_template_into_their_personal_space(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services)
    template_id = services.templates.create(services.spaces.administering(Caller("ann"), key), _recipe()).id
    with client(server, services, "cid") as http:
        copied = ok(http.post(f"/api/templates/{template_id}/copy", json={}))
        assert "space" not in copied and copied["derived_from"] == template_id
        assert listed(http, space="personal") == {"Recipe (copy)": None}


def test_templates_in_use_and_a_templates_figures_count_the_chosen_spaces_memories(
    served: tuple[HttpServer, Services],
) -> None:
    server, services = served
    key = team(services)
    in_team = services.spaces.writing(Caller("bob"), key)
    template_id = services.templates.create(services.spaces.administering(Caller("ann"), key), _recipe()).id
    for dish in ("soup", "stew"):
        services.memories.create(in_team, {"template_id": template_id, "structured_content": {"dish": dish}})
    book = {"title": "Dune", "author": "Frank Herbert", "rating": 5}
    services.memories.create(in_team, {"template_id": "builtin:book_review", "structured_content": book})
    services.memories.create(Caller("cid"), {"template_id": "builtin:book_review", "structured_content": book})
    with client(server, services, "cid") as http:

        def used(**query: Any) -> dict[str, tuple[int, str | None]]:
            rows = ok(http.get("/api/analytics/templates", params=query))["templates"]
            return {r["id"]: (r["usage_count"], r.get("space")) for r in rows}

        assert used() == {template_id: (2, key), "builtin:book_review": (2, None)}
        assert used(space=key) == {template_id: (2, key), "builtin:book_review": (1, None)}
        assert used(space="personal") == {"builtin:book_review": (1, None)}
        figures = ok(http.get(f"/api/analytics/templates/{template_id}"))
        assert figures["template_id"] == template_id and figures["memory_count"] == 2
        made = ok(http.get(f"/api/templates/{template_id}/memories"))
        assert made["counts"] == {"valid": 2, "invalid": 0} and made["total"] == 2

        def overview(**query: Any) -> tuple[int, dict[str, int]]:
            found = ok(http.get("/api/analytics/overview", params=query))
            return found["totals"]["memories"], {t["name"]: t["total"] for t in found["by_template"]}

        assert overview() == (4, {"Recipe": 2, "Book Review": 2})
        assert overview(space=key) == (3, {"Recipe": 2, "Book Review": 1})
        assert overview(space="personal") == (1, {"Book Review": 1})
    with client(server, services, "mallory") as http:
        assert ok(http.get("/api/analytics/overview"))["totals"]["memories"] == 0
        refused = http.get("/api/analytics/overview", params={"space": key})
        assert refused.status_code == 404 and "Unknown space" in refused.json()["message"]


def test_another_users_space_a_non_member_and_no_token_are_refused(served: tuple[HttpServer, Services]) -> None:
    server, services = served
    key = team(services)
    template_id = services.templates.create(services.spaces.administering(Caller("ann"), key), _recipe()).id
    other = services.spaces.create(Caller("eve"), "Eve's").space.key
    theirs = services.templates.create(services.spaces.administering(Caller("eve"), other), _recipe()).id
    before = stored(services.store, [key, other, "ann", "mallory"])
    with client(server, services, "mallory") as http:  # no member of Team
        for path in (
            f"/api/templates/{template_id}",
            f"/api/templates/{template_id}/versions",
            f"/api/templates/{template_id}/memories",
            f"/api/analytics/templates/{template_id}",
        ):
            refused = http.get(path)
            assert refused.status_code == 404 and "No template with id" in refused.json()["message"], path
        assert http.put(f"/api/templates/{template_id}", json={"definition": RECIPE}).status_code == 404
        assert http.delete(f"/api/templates/{template_id}").status_code == 404
        for answer in (
            http.get("/api/templates", params={"space": key}),
            http.get("/api/analytics/templates", params={"space": key}),
            http.post("/api/templates", params={"space": key}, json={"definition": RECIPE}),
            http.post("/api/templates/check", params={"space": key}, json={"definition": RECIPE}),
        ):
            assert answer.status_code == 404 and "Unknown space" in answer.json()["message"], answer.text
    with client(server, services, "ann") as http:  # another user's space, by key or name, and made-up ones
        assert http.get(f"/api/templates/{theirs}").status_code == 404
        assert http.post(f"/api/templates/{theirs}/copy", json={}).status_code == 404
        for where in (other, "Eve's", "~ffffffffffffffff", "~nothex", "x" * 5000, "a\x00b"):
            for answer in (
                http.get("/api/templates", params={"space": where}),
                http.post("/api/templates", params={"space": where}, json={"definition": RECIPE}),
                http.post(f"/api/templates/{template_id}/copy", params={"space": where}, json={}),
            ):
                assert answer.status_code in (404, 422) and len(answer.text) < 2_000, (where, answer.text)
        too_many = http.get("/api/templates", params=[("space", f"s{n}") for n in range(21)])
        assert too_many.status_code == 422 and "at most 20 spaces" in too_many.json()["message"]
    with httpx2.Client(base_url=server.url, headers=WRITE, timeout=60) as anonymous:
        for answer in (
            anonymous.get("/api/templates", params={"space": key}),
            anonymous.get(f"/api/templates/{template_id}"),
            anonymous.put(f"/api/templates/{template_id}", json={"definition": RECIPE}),
            anonymous.get("/api/analytics/templates", params={"space": key}),
        ):
            assert answer.status_code == 401, answer.text
    assert stored(services.store, [key, other, "ann", "mallory"]) == before


def _recipe() -> dict[str, Any]:
    return {"name": "Recipe", "fields": [{"name": "dish", "type": "string", "required": True}]}


def test_a_new_memory_in_a_space_is_offered_its_templates_and_goes_there_with_one(
    served: tuple[HttpServer, Services], store: Store
) -> None:
    server, services = served
    key = team(services)
    fields = [{"name": "dish", "type": "string", "required": True}, {"name": "minutes", "type": "integer"}]
    recipe = services.templates.create(
        services.spaces.administering(Caller("ann"), "Team"),
        {
            "name": "Potluck Dish",
            "description": "What one brings to the potluck",
            "fields": fields,
            "trigger_keywords": ["potluck"],
            "auto_apply": True,
        },
    ).definition.id
    own = services.templates.create(Caller("bob"), {"name": "My Recipe", "fields": fields}).definition.id
    with client(server, services, "bob") as http:
        offered = {t["id"] for t in ok(http.get("/api/memory-templates", params={"space": "Team"}))["templates"]}
        assert recipe in offered and own not in offered and "builtin:book_review" in offered
        mine = {t["id"] for t in ok(http.get("/api/memory-templates"))["templates"]}
        assert own in mine and recipe not in mine
        shown = ok(http.get(f"/api/memory-templates/{recipe}"))
        assert [f["name"] for f in shown["fields"]] == ["dish", "minutes"]
        checked = ok(http.post("/api/memories/check", json={"template_id": recipe, "structured_content": {}}))
        assert checked["valid"] is False and checked["errors"][0]["field"] == "dish"
        said = {"content": "potluck: I bring the lasagne", "space": "Team"}
        assert recipe in {s["template_id"] for s in ok(http.post("/api/suggestions", json=said))["suggestions"]}
        made = ok(http.post("/api/memories", json={"template_id": recipe, "structured_content": {"dish": "Lasagne"}}))
        assert made["space"] == key and made["structured_content"] == {"dish": "Lasagne"}
        before = stored(store, [key, "bob"])
        refused = http.post("/api/memories", json={"template_id": own, "structured_content": {"dish": "x"},
                                                   "space": "Team"})  # fmt: skip
        assert refused.status_code == 422 and "one of your personal templates" in refused.json()["message"]
        assert "Unknown space" in http.get("/api/memory-templates", params={"space": "Nowhere"}).json()["message"]
        assert stored(store, [key, "bob"]) == before
    with client(server, services, "dan") as http:  # no member: the space's template does not exist
        assert http.get(f"/api/memory-templates/{recipe}").status_code == 404
        gone = http.post("/api/memories/check", json={"template_id": recipe, "structured_content": {}})
        assert gone.status_code == 404
    with client(server, services, "cid") as http:  # a reader is offered nothing to write
        assert http.get("/api/memory-templates", params={"space": "Team"}).status_code == 403
