"""An id names one thing among a member's spaces: no one can plant a memory under an id another space uses, so
that a member's reads and changes by that id reach the planted one; and importing into a space keeps its roles."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, Conflict
from remember.models import OnConflict
from remember.service import Services
from remember.service.import_export.jsonl import export_records
from remember.service.import_export.restore import plan, write

ANN, BEN, CAT = Caller("ann"), Caller("ben"), Caller("cat")


def _joined(services: Services, admin: Caller, name: str, **members: str) -> str:
    key = services.spaces.create(admin, name).space.key
    for user, role in members.items():
        services.spaces.add_member(admin, key, user, role)
        services.spaces.accept(Caller(user), key)
    return key


def _rows(services: Services) -> Any:
    with services.store.sql.reading() as s:
        return [sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in ("memories", "memory_history", "templates")]


def _import(
    services: Services, lines: list[dict[str, Any]], acting: Caller, *, admin: bool = True,
    on_conflict: OnConflict = "refuse",
) -> None:  # fmt: skip
    planned = plan(services.store, lines, into=acting.user, on_conflict=on_conflict, admin=admin,
                   elsewhere=services.spaces.keys(acting))  # fmt: skip
    write(services.store, services.indexer, services.templates, lines, planned, acting=acting)


def test_a_memory_planted_under_another_spaces_id_never_takes_its_place(services: Services) -> None:
    payroll = _joined(services, ANN, "Payroll", cat="writer")
    secret = services.memories.create(services.spaces.writing(CAT, payroll), {"content": "Salaries: draft"})
    atlas = _joined(services, BEN, "Atlas", cat="writer")
    exported = list(export_records(services.store, [services.spaces.writing(CAT, payroll)]))
    lines = [dict(line) for line in exported]
    for line in lines:  # the file names Ben's personal space: his own export, with Payroll's id in it
        if "user_id" in line:
            line["user_id"] = "ben"
        for inner in ("memory", "relationship"):
            if isinstance(line.get(inner), dict) and "user_id" in line[inner]:
                line[inner]["user_id"] = "ben"
    before = _rows(services)
    with pytest.raises(Conflict, match="have ids used elsewhere in this database"):
        _import(services, exported, services.spaces.writing(BEN, atlas))  # Payroll's, straight into Atlas
    assert _rows(services) == before
    _import(services, lines, BEN.in_space("ben"))  # in his personal space, the id is his to keep
    before = _rows(services)
    with pytest.raises(Conflict, match="that id is used elsewhere in this database: copy it instead"):
        services.moves.move(BEN, secret.id, "Atlas")
    assert _rows(services) == before
    assert services.spaces.on_memory(CAT, secret.id, need="writer").user == payroll


def test_an_id_two_of_ones_spaces_hold_is_refused_not_resolved_to_the_first(services: Services) -> None:
    team = _joined(services, ANN, "Team", cat="writer")
    shared = services.memories.create(services.spaces.writing(CAT, team), {"content": "Launch on Friday"})
    lines = list(export_records(services.store, [services.spaces.writing(CAT, team)]))
    planned = plan(services.store, lines, into="cat")  # an import of before ids were checked across spaces
    write(services.store, services.indexer, services.templates, lines, planned)
    before = _rows(services)
    for need in ("reader", "writer"):
        with pytest.raises(Conflict, match=r"names something in several of your spaces \(personal, Team\)"):
            services.spaces.on_memory(CAT, shared.id, need=need)  # type: ignore[arg-type]
    assert _rows(services) == before
    assert services.spaces.on_memory(ANN, shared.id).user == team  # Ann's spaces hold it once


def test_only_a_spaces_admins_import_its_templates_or_replace_its_history(services: Services) -> None:
    team = _joined(services, ANN, "Team", ben="writer")
    as_ann = services.spaces.administering(ANN, "Team")
    services.templates.create(as_ann, {"name": "Wine", "fields": [{"name": "wine", "type": "string"}]})
    made = services.memories.create(services.spaces.writing(ANN, team), {"content": "Budget approved: 5M"})
    services.memories.update(services.spaces.writing(ANN, team), made.id, {"content": "Budget: 6M"}, reason="vote")
    lines = list(export_records(services.store, [services.spaces.writing(BEN, team)]))
    as_ben = services.spaces.writing(BEN, team)
    before = _rows(services)
    with pytest.raises(AccessDenied, match="only the space's admins change its templates"):
        _import(services, lines, as_ben, admin=False, on_conflict="skip")
    without_templates = [line for line in lines if line.get("kind") != "template"]
    with pytest.raises(AccessDenied, match="only the space's admins do that"):
        _import(services, without_templates, as_ben, admin=False, on_conflict="replace")
    assert _rows(services) == before
    _import(services, without_templates, as_ben, admin=False, on_conflict="skip")  # nothing new: nothing changes
    assert _rows(services) == before
    _import(services, lines, services.spaces.writing(ANN, team), on_conflict="replace")  # an admin may
    assert services.memories.get(services.spaces.writing(ANN, team), made.id).content == "Budget: 6M"
