"""`remember search`, `similar`, `context` and `reindex`: each command's grammar and what it does."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from remember.cli import files, output
from remember.cli.grammar import Commands, runs
from remember.cli.indexing import build_search_indexes
from remember.cli.when import when_of, when_options
from remember.errors import ValidationFailed
from remember.nouns import counted

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services
    from remember.service.search import Hit


SPACES_HELP = "read this space (name, key or personal; repeatable; default: all yours)"
MIN_SCORE_HELP = "leave out what no keyword matched and is less similar (cosine, -1 to 1; default: search.min_score)"


def register(commands: Commands) -> None:
    for declare in (_search, _similar, _context, _reindex):
        declare(commands)


def _search(commands: Commands) -> None:
    sub = commands.add_parser("search", help="find memories by meaning and keywords", description="Search memories.")
    sub.add_argument("query", metavar="QUERY", help="what to look for")
    sub.add_argument(
        "--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default: chosen for each search)"
    )
    sub.add_argument("--filter", metavar="JSON", help='a filter, e.g. \'{"structured_content.rating": {"gte": 4}}\'')
    sub.add_argument("--limit", type=int, help="how many results, 1-100 (default 10)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")
    sub.add_argument("--deleted", choices=["exclude", "include", "only"], default="exclude", help="deleted ones")
    sub.add_argument("--min-score", type=float, help=MIN_SCORE_HELP)
    sub.add_argument(
        "--explain", action="store_true", help="show the search's plan (routes, filter, terms) and each score's parts"
    )
    sub.add_argument("--space", action="append", dest="spaces", metavar="SPACE", help=SPACES_HELP)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    when_options(sub)
    runs(sub, search)


def search(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service import space_reads

    filters = files.json_arg(args.filter, "--filter")
    results = space_reads.search(
        services.search, services.spaces.reading(caller, args.spaces), args.query, alpha=args.alpha, filters=filters,
        limit=args.limit, offset=args.offset, deleted=args.deleted, explain=args.explain, min_score=args.min_score,
        when=when_of(args),
    )  # fmt: skip
    if args.json:
        answer = {
            "results": [{"memory": output.public(h.memory), "score": h.score, "why": h.why} for h in results.hits],
            "has_more": results.has_more,
            "alpha": results.alpha,
        }
        output.emit(answer if results.plan is None else answer | {"plan": results.plan})
        return
    if results.plan is not None:
        _print_plan(results.plan)
    _print_hits(results.hits, output.space_names(services.spaces.name_of, [h.memory for h in results.hits]))
    if results.has_more:
        print(f"-- more: --offset {results.offset + len(results.hits)}")


def _similar(commands: Commands) -> None:
    sub = commands.add_parser(
        "similar", help="find memories like one memory or a text", description="Find similar memories."
    )
    sub.add_argument(
        "memory_id",
        nargs="?",
        metavar="ID",
        help="the memory to compare with (an id or its first characters; or --text)",
    )
    sub.add_argument("--text", help="a text to compare with instead")
    sub.add_argument("--min", type=float, default=0.0, dest="min_similarity", help="lowest similarity, -1 to 1")
    sub.add_argument("--limit", type=int, default=10, help="how many, 1-100 (default 10)")
    sub.add_argument("--space", action="append", dest="spaces", metavar="SPACE", help=SPACES_HELP + "; with --text")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    when_options(sub, everything=False)
    runs(sub, similar)


def similar(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """Like a memory (in its space), or like a text (in every space read)."""
    from remember.service import space_reads

    if (args.memory_id is None) == (args.text is None):
        raise ValidationFailed.single("memory_id", "invalid", "Give a memory's ID or --text TEXT, not both.")
    callers, memory_id = spaces_read(services, caller, args, "A memory's ID searches its own space: drop --space.")
    hits = space_reads.similar(
        services.search, callers, memory_id=memory_id, text_query=args.text, min_similarity=args.min_similarity,
        limit=args.limit, when=when_of(args),
    )  # fmt: skip
    if args.json:
        output.emit({"results": [{"memory": output.public(h.memory), "score": h.score} for h in hits]})
    else:
        _print_hits(hits, output.space_names(services.spaces.name_of, [h.memory for h in hits]))


def _context(commands: Commands) -> None:
    sub = commands.add_parser(
        "context",
        help="the memories that answer a question, packed for a model",
        description="Gather the memories that answer a question into one context with numbered sources.",
    )
    sub.add_argument("question", metavar="QUESTION", help="the question ('-' reads standard input)")
    sub.add_argument(
        "--token-budget", type=int, default=2000, help="most tokens of memory text, 100-32000 (default 2000)"
    )
    sub.add_argument(
        "--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default: chosen for each search)"
    )
    sub.add_argument("--filter", metavar="JSON", help="a filter, as for search")
    sub.add_argument("--min-score", type=float, help=MIN_SCORE_HELP)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    when_options(sub, everything=False)
    sub.add_argument("--space", action="append", dest="spaces", metavar="SPACE", help=SPACES_HELP)
    runs(sub, context)


def context(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.question_context import question_context

    question = files.text_arg(args.question)
    filters = files.json_arg(args.filter, "--filter")
    packed = question_context(
        services.search, caller, question, templates=services.templates, token_budget=args.token_budget,
        alpha=args.alpha, filters=filters, min_score=args.min_score, when=when_of(args),
        readers=services.spaces.reading(caller, args.spaces),
    )  # fmt: skip
    if args.json:
        output.emit(
            {"question": question, "context": packed.text, "tokens": packed.tokens,
             "sources": [s.__dict__ for s in packed.sources]}
        )  # fmt: skip
    elif packed.sources:
        print(packed.text)
    else:
        print("No memories found.")


def _reindex(commands: Commands) -> None:
    redo = "Re-embed and re-index every memory of every user, with the configured embedder."
    sub = commands.add_parser("reindex", help="rebuild the search index (new embedder)", description=redo)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, reindex)


def reindex(services: Services, _caller: Caller, args: argparse.Namespace) -> None:
    """Every user's memories: the index is one per database."""
    from remember.service.reindex import reindex as rebuild

    def progress(done: int, total: int) -> None:
        share = done / total if total else 1.0
        bar = "#" * int(share * 30)
        output.progress(f"reindexing [{bar:<30}] {done}/{total}")

    count = rebuild(services.store, services.indexer, services.templates, None if args.json else progress)
    if not args.json:
        output.progress_done()
    build_search_indexes(services, services.store.transfer.user_ids(), quiet=args.json)
    if args.json:
        output.emit({"reindexed": count})
    else:
        print(f"Reindexed {counted(count, 'memory')}.")


