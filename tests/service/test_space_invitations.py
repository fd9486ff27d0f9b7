"""Consent: an admin invites, and no one is a member of a space, nor sees its memories, before saying yes."""

from __future__ import annotations

from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import AccessDenied, LimitReached, NotFound, ValidationFailed
from remember.service import Services, space_reads
from remember.service.spaces import MOST_MEMBERSHIPS, MOST_PENDING
from remember.space_keys import new_key

ANN, BEN, DAN = Caller("ann"), Caller("ben"), Caller("dan")


def _rows(services: Services) -> Any:
    with services.store.sql.reading() as s:
        return [
            sorted(map(repr, s.all(f"SELECT * FROM {t}"))) for t in ("spaces", "space_members", "space_invitations")
        ]


def _invited(services: Services) -> tuple[str, str]:
    """Ann's space "Team" with a memory in it, and Ben invited as a writer; the space's key and the memory's id."""
    key = services.spaces.create(ANN, "Team").space.key
    shared = services.memories.create(services.spaces.writing(ANN, key), {"content": "Atlas ships on Friday."})
    view = services.spaces.add_member(ANN, key, "ben", "writer")
    assert [(i.user, i.role, i.invited_by) for i in view.invited] == [("ben", "writer", "ann")]
    assert [m.user for m in view.members] == ["ann"]
    return key, shared.id


def test_an_invited_user_sees_nothing_of_the_space_until_they_accept(services: Services) -> None:
    key, shared = _invited(services)
    assert services.spaces.list(BEN) == []
    assert [c.user for c in services.spaces.reading(BEN, None)] == ["ben"]
    assert services.spaces.on_memory(BEN, shared) == BEN.in_space("ben")
    for attempt in (lambda: services.spaces.writing(BEN, key), lambda: services.spaces.reading(BEN, ["Team"])):
        with pytest.raises(NotFound, match="Unknown space"):
            attempt()
    hits = space_reads.search(services.search, services.spaces.reading(BEN, None), "Atlas Friday", limit=5)
    assert hits.hits == []
    [offer] = services.spaces.invitations(BEN)
    assert (offer.space.key, offer.space.name, offer.invitation.role, offer.invitation.invited_by) == (
        key, "Team", "writer", "ann",
    )  # fmt: skip
    joined = services.spaces.accept(BEN, "Team")
    assert joined.role == "writer" and joined.invited == ()
    assert services.spaces.invitations(BEN) == []
    assert [
        h.memory.id for h in space_reads.search(services.search, services.spaces.reading(BEN, None), "Atlas").hits
    ] == [shared]
    [member] = [m for m in services.spaces.list(ANN)[0].members if m.user == "ben"]
    assert (member.role, member.added_by) == ("writer", "ann")


def test_declining_or_a_withdrawn_invitation_leaves_no_trace(services: Services) -> None:
    key, _ = _invited(services)
    assert services.spaces.decline(BEN, key).key == key
    assert services.spaces.invitations(BEN) == [] and services.spaces.list(ANN)[0].invited == ()
    with pytest.raises(NotFound, match="No invitation to a space"):
        services.spaces.accept(BEN, key)
    services.spaces.add_member(ANN, key, "ben", "reader")
    services.spaces.add_member(ANN, key, "ben", "admin")  # offered again: the newer role stands
    assert [i.invitation.role for i in services.spaces.invitations(BEN)] == ["admin"]
    assert services.spaces.remove_member(ANN, key, "ben").invited == ()
    assert services.spaces.invitations(BEN) == []
    services.spaces.add_member(ANN, key, "ben", "reader")
    services.spaces.delete(ANN, key)
    assert services.spaces.invitations(BEN) == [] and _rows(services) == [[], [], []]


