"""Semantic similarity of the content to each template, through an embedder the caller passes.

A template is described by a few short texts (its *prototypes*): its name and
description, its name with its field labels, and its name with its first
trigger keywords; each trigger keyword is also embedded on its own; and its
``examples`` (short utterances that fit it), when it has some, are embedded and
averaged into one *example centroid*. The similarities that come out (a
``Meaning``): ``summary``, the highest cosine between the content and a
prototype; ``keywords``, the mean of the three highest cosines between the
content and single keywords (a paraphrase of a keyword scores there even when
the words differ); ``examples``, the cosine between the content and the example
centroid, corrected for how spread out the examples are (``SPREAD_WEIGHT``; None
for a template without examples); and ``small_talk``, the cosine
between the content and the centroid of utterances that fit no template
(``small_talk.SMALL_TALK``), the same for every template. Utterance-to-utterance
similarity is much stronger than utterance-to-description similarity with a
small sentence model, and the centroid of a few dozen examples ranks better than
the nearest single examples (which reward a chance overlap of one example).

Vectors are computed once per template version and kept in a bounded cache
keyed by embedder name, template id and version (with a digest of the texts, so
an edited template that kept its version is still re-embedded). The rows of all
the templates of a call are stacked into one matrix, itself cached for the same
set of templates, so that a call costs one embedding of the content and one
matrix product. The small-talk centroid is one more row of that matrix.
Given ``kept`` vectors (``KeptRows``: rows kept beyond the process, by the model
that made them and each text), a cache takes the texts' rows from there and
embeds only the ones missing, so that a new process does not embed the library again.
numpy is imported only when an embedder is used.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from remember.templates.fields import label
from remember.templates.per_object import PerObject
from remember.templates.suggest.small_talk import SMALL_TALK

if TYPE_CHECKING:
    from remember.templates.definition import TemplateDefinition

#: Keywords written into the keyword prototype, at most; keywords embedded one by one, at most.
PROTOTYPE_KEYWORDS = 12
SINGLE_KEYWORDS = 60
#: How many of the closest single keywords are averaged.
TOP_KEYWORDS = 3
#: Stacked matrices kept (one per distinct set of templates seen recently).
STACKS = 32
#: The example similarity is corrected by how spread out a template's examples are: their spread is the mean
#: cosine of each example to the centroid of the others, and ``examples`` is the cosine to the centroid minus
#: ``SPREAD_WEIGHT`` times (spread - ``TYPICAL_SPREAD``). A template whose examples differ widely (learning notes
#: on any subject: 0.22) has a centroid that no single utterance comes close to, so a fitting utterance scores
#: lower there than one fitting a tight template (recipes: 0.50); the correction puts them on one scale. It
#: applies from ``MIN_SPREAD_EXAMPLES`` examples (fewer give no reliable spread).
SPREAD_WEIGHT = 0.3
TYPICAL_SPREAD = 0.4
MIN_SPREAD_EXAMPLES = 5


class SupportsEmbed(Protocol):
    """Anything with ``embed(texts)`` returning one unit-length row per text (an ``Embedder``)."""

    def embed(self, texts: Sequence[str]) -> Any: ...


EmbedderLike = SupportsEmbed | Callable[[Sequence[str]], Any]


class KeptRows(Protocol):
    """Rows of texts kept beyond this process (``remember.search.embedders.kept.KeptVectors``)."""

    def rows(self, embedder: EmbedderLike, texts: Sequence[str], make: Callable[[Sequence[str]], Any]) -> Any:
        """One row per text: the kept ones, the others ``make(texts)`` (and kept for the next process)."""
        ...


@dataclass(frozen=True)
class Meaning:
    """The similarities of one content to one template (see the module docstring)."""

    summary: float
    keywords: float
    examples: float | None = None  # None when the template has no examples
    small_talk: float | None = None  # None when no small-talk utterances were given


@dataclass(frozen=True)
class Texts:
    """What is embedded for one template: prototypes, single keywords, examples."""

    prototypes: tuple[str, ...]
    keywords: tuple[str, ...]
    examples: tuple[str, ...]

    @cached_property
    def digest(self) -> str:
        joined = "\x01".join("\x00".join(part) for part in (self.prototypes, self.keywords, self.examples))
        return hashlib.blake2b(joined.encode(), digest_size=12).hexdigest()


def prototypes(definition: TemplateDefinition) -> tuple[str, ...]:
    """The texts a template is compared with."""
    name = definition.name
    fields = ", ".join(label(field.name).lower() for field in definition.fields if not field.is_computed)
    texts = [f"{name}: {definition.description}".strip(), f"{name} with {fields}"]
    if definition.trigger_keywords:
        texts.append(f"{name}: {', '.join(definition.trigger_keywords[:PROTOTYPE_KEYWORDS])}")
    return tuple(texts)


def texts_of(definition: TemplateDefinition) -> Texts:
    """The prototypes, the single keywords and the examples of a template."""
    return Texts(prototypes(definition), tuple(definition.trigger_keywords[:SINGLE_KEYWORDS]), definition.examples)


def embed(embedder: EmbedderLike, texts: Sequence[str]) -> Any:
    """The rows for ``texts`` as a float32 array, whichever form the embedder takes: its ``embed_alike`` where it
    reads texts compared as equals otherwise than texts to be found (multilingual-e5's ``query: `` on both sides),
    else its ``embed``."""
    import numpy as np

    method = getattr(embedder, "embed_alike", None) or getattr(embedder, "embed", None)
    rows = method(list(texts)) if callable(method) else embedder(list(texts))  # type: ignore[operator]
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


def embedder_key(embedder: EmbedderLike) -> str:
    """A name for the cache: the embedder's ``name``, else its identity."""
    name = getattr(embedder, "name", None)
    return name if isinstance(name, str) else f"{type(embedder).__qualname__}@{id(embedder):x}"


@dataclass(frozen=True)
class _Entry:
    """The rows of one template: prototypes, then single keywords, then the example centroid if any."""

    digest: str
    rows: Any
    prototypes: int
    keywords: int
    examples: bool
    spread: float = TYPICAL_SPREAD  # the mean cosine of each example to the centroid of the others


@dataclass(frozen=True)
class StackedVectors:
    """The rows of several templates in one matrix, with where each template's rows start.

    ``small_talk`` is the index of the small-talk centroid row (the last), None without one.
    """

    matrix: Any
    entries: tuple[_Entry, ...]
    starts: tuple[int, ...]
    small_talk: int | None = None


class _TextsOf:
    """Each definition's ``Texts``, worked out once per definition object (``PerObject``)."""

    def __init__(self) -> None:
        self._known: PerObject[TemplateDefinition, Texts] = PerObject()

    def __call__(self, definition: TemplateDefinition) -> Texts:
        known = self._known.get(definition)
        return known if known is not None else self._known.put(definition, texts_of(definition))


class PrototypeCache:
    """Template vectors by (embedder, template id, version); least recently used dropped first."""

    def __init__(self, capacity: int = 2048, kept: KeptRows | None = None) -> None:
        self._capacity = capacity
        self._kept = kept
        self._texts = _TextsOf()
        self._entries: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._stacks: OrderedDict[tuple[str, str, tuple[tuple[str, str, str, str], ...]], StackedVectors] = (
            OrderedDict()
        )
        self._small_talk: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: EmbedderLike, definition: TemplateDefinition) -> Any:
        """The rows of one template: prototypes, single keywords, then the example centroid if it has examples."""
        return self._lookup(embedder, [definition])[0].rows

    def stack(
        self,
        embedder: EmbedderLike,
        definitions: Sequence[TemplateDefinition],
        small_talk: Sequence[str] = SMALL_TALK,
    ) -> StackedVectors:
        """The rows of all ``definitions`` in one matrix, then the small-talk centroid (cached for this exact list)."""
        import numpy as np

        name = embedder_key(embedder)
        texts = [self._texts(definition) for definition in definitions]
        talk = _digest(small_talk)
        key = (name, talk, tuple((*_key(name, d), t.digest) for d, t in zip(definitions, texts, strict=True)))
        with self._lock:
            stacked = self._stacks.get(key)
            if stacked is not None:
                self._stacks.move_to_end(key)
                return stacked
        entries = self._lookup(embedder, definitions, texts)
        starts, position = [], 0
        for entry in entries:
            starts.append(position)
            position += len(entry.rows)
        blocks = [entry.rows for entry in entries]
        if small_talk:
            blocks.append(self._centroid(embedder, name, talk, small_talk))
        matrix = np.ascontiguousarray(np.concatenate(blocks))
        stacked = StackedVectors(matrix, tuple(entries), tuple(starts), position if small_talk else None)
        with self._lock:
            self._stacks[key] = stacked
            while len(self._stacks) > STACKS:
                self._stacks.popitem(last=False)
        return stacked

    def _centroid(self, embedder: EmbedderLike, name: str, digest: str, texts: Sequence[str]) -> Any:
        """The normalised mean of ``texts``, as one row (cached by embedder and texts)."""
        key = (name, digest)
        with self._lock:
            row = self._small_talk.get(key)
            if row is not None:
                self._small_talk.move_to_end(key)
                return row
        row = _centroid(self._rows(embedder, texts))
        with self._lock:
            self._small_talk[key] = row
            while len(self._small_talk) > STACKS:
                self._small_talk.popitem(last=False)
        return row

    def _lookup(
        self, embedder: EmbedderLike, definitions: Sequence[TemplateDefinition], texts: list[Texts] | None = None
    ) -> list[_Entry]:
        """Each template's entry; the ones missing are embedded together in one call."""
        name = embedder_key(embedder)
        texts = texts if texts is not None else [self._texts(definition) for definition in definitions]
        keys = [_key(name, definition) for definition in definitions]
        found: list[_Entry | None] = []
        with self._lock:
            for key, wanted in zip(keys, texts, strict=True):
                entry = self._entries.get(key)
                if entry is not None and entry.digest == wanted.digest:
                    self._entries.move_to_end(key)
                    found.append(entry)
                else:
                    found.append(None)
        missing = [index for index, entry in enumerate(found) if entry is None]
        if missing:
            made = _entries(self._rows(embedder, _flat(texts[index] for index in missing)), [texts[i] for i in missing])
            with self._lock:
                for index, entry in zip(missing, made, strict=True):
                    found[index] = self._entries[keys[index]] = entry
                    self._entries.move_to_end(keys[index])
                while len(self._entries) > self._capacity:
                    self._entries.popitem(last=False)
        return [entry for entry in found if entry is not None]

    def _rows(self, embedder: EmbedderLike, texts: Sequence[str]) -> Any:
        """The rows of ``texts``: from the kept ones where given, else embedded."""
        if self._kept is None:
            return embed(embedder, texts)
        return self._kept.rows(embedder, texts, lambda missing: embed(embedder, missing))

    def __len__(self) -> int:
        return len(self._entries)


