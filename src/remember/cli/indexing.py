"""After a bulk write from the command line: each user's approximate vector index built at once.

A user past ``REMEMBER_VECTOR_INDEX_MIN`` memories is searched through an index
kept beside the database (SQLite). Built here, in bulk and with a progress bar,
the server's first search finds it ready instead of starting a build of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from remember.cli import output
from remember.service import Services


def build_vector_indexes(services: Services, users: Iterable[str], *, quiet: bool = False) -> int:
    """Build the index of each of ``users`` whose searches use one; how many were built."""
    built = 0
    for user in users:

        def progress(done: int, total: int, user: str = user) -> None:
            share = done / total if total else 1.0
            output.progress(f"indexing vectors of {user} [{'#' * int(share * 30):<30}] {done}/{total}")

        built += services.indexer.build_vector_index(user, None if quiet else progress)
    if built and not quiet:
        output.progress_done()
    return built


@contextmanager
def bulk_vectors(services: Services, expected: int, *, quiet: bool = False) -> Iterator[None]:
    """A bulk write of about ``expected`` memories; a shared vector index set aside for it is built at its
    end (PostgreSQL), said on stderr since that takes a while."""
    services.indexer.state()  # a new database records its embedder (and makes its index) before the load
    with services.store.bulk_vectors(expected) as set_aside:
        yield
        if set_aside and not quiet:
            output.progress(f"building the vector index of about {expected} memories (this takes a while)")
    if set_aside and not quiet:
        output.progress_done()
