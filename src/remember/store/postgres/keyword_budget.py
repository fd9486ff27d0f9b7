"""Keyword ranking on PostgreSQL within a budget of rows (docs/postgres.md#keyword-ranking-within-a-budget).

The exact ranking (``search.py``) reads every memory holding a query term and
ranks each with ``ts_rank``: up to 10,000 rows a query at scale. When the terms'
document counts add up to more than the budget, the rows ranked are chosen
first, then ranked exactly with the same score:

- every memory holding one of the rarest terms, taken while their counts fit the
  budget (rare terms weigh most: these are the memories that rank highest);
- of each remaining (common) term, and of each pair of the four rarest (a memory holding two
  outranks one holding either), its first rows through the GIN index that pass
  the filter: an equal share of what the budget has left (at least ``limit``).

The score of each row ranked is the exact ranking's: idf from the same counts
(the term statistics cache) and the same ``ts_rank`` weights. What is lost is
only a memory holding common terms alone that the shares did not reach.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from remember.filters import Filter
from remember.models import DeletedMode
from remember.store.postgres import filtersql

# The rows one keyword search ranks at most (measured: docs/postgres.md#keyword-ranking-within-a-budget).
RANK_BUDGET = 1_000
# Term counts are made up to this cap, the service's (POSTINGS_BUDGET + 1), so both share the cached counts.
COUNT_CAP = 10_001
PAIRED = 4  # pairs are sought among this many of the rarest common terms (at most 6 pairs)

INDEX_DELETED = {"exclude": "NOT x.deleted", "include": "TRUE", "only": "x.deleted"}
# ts_rank weights in the order {D, C, B, A}: content (A) and date (B) 1.0, context (C) 0.5, as bm25 on SQLite.
RANK_WEIGHTS = "'{0, 0.5, 1.0, 1.0}'::float4[]"


# Terms that score the rows found without finding any (``keyword_candidates``'s ``also``): a CTE
# ``scoring`` (q, w) from two array parameters (terms, idf), leaving out any the CTE ``found`` holds.
# The term lists are MATERIALIZED: inlined, each ranked row made every term's tsquery again (a
# crowd of 100,000: the query 11.7 -> 8.9 ms mean, 19.5 -> 14.5 p95; docs/postgres.md).
SCORING_ONLY = (
    "scoring AS MATERIALIZED (SELECT a.q, a.w FROM (SELECT phraseto_tsquery('english', s.t) AS q, s.w "
    "FROM unnest(%s::text[], %s::float8[]) AS s(t, w)) a "
    "WHERE numnode(a.q) > 0 AND NOT EXISTS (SELECT 1 FROM found f WHERE f.q = a.q))"
)


@dataclass(frozen=True)
class Plan:
    """Which terms are read whole, which are sampled and how many rows each, and every term's idf
    (with the terms that only score: ``also``)."""

    whole: list[str]
    sampled: list[tuple[tuple[str, ...], int]]  # memories holding all these terms, at most this many
    idf: dict[str, float]
    also: dict[str, float] = field(default_factory=dict)

    def scoring(self, also: dict[str, float]) -> Plan:
        """This plan, the rows it picks scored by ``also``'s terms too (idf by term; none of the plan's
        terms: ``keyword_candidates`` leaves them out, and the query any that stem alike)."""
        return replace(self, also=also)


def idf(total: int, count: int) -> float:
    """The exact ranking's idf: ln(1 + (N - n + 0.5) / (n + 0.5)), N never below n or 1."""
    n_all = max(total, count, 1)
    return math.log(1 + (n_all - count + 0.5) / (count + 0.5))


def plan(terms: Sequence[str], counts: Sequence[int], total: int, budget: int, limit: int) -> Plan | None:
    """The budgeted reading of ``terms`` (``counts``: the user's memories holding each), or None
    when every matching row fits the budget (the exact ranking answers then)."""
    if sum(counts) <= budget:
        return None
    ranked = sorted(zip(counts, terms, strict=True))
    whole: list[str] = []
    used = 0
    for n, term in ranked:
        if used + n > budget:
            break
        whole.append(term)
        used += n
    rest = [term for _, term in ranked[len(whole) :]]
    groups = [(term,) for term in rest] + list(itertools.combinations(rest[:PAIRED], 2))
    share = max(limit, (budget - used) // len(groups))
    weights = {term: idf(total, n) for n, term in ranked if n > 0}
    return Plan(whole, [(group, share) for group in groups], weights)


@dataclass(frozen=True)
class Passes:
    """The join to the memory and the condition a row ``x`` must meet, each with its parameters."""

    join: str
    join_params: list[Any]
    where: str
    where_params: list[Any]


def passes(user_id: str, filter: Filter | None, deleted: DeletedMode) -> Passes:
    if filter is None:
        return Passes("", [], INDEX_DELETED[deleted], [])
    params: list[Any] = []
    where = f"{INDEX_DELETED[deleted]} AND {filtersql.render(filter, params)}"
    return Passes("JOIN memories m ON m.user_id = %s AND m.id = x.memory_id ", [user_id], where, params)


def ranked_sql(
    user_id: str, chosen: Plan, *, filter: Filter | None, deleted: DeletedMode, limit: int
) -> tuple[str, list[Any]]:
    """The query ranking the rows ``chosen`` picks, and its parameters (all bound, none spliced).

    Each pick reads the rows that pass with their keywords, which are ranked as they are: reading
    each picked row again by its key took a third of the query (1,000 rows at a million memories).
    """
    rule = passes(user_id, filter, deleted)
    params: list[Any] = [list(chosen.idf), list(chosen.idf.values())]
    picks: list[str] = []
    reads = f"SELECT x.memory_id, x.keywords FROM memory_index x {rule.join}WHERE x.user_id = %s AND x.keywords @@"
    if chosen.whole:
        either = " || ".join("phraseto_tsquery('english', %s)" for _ in chosen.whole)
        picks.append(f"{reads} ({either}) AND {rule.where}")
        params += [*rule.join_params, user_id, *chosen.whole, *rule.where_params]
    for group, share in chosen.sampled:  # the filter inside: a sample of rows that pass
        every = " && ".join("phraseto_tsquery('english', %s)" for _ in group)
        picks.append(f"({reads} ({every}) AND {rule.where} LIMIT %s)")
        params += [*rule.join_params, user_id, *group, *rule.where_params, share]
    # a memory picked twice (by a term and by a pair) is ranked once
    picked = picks[0] if len(picks) == 1 else f"SELECT DISTINCT ON (memory_id) * FROM ({' UNION ALL '.join(picks)}) u"
    sql = (
        "WITH found AS MATERIALIZED (SELECT phraseto_tsquery('english', w.t) AS q, w.w "
        "FROM unnest(%s::text[], %s::float8[]) AS w(t, w)), "
        f"{SCORING_ONLY}, terms AS MATERIALIZED (SELECT q, w FROM found UNION ALL SELECT q, w FROM scoring), "
        f"picked AS MATERIALIZED ({picked}) "
        f"SELECT x.memory_id, (SELECT sum(t.w * ts_rank({RANK_WEIGHTS}, x.keywords, t.q)) FROM terms t "
        "WHERE numnode(t.q) > 0 AND x.keywords @@ t.q) AS score "
        "FROM picked x ORDER BY score DESC, x.memory_id LIMIT %s"
    )
    return sql, [*params[:2], list(chosen.also), list(chosen.also.values()), *params[2:], limit]