def _key(name: str, definition: TemplateDefinition) -> tuple[str, str, str]:
    return (name, definition.id or definition.name, definition.version)


def _digest(texts: Sequence[str]) -> str:
    return hashlib.blake2b("\x00".join(texts).encode(), digest_size=12).hexdigest()


def _centroid(rows: Any) -> Any:
    """The normalised mean of ``rows``, as a 1-row matrix."""
    import numpy as np

    centroid = rows.mean(axis=0)
    return (centroid / max(float(np.linalg.norm(centroid)), 1e-12))[None, :].astype(np.float32)


def _spread(rows: Any) -> float:
    """The mean cosine of each row to the normalised mean of the other rows; ``TYPICAL_SPREAD`` for too few."""
    import numpy as np

    if len(rows) < MIN_SPREAD_EXAMPLES:
        return TYPICAL_SPREAD
    others = rows.sum(axis=0)[None, :] - rows
    norms = np.maximum(np.linalg.norm(others, axis=1), 1e-12)
    return float(np.mean(np.einsum("ij,ij->i", rows, others) / norms))


def embedded_texts(definitions: Sequence[TemplateDefinition], small_talk: Sequence[str] = SMALL_TALK) -> list[str]:
    """Every text a cache embeds for these templates and the small talk (what a kept file should hold)."""
    return [*_flat(texts_of(definition) for definition in definitions), *small_talk]


