"""The model with its products in int8, kept between processes: the same vectors, and a changed file never used."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from remember.errors import ConfigError
from remember.search.embedders import MiniLMEmbedder, minilm
from remember.search.embedders.kept_graph import PREFIX, KeptGraph, graph_key
from remember.search.embedders.model_files import MODEL_SHA256, default_model_path

TEXTS = ["Lunch with Pedro at the Italian place", "ok", "Dune by Frank Herbert, five stars"]


@pytest.fixture(scope="module")
def expected() -> np.ndarray:
    return MiniLMEmbedder().embed(TEXTS)


def _kept(folder: Path) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.name.startswith(PREFIX))


def _no_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> bytes:
        raise AssertionError("the model was edited again")

    monkeypatch.setattr(minilm, "int8_products", refuse)


def test_the_kept_edit_gives_the_same_vectors_without_editing_again(
    tmp_path: Path, expected: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert np.array_equal(MiniLMEmbedder(cache_dir=tmp_path).embed(TEXTS), expected)
    assert len(_kept(tmp_path)) == 1
    _no_edit(monkeypatch)
    assert np.array_equal(MiniLMEmbedder(cache_dir=tmp_path).embed(TEXTS), expected)


def test_a_damaged_kept_edit_is_made_again(tmp_path: Path, expected: np.ndarray) -> None:
    MiniLMEmbedder(cache_dir=tmp_path).load()
    (kept,) = _kept(tmp_path)
    with kept.open("r+b") as f:
        f.seek(5_000_000)
        byte = f.read(1)
        f.seek(5_000_000)
        f.write(bytes([byte[0] ^ 0x01]))  # one bit of a weight: ONNX Runtime would load it
    assert np.array_equal(MiniLMEmbedder(cache_dir=tmp_path).embed(TEXTS), expected)
    (remade,) = _kept(tmp_path)
    assert remade.name == kept.name
    assert hashlib.sha256(remade.read_bytes()).hexdigest()[:32] in remade.name  # whole again


def test_a_model_file_changed_after_its_edit_was_kept_is_checked_and_refused(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), model)
    MiniLMEmbedder(model_path=model, cache_dir=tmp_path / "cache").load()
    with model.open("r+b") as f:  # changed in place, as a different upload reinstalled would be
        f.seek(1_000_000)
        byte = f.read(1)
        f.seek(1_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    stat = model.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with pytest.raises(ConfigError, match=r"sha256 .* not the pinned"):
        MiniLMEmbedder(model_path=model, cache_dir=tmp_path / "cache").load()


def test_the_key_follows_the_file_and_the_way_the_products_run(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), model)
    key = graph_key(model, MODEL_SHA256, "signed")
    assert key == graph_key(model, MODEL_SHA256, "signed")
    assert key != graph_key(model, MODEL_SHA256, "unsigned")
    assert key != graph_key(default_model_path(), MODEL_SHA256, "signed")
    stat = model.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert key != graph_key(model, MODEL_SHA256, "signed")
    assert graph_key(tmp_path / "absent.onnx", MODEL_SHA256, "signed") is None


def test_keeping_an_edit_deletes_the_others(tmp_path: Path) -> None:
    kept = KeptGraph(tmp_path)
    kept.save("old", b"old model")
    kept.save("new", b"new model")
    assert [path.name.split("-")[2] for path in _kept(tmp_path)] == ["new"]
    assert kept.load("new") == b"new model" and kept.load("old") is None


def test_a_folder_that_cannot_be_written_only_costs_time(tmp_path: Path, expected: np.ndarray) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder should be")
    assert np.array_equal(MiniLMEmbedder(cache_dir=blocker).embed(TEXTS), expected)
    assert blocker.read_text() == "a file where the folder should be"
    assert list(tmp_path.iterdir()) == [blocker]
