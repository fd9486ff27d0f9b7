"""Search use-cases: hybrid keyword + vector search, find-similar, and question context.

A search follows its plan (``search/plan.py``: which sides run, by which route, how a
filter applies), runs the vector side on another thread beside the keyword side,
fuses the two (by the ``alpha`` given, or, without one, as the candidates call for:
``search/fusion.py``), leaves out what matches nothing (no keyword, a cosine below
``min_score``) and adds the boosts; without an ``alpha`` it also spreads the first
places over conversations (``search/spread.py``). With ``explain`` it returns the
plan, what each side ran, and each hit's keyword, vector and fused scores.
docs/search.md says how ranking works and how to set it.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from remember import preferences as known
from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import ValidationFailed
from remember.filters import Filter, best_passing, conjoin, parse_filter
from remember.jsontypes import JsonObject
from remember.models import DeletedMode, Memory, conversation_of
from remember.search import spread, text
from remember.search.fusion import Boosts, Fused, above_floor, fuse, fuse_by_shape
from remember.search.plan import POSTINGS_BUDGET, SearchPlan, Terms, plan_search, select_terms
from remember.search.shared import Shared
from remember.service import checks, conflicts, validity, visibility
from remember.service.access_counts import note_access
from remember.service.indexer import Indexer
from remember.service.preferences import PreferenceService
from remember.store import Store
from remember.store.sides import POST_FILTER, VectorSide

MAX_LIMIT = 100
MAX_OFFSET = 1_000
QUERY_THREADS = 4  # queries embedded at once (searches of several clients over HTTP)
NEWER_FIRST = 20  # the first places among which the newer of two memories that disagree ranks first
LANGUAGE_SAMPLE = 400  # characters of a memory its language is told from


@dataclass(frozen=True)
class Hit:
    memory: Memory
    score: float
    why: dict[str, Any] | None = None


@dataclass(frozen=True)
class Ranked:
    """A search's candidates ranked, the alpha the fusion used, the plan and what each side ran."""

    hits: list[Hit]
    alpha: float
    plan: SearchPlan
    ran: dict[str, Any]


@dataclass(frozen=True)
class Results:
    hits: list[Hit]
    offset: int
    limit: int
    has_more: bool
    alpha: float  # the one given, or the one the candidates called for
    plan: dict[str, Any] | None = None  # with explain: the plan, and what each side ran


