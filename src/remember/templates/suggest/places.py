"""Cues read from the content itself: a named place, named people, a question.

These are deliberately conservative patterns over capitalised words, used as
context evidence ("mentions a place") and by the prefill extractors. A
capitalised word at the start of a sentence, a weekday, a month or "I" is
never taken for a name.
"""

from __future__ import annotations

import re

CAPITALISED = r"[A-Z][\w'\u2019&.\-]*"
NAME_PATTERN = rf"{CAPITALISED}(?:\s+(?:de|da|del|van|von|la|le)?\s*{CAPITALISED}){{0,3}}"
CALENDAR_WORDS = frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
     "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
     "i", "i'm", "i've", "i'd", "i'll", "today", "tonight", "tomorrow", "yesterday", "christmas", "easter",
     "q1", "q2", "q3", "q4", "ok", "til", "tv", "imax", "ai", "api", "the", "a", "an", "my", "our"}
)  # fmt: skip
PLACE_CUE = re.compile(
    r"\b(?i:at|in|near|around|visited|visiting|(?:trip|flew|flying|flights?|went|going|drove|driving|headed|moved)"
    rf"\s+(?:in)?to|(?:back|home)\s+from)\s+(?:the\s+)?({NAME_PATTERN})"
)
# A question or an instruction to the assistant; "what if" (an idea) and "did you know" (a fact) are neither.
_QUESTION_START = re.compile(
    r"^\s*(?!what\s+if\b|did\s+you\s+know\b)"
    r"(?:what|what's|whats|who|who's|whom|when|where|where's|why|how|which|should|is|are|do|does|did|"
    r"(?:can|could|would|will)\s+you|remind\s+me\s+(?:what|when|where|who|how)|tell\s+me|give\s+me|show\s+me|explain|translate|convert|calculate|spell)\b",
    re.IGNORECASE,
)


def proper_names(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Names captured by ``pattern`` (group 1), trimmed, without calendar words or pronouns."""
    found: list[str] = []
    for match in pattern.finditer(text):
        words = match.group(1).rstrip(".'\u2019").split()
        while words and words[0].lower().strip(".") in CALENDAR_WORDS:
            words = words[1:]
        while words and words[-1].lower().strip(".") in CALENDAR_WORDS:
            words = words[:-1]
        name = " ".join(words)
        if name and name not in found and not _nationality(name):
            found.append(name)
    return found


def mentions_place(text: str) -> bool:
    """Whether the text names a place: a preposition followed by a capitalised name."""
    return bool(proper_names(text, PLACE_CUE))


def is_request(text: str) -> bool:
    """A question or an instruction to the assistant rather than something to remember."""
    return bool(_QUESTION_START.match(text))


def _nationality(name: str) -> bool:
    """ "in Italian", "in Japanese": a language or nationality, not a place."""
    return " " not in name and name.lower().endswith(("ian", "ese", "ish"))
