"""Exact int8 products on every CPU: the probe, and the embedder on emulated CPUs (QEMU user mode).

ONNX Runtime's u8 x s8 kernel saturates on x86 CPUs with AVX2 and no VNNI; the
probe must see that and the embedder then run its weights as uint8, giving the
vectors other CPUs give. This machine's own kernel is one path; ``qemu-x86_64
-cpu MODEL`` runs the real ONNX Runtime on emulated CPUs that take the others
(docs/embeddings.md, "What may differ between machines").
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remember.search.embedders import MiniLMEmbedder
from remember.search.embedders.int8_kernel import exact_weights, probe

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text("utf-8"))
SRC = Path(__file__).resolve().parents[2] / "src"
#: What the embedder must choose on each emulated CPU, and the kernel that CPU makes ONNX Runtime take.
EMULATED = {"Haswell-noTSX": "unsigned", "SandyBridge": "signed"}  # AVX2 without VNNI; AVX without AVX2


def reference_cosines(vectors: np.ndarray) -> np.ndarray:
    reference = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    cosines: np.ndarray = (vectors * reference).sum(axis=1)
    return cosines


def test_the_unsigned_products_are_exact_here() -> None:
    assert probe("unsigned")  # u8 x u8 kernels widen before they add: exact on every CPU measured


def test_the_choice_follows_the_probe() -> None:
    assert exact_weights() == ("signed" if probe("signed") else "unsigned")
    assert MiniLMEmbedder().products == exact_weights()


def test_both_exact_forms_give_the_same_vectors_bit_for_bit() -> None:
    texts = REFERENCE["sentences"]
    chosen = MiniLMEmbedder(threads=1).embed(texts)
    np.testing.assert_array_equal(MiniLMEmbedder(threads=1, products="unsigned").embed(texts), chosen)
    signed = MiniLMEmbedder(threads=1, products="signed").embed(texts)
    if probe("signed"):
        np.testing.assert_array_equal(signed, chosen)
    else:  # this CPU's kernel saturates: what every such CPU computed before the probe
        assert (signed * chosen).sum(axis=1).min() < 0.999


def test_float_products_are_the_fallback_and_closest_to_the_reference() -> None:
    embedder = MiniLMEmbedder(threads=1, products="float")
    cosines = reference_cosines(embedder.embed(REFERENCE["sentences"]))
    assert embedder.products == "float"
    assert cosines.min() >= 0.996, cosines  # measured 0.9964 for "ok", 0.9994-0.9996 for the others


_EMBED = """
import json, sys
from remember.search.embedders import MiniLMEmbedder
from remember.search.embedders.int8_kernel import probe
embedder = MiniLMEmbedder(threads=1)
vectors = embedder.embed(json.loads(sys.argv[1]))
print(json.dumps({"products": embedder.products, "signed_exact": probe("signed"),
                  "vectors": vectors.tolist()}))
"""


def _emulated(cpu: str, texts: list[str]) -> dict[str, Any]:
    qemu = shutil.which("qemu-x86_64")
    if qemu is None or platform.machine() != "x86_64" or sys.platform != "linux":
        if os.environ.get("CI") and platform.machine() == "x86_64":
            pytest.fail("CI must run the emulated CPUs: scripts/test installs qemu-user as root")
        pytest.skip("needs qemu-x86_64 (Debian's qemu-user) on x86_64 Linux")
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(SRC), *site])}
    command = [qemu, "-cpu", cpu, os.path.realpath(sys.executable), "-c", _EMBED, json.dumps(texts)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("cpu", sorted(EMULATED))
def test_an_emulated_cpu_chooses_exact_products_and_agrees_with_the_reference(cpu: str) -> None:
    texts = REFERENCE["sentences"]
    there = _emulated(cpu, texts)
    assert there["products"] == EMULATED[cpu]
    assert there["signed_exact"] == (EMULATED[cpu] == "signed")
    vectors = np.asarray(there["vectors"], dtype=np.float32)
    cosines = reference_cosines(vectors)
    assert cosines.min() >= 0.96, cosines  # the bound of test_embedders_minilm, on every path
    assert np.median(cosines) >= 0.99, cosines
    here = MiniLMEmbedder(threads=1).embed(texts)
    agreement = (vectors * here).sum(axis=1)
    # The same integers in every product; what is left is float rounding (LayerNorm, GELU, softmax
    # kernels per instruction set) that an input's 8-bit quantization may turn into a step. Measured:
    # Haswell 1.0 on 8 sentences and 0.99997 on the longest; SandyBridge (no FMA) 0.985 at worst, on
    # "ok". A saturating kernel gave 0.960.
    assert agreement.min() >= 0.98, agreement