class SearchService:
    def __init__(self, store: Store, preferences: PreferenceService, indexer: Indexer, clock: Clock = utc_now) -> None:
        self.store = store
        self.preferences = preferences
        self.indexer = indexer
        self.clock = clock
        self._threads: ThreadPoolExecutor | None = None

    def search(
        self,
        caller: Caller,
        query: str,
        *,
        alpha: float | None = None,
        filters: JsonObject | None = None,
        limit: int | None = None,
        offset: int = 0,
        deleted: str = "exclude",
        explain: bool = False,
        record_access: bool = True,
        min_score: float | None = None,
        when: validity.When = validity.CURRENT,
        shared: Shared | None = None,
    ) -> Results:
        """The user's memories that best match ``query``, best first: those holding a term of it, and
        those whose cosine with it is at least ``min_score`` (``search.min_score`` when None); of them,
        those ``when`` says (by default the current ones; with ``as_of``, each with its values then).
        ``shared``: what a search of several owners found for them all (``search/shared.py``)."""
        prefs = self.preferences.effective(caller)
        question = checks.query(query, "query")
        weight = alpha_of(prefs, alpha)
        floor = min_score_of(prefs, min_score)
        size = checks.whole_number("limit", prefs["search.default_limit"] if limit is None else limit, 1, MAX_LIMIT)
        start = checks.whole_number("offset", offset, 0, MAX_OFFSET)
        given, mode, now = parse_filter(filters), checks.deleted_mode(deleted), self.clock()
        current = validity.condition(self.store, caller.user, when, now, given)
        # "Current only", the default, is checked on the ranked candidates first (most memories are current:
        # neither side widens its pool or filters), and goes into the search when it left too few.
        later = current is not None and when == validity.CURRENT
        found = self._ranked(caller, question, weight, floor, (start, size), None if later else current, given,
                             mode, explain, shared)  # fmt: skip
        if later:
            kept = [h for h in found.hits if h.memory.valid_until is None or h.memory.valid_until > now]
            if len(kept) < len(found.hits) and len(kept) <= start + size:
                found = self._ranked(caller, question, weight, floor, (start, size), current, given, mode, explain,
                                     shared)  # fmt: skip
            else:
                found = replace(found, hits=kept)
        plan, ran, used, ranked = found.plan, found.ran, found.alpha, found.hits
        spreads = weight is None
        if spreads:
            ranked = _spread(ranked)
        if spreads and when.as_of is None:  # an alpha given ranks by score alone
            ranked = self._newer_first(caller, ranked)
        page = _seen_as(self.store, caller, ranked[start : start + size], when)
        if record_access and page:
            note_access(self.store, caller.user, [h.memory.id for h in page], self.clock())
        explained = plan.explained(ran, round(used, 6)) if explain else None
        return Results(page, start, size, len(ranked) > start + size, round(used, 6), explained)

    def similar(
        self,
        caller: Caller,
        *,
        memory_id: str | None = None,
        text_query: str | None = None,
        min_similarity: float = 0.0,
        limit: int = 10,
        filters: JsonObject | None = None,
        when: validity.When = validity.CURRENT,
        shared: Shared | None = None,
    ) -> list[Hit]:
        """Memories closest in meaning to a memory (by id) or a text, by cosine similarity; of them, those
        ``when`` says (by default the current ones). ``shared``: the text's vector, made once for several
        owners."""
        if (memory_id is None) == (text_query is None):
            raise ValidationFailed.single("memory_id", "invalid", "Give either memory_id or text, not both or neither.")
        size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
        floor = checks.share("min_similarity", min_similarity, low=-1.0)
        given = parse_filter(filters)
        current = validity.condition(self.store, caller.user, when, self.clock(), given)
        tree = visibility.within_reach(caller, conjoin(given, current))
        vector, itself = self._anchor(caller, memory_id, text_query, shared)
        nearest = self.store.index.vector_candidates(
            caller.user, vector, filter=tree, deleted="exclude", limit=size + 1
        )
        side = self.indexer.scale.queries if text_query is not None else self.indexer.scale.passages
        own = floor if floor <= -1.0 else side.own(floor)
        chosen = [(i, s) for i, s in nearest if s >= own and i != itself][:size]
        found = visibility.only_reachable(caller, self.store.memories.get_many(caller.user, [i for i, _ in chosen]))
        memories = {m.id: m for m in validity.seen_as(self.store, caller, found, when)}
        return [Hit(memories[i], round(s, 6)) for i, s in chosen if i in memories]

    def _ranked(
        self, caller: Caller, question: str, weight: float | None, floor: float, page: tuple[int, int],
        current: Filter | None, given: Filter | None, mode: DeletedMode, explain: bool, shared: Shared | None = None,
    ) -> Ranked:  # fmt: skip
        """The candidates of both sides fused and ranked, before the first places are spread."""
        start, size = page
        tree = visibility.within_reach(caller, conjoin(given, current))
        plan = plan_search(
            alpha=weight, pool=start + size + 1, filtered=tree is not None, deleted=mode,
            capabilities=self.store.index.capabilities(caller.user),
        )  # fmt: skip
        ran: dict[str, Any] = {}
        semantic = self._beside(caller, question, tree, plan, shared) if plan.vector else None
        keyword = self._keyword(caller, question, tree, plan, ran, shared) if plan.keyword else {}
        lengths = self.store.index.text_lengths(caller.user, list(keyword)) if weight is None else {}
        cosine: dict[str, float] = {}
        if semantic is not None:
            vector, cosine, ran["vector"] = semantic.result()
            missing = [i for i in keyword if i not in cosine]
            if missing:  # the cosine of every keyword candidate too, for fusion
                cosine |= self.store.index.cosines(caller.user, vector, missing)
        prefs = self.preferences.effective(caller)
        boosts = Boosts(
            known.number(prefs, "search.weight_boost"),
            known.number(prefs, "search.recency_boost"),
            known.number(prefs, "search.recency_half_life_days"),
        )
        apart = self._apart(caller, question, [*keyword, *cosine], ran) if cosine else frozenset()
        used, matching = _matching(keyword, cosine, weight, lengths, own_floor(self.indexer, floor), ran, apart)
        reaches = [(start + size + 1, boosts.widest)]
        if weight is None:  # and every hit that can take a first place, whatever the page
            reaches.append((spread.FIRST_PLACES, boosts.widest + spread.widest()))
        fused = _contenders(matching, reaches)
        return Ranked(self._rank(caller, fused, boosts, explain, question, mode), used, plan, ran)

    def _newer_first(self, caller: Caller, ranked: list[Hit]) -> list[Hit]:
        """``ranked`` with the newer of two current memories that disagree (service/conflicts.py) moved just
        above the older, among the first ``NEWER_FIRST``."""
        top = ranked[:NEWER_FIRST]
        if len(top) < 2:
            return ranked
        vectors = self.store.index.get_vectors(caller.user, [h.memory.id for h in top])
        least = self.indexer.scale.passages.own(conflicts.COSINE)  # two stored texts: the embedder's own cosine
        order = conflicts.newer_first([(h.memory, vectors.get(h.memory.id)) for h in top], least)
        return [top[i] for i in order] + ranked[NEWER_FIRST:]

    # keyword side

    def _keyword(
        self, caller: Caller, question: str, tree: Filter | None, plan: SearchPlan, ran: dict[str, Any],
        shared: Shared | None = None,
    ) -> dict[str, float]:  # fmt: skip
        """The keyword side by the plan's route; a filter checked on the unfiltered best first."""
        side: dict[str, Any] = {}
        ran["keyword"] = side
        if tree is not None:
            reach = POST_FILTER * plan.pool
            found = self._keyword_route(caller, question, None, plan, reach, side, shared)
            kept = self.store.index.passing_ids(caller.user, list(found), tree, plan.deleted)
            best = best_passing(found.items(), kept, plan.pool, len(found) < reach)
            if best is not None:
                among = "every match" if len(found) < reach else f"the best {reach}"
                side["filter"] = f"checked on {among}: {len(best)} passed"
                return dict(best)
            side["filter"] = f"checked on the best {reach}: too few passed, so in the search"
        return self._keyword_route(caller, question, tree, plan, plan.pool, side, shared)

    def _keyword_route(
        self, caller: Caller, question: str, tree: Filter | None, plan: SearchPlan, pool: int, side: dict[str, Any],
        shared: Shared | None = None,
    ) -> dict[str, float]:  # fmt: skip
        every = text.query_terms(question)
        if plan.keyword == "ranked index":  # every term weighed, no budget
            ranked = self.store.index.ranked_keyword_candidates(caller.user, every, limit=pool, filter=tree)
            if ranked is not None:
                side["ran"] = "ranked index"
                return dict(ranked)
            side["ran"] = "full text (the ranked index could not answer)"
        else:
            side["ran"] = "full text"
        terms = self.full_text_terms(caller.user, every)
        side["terms"] = {"find": terms.find, "score": terms.score, "left_out": terms.left_out}
        if not terms.find:
            return {}
        found = None if shared is None or tree is not None else shared.keyword(caller.user, terms, plan.deleted, pool)
        if found is None:
            found = self.store.index.keyword_candidates(
                caller.user, terms.find, filter=tree, deleted=plan.deleted, limit=pool, also=terms.score
            )
        return dict(found)

    def full_text_terms(self, owner: str, every: list[str]) -> Terms:
        """The terms of a question (``every``) that the full-text route searches an owner's memories by."""
        total, counts = self.store.index.term_document_counts(owner, every, cap=POSTINGS_BUDGET + 1)
        return select_terms(every, total, counts)

    def _apart(self, caller: Caller, question: str, ids: list[str], ran: dict[str, Any]) -> frozenset[str]:
        """The candidates written in another language than the question (``fusion``), where the embedder's
        vectors cross languages and both languages are known; none otherwise."""
        if not self.indexer.crosses_languages:
            return frozenset()
        from remember.search.languages import DETECTOR

        asked = DETECTOR.language(question)
        if asked is None:
            return frozenset()
        found = self.store.memories.get_many(caller.user, list(dict.fromkeys(ids)))
        written = {m.id: DETECTOR.language(m.content[:LANGUAGE_SAMPLE]) for m in found}
        apart = frozenset(i for i, language in written.items() if language is not None and language != asked)
        ran.setdefault("vector", {})["languages"] = (
            f"question in {asked}; {len(apart)} candidates in another language fused by meaning alone"
        )
        return apart

    # vector side

    def _beside(
        self, caller: Caller, question: str, tree: Filter | None, plan: SearchPlan, shared: Shared | None = None
    ) -> Future[tuple[bytes, dict[str, float], dict[str, Any]]]:
        """The vector side (``_semantic``) on another thread, while the keyword side runs on this one:
        both wait on native code that lets other threads run, so a search uses two cores."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(QUERY_THREADS, thread_name_prefix="vector-side")
        return self._threads.submit(self._semantic, caller, question, tree, plan, shared)

    def close(self) -> None:
        """Stop the threads that run the vector side of searches."""
        if self._threads is not None:
            self._threads.shutdown()

    def _semantic(
        self, caller: Caller, question: str, tree: Filter | None, plan: SearchPlan, shared: Shared | None = None
    ) -> tuple[bytes, dict[str, float], dict[str, Any]]:
        """The query's vector, the cosines of the memories nearest to it, and how they were found."""
        vector = shared.vector if shared is not None and shared.vector is not None else self.query_bytes(question)
        assert plan.vector is not None
        side = VectorSide(plan.vector, vector, tree, plan.deleted, plan.pool)
        answer = self.store.index.vector_side(caller.user, side)
        return vector, dict(answer.hits), {"ran": answer.ran}

    def query_bytes(self, question: str) -> bytes:
        """The question's vector as the vector side searches with it."""
        return _bytes(self.indexer.query_vector(question))

    def _anchor(
        self, caller: Caller, memory_id: str | None, text_query: str | None, shared: Shared | None = None
    ) -> tuple[bytes, str | None]:
        """The vector to compare with, and the memory it belongs to (left out of the results)."""
        if text_query is not None:
            question = checks.query(text_query, "text")
            given = shared.vector if shared is not None else None
            return (given if given is not None else self.query_bytes(question)), None
        errors: checks.Errors = []
        clean = checks.identifier(memory_id, "memory_id", errors)
        memory = visibility.reachable(caller, self.store.memories.get(caller.user, clean)) if clean else None
        if memory is None:
            raise visibility.unknown(str(memory_id))
        stored = self.store.index.get_vector(caller.user, memory.id)
        if stored is None:
            stored = _bytes(self.indexer.passage_vector(text.vector_text(memory.title, memory.content)))
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
            why = _why(f, (w, r), memory, question) if explain else None
            hits.append(Hit(memory, round(f.fused + w + r, 6), why))
        hits.sort(key=lambda h: (-h.score, h.memory.id))
        return hits


