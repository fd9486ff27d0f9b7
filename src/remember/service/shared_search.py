"""The work the searches of one question over several spaces share, done once before they run.

The question is embedded once for every space, and the spaces whose keyword side is the database's full
text are searched by it together: one query per set of terms (``SearchIndex.keyword_candidates_of``)
reads and scores each matching row once, where a search per space reads every space's matching rows
again. Each space's search then runs as it would alone and takes what was found for it here
(``search/shared.py``), so the hits are those of the spaces searched one by one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from remember.caller import Caller
from remember.errors import RememberError, ValidationFailed
from remember.search import text
from remember.search.plan import plan_search
from remember.search.shared import Asked, Candidates, Shared, asked, grouped
from remember.service import checks, validity
from remember.service.search import SearchService, alpha_of
from remember.store.sides import POST_FILTER


def prepare(
    service: SearchService, callers: Sequence[Caller], query: str, *, limit: int, options: Mapping[str, Any]
) -> Shared:
    """What the searches of ``query`` (``limit`` hits each, from the first; ``options`` as
    ``SearchService.search`` takes them) over the spaces of ``callers`` share."""
    try:
        question = checks.query(query, "query")
        weights = [alpha_of(service.preferences.effective(c), options.get("alpha")) for c in callers]
        deleted = checks.deleted_mode(options.get("deleted", "exclude"))
    except ValidationFailed:
        return Shared()  # nothing to share: each search says what to fix, as it would alone
    vector = _vector(service, question) if any(w is None or w > 0 for w in weights) else None
    alone = options.get("filters") is not None or options.get("when", validity.CURRENT) != validity.CURRENT
    if alone or not service.store.index.finds_owners_together:
        return Shared(vector)  # each space filters its own keyword side, or the backend asks per owner anyway
    every = text.query_terms(question)
    by_pool: dict[int, list[str]] = {}
    for caller, weight in zip(callers, weights, strict=True):
        capabilities = service.store.index.capabilities(caller.user)
        plan = plan_search(alpha=weight, pool=limit + 1, filtered=False, deleted=deleted, capabilities=capabilities)
        if plan.keyword == "full text":  # a restricted caller's search checks its trust on the unfiltered best
            by_pool.setdefault(POST_FILTER * plan.pool if caller.restricted else plan.pool, []).append(caller.user)
    keywords: dict[Asked, Candidates] = {}
    for pool, owners in by_pool.items():
        terms = {owner: service.full_text_terms(owner, every) for owner in owners}
        for (find, score), together in grouped(list(terms.items())).items():
            found = service.store.index.keyword_candidates_of(together, find, deleted=deleted, limit=pool, also=score)
            keywords |= {asked(o, terms[o], deleted, pool): found.get(o, []) for o in together}
    return Shared(vector, keywords)


def text_vector(service: SearchService, text_query: Any) -> Shared:
    """What the searches of several owners for memories close to ``text_query`` share: its vector."""
    try:
        question = checks.query(text_query, "text")
    except ValidationFailed:
        return Shared()  # each search says what to fix
    return Shared(_vector(service, question))


def _vector(service: SearchService, question: str) -> bytes | None:
    """The question's vector; None where it cannot be made (each search then says why, as it would alone)."""
    try:
        return service.query_bytes(question)
    except RememberError:
        return None


__all__ = ["prepare", "text_vector"]
