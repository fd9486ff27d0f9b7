"""The text search works on: what a memory's index holds, and the terms of a query.

A memory is indexed in three keyword columns: ``content`` (title, text, tags and,
for a templated memory whose text is not already its fields, the rendered fields),
``date`` (when it happened, as "8 May 2023", so "in May 2023" matches) and
``context`` (the text of the previous memory of the same conversation, so that a
short reply is found by the question it answered). Its vector is computed from
the title and the text.
"""

from __future__ import annotations

import re
from datetime import datetime

# Common English function words (the NLTK English list): they carry no meaning in
# a query to a memory store, and dropping them from the keyword query was measured
# to help (docs/search.md).
_STOPWORD_TEXT = """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both
each few more most other some such no nor not only own same so than too very s t can will just
don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't
doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't
needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_TERM = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
MAX_QUERY_TERMS = 64


def query_terms(query: str) -> list[str]:
    """Lower-cased words of ``query``, possessive 's dropped, stopwords and repeats removed."""
    out: list[str] = []
    for word in _TERM.findall(query.lower()):
        term = word.removesuffix("'s")
        if term and term not in STOPWORDS and term not in out:
            out.append(term)
    return out[:MAX_QUERY_TERMS]


def date_text(moment: datetime) -> str:
    """``8 May 2023``: the form people use in questions about when."""
    return f"{moment.day} {moment:%B %Y}"


def index_text(title: str | None, content: str, tags: tuple[str, ...], fields_text: str | None) -> str:
    parts = [title or "", content]
    if fields_text and fields_text != content:
        parts.append(fields_text)
    if tags:
        parts.append(" ".join(tags))
    return "\n".join(p for p in parts if p)


def vector_text(title: str | None, content: str) -> str:
    return f"{title}\n{content}" if title and title not in content else content


_SUFFIXES = ("ing", "ed", "es", "s")


def stem(term: str) -> str:
    """A light English stem (plural and -ing/-ed endings off) for the relationship index, which has
    no full-text engine behind it: "works", "worked" and "working" all become "work"."""
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 3 and not term.endswith("ss"):
            return term[: -len(suffix)]
    return term


def observation_terms(*texts: str) -> list[tuple[str, int]]:
    """The stemmed terms of a relationship's texts with how often each occurs (stopwords left out)."""
    counts: dict[str, int] = {}
    for piece in texts:
        for word in _TERM.findall(piece.lower().replace("_", " ")):
            term = word.removesuffix("'s")
            if term and term not in STOPWORDS:
                key = stem(term)[:64]
                counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items())


def relationship_query_terms(query: str) -> list[str]:
    """A query's terms as ``observation_terms`` stems them."""
    return list(dict.fromkeys(stem(t)[:64] for t in query_terms(query.replace("_", " "))))
