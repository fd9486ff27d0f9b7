"""The spaces page's endpoints: the caller's spaces with their members, and what an admin manages.

Each one is an action of ``remember_manage_space`` through the same service, so the same rules hold: a
space the caller is not a member of is answered as one that does not exist, managing members needs an
admin of the space holding a full-trust session, and a space always keeps an admin.

``GET /api/spaces`` lists them (with the caller's own id, the name of the personal space) and the
invitations the caller has not answered, ``POST /api/spaces`` ``{"name"}`` creates one, ``POST
/api/spaces/{space}/members`` ``{"user", "role"}`` invites a user, ``PATCH
/api/spaces/{space}/members/{user}`` ``{"role"}`` changes a member's role, ``DELETE`` there removes the member
(or takes back the invitation), ``POST /api/spaces/{space}/accept`` and ``/decline`` answer an invitation,
and ``POST /api/spaces/{space}/leave`` leaves it. ``{space}`` is a key or a name.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.schemas.spaces import SpacesOut
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/spaces": {"GET": listing, "POST": create},
        "/api/spaces/{space}/members": {"POST": add_member},
        "/api/spaces/{space}/members/{user}": {"PATCH": set_role, "DELETE": remove_member},
        "/api/spaces/{space}/leave": {"POST": leave},
        "/api/spaces/{space}/accept": {"POST": accept},
        "/api/spaces/{space}/decline": {"POST": decline},
    })  # fmt: skip


def listing(call: Call) -> dict[str, Any]:
    service = call.services.spaces
    found = SpacesOut.of(service.list(call.caller), invitations=service.invitations(call.caller))
    listed = {"personal": call.caller.person, "trust_level": call.caller.trust, "spaces": found.spaces}
    return listed | {"invitations": found.invitations or []}


def create(call: Call) -> SpacesOut:
    name = _only(call, "name").get("name")
    made = call.services.spaces.create(call.caller, name if isinstance(name, str) else "")  # "": "give a name"
    return SpacesOut.of([made], "Created; you are its admin.")


def add_member(call: Call) -> SpacesOut:
    body = _only(call, "user", "role")
    user, role = _text(body, "user"), _text(body, "role")
    added = call.services.spaces.add_member(call.caller, call.path["space"], user, role)
    return SpacesOut.of([added], f"Invited {user} as {role}; they join when they accept.")


def set_role(call: Call) -> SpacesOut:
    role = _text(_only(call, "role"), "role")
    user = call.path["user"]
    changed = call.services.spaces.set_role(call.caller, call.path["space"], user, role)
    return SpacesOut.of([changed], f"{user} is now {role}.")


def remove_member(call: Call) -> SpacesOut:
    user = call.path["user"]
    return SpacesOut.of([call.services.spaces.remove_member(call.caller, call.path["space"], user)], f"Removed {user}.")


def accept(call: Call) -> SpacesOut:
    joined = call.services.spaces.accept(call.caller, call.path["space"])
    return SpacesOut.of([joined], f"Joined space {joined.space.name} as {joined.role}.")


def decline(call: Call) -> SpacesOut:
    return SpacesOut.gone(call.services.spaces.decline(call.caller, call.path["space"]), "Declined.")


def leave(call: Call) -> SpacesOut:
    return SpacesOut.gone(call.services.spaces.leave(call.caller, call.path["space"]), "Left.")


def _only(call: Call, *keys: str) -> dict[str, Any]:
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in keys)
    if unknown:
        raise ValidationFailed.single(unknown[0][:60], "unknown_field", f"Send only {', '.join(keys)}.")
    return body


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed.single(key, "required", f"Give the member's {key}.")
    return value.strip()