def _print_plan(plan: dict[str, Any]) -> None:
    """The plan, a line per side, before the hits (stdout: it is the answer asked for)."""
    indexed = counted(plan["indexed_memories"], "memory")
    print(f"plan: alpha {plan['alpha']}, {counted(plan['pool'], 'candidate')} a side, {indexed} indexed")
    for side in ("keyword", "vector"):
        parts = {k: v for k, v in plan[side].items() if k != "route"}
        details = "; ".join(f"{k}: {json.dumps(v) if not isinstance(v, str) else v}" for k, v in parts.items())
        print(f"  {side}: {plan[side]['route']}" + (f" ({details})" if details else ""))
    print("why: keyword and vector (semantic) scores are each side's normalised 0..1; fused = their alpha mix")


def _print_hits(hits: list[Hit], spaces: Mapping[str, str]) -> None:
    """A line per hit; with the name of its space when some are of a shared space (``spaces``: names by key)."""
    for h in hits:
        text = (h.memory.title or h.memory.content).replace("\n", " ")
        snippet = text if len(text) <= output.SNIPPET else text[: output.SNIPPET - 1] + "…"
        where = f"[{output.space_of(h.memory, spaces)}]  " if spaces else ""
        print(f"{h.score:6.3f}  {h.memory.id}  {h.memory.occurred_at.date().isoformat()}  {where}{snippet}")
        if h.why:
            print(f"        {json.dumps(h.why)}")
    if not hits:
        print("No memories found.")


def spaces_read(
    services: Services, caller: Caller, args: argparse.Namespace, with_memory: str
) -> tuple[list[Caller], str | None]:
    """Where a read goes: the space of ``args.memory_id`` (its whole id found from what was given; ``--space``
    then refused with ``with_memory``), else every space ``--space`` names (default: all of the caller's)."""
    if args.memory_id is None:
        return services.spaces.reading(caller, args.spaces), None
    if args.spaces:
        raise ValidationFailed.single("--space", "invalid", with_memory)
    acting = services.spaces.on_memory(caller, args.memory_id)
    return [acting], services.ids.memory(acting, args.memory_id)