def test_only_the_invited_user_answers_and_others_learn_nothing(services: Services) -> None:
    key, _ = _invited(services)
    before = _rows(services)
    answers = set()
    for caller, space in ((DAN, key), (DAN, "Team"), (ANN, key), (BEN, new_key()), (BEN, "~nonsense"), (BEN, "Other")):
        for answer in (services.spaces.accept, services.spaces.decline):
            with pytest.raises(NotFound) as caught:
                answer(caller, space)
            answers.add(str(caught.value).replace(repr(space), "SPACE"))
    assert len(answers) == 1 and "No invitation to a space SPACE" in answers.pop()
    for given in ("", "  ", None, 7):
        with pytest.raises(ValidationFailed, match="Name a space"):
            services.spaces.accept(BEN, given)  # type: ignore[arg-type]
    assert _rows(services) == before


def test_joining_needs_a_full_trust_token_and_declining_does_not(services: Services) -> None:
    key, _ = _invited(services)
    before = _rows(services)
    with pytest.raises(AccessDenied, match="Joining space Team needs a full-trust token"):
        services.spaces.accept(Caller("ben", 0.5), key)
    assert _rows(services) == before
    services.spaces.decline(Caller("ben", 0.5), key)
    assert services.spaces.invitations(BEN) == []


def test_the_roles_an_invitation_and_a_member_are_told_apart(services: Services) -> None:
    key, _ = _invited(services)
    before = _rows(services)
    with pytest.raises(NotFound, match="ben is invited to space Team and has not accepted yet"):
        services.spaces.set_role(ANN, key, "ben", "reader")
    with pytest.raises(ValidationFailed, match="ann is already a member"):
        services.spaces.add_member(ANN, key, "ann", "reader")
    assert _rows(services) == before
    services.spaces.accept(BEN, key)
    with pytest.raises(ValidationFailed, match="ben is already a member"):
        services.spaces.add_member(ANN, key, "ben", "admin")
    assert services.spaces.list(BEN)[0].invited == ()  # only admins see who is invited


def test_no_one_is_flooded_with_invitations_or_spaces(services: Services) -> None:
    admins = [Caller(f"admin{n}") for n in range(MOST_PENDING + 1)]
    keys = [services.spaces.create(a, f"Space {n}").space.key for n, a in enumerate(admins)]
    for admin, key in list(zip(admins, keys, strict=True))[:MOST_PENDING]:
        services.spaces.add_member(admin, key, "ben", "reader")
    before = _rows(services)
    with pytest.raises(LimitReached, match="ben cannot be invited now: too many invitations wait for their answer"):
        services.spaces.add_member(admins[-1], keys[-1], "ben", "reader")
    assert _rows(services) == before
    services.spaces.add_member(admins[0], keys[0], "ben", "writer")  # an invitation already held can be changed
    for key in keys[: MOST_MEMBERSHIPS - 1]:
        services.spaces.accept(BEN, key)
    services.spaces.create(BEN, "Ben's own")  # his twentieth
    before = _rows(services)
    with pytest.raises(LimitReached, match=f"You belong to {MOST_MEMBERSHIPS} shared spaces"):
        services.spaces.accept(BEN, keys[MOST_MEMBERSHIPS - 1])
    with pytest.raises(LimitReached, match="leave one first"):
        services.spaces.create(BEN, "One more")
    assert _rows(services) == before


def test_an_invitation_holds_only_while_the_admin_who_made_it_is_one(services: Services) -> None:
    key, _ = _invited(services)  # Ann invited Ben
    services.spaces.add_member(ANN, key, "dan", "reader")
    services.spaces.accept(DAN, key)
    services.spaces.set_role(ANN, key, "dan", "admin")
    services.spaces.add_member(DAN, key, "mallory", "admin")  # Dan invites another account of his
    services.spaces.remove_member(ANN, key, "dan")
    mallory = Caller("mallory")
    assert services.spaces.invitations(mallory) == []
    with pytest.raises(NotFound, match="No invitation"):
        services.spaces.accept(mallory, key)
    assert services.store.spaces.role(key, "mallory") is None
    services.spaces.add_member(ANN, key, "dan", "admin")
    services.spaces.accept(DAN, key)
    services.spaces.add_member(DAN, key, "mallory", "admin")
    services.store.spaces.set_role(key, "dan", "writer")  # demoted: what he offered is offered no more
    assert services.spaces.invitations(mallory) == [] and services.store.spaces.role(key, "mallory") is None
    assert [i.invitation.invited_by for i in services.spaces.invitations(BEN)] == ["ann"]


