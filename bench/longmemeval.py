"""Retrieval on a dev fifth of LongMemEval_S (../shared/bench/longmemeval-s-dev.jsonl.gz), as its README says.

Each question is its own user: its haystack (~50 sessions, ~500 turns) is stored
one turn a memory ("<role>: <content>"), dated with its session's date and
carrying its session id as ``context.conversation_id`` (or, measured as well,
none: a client that passes no ids). The question is searched with its text
through ``remember_search_memory`` (an MCP client session, bench/mcp_session.py),
by the default search and by today's constant blend (``alpha`` 0.3) side by side.
Turn-level recall@k: the share of the turns marked ``has_answer`` in the top k;
session-level hit@k: any turn of an answer session in the top k; session
recall@k: the share of the answer sessions the top k come from. Abstention
questions (``_abs``) are skipped, and so are the few with no turn marked
``has_answer`` (their turn recall is undefined). Anything fitted is reported on
the half of the questions it was not fitted on (by question id hash).
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from itertools import zip_longest
from pathlib import Path
from typing import Any

from bench.report import Table
from bench.retrieval import DEPTH, Scored, comparison, figures, hash_fold, paired, session_figures, summarise
from remember.caller import Caller

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "longmemeval-s-dev.jsonl.gz"
SLICES = (
    "overall", "single-session-user", "single-session-assistant", "single-session-preference",
    "multi-session", "knowledge-update", "temporal-reasoning",
)  # fmt: skip


def when(text: str) -> datetime:
    """``2023/05/20 (Sat) 02:21`` as a UTC moment."""
    day, _, rest = text.partition(" (")
    return datetime.strptime(day + rest.partition(")")[2], "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The scored questions, the question types taking turns (so that any first n are a fair sample)."""
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in f]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not row["question_id"].endswith("_abs") and _answer_turns(row):
            by_type.setdefault(row["question_type"], []).append(row)
    return [q for group in zip_longest(*by_type.values()) for q in group if q is not None]


def _answer_turns(question: dict[str, Any]) -> int:
    return sum(1 for s in question["haystack_sessions"] for t in s if t.get("has_answer"))


def memories(question: dict[str, Any], *, with_ids: bool = True) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(turn key, session id, memory fields) of every turn of the question's haystack, in order."""
    for session_id, date, session in zip(
        question["haystack_session_ids"], question["haystack_dates"], question["haystack_sessions"], strict=True
    ):
        moment = when(date).isoformat()
        for n, turn in enumerate(session):
            context = {"conversation_id": session_id, "timestamp": moment} if with_ids else {"timestamp": moment}
            key = f"{session_id}#{n}" if turn.get("has_answer") else f"{session_id}#{n}-"
            yield key, session_id, {"content": f"{turn['role']}: {turn['content']}", "context": context}


Search = Callable[[str, dict[str, Any]], list[str]]  # (user, question) -> memory ids, best first


def score_question(search: Search, question: dict[str, Any], ids: dict[str, tuple[str, str]]) -> Scored:
    ranked = search(question["question_id"], question)
    keys = [ids[i][0] if i in ids else "" for i in ranked]
    evidence = {key for key, _ in ids.values() if not key.endswith("-")}
    sessions = {i: ids[i][1] for i in ranked if i in ids}
    found = figures(keys, evidence) | session_figures(ranked, sessions, set(question["answer_session_ids"]))
    return Scored(question["question_id"], question["question_type"], hash_fold(question["question_id"]), found)


def ingest(services: Any, question: dict[str, Any], *, with_ids: bool = True) -> dict[str, tuple[str, str]]:
    """Store one question's haystack as its own user; memory id -> (turn key, session id)."""
    rows = list(memories(question, with_ids=with_ids))
    made = []
    for start in range(0, len(rows), 1_000):
        made += services.memories.create_many(
            Caller(question["question_id"]), [f for _, _, f in rows[start : start + 1_000]]
        )
    return {m.id: (key, session) for (key, session, _), m in zip(rows, made, strict=True)}


