"""Shared spaces as the edges answer with them: each space with the caller's role and its members."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ConfigDict

from remember.models import Space
from remember.schemas import Out, detail
from remember.service.spaces import InvitationView, SpaceView


class MemberOut(Out):
    user: str
    role: str


class SpaceOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("invited"))  # to its admins

    space: str
    name: str
    role: str | None = None
    members: list[MemberOut] | None = None
    invited: list[MemberOut] | None = None

    @classmethod
    def of(cls, view: SpaceView) -> SpaceOut:
        members = [MemberOut(user=m.user, role=m.role) for m in view.members]
        invited = [MemberOut(user=i.user, role=i.role) for i in view.invited]
        key, name, role = view.space.key, view.space.name, view.role or None
        return cls(space=key, name=name, role=role, members=members or None, invited=invited or None)


class InvitationOut(Out):
    model_config = ConfigDict(extra="forbid", json_schema_extra=detail("invited_by"))

    space: str
    name: str
    role: str
    invited_by: str

    @classmethod
    def of(cls, view: InvitationView) -> InvitationOut:
        offered = view.invitation
        return cls(space=view.space.key, name=view.space.name, role=offered.role, invited_by=offered.invited_by)


class SpacesOut(Out):
    spaces: list[SpaceOut]
    invitations: list[InvitationOut] | None = None
    message: str | None = None

    @classmethod
    def of(
        cls, views: Sequence[SpaceView], message: str | None = None, invitations: Sequence[InvitationView] = ()
    ) -> SpacesOut:
        offers = [InvitationOut.of(i) for i in invitations] or None
        return cls(spaces=[SpaceOut.of(v) for v in views], invitations=offers, message=message)

    @classmethod
    def gone(cls, space: Space, message: str) -> SpacesOut:
        return cls(spaces=[SpaceOut(space=space.key, name=space.name)], message=message)
