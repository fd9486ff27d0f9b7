"""What a search asks of a backend's search engine, side by side, and what the engine says it did.

The search plan (``search/plan.py``) decides each side's route from what the
engine can do for the user (``Capabilities``); the engine runs the route it is
given and answers with the candidates and, in words, how it found them
(``SideAnswer.ran``), which ``explain`` shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from remember.filters import Filter
from remember.models import DeletedMode

# A filter is first checked on this many times a side's pool of its unfiltered best (a filter most memories
# pass is answered without listing them); it goes into the side's search when too few of them pass.
POST_FILTER = 4
KeywordRoute = Literal["ranked index", "full text"]
VectorRoute = Literal["approximate", "exact"]


@dataclass(frozen=True)
class Capabilities:
    """What the engine can do for one user at their size."""

    indexed: int  # the user's memories in the index (a recent count)
    ranked_keywords: bool  # a ranked keyword index answers their unfiltered keyword searches
    approximate_vectors: bool  # an approximate vector index answers their vector searches
    vector_filter: str  # how the vector side applies a filter, in words


@dataclass(frozen=True)
class VectorSide:
    """The vector side of one search: the ``limit`` nearest to ``vector`` that pass ``filter``."""

    route: VectorRoute
    vector: bytes
    filter: Filter | None
    deleted: DeletedMode
    limit: int


@dataclass(frozen=True)
class SideAnswer:
    """A side's candidates (memory id, score; best first) and how the engine found them."""

    hits: list[tuple[str, float]]
    ran: str