def _flat(texts: Iterable[Texts]) -> list[str]:
    """Every text of these templates, template after template: prototypes, keywords, examples."""
    return [text for t in texts for text in (*t.prototypes, *t.keywords, *t.examples)]


def _entries(rows: Any, texts: list[Texts]) -> list[_Entry]:
    """Each template's entry from the rows of its texts (in ``_flat`` order); examples fold into their centroid."""
    import numpy as np

    entries, position = [], 0
    for t in texts:
        own = len(t.prototypes) + len(t.keywords)
        parts = [rows[position : position + own]]
        position += own
        spread = TYPICAL_SPREAD
        if t.examples:
            own_examples = rows[position : position + len(t.examples)]
            parts.append(_centroid(own_examples))
            spread = _spread(own_examples)
            position += len(t.examples)
        block = np.concatenate(parts).astype(np.float32)
        entries.append(_Entry(t.digest, block, len(t.prototypes), len(t.keywords), bool(t.examples), spread))
    return entries


#: The cache ``suggest`` uses unless given another one.
DEFAULT_CACHE = PrototypeCache()


def similarities(
    content: str,
    definitions: Sequence[TemplateDefinition],
    embedder: EmbedderLike,
    cache: PrototypeCache,
    small_talk: Sequence[str] = SMALL_TALK,
) -> list[Meaning]:
    """For each template, its ``Meaning`` for the content; see the module docstring."""
    import numpy as np

    stacked = cache.stack(embedder, definitions, small_talk)
    cosines = stacked.matrix @ embed(embedder, [content])[0]
    talk = float(cosines[stacked.small_talk]) if stacked.small_talk is not None else None
    found: list[Meaning] = []
    for entry, start in zip(stacked.entries, stacked.starts, strict=True):
        middle = start + entry.prototypes
        summary = float(cosines[start:middle].max())
        singles = cosines[middle : middle + entry.keywords]
        if singles.size > TOP_KEYWORDS:
            singles = np.partition(singles, singles.size - TOP_KEYWORDS)[-TOP_KEYWORDS:]
        keywords = float(singles.mean()) if singles.size else summary
        examples = None
        if entry.examples:
            examples = float(cosines[middle + entry.keywords]) - SPREAD_WEIGHT * (entry.spread - TYPICAL_SPREAD)
        found.append(Meaning(summary, keywords, examples, talk))
    return found
