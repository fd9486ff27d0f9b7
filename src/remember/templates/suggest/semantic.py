"""Semantic similarity of the content to each template, through an embedder the caller passes.

A template is described by a few short texts (its *prototypes*): its name and
description, its name with its field labels, and its name with its first
trigger keywords; each trigger keyword is also embedded on its own. Two
similarities come out: ``summary``, the highest cosine between the content and
a prototype, and ``keywords``, the mean of the three highest cosines between
the content and single keywords (a paraphrase of a keyword scores there even
when the words differ). Prototype vectors are computed once per template version and kept
in a bounded cache keyed by embedder name, template id and version (with a
digest of the texts, so an edited template that kept its version is still
re-embedded). numpy is imported only when an embedder is used.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from remember.templates.fields import label

if TYPE_CHECKING:
    from remember.templates.definition import TemplateDefinition

#: Keywords written into the keyword prototype, at most; keywords embedded one by one, at most.
PROTOTYPE_KEYWORDS = 12
SINGLE_KEYWORDS = 60
#: How many of the closest single keywords are averaged.
TOP_KEYWORDS = 3


class SupportsEmbed(Protocol):
    """Anything with ``embed(texts)`` returning one unit-length row per text (an ``Embedder``)."""

    def embed(self, texts: Sequence[str]) -> Any: ...


EmbedderLike = SupportsEmbed | Callable[[Sequence[str]], Any]


def prototypes(definition: TemplateDefinition) -> tuple[str, ...]:
    """The texts a template is compared with."""
    name = definition.name
    fields = ", ".join(label(field.name).lower() for field in definition.fields if not field.is_computed)
    texts = [f"{name}: {definition.description}".strip(), f"{name} with {fields}"]
    if definition.trigger_keywords:
        texts.append(f"{name}: {', '.join(definition.trigger_keywords[:PROTOTYPE_KEYWORDS])}")
    return tuple(texts)


def texts_of(definition: TemplateDefinition) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The prototypes and the single keywords of a template."""
    return prototypes(definition), tuple(definition.trigger_keywords[:SINGLE_KEYWORDS])


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


class PrototypeCache:
    """Prototype vectors by (embedder, template id, version); least recently used dropped first."""

    def __init__(self, capacity: int = 2048) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, str, str], tuple[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: EmbedderLike, definition: TemplateDefinition) -> Any:
        """The rows of ``texts_of(definition)`` (prototypes first), embedded on first use."""
        summary, keywords = texts_of(definition)
        texts = summary + keywords
        digest = hashlib.blake2b("\x00".join(texts).encode(), digest_size=12).hexdigest()
        key = (embedder_key(embedder), definition.id or definition.name, definition.version)
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None and cached[0] == digest:
                self._entries.move_to_end(key)
                return cached[1]
        rows = embed(embedder, texts)
        with self._lock:
            self._entries[key] = (digest, rows)
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return rows

    def __len__(self) -> int:
        return len(self._entries)


#: The cache ``suggest`` uses unless given another one.
DEFAULT_CACHE = PrototypeCache()


def similarities(
    content: str, definitions: Sequence[TemplateDefinition], embedder: EmbedderLike, cache: PrototypeCache
) -> list[tuple[float, float]]:
    """For each template, (summary similarity, keyword similarity) with the content; see the module docstring."""
    import numpy as np

    content_row = embed(embedder, [content])[0]
    found: list[tuple[float, float]] = []
    for definition in definitions:
        cosines = cache.vectors(embedder, definition) @ content_row
        summary_count = len(prototypes(definition))
        summary = float(cosines[:summary_count].max())
        singles = np.sort(cosines[summary_count:])[::-1][:TOP_KEYWORDS]
        found.append((summary, float(singles.mean()) if singles.size else summary))
    return found
