"""One-time login links: ``remember ui`` opens the browser at ``/#/login/code/…``.

A code is 192 random bits, kept only as its SHA-256, good for one login within
``LIFETIME`` seconds: the page sends it to ``POST /api/session``, which starts a
session acting as the token the code was issued for. Codes live in the server's
memory: a restart forgets them.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable

LIFETIME = 300.0  # seconds a login link works for


class LoginCodes:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._codes: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def issue(self, token: str) -> str:
        """A new code that logs in as ``token`` once."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._drop_expired()
            self._codes[_digest(code)] = (token, self.clock() + LIFETIME)
        return code

    def redeem(self, code: str) -> str | None:
        """The token of ``code`` if it is known and fresh; either way the code is used up."""
        with self._lock:
            found = self._codes.pop(_digest(code), None)
        if found is None or found[1] < self.clock():
            return None
        return found[0]

    def _drop_expired(self) -> None:
        now = self.clock()
        for key in [k for k, (_, until) in self._codes.items() if until < now]:
            del self._codes[key]


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()