def alpha_of(prefs: dict[str, Any], alpha: float | None) -> float | None:
    """The ``alpha`` of a search: the one asked for, else the user's ``search.default_alpha``; checked.
    None (``auto``, the default): chosen by the fusion from the search's candidates."""
    chosen = known.number_or_auto(prefs, "search.default_alpha") if alpha is None else alpha
    return None if chosen is None else checks.share("alpha", chosen)


def min_score_of(prefs: dict[str, Any], min_score: float | None) -> float:
    """The floor of a search: the one asked for, else the user's ``search.min_score``; checked."""
    return checks.share("min_score", prefs["search.min_score"] if min_score is None else min_score, low=-1.0)


def own_floor(indexer: Indexer, floor: float) -> float:
    """A search floor given on the common scale, as the embedder's own query cosine (-1 stays -1: every one)."""
    return floor if floor <= -1.0 else float(indexer.scale.queries.own(floor))


def _matching(
    keyword: dict[str, float], cosine: dict[str, float], alpha: float | None, lengths: dict[str, int],
    floor: float, ran: dict[str, Any], apart: frozenset[str] = frozenset(),
) -> tuple[float, list[Fused]]:  # fmt: skip
    """The alpha used and the candidates fused by it, those that match nothing left out (counted in what
    the vector side ran)."""
    used, candidates = (
        (alpha, fuse(keyword, cosine, alpha, apart))
        if alpha is not None
        else fuse_by_shape(keyword, cosine, lengths, apart)
    )
    matching = above_floor(candidates, floor)
    if "vector" in ran:
        left_out = len(candidates) - len(matching)
        ran["vector"]["floor"] = f"{left_out} found by meaning alone left out, their cosine below {floor:g}"
    return used, matching


