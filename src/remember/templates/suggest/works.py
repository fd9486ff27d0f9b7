"""Works and who made them: "Piranesi by Susanna Clarke", "season 2 of Severance", "directed by ...".

A work's title is a run of capitalised words (small words such as "of", "the",
"and" inside it, "Dune: Part Two", "Tomorrow, and Tomorrow, and Tomorrow")
found:

- before "by <Name>" ("read Klara and the Sun by Kazuo Ishiguro");
- after a cue: read, finished, watched, saw, rewatched, "the movie",
  "the documentary", "Book:", "episodes of", "season 2 of";
- before "season 2" or "anime".

It stops before a platform ("on Netflix"), a date word or "with". The creator
is the name after "by" (an author, or a director where the template has one),
after "directed by", "author", "starring", or before "directing".
"""

from __future__ import annotations

import re

from remember.templates.suggest.places import CALENDAR_WORDS
from remember.templates.suggest.spans import only

SMALL = frozenset({"of", "the", "and", "a", "an", "in", "on", "at", "to", "for", "from", "all", "or", "is"})
PLATFORMS = ("Netflix", "HBO Max", "HBO", "Max", "Hulu", "Disney+", "Apple TV+", "Apple TV", "Prime Video",
             "Amazon Prime", "Prime", "YouTube", "Peacock", "Paramount+", "Crunchyroll", "Mubi", "Criterion Channel",
             "BBC iPlayer", "Kindle", "Audible", "Spotify")  # fmt: skip
_PLATFORM = re.compile(rf"\bon ({'|'.join(re.escape(p) for p in PLATFORMS)})(?![\w+])")
_NAME = r"[A-Z][\w'\u2019\-]+(?:\s+(?:[A-Z]\.|[A-Z][\w'\u2019\-]+|Le|de|van|von|da|del)){0,3}"
_BY = re.compile(rf"(?<!directed )(?<!written )\bby ({_NAME})")
_DIRECTED = re.compile(rf"\bdirected by ({_NAME})|\b({_NAME}) directing\b|\bdirector:? ({_NAME})")
_AUTHOR = re.compile(rf"\bauthor:? ({_NAME})|\bwritten by ({_NAME})")
_STARRING = re.compile(rf"\bstarring ({_NAME}(?:(?:,| and) {_NAME})*)")
_CUE = re.compile(
    r"(?:\b(?:read|reading|finished|finishing|started|watched|watching|saw|seen|rewatched|binged|listened to|"
    r"(?:the )?(?:movie|film|documentary|book|novel|show|series|mini-series|miniseries|anime)|"
    r"episodes? of|season \d{1,2} of)|^(?:book|movie|film|show|documentary|mini-series|miniseries):?)\s+",
    re.I,
)
_MONTHS_DAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                          "february", "march", "april", "may", "june", "july", "august", "september", "october",
                          "november", "december"})  # fmt: skip
_CUE_VERBS = frozenset({"read", "finished", "started", "watched", "saw", "rewatched", "binged", "listened", "loved",
                        "hated", "liked", "just", "finally"})  # fmt: skip
_BEFORE = re.compile(r"\s+(?:by [A-Z]|season \d|anime\b)|,\s+directed by")
_WORD = re.compile(r"[A-Za-z0-9\u00C0-\u024F][\w'\u2019\u00C0-\u024F\-]*[+]?|,|:")


def titles(text: str) -> list[str]:
    """Distinct work titles read from the text, in order of appearance."""
    found = [_forward(text, match.end()) for match in _CUE.finditer(text)]
    found += [_backward(text, match.start()) for match in _BEFORE.finditer(text)]
    return list(dict.fromkeys(t for t in found if t))


def creators(text: str) -> list[str]:
    """Names after "by" that are not a date ("by Friday")."""
    return _names(_BY, text)


def directors(text: str) -> list[str]:
    return _names(_DIRECTED, text)


def authors(text: str) -> list[str]:
    return _names(_AUTHOR, text) or creators(text)


def cast(text: str) -> list[str] | None:
    match = _STARRING.search(text)
    if not match:
        return None
    return [name.strip() for name in re.split(r",| and ", match.group(1)) if name.strip()]


def platform(text: str) -> str | None:
    return only([m.group(1) for m in _PLATFORM.finditer(text)])


def _names(pattern: re.Pattern[str], text: str) -> list[str]:
    found = []
    for match in pattern.finditer(text):
        name = next(g for g in match.groups() if g).strip()
        words = [w for w in name.split() if w.lower() not in CALENDAR_WORDS]
        if words and len(words) == len(name.split()):
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def _forward(text: str, start: int) -> str:
    words: list[str] = []
    for match in _WORD.finditer(text, start):
        if match.start() > start and text[start : match.start()].strip():
            break
        token = match.group(0)
        if not _fits(token, words, text, match.end()):
            break
        words.append(token)
        start = match.end()
    return _trim(words)


def _backward(text: str, end: int) -> str:
    """The title ending at ``end``: walk back over title words, then read it forwards from there."""
    tokens = list(_WORD.finditer(text[:end]))
    start = None
    position = end
    for index in range(len(tokens) - 1, -1, -1):
        match = tokens[index]
        if text[match.end() : position].strip():
            break
        token = match.group(0)
        attached = index > 0 and tokens[index - 1].end() == match.start() and _capital(tokens[index - 1].group(0))
        if token == ":" and not attached:
            break
        if token not in (",", ":") and not (_capital(token) or token.lower() in SMALL):
            break
        if token.lower() in _CUE_VERBS:
            break
        if _capital(token):
            start = match.start()
        position = match.start()
    return _forward(text, start) if start is not None else ""


def _fits(token: str, words: list[str], text: str, end: int) -> bool:
    if token in (",", ":"):
        following = text[end:].lstrip()
        return bool(words) and (following.startswith(("and ", "or ")) if token == "," else following[:1].isupper())
    if _stops(token) and words:
        return False
    if token.lower() == "on" and _PLATFORM.match(text, end - 2):
        return False
    return _capital(token) or (bool(words) and token.lower() in SMALL and token.lower() != "is")


def _stops(token: str) -> bool:
    """A month or weekday, or a lowercase time word: not part of a title ("Tomorrow" in a title is)."""
    lowered = token.lower()
    return lowered in CALENDAR_WORDS - {"the", "a", "an"} and (lowered in _MONTHS_DAYS or token.islower())


def _capital(token: str) -> bool:
    return token[:1].isupper() or (token[:1].isdigit() and len(token) <= 4)


def _trim(words: list[str]) -> str:
    while words and (words[-1].lower() in SMALL or words[-1] in (",", ":") or _stops(words[-1])):
        words.pop()
    if not words or not _capital(words[0]):
        return ""
    title = " ".join(words).replace(" ,", ",").replace(" :", ":")
    return title if len(title) >= 2 else ""
