"""The MCP tool for shared spaces: create one, list yours, manage members, leave, delete."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.errors import ValidationFailed
from remember.mcp.state import member_of, services_of
from remember.mcp.tools.hints import Tools, hints
from remember.schemas.spaces import SpacesOut

Action = Literal["create", "list", "add_member", "accept", "decline", "remove_member", "set_role", "leave", "delete"]


def remember_manage_space(
    ctx: Context,
    action: Annotated[Action, Field(description="What to do.")],
    space: Annotated[str | None, Field(description="Its name or key.")] = None,
    name: Annotated[str | None, Field(description="create: its name.")] = None,
    user: Annotated[str | None, Field(description="The member's user id.")] = None,
    role: Annotated[Literal["reader", "writer", "admin"] | None, Field(description="The member's role.")] = None,
) -> SpacesOut:
    """Spaces shared with other users: readers read, writers write, admins manage (add_member invites;
    the user joins with accept). Pass `space` to create tools; reads cover all your spaces.

    Example: {"action": "add_member", "space": "Family", "user": "sam", "role": "writer"}
    """
    services, caller = services_of(ctx), member_of(ctx)
    spaces = services.spaces
    if action == "create":
        return SpacesOut.of([spaces.create(caller, _given(name, "name"))])
    if action == "list":
        return SpacesOut.of(spaces.list(caller), invitations=spaces.invitations(caller))
    chosen = _given(space, "space")
    if action == "accept":
        return SpacesOut.of([spaces.accept(caller, chosen)], "Joined.")
    if action == "decline":
        return SpacesOut.gone(spaces.decline(caller, chosen), "Declined.")
    if action == "leave":
        return SpacesOut.gone(spaces.leave(caller, chosen), "Left.")
    if action == "delete":
        return SpacesOut.gone(spaces.delete(caller, chosen), "Deleted, with its memories.")
    if action == "remove_member":
        return SpacesOut.of([spaces.remove_member(caller, chosen, _given(user, "user"))])
    member, given_role = _given(user, "user"), _given(role, "role")
    if action == "add_member":
        return SpacesOut.of([spaces.add_member(caller, chosen, member, given_role)], f"Invited {member}.")
    return SpacesOut.of([spaces.set_role(caller, chosen, member, given_role)])


def _given(value: str | None, parameter: str) -> str:
    if value is None:
        raise ValidationFailed.single(parameter, "required", f"This action needs `{parameter}`.")
    return value


TOOLS: Tools = [(remember_manage_space, hints(read_only=False, destructive=True))]
