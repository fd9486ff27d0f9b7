"""Shared spaces as the edges answer with them: each space with the caller's role and its members."""

from __future__ import annotations

from collections.abc import Sequence

from remember.models import Space
from remember.schemas import Out
from remember.service.spaces import SpaceView


class MemberOut(Out):
    user: str
    role: str


class SpaceOut(Out):
    space: str
    name: str
    role: str | None = None
    members: list[MemberOut] | None = None

    @classmethod
    def of(cls, view: SpaceView) -> SpaceOut:
        members = [MemberOut(user=m.user, role=m.role) for m in view.members]
        return cls(space=view.space.key, name=view.space.name, role=view.role or None, members=members or None)


class SpacesOut(Out):
    spaces: list[SpaceOut]
    message: str | None = None

    @classmethod
    def of(cls, views: Sequence[SpaceView], message: str | None = None) -> SpacesOut:
        return cls(spaces=[SpaceOut.of(v) for v in views], message=message)

    @classmethod
    def gone(cls, space: Space, message: str) -> SpacesOut:
        return cls(spaces=[SpaceOut(space=space.key, name=space.name)], message=message)
