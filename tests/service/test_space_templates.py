"""Templates of a shared space: its admins make and change them, its members use them, nobody else sees them."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, Conflict, NotFound, TemplateError, ValidationFailed
from remember.service import MemoryDraft, Services
from remember.service.templates import TemplateView

ANN, BEN, CAT, DAN, TOM = Caller("ann"), Caller("ben"), Caller("cat"), Caller("dan"), Caller("tom")
TABLES = ("spaces", "space_members", "memories", "memory_history", "templates", "template_versions",
          "suggestion_events")  # fmt: skip


def _rows(services: Services) -> Any:
    """Every row a template call could change, to show a refused call changed nothing."""
    with services.store.sql.reading() as s:
        return [sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in TABLES]


def _tasting(name: str = "Wine Tasting", **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "fields": [
            {"name": "wine", "type": "string", "required": True},
            {"name": "score", "type": "number", "validation": {"min": 0, "max": 100}},
        ],
        **more,
    }


def _team(services: Services) -> tuple[str, TemplateView]:
    """Ann's space "Team" (Ben writes, Cat reads; Dan is no member, Tom has a "Team" of his own) and its
    template Wine Tasting."""
    key = services.spaces.create(ANN, "Team").space.key
    for user, role in (("ben", "writer"), ("cat", "reader")):
        services.spaces.add_member(ANN, key, user, role)
        services.spaces.accept(Caller(user), key)
    services.spaces.create(TOM, "Team")
    return key, services.templates.create(services.spaces.administering(ANN, "Team"), _tasting())


def test_an_admin_makes_a_spaces_template_under_its_key(services: Services) -> None:
    key, view = _team(services)
    assert view.space == key and view.id.startswith("tpl_wine_tasting_")
    assert services.store.templates.get(key, view.id) is not None
    assert services.store.templates.get("ann", view.id) is None
    assert services.spaces.administering(ANN, None) == ANN  # personal unless a space is named
    services.preferences.update(ANN, "spaces.default", "Team")
    assert services.spaces.administering(ANN, None) == ANN  # spaces.default is for memories


def test_only_admins_make_change_and_delete_a_spaces_templates(services: Services) -> None:
    key, view = _team(services)
    before = _rows(services)
    for caller, role in ((BEN, "writer"), (CAT, "reader")):
        with pytest.raises(AccessDenied, match=f"You are a {role} in space Team: only its admins"):
            services.spaces.administering(caller, "Team")
        for need in ("admin",):
            with pytest.raises(AccessDenied, match=f"You are a {role} in space Team"):
                services.spaces.on_template(caller, view.id, need=need)
    for caller in (DAN, TOM):  # no member: the space and its template do not exist for them
        for space in ("Team", key) if caller is DAN else (key,):
            with pytest.raises(NotFound, match="Unknown space"):
                services.spaces.administering(caller, space)
        acting = services.spaces.on_template(caller, view.id, need="admin")
        assert acting == caller
        with pytest.raises(NotFound, match="No template with id"):
            services.templates.update(acting, view.id, {"description": "mine now"})
        with pytest.raises(NotFound, match="No template with id"):
            services.templates.delete(acting, view.id)
        with pytest.raises(NotFound, match="No template with id"):
            services.templates.get(acting, view.id)
    assert _rows(services) == before
    as_ann = services.spaces.on_template(ANN, view.id, need="admin")
    changed, _ = services.templates.update(as_ann, view.id, {"description": "Team wines"})
    assert changed.definition.description == "Team wines" and changed.space == key
    services.spaces.set_role(ANN, key, "ben", "admin")  # a new admin manages them at once
    assert services.templates.delete(services.spaces.on_template(BEN, view.id, need="admin"), view.id)[0] == view.id
    assert services.store.templates.get(key, view.id) is None


def test_a_member_uses_the_spaces_template_and_the_memory_goes_to_the_space(services: Services) -> None:
    key, view = _team(services)
    fields = {"wine": "Rioja", "score": 91}
    acting = services.spaces.writing_with(BEN, None, view.id)  # no space named: the template's
    assert acting.user == key
    made = services.memories.create(acting, MemoryDraft(template_id=view.id, structured_content=fields))
    assert (made.user_id, made.created_by, made.template_compliance) == (key, "ben", True)
    assert services.spaces.writing_with(BEN, "Team", view.id).user == key
    services.preferences.update(BEN, "spaces.default", "personal")
    assert services.spaces.writing_with(BEN, None, view.id).user == key
    assert services.spaces.writing_with(BEN, "Team", "builtin:book_review").user == key
    assert services.spaces.writing_with(BEN, None, "builtin:book_review") == BEN


def test_a_template_of_another_space_is_refused_saying_where_it_is(services: Services) -> None:
    key, view = _team(services)
    own = services.templates.create(ANN, _tasting("Ann's Wine"))
    before = _rows(services)
    with pytest.raises(ValidationFailed, match="belongs to space Team: a memory made with it goes there"):
        services.spaces.writing_with(ANN, "personal", view.id)
    with pytest.raises(ValidationFailed, match="one of your personal templates; a memory of space Team") as caught:
        services.spaces.writing_with(ANN, "Team", own.id)
    assert "copy it there" in str(caught.value)
    with pytest.raises(ValidationFailed, match="one of your personal templates"):
        services.spaces.require_template_here(services.spaces.writing(ANN, key), own.id)
    with pytest.raises(AccessDenied, match="You are a reader in space Team"):
        services.spaces.writing_with(CAT, None, view.id)
    assert _rows(services) == before


def test_a_non_member_or_a_removed_member_cannot_use_it(services: Services) -> None:
    key, view = _team(services)
    before = _rows(services)
    draft = MemoryDraft(template_id=view.id, structured_content={"wine": "Rioja"})
    for caller in (DAN, TOM):
        acting = services.spaces.writing_with(caller, None, view.id)
        assert acting == caller  # the template is unknown to them: the service answers so
        with pytest.raises(NotFound, match="No template with id"):
            services.memories.create(acting, draft)
    services.spaces.remove_member(ANN, key, "ben")
    before = _rows(services)
    with pytest.raises(NotFound, match="No template with id"):
        services.memories.create(services.spaces.writing_with(BEN, None, view.id), draft)
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.writing_with(BEN, key, view.id)
    assert _rows(services) == before


def test_hostile_and_malformed_input_is_refused_and_changes_nothing(services: Services) -> None:
    key, view = _team(services)
    theirs = services.templates.create(TOM, _tasting("Tom's Wine"))
    before = _rows(services)
    for given in (None, 7, "", " ", "x" * 5000, "tpl_\x00", "\x00", "../" + view.id, view.id.upper(), theirs.id):
        assert services.spaces.on_template(BEN, given, need="admin") == BEN
        assert services.spaces.writing_with(BEN, None, given) == BEN
        services.spaces.require_template_here(services.spaces.writing(BEN, key), given)
    for space in ("", "  ", 7, "~nonsense", "~" + "0" * 16, "x" * 500, "bad\x00"):
        with pytest.raises((NotFound, ValidationFailed)):
            services.spaces.administering(ANN, space)  # type: ignore[arg-type]
    with pytest.raises(NotFound, match="No template with id"):
        services.memories.create(
            services.spaces.writing(BEN, key), MemoryDraft(template_id=theirs.id, structured_content={"wine": "x"})
        )
    as_ann = services.spaces.administering(ANN, key)
    with pytest.raises(Conflict, match="Space Team already has a template named 'Wine Tasting'"):
        services.templates.create(as_ann, _tasting())
    for bad in ({"name": "Wine Tasting", "fields": [{"name": "x", "type": "string"}]}, {"name": "", "fields": []},
                {"name": "No fields", "fields": "many"}, _tasting("P", parent_template_id=theirs.id)):  # fmt: skip
        with pytest.raises((TemplateError, ValidationFailed, Conflict)):
            services.templates.create(as_ann, bad)
    assert _rows(services) == before


def test_a_spaces_template_inherits_only_from_its_space_or_a_builtin(services: Services) -> None:
    key, view = _team(services)
    own = services.templates.create(ANN, _tasting("Ann's Wine"))
    as_ann = services.spaces.administering(ANN, key)
    with pytest.raises(TemplateError):
        services.templates.create(as_ann, {"name": "Red", "fields": [], "parent_template_id": own.id})
    child = services.templates.create(as_ann, {"name": "Red", "fields": [], "parent_template_id": view.id})
    assert [f.name for f in child.resolved.fields] == ["wine", "score"]
    with pytest.raises(ValidationFailed, match="inherit from"):
        services.templates.delete(as_ann, view.id)


def test_a_listing_shows_ones_own_and_each_spaces_templates_naming_the_space(services: Services) -> None:
    key, view = _team(services)
    services.templates.create(BEN, _tasting("Ben's Wine"))
    services.templates.create(services.spaces.administering(TOM, "Team"), _tasting("Tom's Team Wine"))

    def listed(caller: Caller, spaces: list[str] | None = None, **options: Any) -> dict[str, str | None]:
        views, total = services.templates.list_templates(
            caller, readers=services.spaces.reading(caller, spaces), limit=100, **options
        )
        assert total == len(views)
        return {v.definition.name: v.space for v in views if not v.definition.is_default}

    assert listed(BEN) == {"Ben's Wine": None, "Wine Tasting": key}
    assert listed(CAT) == {"Wine Tasting": key}
    assert listed(DAN) == {}
    assert listed(BEN, ["personal"]) == {"Ben's Wine": None}
    assert listed(BEN, ["Team"]) == {"Wine Tasting": key}
    builtins, total = services.templates.list_templates(BEN, readers=services.spaces.reading(BEN, None), limit=100)
    names = [v.definition.name for v in builtins]
    assert len(names) == len(set(names)) == total  # each built-in once, however many spaces are read
    assert listed(BEN, include_default=False, search="wine tasting") == {"Wine Tasting": key}
    found = services.templates.get(services.spaces.on_template(CAT, view.id), view.id)
    assert found.space == key and found.definition.name == "Wine Tasting"
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.reading(DAN, ["Team"])


def test_a_spaces_template_figures_count_that_spaces_memories_within_reach(services: Services) -> None:
    _, view = _team(services)
    as_ben = services.spaces.writing_with(BEN, None, view.id)
    for wine, trust in (("Rioja", 0.3), ("Malbec", 0.3), ("Barolo", 0.9)):
        services.memories.create(
            as_ben, MemoryDraft(template_id=view.id, structured_content={"wine": wine}, trust=trust)
        )
    services.memories.create(BEN, {"content": "Ben's own wine note"})
    full = services.suggestions.analytics(services.spaces.on_template(CAT, view.id), view.id)
    assert full.analytics.memory_count == 3
    low = Caller("cat", 0.5)
    assert (
        services.suggestions.analytics(services.spaces.on_template(low, view.id), view.id).analytics.memory_count == 2
    )
    views, _ = services.templates.list_templates(CAT, readers=services.spaces.reading(CAT, None), limit=100)
    assert {v.id: v.usage.usage_count for v in views}[view.id] == 3
    low_admin = services.spaces.administering(Caller("ann", 0.5), "Team")
    _, rechecked = services.templates.update(low_admin, view.id, {"description": "Tasting notes"})
    assert rechecked == 2  # the memory above the token's trust is re-checked, and not counted to it
    _, rechecked = services.templates.update(services.spaces.administering(ANN, "Team"), view.id, {"description": "x"})
    assert rechecked == 3


def test_copying_into_and_out_of_a_space(services: Services) -> None:
    key, view = _team(services)
    own = services.templates.create(ANN, _tasting("Ann's Wine"))
    copied = services.templates.copy(services.spaces.administering(ANN, key), own.id, source=ANN)
    assert copied.space == key and copied.definition.derived_from == own.id
    before = _rows(services)
    with pytest.raises(AccessDenied, match="You are a writer"):
        services.spaces.administering(BEN, key)
    with pytest.raises(NotFound):  # Ben's own space does not hold Ann's template
        services.templates.copy(BEN, own.id, source=BEN)
    assert _rows(services) == before
    mine = services.templates.copy(BEN, view.id, name="My Wine", source=services.spaces.on_template(BEN, view.id))
    assert mine.space is None and services.store.templates.get("ben", mine.id) is not None


def test_a_memory_for_a_space_is_offered_that_spaces_templates(services: Services) -> None:
    key, _ = _team(services)
    as_ann = services.spaces.administering(ANN, key)
    offered = services.templates.create(
        as_ann, _tasting("Cellar Note", trigger_keywords=["cellar note"], auto_apply=True,
                         examples=["cellar note: opened the 2015 Rioja, score 92"]),
    )  # fmt: skip
    text = "cellar note: opened the 2012 Barolo tonight, score 94"
    in_space = services.memories.create(services.spaces.writing(BEN, key), {"content": text})
    assert offered.id in {s.template_id for s in services.suggestions.for_memory(services.spaces.writing(BEN, key),
                                                                                    in_space)}  # fmt: skip
    own = services.memories.create(BEN, {"content": text})
    assert offered.id not in {s.template_id for s in services.suggestions.for_memory(BEN, own)}


def test_a_deleted_space_takes_its_templates_with_it(services: Services) -> None:
    key, view = _team(services)
    services.templates.update(services.spaces.on_template(ANN, view.id, need="admin"), view.id, {"description": "v2"})
    services.spaces.delete(ANN, key)
    with services.store.sql.reading() as s:
        for table in ("templates", "template_versions"):
            assert s.all(f"SELECT count(*) FROM {table} WHERE user_id = ?", (key,))[0][0] == 0
