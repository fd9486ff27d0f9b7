"""After a bulk write from the command line: each user's search indexes built at once.

A user past ``REMEMBER_VECTOR_INDEX_MIN`` memories is searched through an
approximate vector index kept beside the database (SQLite), and past
``REMEMBER_KEYWORD_INDEX_MIN`` through a ranked keyword index. Built here, in
bulk and with a progress bar, the server's first search finds them ready
instead of starting a build of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from remember.cli import output
from remember.models import Progress
from remember.nouns import counted

if TYPE_CHECKING:
    from remember.service import Services


def build_search_indexes(services: Services, users: Iterable[str], *, quiet: bool = False) -> int:
    """Build the indexes of each of ``users`` whose searches use them; how many were built."""
    built = 0
    for user in users:
        for kind, build in (
            ("vectors", services.indexer.build_vector_index),
            ("keywords", services.indexer.build_keyword_index),
        ):
            done = build(user, None if quiet else _bar(kind, user))
            if done and not quiet:
                output.progress_done()
            built += done
    return built


def _bar(kind: str, user: str) -> Progress:
    def progress(done: int, total: int) -> None:
        share = done / total if total else 1.0
        output.progress(f"indexing {kind} of {user} [{'#' * int(share * 30):<30}] {done}/{total}")

    return progress


@contextmanager
def bulk_vectors(services: Services, expected: int, *, quiet: bool = False) -> Iterator[None]:
    """A bulk write of about ``expected`` memories; a shared vector index set aside for it is built at its
    end (PostgreSQL), said on stderr since that takes a while."""
    services.indexer.state()  # a new database records its embedder (and makes its index) before the load
    with services.store.index.bulk_vectors(expected) as set_aside:
        yield
        if set_aside and not quiet:
            output.progress(f"building the vector index of about {counted(expected, 'memory')} (this takes a while)")
    if set_aside and not quiet:
        output.progress_done()
