"""Grouping free-text memories that say the same kind of thing, and the template each group suggests.

Each memory is a ``Note`` with its unit-length vector. Notes are grouped by
leader clustering: each joins the group whose centroid it is closest to when
that similarity (the cosine plus a bonus for sharing the group's fields)
reaches ``threshold``, else it starts a group; a second pass puts every note
in its best group. Groups smaller than ``min_size`` are not proposals. A
proposal's fields are those stated by at least ``field_share`` of its notes
(with the type most of them are written as), its name the words that set its
notes apart from the others, its examples its notes closest to the centroid.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from remember.templates.infer.stated_fields import FoundField, field_values

FIELD_BONUS = 0.15
MERGE = 0.6
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


@dataclass
class _Group:
    notes: list[Note] = field(default_factory=list)
    found: list[dict[str, FoundField]] = field(default_factory=list)
    total: list[float] = field(default_factory=list)

    def add(self, note: Note, found: dict[str, FoundField]) -> None:
        self.notes.append(note)
        self.found.append(found)
        self.total = [a + b for a, b in zip(self.total, note.vector, strict=True)] if self.total else list(note.vector)

    def centroid(self) -> list[float]:
        norm = math.sqrt(sum(v * v for v in self.total)) or 1.0
        return [v / norm for v in self.total]

    def common(self) -> set[str]:
        counts = Counter(name for found in self.found for name in found)
        return {name for name, count in counts.items() if count * 2 >= len(self.found)}


def propose(
    notes: Sequence[Note],
    today: date,
    *,
    threshold: float = 0.35,
    min_size: int = 3,
    field_share: float = 0.5,
) -> list[Proposal]:
    """Proposed templates, the largest group first."""
    found = [field_values(note.text, today) for note in notes]
    groups = _cluster(notes, found, threshold)
    document_words = [set(_words(note.text)) for note in notes]
    proposals = [
        _proposal(group, document_words, len(notes), field_share) for group in groups if len(group.notes) >= min_size
    ]
    return sorted(proposals, key=lambda p: (-p.coverage, p.name))


def _cluster(notes: Sequence[Note], found: list[dict[str, FoundField]], threshold: float) -> list[_Group]:
    groups: list[_Group] = []
    for note, fields in zip(notes, found, strict=True):
        best, score = _best(groups, note, fields)
        if best is not None and score >= threshold:
            best.add(note, fields)
        else:
            group = _Group()
            group.add(note, fields)
            groups.append(group)
    groups = _merged([g for g in groups if len(g.notes) > 1]) + [g for g in groups if len(g.notes) == 1]
    # A second pass against the settled centroids: early notes join the group they fit best.
    settled = [(g.centroid(), g.common()) for g in groups if len(g.notes) > 1]
    final = [_Group() for _ in settled]
    singles: list[_Group] = []
    for note, fields in zip(notes, found, strict=True):
        scores = [_similarity(note, fields, centre, common) for centre, common in settled]
        if scores and max(scores) >= threshold:
            final[scores.index(max(scores))].add(note, fields)
        else:
            single = _Group()
            single.add(note, fields)
            singles.append(single)
    return [g for g in final if g.notes] + singles


def _merged(groups: list[_Group]) -> list[_Group]:
    """Groups whose centroids are as close as ``MERGE`` made one (leader clustering splits by arrival order)."""
    merged = True
    while merged:
        merged = False
        pairs = [(i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))]
        for i, j in pairs:
            a, b = groups[i].centroid(), groups[j].centroid()
            if sum(x * y for x, y in zip(a, b, strict=True)) >= MERGE:
                for note, found in zip(groups[j].notes, groups[j].found, strict=True):
                    groups[i].add(note, found)
                del groups[j]
                merged = True
                break
    return groups


def _best(groups: list[_Group], note: Note, fields: dict[str, FoundField]) -> tuple[_Group | None, float]:
    best, score = None, -1.0
    for group in groups:
        value = _similarity(note, fields, group.centroid(), group.common())
        if value > score:
            best, score = group, value
    return best, score


def _similarity(note: Note, fields: dict[str, FoundField], centre: Sequence[float], common: set[str]) -> float:
    cosine = sum(a * b for a, b in zip(note.vector, centre, strict=True))
    names = set(fields)
    shared = len(names & common) / len(names | common) if names | common else 0.0
    return cosine + FIELD_BONUS * shared


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
    centre = group.centroid()
    closest = sorted(group.notes, key=lambda n: -sum(a * b for a, b in zip(n.vector, centre, strict=True)))
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