def _contenders(fused: list[Fused], reaches: list[tuple[int, float]]) -> list[Fused]:
    """The candidates that can still reach the first places once ranked: for each (``places``,
    ``reach``), those within ``reach`` of the ``places``-th best fused score.

    Boosts are bounded, and so is what a hit gives way by when the first places are
    spread, so a candidate whose fused score trails the needed-th best by more than the
    widest difference the two can make can never overtake it: it is not fetched. This
    drops no result; it only saves reading memories that cannot rank.
    """
    if len(fused) <= max(places for places, _ in reaches):
        return fused
    ordered = sorted(fused, key=lambda f: -f.fused)
    floor = min(ordered[places - 1].fused - reach for places, reach in reaches)
    return [f for f in ordered if f.fused >= floor]


def _spread(ranked: list[Hit]) -> list[Hit]:
    """``ranked`` with its first places spread over conversations (``search/spread.py``); an explained
    hit says what it gave way by."""
    placed = [spread.Placed(h.score, conversation_of(h.memory), h.memory.occurred_at) for h in ranked]
    order, gave = spread.spread(placed)
    return [_gave_way(ranked[i], gave[i]) for i in order]


def _seen_as(store: Store, caller: Caller, hits: list[Hit], when: validity.When) -> list[Hit]:
    """The page's memories as ``when`` sees them (with an ``as_of``, their values then)."""
    if when.as_of is None:
        return hits
    seen = validity.seen_as(store, caller, [h.memory for h in hits], when)
    return [replace(h, memory=m) for h, m in zip(hits, seen, strict=True)]


def _gave_way(hit: Hit, amount: float) -> Hit:
    return replace(hit, why={**hit.why, "gave_way": round(amount, 6)}) if hit.why is not None else hit


def _bytes(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def _why(f: Fused, boosts: tuple[float, float], memory: Memory, question: str) -> dict[str, Any]:
    weight, recency = boosts
    haystack = f"{memory.title or ''} {memory.content} {' '.join(memory.tags)}".lower()
    return {
        "keyword": round(f.keyword, 6),
        "semantic": round(f.semantic, 6),
        "long_text": round(f.long_text, 6),
        "cosine": None if f.cosine is None else round(f.cosine, 6),
        "fused": round(f.fused, 6),
        "weight_boost": round(weight, 6),
        "recency_boost": round(recency, 6),
        "matched_terms": [t for t in text.query_terms(question) if t in haystack],
    }
