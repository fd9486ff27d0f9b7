"""The plan of one search, decided in one place: which sides run, by which route, how a filter applies,
and which of the question's terms find memories.

A search has two sides, keywords and meaning (vectors), fused by ``alpha`` (0: keywords only, 1:
meaning only; None: both sides run and the fusion chooses it from the candidates, search/fusion.py).
Each side takes ``pool`` candidates. Its route follows what the backend's engine can
do for the user at their size (``Capabilities``): a ranked keyword index (past
``REMEMBER_KEYWORD_INDEX_MIN`` memories, for memories out of the trash) or the database's full-text
search; an approximate vector index (SQLite past ``REMEMBER_VECTOR_INDEX_MIN`` memories; PostgreSQL's
HNSW) or an exact one. A filter is first checked on each side's best ``POST_FILTER`` times its pool
(a filter most memories pass costs nothing more), and goes into the side's search when too few of
them pass. The full-text route searches by the question's rarest terms within a budget of postings
(``select_terms``); the ranked index weighs every term. ``explain`` returns the plan with what each
side ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from remember.models import DeletedMode
from remember.store.sides import POST_FILTER, Capabilities, KeywordRoute, VectorRoute

POOL = 50  # candidates taken from each side before fusion
# A term found in more than MAX_DF_SHARE of the memories (and in more than GUARD_FLOOR of them) carries
# little and costs much, so the full-text route leaves it out; then the rarest terms are kept while their
# document counts fit POSTINGS_BUDGET.
MAX_DF_SHARE = 0.2
GUARD_FLOOR = 1_000
POSTINGS_BUDGET = 10_000
# Terms past the budget still score the memories the kept terms find, up to ALSO_TERMS (rarest first),
# when those are at most ALSO_REACH (scoring them reads each one's positions).
ALSO_TERMS = 4
ALSO_REACH = 10_000
FILTER_CHECKED_FIRST = f"checked on the best {POST_FILTER}x the pool first, else in the search"


@dataclass(frozen=True)
class Terms:
    """The question's terms as the full-text route uses them."""

    find: list[str]  # the terms that find memories
    score: list[str]  # terms that only add to the score of the memories found
    left_out: list[str]  # terms too common to use


@dataclass(frozen=True)
class SearchPlan:
    alpha: float | None  # None: chosen by the fusion from the candidates
    pool: int
    keyword: KeywordRoute | None  # None: the side does not run
    vector: VectorRoute | None
    filtered: bool
    deleted: DeletedMode
    capabilities: Capabilities

    def explained(self, ran: dict[str, Any], alpha: float) -> dict[str, Any]:
        """The plan in words, with what each side ran (``ran``: per side, what the search recorded) and
        the ``alpha`` the fusion used."""
        caps = self.capabilities
        sides: dict[str, Any] = {
            "keyword": {"route": self.keyword or "off", **ran.get("keyword", {})},
            "vector": {"route": self.vector or "off", **ran.get("vector", {})},
        }
        if self.filtered and self.keyword:
            sides["keyword"].setdefault("filter", FILTER_CHECKED_FIRST)
        if self.filtered and self.vector:
            sides["vector"].setdefault("filter", caps.vector_filter)
        return {
            "alpha": alpha,
            "alpha_chosen": "given" if self.alpha is not None else "from the candidates",
            "pool": self.pool,
            "indexed_memories": caps.indexed,
            "deleted": self.deleted,
            **sides,
        }


def plan_search(
    *, alpha: float | None, pool: int, filtered: bool, deleted: DeletedMode, capabilities: Capabilities
) -> SearchPlan:
    """The route of each side: off when ``alpha`` leaves it no weight; else the best the engine has."""
    keyword: KeywordRoute | None = None
    if alpha is None or alpha < 1:
        keyword = "ranked index" if capabilities.ranked_keywords and deleted == "exclude" else "full text"
    vector: VectorRoute | None = None
    if alpha is None or alpha > 0:
        vector = "approximate" if capabilities.approximate_vectors else "exact"
    return SearchPlan(alpha, max(POOL, pool), keyword, vector, filtered, deleted, capabilities)


def select_terms(terms: Sequence[str], total: int, counts: Sequence[int]) -> Terms:
    """The terms that find memories, and those that only score them: the rarest are kept to find within
    a budget of postings (speed at scale); the rest (at most ALSO_TERMS, rarest first, none that most
    memories contain) score the memories found. The rarest term is always kept, so a question of common
    words still searches. ``counts``: the memories holding each term (``total`` in all)."""
    if not terms:
        return Terms([], [], [])
    ranked = sorted((n, i) for i, n in enumerate(counts))
    ceiling = max(MAX_DF_SHARE * total, GUARD_FLOOR)
    kept: list[str] = []
    budget = 0
    for n, i in ranked:
        if kept and (n > ceiling or budget + n > POSTINGS_BUDGET):
            break
        kept.append(terms[i])
        budget += n
    rest = [terms[i] for _, i in ranked[len(kept) :]]
    if budget > ALSO_REACH:
        return Terms(kept, [], rest)
    scoring = [terms[i] for n, i in ranked[len(kept) :] if n <= ceiling][:ALSO_TERMS]
    return Terms(kept, scoring, [t for t in rest if t not in scoring])
