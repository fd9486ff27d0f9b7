"""Search use-cases: hybrid keyword + vector search, find-similar, and question context.

Filters run inside the database: the keyword candidates come from one SQL query
with the filter in its WHERE clause, and vector candidates are limited to the ids
the same filter selects in SQL. docs/search.md describes ranking and its figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import ValidationFailed
from remember.filters import Filter, best_passing, conjoin, parse_filter
from remember.models import DeletedMode, Memory, conversation_of
from remember.search import expand, text, when
from remember.search.fusion import Boosts, Fused, fuse
from remember.service import checks, visibility
from remember.service.access import note_access
from remember.service.indexer import Indexer
from remember.service.preferences import PreferenceService
from remember.store import Store

POOL = 50  # candidates taken from each side before fusion (measured: docs/search.md)
# A speed guard for large collections: a query term found in more than MAX_DF_SHARE of
# the memories (and in more than GUARD_FLOOR of them) carries little and costs much, so
# it is dropped; then the rarest terms are kept while their document counts fit the budget.
MAX_DF_SHARE = 0.2
GUARD_FLOOR = 1_000
POSTINGS_BUDGET = 10_000
# Terms past the budget still score the memories the kept terms find, up to ALSO_TERMS (rarest first),
# when those are at most ALSO_REACH (scoring them reads each one's positions): LoCoMo's conversations
# among a million other memories, recall@5 0.282 -> 0.587 (docs/search.md#a-crowded-memory).
ALSO_TERMS = 4
ALSO_REACH = 10_000
# A filtered keyword search first takes this many times its pool unfiltered and keeps what passes the
# filter: a filter most memories pass is answered so, without the database listing every memory that
# passes it; with too few passing, the filter goes into the search itself (the vector side does the
# same with the index's proposals: store/sqlite/approximate.py).
POST_FILTER = 4
MAX_LIMIT = 100
MAX_OFFSET = 1_000
QUERY_THREADS = 4  # queries embedded at once (searches of several clients over HTTP)


@dataclass(frozen=True)
class Recipe:
    """How candidates are gathered and ranked beyond the fusion itself (docs/search.md has the figures)."""

    neighbours_of: int = 0  # the best this many fused candidates lift their conversation neighbours
    neighbour_share: float = 0.0  # ... to this share of their own score
    time_boost: float = 0.0  # added to memories within the time the query names ("last Friday")
    time_pool: int = 0  # candidates taken from that time on each side, besides the usual ones
    # a hit is lifted by this share of the best other hit of its conversation (off: it gains recall@5 on
    # both benchmarks and loses LongMemEval's recall@10; docs/search.md#the-company-a-hit-keeps)
    conversation_share: float = 0.0


@dataclass(frozen=True)
class Hit:
    memory: Memory
    score: float
    why: dict[str, Any] | None = None


@dataclass(frozen=True)
class Results:
    hits: list[Hit]
    offset: int
    limit: int
    has_more: bool
    alpha: float


class SearchService:
    def __init__(self, store: Store, preferences: PreferenceService, indexer: Indexer, clock: Clock = utc_now) -> None:
        self.store = store
        self.preferences = preferences
        self.indexer = indexer
        self.clock = clock
        self.recipe = Recipe()
        self._threads: ThreadPoolExecutor | None = None

    def search(
        self,
        caller: Caller,
        query: Any,
        *,
        alpha: float | None = None,
        filters: Mapping[str, Any] | None = None,
        limit: int | None = None,
        offset: int = 0,
        deleted: str = "exclude",
        explain: bool = False,
        record_access: bool = True,
    ) -> Results:
        """The user's memories that best match ``query``, best first."""
        prefs = self.preferences.effective(caller)
        question = checks.query(query, "query")
        weight = checks.share("alpha", prefs["search.default_alpha"] if alpha is None else alpha)
        size = checks.whole_number("limit", prefs["search.default_limit"] if limit is None else limit, 1, MAX_LIMIT)
        start = checks.whole_number("offset", offset, 0, MAX_OFFSET)
        tree, mode = visibility.within_reach(caller, parse_filter(filters)), checks.deleted_mode(deleted)
        pool = max(POOL, start + size + 1)
        span = when.span(question, self.clock()) if self.recipe.time_boost else None
        semantic = self._beside(caller, question, tree, mode, pool, span) if weight > 0 else None
        keyword = self._keyword(caller, question, tree, mode, pool) if weight < 1 else {}
        if span is not None and self.recipe.time_pool and weight < 1:
            within = _within(tree, span)
            for memory_id, score in self._keyword(caller, question, within, mode, self.recipe.time_pool).items():
                keyword.setdefault(memory_id, score)  # a ranked index's score stands; FTS5 scores the time filter
        cosine: dict[str, float] = {}
        if semantic is not None:
            vector, cosine = semantic.result()
            missing = [i for i in keyword if i not in cosine]
            if missing:  # the cosine of every keyword candidate too, for fusion
                cosine |= self.store.index.cosines(caller.user, vector, missing)
        boosts = Boosts(
            prefs["search.weight_boost"], prefs["search.recency_boost"], prefs["search.recency_half_life_days"],
            self.recipe.time_boost, span,
        )  # fmt: skip
        candidates = fuse(keyword, cosine, weight)
        if filters is None:  # neighbours come from outside the filtered candidates: only when nothing is filtered
            candidates = self._spread(caller, candidates)
        fused = _contenders(candidates, start + size + 1, boosts, self.recipe.conversation_share)
        ranked = self._rank(caller, fused, boosts, explain, question, mode)
        if self.recipe.conversation_share > 0:
            ranked = _in_company(ranked, self.recipe.conversation_share)
        page = ranked[start : start + size]
        if record_access and page:
            note_access(self.store, caller.user, [h.memory.id for h in page], self.clock())
        return Results(page, start, size, len(ranked) > start + size, weight)

    def similar(
        self,
        caller: Caller,
        *,
        memory_id: str | None = None,
        text_query: str | None = None,
        min_similarity: float = 0.0,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """Memories closest in meaning to a memory (by id) or a text, by cosine similarity."""
        if (memory_id is None) == (text_query is None):
            raise ValidationFailed.single("memory_id", "invalid", "Give either memory_id or text, not both or neither.")
        size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
        floor = checks.share("min_similarity", min_similarity, low=-1.0)
        tree = visibility.within_reach(caller, parse_filter(filters))
        vector, itself = self._anchor(caller, memory_id, text_query)
        nearest = self.store.index.vector_candidates(
            caller.user, vector, filter=tree, deleted="exclude", limit=size + 1
        )
        chosen = [(i, s) for i, s in nearest if s >= floor and i != itself][:size]
        found = visibility.only_reachable(caller, self.store.memories.get_many(caller.user, [i for i, _ in chosen]))
        memories = {m.id: m for m in found}
        return [Hit(memories[i], round(s, 6)) for i, s in chosen if i in memories]

    # keyword side

    def _keyword(
        self, caller: Caller, question: str, tree: Filter | None, mode: DeletedMode, pool: int
    ) -> dict[str, float]:
        if tree is not None:
            best = self._passing(caller, tree, mode, pool, lambda n: self._keyword(caller, question, None, mode, n))
            if best is not None:
                return best
        every = text.query_terms(question)
        if mode == "exclude":  # a ranked index, where the store keeps one, weighs every term
            ranked = self.store.index.ranked_keyword_candidates(caller.user, every, limit=pool, filter=tree)
            if ranked is not None:
                return dict(ranked)
        terms, also = self._selected_terms(caller, every)
        if not terms:
            return {}
        found = self.store.index.keyword_candidates(
            caller.user, terms, filter=tree, deleted=mode, limit=pool, also=also
        )
        return dict(found)

    def _selected_terms(self, caller: Caller, terms: list[str]) -> tuple[list[str], list[str]]:
        """The terms that find memories, and those that only score them: the rarest are kept to find
        within a budget of postings (speed at scale); the rest (at most ALSO_TERMS, rarest first, none
        that most memories contain) score the memories found. The rarest term is always kept, so a
        query of common words still searches."""
        if not terms:
            return [], []
        total, counts = self.store.index.term_document_counts(caller.user, terms, cap=POSTINGS_BUDGET + 1)
        ranked = sorted((n, i) for i, n in enumerate(counts))
        ceiling = max(MAX_DF_SHARE * total, GUARD_FLOOR)
        kept: list[str] = []
        budget = 0
        for n, i in ranked:
            if kept and (n > ceiling or budget + n > POSTINGS_BUDGET):
                break
            kept.append(terms[i])
            budget += n
        if budget > ALSO_REACH:
            return kept, []
        rest = [terms[i] for n, i in ranked[len(kept) :] if n <= ceiling]
        return kept, rest[:ALSO_TERMS]

    def _spread(self, caller: Caller, candidates: list[Fused]) -> list[Fused]:
        recipe = self.recipe
        if recipe.neighbours_of <= 0 or recipe.neighbour_share <= 0 or not candidates:
            return candidates
        adjacent = self.store.index.adjacent(caller.user, expand.strongest(candidates, recipe.neighbours_of))
        return expand.spread(candidates, adjacent, recipe.neighbour_share)

    # vector side

    def _beside(
        self, caller: Caller, question: str, tree: Filter | None, mode: DeletedMode, pool: int, span: when.Span | None
    ) -> Future[tuple[bytes, dict[str, float]]]:
        """The vector side (``_semantic``) on another thread, while the keyword side runs on this one:
        both wait on native code that lets other threads run, so a search uses two cores."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(QUERY_THREADS, thread_name_prefix="vector-side")
        return self._threads.submit(self._semantic, caller, question, tree, mode, pool, span)

    def close(self) -> None:
        """Stop the threads that run the vector side of searches."""
        if self._threads is not None:
            self._threads.shutdown()

    def _semantic(
        self, caller: Caller, question: str, tree: Filter | None, mode: DeletedMode, pool: int, span: when.Span | None
    ) -> tuple[bytes, dict[str, float]]:
        """The query's vector, and the cosines of the memories nearest to it."""
        vector = _bytes(self.indexer.query_vector(question))
        chosen = dict(self.store.index.vector_candidates(caller.user, vector, filter=tree, deleted=mode, limit=pool))
        if span is not None and self.recipe.time_pool:
            chosen.update(
                self.store.index.vector_candidates(
                    caller.user, vector, filter=_within(tree, span), deleted=mode, limit=self.recipe.time_pool
                )
            )
        return vector, chosen

    def _passing(
        self, caller: Caller, tree: Filter, mode: DeletedMode, pool: int, unfiltered: Callable[[int], dict[str, float]]
    ) -> dict[str, float] | None:
        """The best ``pool`` candidates that pass ``tree`` among the ``POST_FILTER`` times as many best
        ``unfiltered`` ones (best first), when that holds them all; None: search with the filter."""
        reach = POST_FILTER * pool
        found = unfiltered(reach)
        kept = self.store.index.passing_ids(caller.user, list(found), tree, mode)
        best = best_passing(found.items(), kept, pool, len(found) < reach)
        return None if best is None else dict(best)

    def _anchor(self, caller: Caller, memory_id: str | None, text_query: str | None) -> tuple[bytes, str | None]:
        """The vector to compare with, and the memory it belongs to (left out of the results)."""
        if text_query is not None:
            return _bytes(self.indexer.query_vector(checks.query(text_query, "text"))), None
        errors: checks.Errors = []
        clean = checks.identifier(memory_id, "memory_id", errors)
        memory = visibility.reachable(caller, self.store.memories.get(caller.user, clean)) if clean else None
        if memory is None:
            raise visibility.unknown(str(memory_id))
        stored = self.store.index.get_vector(caller.user, memory.id)
        if stored is None:
            stored = _bytes(self.indexer.query_vector(text.vector_text(memory.title, memory.content)))
        return stored, memory.id

    # ranking

    def _rank(
        self, caller: Caller, fused: list[Fused], boosts: Boosts, explain: bool, question: str, mode: DeletedMode
    ) -> list[Hit]:
        found = visibility.only_reachable(
            caller, self.store.memories.get_many(caller.user, [f.memory_id for f in fused])
        )
        memories = {m.id: m for m in found}
        now = self.clock()
        hits = []
        for f in fused:
            memory = memories.get(f.memory_id)
            if memory is None or (mode != "include" and memory.is_deleted != (mode == "only")):
                continue
            w, r = boosts.weight_part(memory.weight), boosts.recency_part(memory.occurred_at, now)
            t = boosts.time_part(memory.occurred_at)
            score = f.fused + w + r + t
            why = _why(f, (w, r, t), memory, question) if explain else None
            hits.append(Hit(memory, round(score, 6), why))
        hits.sort(key=lambda h: (-h.score, h.memory.id))
        return hits


def _contenders(fused: list[Fused], needed: int, boosts: Boosts, company: float = 0.0) -> list[Fused]:
    """The candidates that can still reach the first ``needed`` places once boosts are added.

    Boosts are bounded, so a candidate whose fused score trails the needed-th best by
    more than the widest possible boost difference (and the largest lift its conversation
    can give, ``company`` of the best score there is) can never overtake it: it is not
    fetched. This drops no result; it only saves reading memories that cannot rank.
    """
    if len(fused) <= needed:
        return fused
    ordered = sorted(fused, key=lambda f: -f.fused)
    lift = company * max(0.0, ordered[0].fused + boosts.widest)
    floor = ordered[needed - 1].fused - boosts.widest - lift
    return [f for f in ordered if f.fused >= floor]


def _in_company(hits: list[Hit], share: float) -> list[Hit]:
    """The hits re-ranked with each lifted by ``share`` of the best other hit of its conversation."""
    lifts = expand.together([(conversation_of(h.memory), h.memory.occurred_at, h.score) for h in hits], share)
    lifted = []
    for hit, lift in zip(hits, lifts, strict=True):
        why = None if hit.why is None else {**hit.why, "conversation_boost": round(lift, 6)}
        lifted.append(Hit(hit.memory, round(hit.score + lift, 6), why))
    lifted.sort(key=lambda h: (-h.score, h.memory.id))
    return lifted


def _within(tree: Filter | None, span: when.Span) -> Filter | None:
    """``tree``, and only memories that happened within ``span``."""
    window = {"occurred_at": {"gte": span[0].isoformat(), "lte": span[1].isoformat()}}
    return conjoin(tree, parse_filter(window))


def _bytes(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def _why(f: Fused, boosts: tuple[float, float, float], memory: Memory, question: str) -> dict[str, Any]:
    weight, recency, time = boosts
    haystack = f"{memory.title or ''} {memory.content} {' '.join(memory.tags)}".lower()
    return {
        "keyword": round(f.keyword, 6),
        "semantic": round(f.semantic, 6),
        "cosine": None if f.cosine is None else round(f.cosine, 6),
        "fused": round(f.fused, 6),
        "weight_boost": round(weight, 6),
        "recency_boost": round(recency, 6),
        "time_boost": round(time, 6),
        "matched_terms": [t for t in text.query_terms(question) if t in haystack],
    }
