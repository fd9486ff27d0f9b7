"""What the searches of one question over several owners (a member's spaces) share, done once for them all.

The question's vector is embedded once, and each owner's full-text candidates are found together, in one
query per set of terms (``SearchIndex.keyword_candidates_of``). A search takes its part from here only
when it asks exactly what was found for it (the same owner, terms, trash mode and pool); otherwise it
asks the store, so what it answers never depends on what was shared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from remember.models import DeletedMode
from remember.search.plan import Terms

Candidates = list[tuple[str, float]]
Asked = tuple[str, tuple[str, ...], tuple[str, ...], str, int]  # owner, terms finding, terms scoring, trash, pool


def asked(owner: str, terms: Terms, deleted: DeletedMode, pool: int) -> Asked:
    """The key of one owner's full-text candidates."""
    return owner, tuple(terms.find), tuple(terms.score), deleted, pool


@dataclass(frozen=True)
class Shared:
    vector: bytes | None = None  # the question's, as the vector side searches with it
    keywords: Mapping[Asked, Candidates] = field(default_factory=dict)

    def keyword(self, owner: str, terms: Terms, deleted: DeletedMode, pool: int) -> Candidates | None:
        """The owner's full-text candidates for exactly this, if they were found; None otherwise."""
        found = self.keywords.get(asked(owner, terms, deleted, pool))
        return None if found is None else list(found)


def grouped(asks: Sequence[tuple[str, Terms]]) -> dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]]:
    """The owners of ``asks`` by the terms they search with (owners with the same terms are found together)."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for owner, terms in asks:
        if terms.find:
            groups.setdefault((tuple(terms.find), tuple(terms.score)), []).append(owner)
    return groups