def evaluate(
    questions: list[dict[str, Any]],
    searches: Mapping[str, Callable[[Any], Search]] | None = None,
    *,
    with_ids: bool = True,
    through_tool: Mapping[str, dict[str, Any]] | None = None,
    embedder: Any = None,
) -> dict[str, list[Scored]]:
    """Every named search over every question: ``searches`` build a search from the services;
    ``through_tool`` name the arguments of a ``remember_search_memory`` call (besides the query);
    ``embedder``: MiniLM (its vectors cached) unless another is given."""
    from bench.embedcache import cached_minilm
    from bench.mcp_session import tool_search
    from remember.service import Services
    from remember.store import open_store

    builders, tool_runs = searches or {}, through_tool or {}
    out: dict[str, list[Scored]] = {name: [] for name in [*builders, *tool_runs]}
    with tempfile.TemporaryDirectory() as tmp:
        services = Services.over(open_store(str(Path(tmp) / "lme.db")), embedder=embedder or cached_minilm())
        with tool_search(services) as tools:
            for question in questions:
                ids = ingest(services, question, with_ids=with_ids)
                for name, make in builders.items():
                    out[name].append(score_question(make(services), question, ids))
                for name, arguments in tool_runs.items():
                    out[name].append(score_question(tool_search_of(services, tools, arguments), question, ids))
        services.close()
    return out


def tool_search_of(services: Any, tools: Any, arguments: dict[str, Any]) -> Search:
    """The search a client makes: ``remember_search_memory`` with ``arguments``, asked at the question's date."""

    def search(user: str, question: dict[str, Any]) -> list[str]:
        asked = when(question["question_date"])
        services.search.clock = lambda: asked
        found: list[str] = tools.search(user, question["question"], limit=DEPTH, **arguments)
        return found

    return search


def default_search(services: Any, **options: Any) -> Search:
    def search(user: str, question: dict[str, Any]) -> list[str]:
        asked = when(question["question_date"])
        services.search.clock = lambda: asked
        found = services.search.search(Caller(user), question["question"], limit=DEPTH, record_access=False, **options)
        return [h.memory.id for h in found.hits]

    return search


def table(title: str, runs: dict[str, list[Scored]]) -> Table:
    out = Table(title, ["run", "slice", "n", "recall@5", "recall@10", "recall@20", "MRR", "s-recall@5",
                        "s-recall@10", "s-hit@5"])  # fmt: skip
    for name, rows in runs.items():
        means = summarise(rows)
        for part in SLICES:
            if part in means:
                s = means[part]
                out.add(name, part, s["n"], s["recall@5"], s["recall@10"], s["recall@20"], s["mrr"],
                        s["session_recall@5"], s["session_recall@10"], s["session_hit@5"])  # fmt: skip
    return out


METRICS = ("recall@5", "recall@10", "session_recall@5", "session_recall@10")
BEFORE = {"alpha": 0.3}  # the default search until the fusion chose alpha per search: a constant blend


def run(quick: bool = False, data_path: Path = DATA) -> dict[str, Any]:
    questions = load(data_path)
    if quick:
        questions = questions[:5]
    tool = {"default": {}, "alpha 0.3": BEFORE}
    runs: dict[str, list[Scored]] = {}
    for with_ids, label in ((True, "ids"), (False, "no ids")):
        found = evaluate(questions, with_ids=with_ids, through_tool=tool)
        runs |= {f"MCP, {label}, {name}": rows for name, rows in found.items()}
    table(f"LongMemEval_S dev retrieval ({len(questions)} questions, through remember_search_memory)", runs).print()
    pairs = {f"{label}: default - alpha 0.3": (runs[f"MCP, {label}, alpha 0.3"], runs[f"MCP, {label}, default"])
             for label in ("ids", "no ids")}  # fmt: skip
    comparison(
        "LongMemEval: the default against alpha 0.3, per question (95% interval)", pairs, SLICES, METRICS
    ).print()
    print("targets: turn recall@5 >= 0.70 and session recall@5 >= 0.85 (dev), with and without ids")
    return {
        "scores": {name: summarise(rows) for name, rows in runs.items()},
        "paired": {name: {m: paired(*pair, m) for m in METRICS} for name, pair in pairs.items()},
    }
