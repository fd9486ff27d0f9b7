"""The grammar of `remember search`, `similar`, `context` and `reindex`."""

from __future__ import annotations

from remember.cli.grammar import Commands


def add_search_commands(commands: Commands) -> None:
    search = commands.add_parser("search", help="find memories by meaning and keywords", description="Search memories.")
    search.add_argument("query", help="what to look for")
    search.add_argument("--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default 0.3)")
    search.add_argument("--filter", metavar="JSON", help='a filter, e.g. \'{"structured_content.rating": {"gte": 4}}\'')
    search.add_argument("--limit", type=int, help="how many results, 1-100 (default 10)")
    search.add_argument("--offset", type=int, default=0, help="skip this many")
    search.add_argument("--deleted", choices=["exclude", "include", "only"], default="exclude", help="deleted ones")
    search.add_argument("--explain", action="store_true", help="show why each result matched")
    search.add_argument("--json", action="store_true", help="print JSON for scripts")

    similar = commands.add_parser(
        "similar", help="find memories like one memory or a text", description="Find similar memories."
    )
    similar.add_argument("memory_id", nargs="?", help="the memory to compare with (or give --text)")
    similar.add_argument("--text", help="a text to compare with instead")
    similar.add_argument("--min", type=float, default=0.0, dest="min_similarity", help="lowest similarity, -1 to 1")
    similar.add_argument("--limit", type=int, default=10, help="how many, 1-100 (default 10)")
    similar.add_argument("--json", action="store_true", help="print JSON for scripts")

    context = commands.add_parser(
        "context",
        help="the memories that answer a question, packed for a model",
        description="Gather the memories that answer a question into one context with numbered sources.",
    )
    context.add_argument("question", help="the question ('-' reads standard input)")
    context.add_argument(
        "--token-budget", type=int, default=2000, help="most tokens of memory text, 100-32000 (default 2000)"
    )
    context.add_argument("--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default 0.3)")
    context.add_argument("--filter", metavar="JSON", help="a filter, as for search")
    context.add_argument("--json", action="store_true", help="print JSON for scripts")

    redo = "Re-embed and re-index every memory of every user, with the configured embedder."
    reindex = commands.add_parser("reindex", help="rebuild the search index (new embedder)", description=redo)
    reindex.add_argument("--json", action="store_true", help="print JSON for scripts")
