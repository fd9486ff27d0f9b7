"""The templates proposed for groups of free-text memories that say the same kind of thing.

Each memory is a ``Note`` with its unit-length vector. Notes are grouped by
leader clustering on their meaning and the fields they state (``leader.py``);
groups smaller than ``min_size`` are not proposals. A proposal's fields are
those stated by at least ``field_share`` of its notes (with the type most of
them are written as), its name the words that set its notes apart from the
others, its examples its notes closest to the centroid.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from remember import deadline
from remember.templates.infer.leader import centroid, cluster
from remember.templates.infer.stated_fields import FoundField, field_values

_WORD = re.compile(r"[a-z][a-z'\-]{2,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "was",
        "were",
        "are",
        "but",
        "not",
        "have",
        "has",
        "had",
        "you",
        "your",
        "our",
        "out",
        "its",
        "it's",
        "from",
        "into",
        "about",
        "just",
        "very",
        "really",
        "today",
        "yesterday",
        "tomorrow",
        "got",
        "get",
        "did",
        "done",
        "again",
        "some",
        "more",
        "most",
        "much",
        "then",
        "than",
        "them",
        "they",
        "their",
        "there",
        "here",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "would",
        "could",
        "should",
        "also",
        "been",
        "being",
        "like",
        "one",
        "two",
        "three",
        "four",
        "five",
        "after",
        "before",
        "over",
        "under",
        "new",
        "old",
        "good",
        "great",
        "bad",
        "nice",
        "best",
        "still",
        "only",
        "even",
        "first",
        "last",
        "next",
        "make",
        "made",
    ]
)
_TYPES_FOR = {"rating": "number", "price": "number", "date": "date"}


@dataclass(frozen=True)
class Note:
    id: str
    text: str
    vector: Sequence[float]


@dataclass(frozen=True)
class ProposedField:
    name: str
    type: str
    share: float  # of the group's notes that state it
    example: str

    def definition(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "type": self.type}
        if self.name == "rating":
            out["validation"] = {"min": 0, "max": 5}
        return out


@dataclass(frozen=True)
class Proposal:
    id: str
    name: str
    keywords: tuple[str, ...]
    fields: tuple[ProposedField, ...]
    member_ids: tuple[str, ...]
    examples: tuple[str, ...]
    share: float  # of all the notes given

    @property
    def coverage(self) -> int:
        return len(self.member_ids)

    def as_dict(self) -> dict[str, Any]:
        """The proposal as the tool and ``remember template infer --json`` show it."""
        return {
            "id": self.id,
            "name": self.name,
            "fields": [dataclasses.asdict(f) for f in self.fields],
            "covers": self.coverage,
            "share": self.share,
            "examples": list(self.examples[:3]),
            "memory_ids": list(self.member_ids),
        }

    def definition(self) -> dict[str, Any]:
        """A template definition (``remember_create_template``'s document) for the proposal."""
        return {
            "name": self.name,
            "description": f"Learned from {self.coverage} of your memories like: {self.examples[0][:120]}",
            "fields": [{"name": "summary", "type": "text"}, *(f.definition() for f in self.fields)],
            "trigger_keywords": list(self.keywords),
            "examples": list(self.examples),
            "auto_apply": True,
            "category": "learned",
        }


@dataclass(frozen=True)
class _Group:
    notes: list[Note]
    found: list[dict[str, FoundField]]
    rows: Any  # the notes' vectors, a row each


def propose(
    notes: Sequence[Note],
    today: date,
    *,
    threshold: float = 0.35,
    min_size: int = 3,
    field_share: float = 0.5,
) -> list[Proposal]:
    """Proposed templates, the largest group first."""
    import numpy as np

    if not notes:
        return []
    found = []
    for i, note in enumerate(notes):
        if i % 100 == 0:
            deadline.check()
        found.append(field_values(note.text, today))
    rows = np.asarray([note.vector for note in notes], dtype=np.float64)
    groups = [
        _Group([notes[i] for i in members], [found[i] for i in members], rows[members])
        for members in cluster(rows, [set(fields) for fields in found], threshold)
        if len(members) >= min_size
    ]
    document_words = [set(_words(note.text)) for note in notes]
    proposals = [_proposal(group, document_words, len(notes), field_share) for group in groups]
    return sorted(proposals, key=lambda p: (-p.coverage, p.name))


def _proposal(group: _Group, document_words: list[set[str]], total: int, field_share: float) -> Proposal:
    counts: Counter[str] = Counter(name for found in group.found for name in found)
    fields = []
    for name, count in counts.most_common():
        share = count / len(group.notes)
        if share < field_share:
            continue
        kinds = Counter(found[name].type for found in group.found if name in found)
        example = next(found[name].value for found in group.found if name in found)
        fields.append(ProposedField(name, _TYPES_FOR.get(name, kinds.most_common(1)[0][0]), round(share, 2), example))
    keywords = _keywords(group, document_words)
    nearness = group.rows @ centroid(group.rows)
    closest = [group.notes[i] for i in sorted(range(len(group.notes)), key=lambda i: -nearness[i])]
    ids = tuple(sorted(note.id for note in group.notes))
    digest = hashlib.sha1("\n".join(ids).encode(), usedforsecurity=False).hexdigest()[:12]
    name = " ".join(word.capitalize() for word in keywords[:2]) + " notes" if keywords else "Learned notes"
    return Proposal(f"infer-{digest}", name, tuple(keywords), tuple(fields), ids,
                    tuple(n.text for n in closest[:5]), round(len(group.notes) / total, 3))  # fmt: skip


def _keywords(group: _Group, document_words: list[set[str]]) -> list[str]:
    """Words common in the group and rare elsewhere (a tf-idf over the notes)."""
    inside: Counter[str] = Counter(word for note in group.notes for word in set(_words(note.text)))
    everywhere: Counter[str] = Counter(word for words in document_words for word in words)
    size, total = len(group.notes), len(document_words)
    scored = {
        word: (count / size) * math.log((total + 1) / (everywhere[word] + 1))
        for word, count in inside.items()
        if count >= max(2, size // 3)
    }
    return [word for word, _ in sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:6]]


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]
