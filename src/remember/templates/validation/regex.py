"""User-supplied validation patterns, matched by RE2 in linear time.

A template's ``pattern`` comes from a user or a model. Python's ``re``
backtracks, so ``(a+)+$`` against a long line of ``a`` would hang the server;
RE2 never backtracks. RE2 has no backreferences or lookaround: such patterns are
refused when the template is defined, never at match time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol, cast

import re2  # type: ignore[import-untyped]  # google-re2 ships no type stubs

from remember.templates.limits import MAX_PATTERN_LENGTH


class _Compiled(Protocol):
    def search(self, text: str) -> Any: ...


class Pattern:
    """A compiled pattern; ``matches`` is an unanchored search, like JSON Schema's ``pattern``."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str, compiled: _Compiled) -> None:
        self.source = source
        self._compiled = compiled

    def matches(self, text: str) -> bool:
        return self._compiled.search(text) is not None


def _options() -> Any:
    options = re2.Options()
    # RE2 logs every refused pattern to stderr; the caller reports it instead.
    options.log_errors = False
    options.max_mem = 8 << 20
    return options


_OPTIONS = _options()


@lru_cache(maxsize=512)
def compile_pattern(source: str) -> Pattern:
    """Compile ``source`` or raise ``ValueError`` with a message a user can act on."""
    if len(source) > MAX_PATTERN_LENGTH:
        raise ValueError(f"the pattern is longer than {MAX_PATTERN_LENGTH} characters")
    try:
        compiled = cast(_Compiled, re2.compile(source, options=_OPTIONS))
    except re2.error as exc:
        raise ValueError(_explain(exc)) from None
    return Pattern(source, compiled)


def _explain(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else ""
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    hint = ""
    if "escape" in str(detail) or "perl operator" in str(detail):
        hint = " (backreferences and lookaround such as (?=...) are not supported: patterns run on RE2)"
    return f"the pattern does not compile: {detail}{hint}"
