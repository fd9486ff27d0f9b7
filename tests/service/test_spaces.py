"""Shared spaces: the membership rules, the rights each role gives, and that nothing reaches a non-member."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.config import USER_ID, check_user_id
from remember.errors import AccessDenied, ConfigError, NotFound, ValidationFailed
from remember.service import MemoryPatch, RelationshipDraft, Services
from remember.space_keys import is_space_key, new_key

ANN, BEN, CAT, DAN = Caller("ann"), Caller("ben"), Caller("cat"), Caller("dan")


def _rows(services: Services) -> Any:
    """Every row of the tables a space touches, to show a refused call changed nothing."""
    with services.store.sql.reading() as s:
        return [
            sorted(map(repr, s.all(f"SELECT * FROM {t}")))
            for t in ("spaces", "space_members", "space_invitations", "memories", "memory_history", "relationships")
        ]


def _team(services: Services) -> str:
    """Ann's space "Team": Ben writes, Cat reads; Dan is no member."""
    key = services.spaces.create(ANN, "Team").space.key
    for caller, role in ((BEN, "writer"), (CAT, "reader")):
        services.spaces.add_member(ANN, key, caller.user, role)
        services.spaces.accept(caller, key)
    return key


def test_a_space_key_can_never_be_a_user_id() -> None:
    for _ in range(50):
        key = new_key()
        assert is_space_key(key) and not USER_ID.match(key)
    with pytest.raises(ConfigError, match="not usable"):
        check_user_id("~0123456789abcdef")
    with pytest.raises(ValueError, match="acts in a shared space"):
        Caller("~0123456789abcdef")  # a space's key is never a caller by itself


