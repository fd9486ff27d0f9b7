"""Semantic similarity of the content to each template, through an embedder the caller passes.

A template is described by a few short texts (its *prototypes*): its name and
description, its name with its field labels, and its name with its first
trigger keywords; each trigger keyword is also embedded on its own; and its
``examples`` (short utterances that fit it), when it has some, are embedded and
averaged into one *example centroid*. Three similarities come out (a
``Meaning``): ``summary``, the highest cosine between the content and a
prototype; ``keywords``, the mean of the three highest cosines between the
content and single keywords (a paraphrase of a keyword scores there even when
the words differ); and ``examples``, the cosine between the content and the
example centroid (None for a template without examples). Utterance-to-utterance
similarity is much stronger than utterance-to-description similarity with a
small sentence model, and the centroid of a dozen examples ranks better than
the nearest single example (which rewards a chance overlap of one example).

Vectors are computed once per template version and kept in a bounded cache
keyed by embedder name, template id and version (with a digest of the texts, so
an edited template that kept its version is still re-embedded). The rows of all
the templates of a call are stacked into one matrix, itself cached for the same
set of templates, so that a call costs one embedding of the content and one
matrix product. numpy is imported only when an embedder is used.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from remember.templates.fields import label

if TYPE_CHECKING:
    from remember.templates.definition import TemplateDefinition

#: Keywords written into the keyword prototype, at most; keywords embedded one by one, at most.
PROTOTYPE_KEYWORDS = 12
SINGLE_KEYWORDS = 60
#: How many of the closest single keywords are averaged.
TOP_KEYWORDS = 3
#: Stacked matrices kept (one per distinct set of templates seen recently).
STACKS = 32


class SupportsEmbed(Protocol):
    """Anything with ``embed(texts)`` returning one unit-length row per text (an ``Embedder``)."""

    def embed(self, texts: Sequence[str]) -> Any: ...


EmbedderLike = SupportsEmbed | Callable[[Sequence[str]], Any]


@dataclass(frozen=True)
class Meaning:
    """The similarities of one content to one template (see the module docstring)."""

    summary: float
    keywords: float
    examples: float | None = None  # None when the template has no examples


@dataclass(frozen=True)
class Texts:
    """What is embedded for one template: prototypes, single keywords, examples."""

    prototypes: tuple[str, ...]
    keywords: tuple[str, ...]
    examples: tuple[str, ...]

    @property
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
    """The rows for ``texts`` as a float32 array, whichever form the embedder takes."""
    import numpy as np

    method = getattr(embedder, "embed", None)
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


@dataclass(frozen=True)
class StackedVectors:
    """The rows of several templates in one matrix, with where each template's rows start."""

    matrix: Any
    entries: tuple[_Entry, ...]
    starts: tuple[int, ...]


class PrototypeCache:
    """Template vectors by (embedder, template id, version); least recently used dropped first."""

    def __init__(self, capacity: int = 2048) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._stacks: OrderedDict[tuple[str, tuple[tuple[str, str, str, str], ...]], StackedVectors] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: EmbedderLike, definition: TemplateDefinition) -> Any:
        """The rows of one template: prototypes, single keywords, then the example centroid if it has examples."""
        return self._lookup(embedder, [definition])[0].rows

    def stack(self, embedder: EmbedderLike, definitions: Sequence[TemplateDefinition]) -> StackedVectors:
        """The rows of all ``definitions`` in one matrix (cached for this exact list)."""
        import numpy as np

        name = embedder_key(embedder)
        texts = [texts_of(definition) for definition in definitions]
        key = (name, tuple((*_key(name, d), t.digest) for d, t in zip(definitions, texts, strict=True)))
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
        matrix = np.ascontiguousarray(np.concatenate([entry.rows for entry in entries]))
        stacked = StackedVectors(matrix, tuple(entries), tuple(starts))
        with self._lock:
            self._stacks[key] = stacked
            while len(self._stacks) > STACKS:
                self._stacks.popitem(last=False)
        return stacked

    def _lookup(
        self, embedder: EmbedderLike, definitions: Sequence[TemplateDefinition], texts: list[Texts] | None = None
    ) -> list[_Entry]:
        """Each template's entry; the ones missing are embedded together in one call."""
        name = embedder_key(embedder)
        texts = texts if texts is not None else [texts_of(definition) for definition in definitions]
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
            made = _embed_entries(embedder, [texts[index] for index in missing])
            with self._lock:
                for index, entry in zip(missing, made, strict=True):
                    found[index] = self._entries[keys[index]] = entry
                    self._entries.move_to_end(keys[index])
                while len(self._entries) > self._capacity:
                    self._entries.popitem(last=False)
        return [entry for entry in found if entry is not None]

    def __len__(self) -> int:
        return len(self._entries)


def _key(name: str, definition: TemplateDefinition) -> tuple[str, str, str]:
    return (name, definition.id or definition.name, definition.version)


def _embed_entries(embedder: EmbedderLike, texts: list[Texts]) -> list[_Entry]:
    """Every text of every template in one embedding call; examples are folded into their centroid."""
    import numpy as np

    flat = [text for t in texts for text in (*t.prototypes, *t.keywords, *t.examples)]
    rows = embed(embedder, flat)
    entries, position = [], 0
    for t in texts:
        own = len(t.prototypes) + len(t.keywords)
        parts = [rows[position : position + own]]
        position += own
        if t.examples:
            centroid = rows[position : position + len(t.examples)].mean(axis=0)
            parts.append((centroid / max(float(np.linalg.norm(centroid)), 1e-12))[None, :])
            position += len(t.examples)
        block = np.concatenate(parts).astype(np.float32)
        entries.append(_Entry(t.digest, block, len(t.prototypes), len(t.keywords), bool(t.examples)))
    return entries


#: The cache ``suggest`` uses unless given another one.
DEFAULT_CACHE = PrototypeCache()


def similarities(
    content: str, definitions: Sequence[TemplateDefinition], embedder: EmbedderLike, cache: PrototypeCache
) -> list[Meaning]:
    """For each template, its ``Meaning`` for the content; see the module docstring."""
    import numpy as np

    stacked = cache.stack(embedder, definitions)
    cosines = stacked.matrix @ embed(embedder, [content])[0]
    found: list[Meaning] = []
    for entry, start in zip(stacked.entries, stacked.starts, strict=True):
        middle = start + entry.prototypes
        summary = float(cosines[start:middle].max())
        singles = cosines[middle : middle + entry.keywords]
        if singles.size > TOP_KEYWORDS:
            singles = np.partition(singles, singles.size - TOP_KEYWORDS)[-TOP_KEYWORDS:]
        keywords = float(singles.mean()) if singles.size else summary
        examples = float(cosines[middle + entry.keywords]) if entry.examples else None
        found.append(Meaning(summary, keywords, examples))
    return found
