"""What every dashboard endpoint receives: the services, the settings, and who may log in how."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from remember.caller import Caller
from remember.web.codes import LoginCodes

if TYPE_CHECKING:
    from remember.config import Settings
    from remember.service import Services


class Tokens(Protocol):
    """How the server that serves the dashboard reads a presented token (``http/auth.py``, ``TokenCallers``)."""

    async def caller(self, token: str) -> Caller | None:
        """Who ``token`` acts for; None when the server does not accept it."""

    def accepted(self) -> None:
        """Note that the request being served carries a token the server accepts."""


@dataclass
class WebContext:
    """The dashboard's view of the server.

    ``tokens`` reads a presented token (API tokens, and OAuth access tokens when
    configured); without it (``--no-auth``, loopback only) every request acts for
    ``open_caller``. ``codes`` holds the one-time login links of ``remember ui``.
    """

    services: Services
    settings: Settings
    tokens: Tokens | None
    allowed_hosts: list[str] = field(default_factory=list)  # ``host:*`` for any port (session.host_matches)
    open_caller: Caller | None = None
    codes: LoginCodes = field(default_factory=LoginCodes)