def test_only_the_space_service_makes_a_caller_act_in_a_space() -> None:
    """``Caller.in_space`` skips every check: the space service calls it once it has read the role; reindexing
    acts as each owner (``caller.owner``)."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "remember"
    users = {
        str(p.relative_to(src)): len(re.findall(r"\bin_space\(|\bowner\(", p.read_text())) for p in src.rglob("*.py")
    }
    assert {p for p, n in users.items() if n} == {"caller.py", "service/spaces.py", "service/reindex.py"}


def test_no_token_is_made_for_a_space_key(services: Services) -> None:
    key = services.spaces.create(ANN, "Team").space.key
    with pytest.raises(ValidationFailed, match="not a user id"):
        services.tokens.create(key)
    assert services.tokens.list(None) == []


def test_the_creator_is_the_one_admin_and_members_see_the_space(services: Services) -> None:
    key = _team(services)
    [view] = services.spaces.list(BEN)
    assert (view.space.key, view.space.name, view.role) == (key, "Team", "writer")
    assert {m.user: m.role for m in view.members} == {"ann": "admin", "ben": "writer", "cat": "reader"}
    assert services.spaces.list(DAN) == []


def test_only_admins_manage_members(services: Services) -> None:
    key = _team(services)
    before = _rows(services)
    with pytest.raises(AccessDenied, match="Only the admins of space Team"):
        services.spaces.add_member(BEN, key, "dan", "reader")
    with pytest.raises(AccessDenied):
        services.spaces.set_role(CAT, key, "cat", "admin")
    with pytest.raises(AccessDenied):
        services.spaces.remove_member(BEN, key, "cat")
    with pytest.raises(AccessDenied):
        services.spaces.delete(BEN, key)
    assert _rows(services) == before


def test_a_non_member_is_told_the_space_is_unknown_as_if_it_did_not_exist(services: Services) -> None:
    key = _team(services)
    before = _rows(services)
    messages = set()
    for attempt in (
        lambda space: services.spaces.add_member(DAN, space, "dan", "admin"),
        lambda space: services.spaces.leave(DAN, space),
        lambda space: services.spaces.delete(DAN, space),
        lambda space: services.spaces.writing(DAN, space),
        lambda space: services.spaces.reading(DAN, [space]),
    ):
        for space in (key, "Team", new_key(), "~nonsense"):
            with pytest.raises(NotFound) as caught:
                attempt(space)
            messages.add(str(caught.value).replace(repr(space), "SPACE"))
    assert len(messages) == 1 and "Unknown space SPACE" in messages.pop()
    assert _rows(services) == before


def test_bad_input_is_refused_clearly_and_changes_nothing(services: Services) -> None:
    key = _team(services)
    before = _rows(services)
    with pytest.raises(ValidationFailed, match="Unknown role 'owner': use one of reader, writer, admin"):
        services.spaces.add_member(ANN, key, "dan", "owner")
    with pytest.raises(ValidationFailed, match="not a user id"):
        services.spaces.add_member(ANN, key, "~" + "a" * 16, "reader")
    with pytest.raises(ValidationFailed, match="already a member"):
        services.spaces.add_member(ANN, key, "ben", "reader")
    with pytest.raises(NotFound, match="dan is not a member"):
        services.spaces.set_role(ANN, key, "dan", "writer")
    for name in ("", "  ", "x" * 101, "~team", "bad\nname", "personal", None, 7):
        with pytest.raises(ValidationFailed):
            services.spaces.create(ANN, name)  # type: ignore[arg-type]
    with pytest.raises(ValidationFailed, match="at most 20"):
        services.spaces.reading(ANN, ["personal"] * 21)
    assert _rows(services) == before


def test_the_last_admin_can_neither_leave_nor_be_demoted_nor_removed(services: Services) -> None:
    key = _team(services)
    before = _rows(services)
    with pytest.raises(ValidationFailed, match="last admin of space Team cannot leave"):
        services.spaces.leave(ANN, key)
    with pytest.raises(ValidationFailed, match="cannot be demoted"):
        services.spaces.set_role(ANN, key, "ann", "writer")
    with pytest.raises(ValidationFailed, match="cannot be removed"):
        services.spaces.remove_member(ANN, key, "ann")
    assert _rows(services) == before
    services.spaces.set_role(ANN, key, "ben", "admin")
    assert services.spaces.remove_member(BEN, key, "ben").members == ()  # Ann is admin still; Ben is out
    services.spaces.add_member(ANN, key, "ben", "admin")
    services.spaces.accept(BEN, key)
    services.spaces.leave(ANN, key)  # now Ben is admin
    assert [v.role for v in services.spaces.list(BEN)] == ["admin"]
    assert services.spaces.list(ANN) == []


def test_writers_write_readers_read_and_non_members_see_nothing(services: Services) -> None:
    key = _team(services)
    as_ben = services.spaces.writing(BEN, "Team")
    shared = services.memories.create(as_ben, {"content": "The team ships Atlas on Friday.", "trust": 0.3})
    assert shared.user_id == key and shared.created_by == "ben"
    with pytest.raises(AccessDenied, match="You are a reader in space Team"):
        services.spaces.writing(CAT, key)
    as_cat = services.spaces.on_memory(CAT, shared.id)
    assert services.memories.get(as_cat, shared.id).content == shared.content
    with pytest.raises(AccessDenied, match="reader"):
        services.spaces.on_memory(CAT, shared.id, need="writer")
    as_dan = services.spaces.on_memory(DAN, shared.id, need="writer")
    assert as_dan == DAN.in_space("dan")
    with pytest.raises(NotFound):
        services.memories.get(as_dan, shared.id)
    assert [c.user for c in services.spaces.reading(DAN, None)] == ["dan"]


def test_history_names_who_made_each_change(services: Services) -> None:
    _team(services)
    shared = services.memories.create(services.spaces.writing(ANN, "Team"), {"content": "Atlas ships on Friday."})
    as_ben = services.spaces.on_memory(BEN, shared.id, need="writer")
    services.memories.change(as_ben, shared.id, MemoryPatch(content="Atlas ships on Monday."), reason="slipped")
    services.memories.delete(services.spaces.on_memory(ANN, shared.id, need="writer"), shared.id)
    history = services.memories.history(services.spaces.on_memory(CAT, shared.id), shared.id)
    assert [(h.action, h.actor) for h in history] == [("delete", "ann"), ("update", "ben")]
    assert history[1].as_dict()["by"] == "ben"
    assert services.memories.get(as_ben, shared.id).created_by == "ann"
    own = services.memories.create(ANN, {"content": "My own note."})
    services.memories.change(ANN, own.id, MemoryPatch(content="My own note, edited."))
    assert own.created_by is None and services.memories.history(ANN, own.id)[0].actor is None


def test_a_members_personal_memories_never_reach_another_member(services: Services) -> None:
    _team(services)
    mine = services.memories.create(BEN, {"content": "Ben's private dentist appointment."})
    for other in (ANN, CAT, DAN):
        for acting in services.spaces.reading(other, None):
            assert mine.id not in {m.id for m in services.memories.list(acting).items}
            with pytest.raises(NotFound):
                services.memories.get(acting, mine.id)
        assert services.spaces.on_memory(other, mine.id) == other.in_space(other.person)


def test_trust_applies_inside_a_space(services: Services) -> None:
    _team(services)
    secret = services.memories.create(services.spaces.writing(ANN, "Team"), {"content": "payroll", "trust": 0.9})
    low = Caller("ben", 0.5)
    assert services.spaces.on_memory(low, secret.id, need="writer") == low  # unknown to it, not "a reader"
    with pytest.raises(NotFound):
        services.memories.get(services.spaces.on_memory(low, secret.id), secret.id)
    with pytest.raises(AccessDenied, match="full-trust"):
        services.spaces.delete(Caller("ann", 0.5), "Team")


def test_relationships_live_in_one_space_with_their_members(services: Services) -> None:
    key = _team(services)
    as_ben = services.spaces.writing(BEN, key)
    a = services.memories.create(as_ben, {"content": "Atlas is the team's project."})
    b = services.memories.create(as_ben, {"content": "Zoe leads Atlas."})
    own = services.memories.create(BEN, {"content": "Ben likes Atlas."})
    rel = services.relationships.create(as_ben, RelationshipDraft(memory_ids=[a.id, b.id], relationship_type="led_by"))
    assert rel.user_id == key
    with pytest.raises(NotFound):  # a member outside the relationship's space is unknown there
        services.relationships.create(as_ben, RelationshipDraft(memory_ids=[a.id, own.id], relationship_type="x"))
    assert services.relationships.get(services.spaces.on_relationship(CAT, rel.id), rel.id).id == rel.id
    with pytest.raises(AccessDenied):
        services.spaces.on_relationship(CAT, rel.id, need="writer")
    with pytest.raises(NotFound):
        services.relationships.get(services.spaces.on_relationship(DAN, rel.id), rel.id)


def test_removal_and_deletion_take_effect_on_the_next_call(services: Services) -> None:
    key = _team(services)
    shared = services.memories.create(services.spaces.writing(BEN, key), {"content": "Atlas retro notes."})
    services.spaces.remove_member(ANN, key, "ben")
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.writing(BEN, key)
    with pytest.raises(NotFound):
        services.memories.get(services.spaces.on_memory(BEN, shared.id), shared.id)
    services.spaces.delete(ANN, key)
    assert services.store.memories.get(key, shared.id) is None
    assert services.spaces.list(ANN) == services.spaces.list(CAT) == []
    with pytest.raises(NotFound):
        services.spaces.reading(CAT, [key])


def test_the_default_space_is_a_preference(services: Services) -> None:
    key = _team(services)
    assert services.spaces.writing(BEN, None) == BEN
    services.preferences.update(BEN, "spaces.default", "Team")
    assert services.spaces.writing(BEN, None).user == key
    assert services.spaces.writing(BEN, "personal") == BEN
    services.preferences.update(CAT, "spaces.default", key)
    with pytest.raises(AccessDenied, match="reader"):
        services.spaces.writing(CAT, None)


def test_a_listing_and_a_search_over_spaces_merge_them_in_order(services: Services) -> None:
    from remember.service import space_reads

    key = _team(services)
    made = []
    for n in range(6):  # alternately Ben's own and the team's, each a second after the last
        where = BEN if n % 2 == 0 else services.spaces.writing(BEN, key)
        made.append(services.memories.create(where, {"content": f"launch checklist item {n}"}))
    readers = services.spaces.reading(BEN, None)
    page = space_reads.listing(services.memories, readers, limit=2, offset=2)
    assert page.total == 6 and [m.id for m in page.items] == [made[3].id, made[2].id]
    oldest = space_reads.listing(services.memories, readers, limit=4, offset=0, sort_order="asc")
    assert [m.id for m in oldest.items] == [m.id for m in made[:4]]
    found = space_reads.search(services.search, readers, "launch checklist", limit=6, record_access=False)
    assert {h.memory.id for h in found.hits} == {m.id for m in made}
    assert [h.score for h in found.hits] == sorted((h.score for h in found.hits), reverse=True)
    only_team = space_reads.search(services.search, services.spaces.reading(BEN, ["Team"]), "launch", limit=6)
    assert {h.memory.user_id for h in only_team.hits} == {key}


def test_a_token_below_full_trust_neither_manages_members_nor_moves_where_writes_go(services: Services) -> None:
    key = _team(services)
    low = Caller("ann", 0.3)
    before = _rows(services)
    for manage in (
        lambda: services.spaces.add_member(low, key, "dan", "admin"),
        lambda: services.spaces.set_role(low, key, "cat", "admin"),
        lambda: services.spaces.remove_member(low, key, "ben"),
    ):
        with pytest.raises(AccessDenied, match="full-trust token"):
            manage()
    with pytest.raises(AccessDenied):
        services.preferences.update(Caller("ben", 0.3), "spaces.default", key)
    assert _rows(services) == before
    assert services.spaces.writing(BEN, None) == BEN


def test_a_members_own_preferences_apply_to_what_they_write_in_a_space(services: Services) -> None:
    _team(services)
    services.preferences.update(BEN, "privacy.default_trust", 1.0)
    shared = services.memories.create(services.spaces.writing(BEN, "Team"), {"content": "Salary bands for 2027."})
    assert shared.trust == 1.0
    assert services.memories.create(services.spaces.writing(ANN, "Team"), {"content": "Team lunch Friday."}).trust < 1


def test_a_memory_superseded_in_a_space_names_who_did_it(services: Services) -> None:
    _team(services)
    as_ann, as_ben = services.spaces.writing(ANN, "Team"), services.spaces.writing(BEN, "Team")
    old = services.memories.create(as_ann, {"content": "Standup is at 9:30."})
    services.memories.create(as_ben, {"content": "Standup moved to 10:00.", "supersedes": [old.id]})
    history = services.memories.history(services.spaces.on_memory(CAT, old.id), old.id)
    assert [(h.action, h.actor) for h in history] == [("update", "ben")]


def test_a_deleted_space_leaves_nothing_under_its_key(services: Services) -> None:
    key = _team(services)
    as_ben = services.spaces.writing(BEN, key)
    made = services.memories.store_new(as_ben, {"content": "Finished reading Dune, five stars"})
    services.suggestions.for_memory(as_ben, made.memory)
    services.spaces.delete(ANN, key)
    assert key not in services.store.transfer.user_ids()
    with services.store.sql.reading() as s:
        assert s.all("SELECT count(*) FROM space_members WHERE user_id = ?", (key,))[0][0] == 0


def test_a_user_id_ends_where_it_ends() -> None:
    assert USER_ID.match("alice") and not USER_ID.match("alice\n")
