"""What the built-in authorization server keeps, and how much: lifetimes, counts and text lengths.

Registration and ``/authorize`` need no credential, so each is bounded before anything is stored:
every text field of a registration and of an authorization request has a length, every list a count,
and the rows they make have a number per registering address (or per client) and in total. A request
past a bound is refused with an OAuth error saying which bound and by how much, and nothing is stored.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.provider import AuthorizationParams, AuthorizeError, RegistrationError
from mcp.shared.auth import OAuthClientInformationFull

CODE_LIFETIME = timedelta(minutes=5)
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
PENDING_LIFETIME = timedelta(minutes=10)  # to finish the consent page
REGISTRATION_LIFETIME = timedelta(days=7)  # a client no person has allowed yet
CLIENT_LIFETIME = timedelta(days=90)  # a client after it was last allowed or refreshed its tokens

CLIENTS_PER_ADDRESS = 20  # registrations from one address (an IPv6 /64) no person has allowed yet
CLIENTS = 10_000
PENDING_PER_CLIENT = 20
PENDING = 1_000

NAME_CHARS = 200  # a name, an identifier, a version, a method
URI_CHARS = 2_000  # a URI, a state, a scope list
ITEMS = 10  # entries of a list (redirect URIs, contacts, grant types)
JSON_CHARS = 8_000  # a JSON value (jwks)
CHALLENGE_CHARS = 128

_URIS = {"redirect_uris", "client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri", "scope"}


def check_registration(client: OAuthClientInformationFull) -> None:
    """Refuse a registration with a field past its bound, or a redirect URI a code must not be sent to
    (RegistrationError)."""
    for name, value in client.model_dump(mode="json", exclude_none=True).items():
        problem = _too_long(name, value)
        if problem and name == "redirect_uris":
            raise RegistrationError("invalid_redirect_uri", problem)
        if problem:
            raise RegistrationError("invalid_client_metadata", problem)
    for uri in client.redirect_uris or []:
        problem = redirect_problem(str(uri))
        if problem:
            raise RegistrationError("invalid_redirect_uri", problem)


NEVER_REDIRECT = frozenset({"javascript", "data", "file", "vbscript", "blob", "about", "filesystem"})
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def redirect_problem(uri: str) -> str | None:
    """Why an authorization code must not be sent to ``uri``, or None: https anywhere, http only to this
    machine (loopback), an app's own scheme (RFC 8252: ``cursor://…``, ``com.example.app:/cb``), never a
    scheme a browser runs or reads locally (javascript:, data:, file:, …), and never with a fragment."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if "#" in uri:
        return f"redirect URI {uri[:100]!r} has a fragment (#…); a redirect URI has none (RFC 6749 3.1.2)."
    if scheme in NEVER_REDIRECT:
        return f"redirect URI {uri[:100]!r} uses {scheme}:, which no authorization code is sent to."
    if scheme == "http" and (parts.hostname or "").lower() not in LOOPBACK:
        return f"redirect URI {uri[:100]!r} is http to another machine; use https (http is for localhost only)."
    return None


def check_authorization(params: AuthorizationParams) -> None:
    """Refuse an authorization request with a parameter past its bound (AuthorizeError)."""
    given = {
        "state": (params.state or "", URI_CHARS),
        "scope": (" ".join(params.scopes or []), URI_CHARS),
        "code_challenge": (params.code_challenge, CHALLENGE_CHARS),
        "resource": (params.resource or "", URI_CHARS),
    }
    for name, (text, limit) in given.items():
        if len(text) > limit:
            raise AuthorizeError("invalid_request", _chars(name, text, limit))


def address_key(host: str | None) -> str:
    """The registering address as its registrations are counted: an IPv6 address by its /64 (one
    network's many addresses are one sender), an IPv4 address (or an IPv4-mapped one) as it is."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:NAME_CHARS]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _too_long(name: str, value: Any) -> str | None:
    """What is wrong with one registration field, or None."""
    limit = URI_CHARS if name in _URIS else NAME_CHARS
    if isinstance(value, str):
        return _chars(name, value, limit) if len(value) > limit else None
    if isinstance(value, list):
        if len(value) > ITEMS:
            return f"{name} has {len(value)} entries; this server takes at most {ITEMS}."
        for item in value:
            problem = _too_long(name, item) if isinstance(item, str) else _json_too_long(name, item)
            if problem:
                return problem
        return None
    return _json_too_long(name, value)


def _json_too_long(name: str, value: Any) -> str | None:
    size = len(json.dumps(value))
    if size <= JSON_CHARS:
        return None
    return f"{name} is {size} characters of JSON; this server takes at most {JSON_CHARS}."


def _chars(name: str, text: str, limit: int) -> str:
    return f"{name} is {len(text)} characters long; this server takes at most {limit}."
