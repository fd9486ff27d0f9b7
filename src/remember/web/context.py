"""What every dashboard endpoint receives: the services, the settings, and who may log in how."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from remember.caller import Caller
from remember.web.codes import LoginCodes

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier

    from remember.config import Settings
    from remember.service import Services


@dataclass
class WebContext:
    """The dashboard's view of the server.

    ``verifier`` checks a presented token (API tokens, and OAuth access tokens when
    configured); without one (``--no-auth``, loopback only) every request acts for
    ``open_caller``. ``codes`` holds the one-time login links of ``remember ui``.
    """

    services: Services
    settings: Settings
    verifier: TokenVerifier | None
    allowed_hosts: list[str] = field(default_factory=list)  # ``host:*`` for any port (session.host_matches)
    open_caller: Caller | None = None
    codes: LoginCodes = field(default_factory=LoginCodes)

    @property
    def secure_cookies(self) -> bool:
        return self.settings.http.base_url.startswith("https://")
