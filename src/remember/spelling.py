""" "Did you mean ...?": the names close to one that is not known (a command, a flag, a template)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # how alike two names must be (difflib's ratio) to be offered
MARGIN = 0.1  # how much less alike than the closest name another may be and still be offered


def close_to(given: str, names: Iterable[str], *, n: int = 3) -> list[str]:
    """Up to ``n`` of ``names`` closest to ``given``, case and leading dashes ignored, best first; then those
    that begin with it."""
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(name.casefold().lstrip("-"), name)
    wanted = given.casefold().lstrip("-")
    scored = sorted(
        ((difflib.SequenceMatcher(None, wanted, k).ratio(), k) for k in by_key), key=lambda s: (-s[0], s[1])
    )
    best = scored[0][0] if scored else 0.0
    # Only the names about as close as the closest: "bok_reveiw" is book_review, not movie_review too.
    close = [k for score, k in scored if score >= max(CUTOFF, best - MARGIN)][:n]
    starting = [k for k in by_key if len(wanted) >= 3 and k.startswith(wanted) and k not in close]
    return [by_key[k] for k in [*close, *sorted(starting)][:n]]


def did_you_mean(options: list[str]) -> str:
    """`` Did you mean X?`` (or ``X or Y``, ``X, Y or Z``) with a leading space; empty without options."""
    if not options:
        return ""
    listed = options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"
    return f" Did you mean {listed}?"
