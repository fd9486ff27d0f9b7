"""What `remember search`, `similar`, `context` and `reindex` do."""

from __future__ import annotations

import argparse
import json

from remember.caller import Caller
from remember.cli import files, output
from remember.cli.indexing import build_search_indexes
from remember.service import Services
from remember.service.context import question_context
from remember.service.reindex import reindex as rebuild
from remember.service.search import Hit


def search(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    filters = files.json_arg(args.filter, "--filter")
    results = services.search.search(
        caller, args.query, alpha=args.alpha, filters=filters, limit=args.limit, offset=args.offset,
        deleted=args.deleted, explain=args.explain,
    )  # fmt: skip
    if args.json:
        output.emit(
            {
                "results": [{"memory": h.memory.as_dict(), "score": h.score, "why": h.why} for h in results.hits],
                "has_more": results.has_more,
                "alpha": results.alpha,
            }
        )
        return
    _print_hits(results.hits)
    if results.has_more:
        print(f"-- more: --offset {results.offset + len(results.hits)}")


def similar(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    hits = services.search.similar(
        caller, memory_id=args.memory_id, text_query=args.text, min_similarity=args.min_similarity, limit=args.limit
    )
    if args.json:
        output.emit({"results": [{"memory": h.memory.as_dict(), "score": h.score} for h in hits]})
    else:
        _print_hits(hits)


def context(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    question = files.text_arg(args.question)
    filters = files.json_arg(args.filter, "--filter")
    packed = question_context(
        services.search, caller, question, token_budget=args.token_budget, alpha=args.alpha, filters=filters
    )
    if args.json:
        output.emit(
            {"question": question, "context": packed.text, "tokens": packed.tokens,
             "sources": [s.__dict__ for s in packed.sources]}
        )  # fmt: skip
    elif packed.sources:
        print(packed.text)
    else:
        print("No memories found.")


def reindex(services: Services, _caller: Caller, args: argparse.Namespace) -> None:
    """Every user's memories: the index is one per database."""

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
        print(f"Reindexed {count} memories.")


def _print_hits(hits: list[Hit]) -> None:
    for h in hits:
        text = (h.memory.title or h.memory.content).replace("\n", " ")
        snippet = text if len(text) <= output.SNIPPET else text[: output.SNIPPET - 1] + "…"
        print(f"{h.score:6.3f}  {h.memory.id}  {h.memory.occurred_at.date().isoformat()}  {snippet}")
        if h.why:
            print(f"        {json.dumps(h.why)}")
    if not hits:
        print("No memories found.")