def test_invitations_are_bounded_per_space_and_per_inviter(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    from remember.models import InvitationBounds
    from remember.service import spaces as space_service

    monkeypatch.setattr(space_service, "BOUNDS", InvitationBounds(per_space=3, per_inviter=2, per_invitee=5))
    key = services.spaces.create(ANN, "Team").space.key
    for user in ("u1", "u2", "u3"):
        services.spaces.add_member(ANN, key, user, "reader")
    before = _rows(services)
    with pytest.raises(LimitReached, match="space Team has 3 invitations waiting"):
        services.spaces.add_member(ANN, key, "u4", "reader")
    services.spaces.add_member(ANN, key, "u3", "writer")  # offered again: no new invitation
    others = [services.spaces.create(ANN, f"Other {n}").space.key for n in range(2)]
    services.spaces.add_member(ANN, others[0], "u1", "reader")
    with pytest.raises(LimitReached, match="2 of your invitations to them wait for an answer already"):
        services.spaces.add_member(ANN, others[1], "u1", "reader")
    assert len(_rows(services)[2]) == len(before[2]) + 1


def test_a_role_is_changed_only_for_a_member_and_who_added_them_stays(services: Services) -> None:
    key, _ = _invited(services)
    services.spaces.accept(BEN, key)
    services.spaces.add_member(ANN, key, "dan", "reader")
    services.spaces.accept(DAN, key)
    services.spaces.set_role(ANN, key, "dan", "admin")
    services.spaces.set_role(DAN, key, "ben", "reader")
    [ben] = [m for m in services.store.spaces.members(key) if m.user == "ben"]
    assert (ben.role, ben.added_by) == ("reader", "ann")
    services.spaces.leave(BEN, key)
    assert services.store.spaces.set_role(key, "ben", "admin") is None  # a change racing a leave adds no one
    assert services.store.spaces.role(key, "ben") is None


def test_a_space_is_deleted_only_once_no_memory_is_left_in_it(services: Services) -> None:
    key, shared = _invited(services)
    assert services.store.spaces.delete(key) is None  # a memory written after the purge keeps the space
    assert services.store.spaces.get(key) is not None and services.store.memories.get(key, shared) is not None
    services.spaces.delete(ANN, key)
    assert services.store.spaces.get(key) is None and services.store.memories.get(key, shared) is None


def test_a_default_space_one_has_left_sends_new_memories_to_the_personal_space(services: Services) -> None:
    key, _ = _invited(services)
    services.spaces.accept(BEN, key)
    services.preferences.update(BEN, "spaces.default", "Team")
    assert services.spaces.writing(Caller("ben", 0.5), None).user == key
    services.spaces.remove_member(ANN, key, "ben")
    low = Caller("ben", 0.5)
    assert services.spaces.writing(low, None) == low.in_space("ben")
    with pytest.raises(NotFound, match="Unknown space"):
        services.spaces.writing(low, "Team")  # named in the call: said


def test_a_space_name_holds_no_control_or_direction_marks(services: Services) -> None:
    for name in ("Family\u202e photos", "Team\u009b2J", "Two\u2028lines", "Tab\there", "Zero\u200bwidth"):
        with pytest.raises(ValidationFailed, match="printable characters"):
            services.spaces.create(ANN, name)
    assert services.spaces.create(ANN, "Família Ωmega 家族").space.name == "Família Ωmega 家族"
    assert _rows(services)[0] != []


def test_a_token_limited_to_spaces_neither_sees_nor_answers_invitations(services: Services) -> None:
    key, _ = _invited(services)
    limited = Caller("ben", spaces=frozenset({"ben"}))
    before = _rows(services)
    assert services.spaces.invitations(limited) == []
    for answer in (services.spaces.accept, services.spaces.decline):
        with pytest.raises(NotFound, match="No invitation to a space"):
            answer(limited, key)
    assert _rows(services) == before and len(services.spaces.invitations(BEN)) == 1
