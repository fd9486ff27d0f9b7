"""The default embedder on each CPU kernel path this machine can run, natively or under QEMU.

ONNX Runtime picks its int8 kernel by instruction set (search/embedders/int8_kernel.py).
This suite runs the embedder on the real CPU and, through ``qemu-x86_64 -cpu MODEL``
(Debian's ``qemu-user``), on emulated CPUs that take the other x86 kernels: AVX2
without VNNI (whose u8 x s8 kernel saturates) and AVX without AVX2 (SSE kernels).
For each, and for each way of running the products (``auto``: what the embedder
chooses; ``signed``: the int8 weights as they are, what every CPU ran before the
probe), it reports the cosine with the fp32 reference model on its nine sentences
and the worst cosine with the native vectors; with ``--cpus-retrieval``, LoCoMo
recall@5 with each path's vectors (the texts are embedded under emulation, about
25 minutes a path on 2 cores, then searched natively).

`python -m bench --only cpus [--cpus-retrieval]`
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.report import Table

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "search" / "data" / "minilm_reference.json"
#: Emulated CPUs and the int8 kernel each makes ONNX Runtime take.
EMULATED = {"Haswell-noTSX": "AVX2, no VNNI", "SandyBridge": "AVX, no AVX2 (SSE int8)"}
RETRIEVAL = False


def run(quick: bool = False) -> dict[str, Any]:
    if shutil.which("qemu-x86_64") is None:
        print("cpus: qemu-x86_64 is not installed (apt-get install qemu-user); native only")
    reference = json.loads(REFERENCE.read_text("utf-8"))
    paths = [("native", "auto"), ("native", "signed")]
    if shutil.which("qemu-x86_64"):
        paths += [(cpu, products) for cpu in EMULATED for products in ("auto", "signed")]
    with tempfile.TemporaryDirectory() as tmp:
        sentences = Path(tmp) / "sentences.json"
        sentences.write_text(json.dumps(reference["sentences"]))
        with ThreadPoolExecutor(2) as pool:
            done = list(pool.map(lambda p: embed_on(p[0], p[1], sentences, Path(tmp) / f"{p[0]}-{p[1]}"), paths))
    out = _agreement(reference, dict(zip(paths, done, strict=True)))
    if RETRIEVAL and not quick:
        out["locomo"] = retrieval([p for p in paths if p[0] != "SandyBridge"])
    return out


def embed_on(cpu: str, products: str, texts: Path, out: Path) -> dict[str, Any]:
    """Embed the texts of a JSON file on ``cpu`` (``native`` or a QEMU model) in a subprocess."""
    command = [sys.executable, "-m", "bench.cpus", products, str(texts), str(out)]
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    if cpu != "native":  # the real interpreter, with the venv's packages on the path
        site = next(p for p in sys.path if p.endswith("site-packages"))
        env["PYTHONPATH"] += os.pathsep + site
        command = ["qemu-x86_64", "-cpu", cpu, os.path.realpath(sys.executable), *command[1:]]
    subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
    import numpy as np

    return {"products": json.loads(out.with_suffix(".json").read_text()), "vectors": np.load(out.with_suffix(".npy"))}


def _agreement(reference: dict[str, Any], done: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    import numpy as np

    expected = np.asarray(reference["vectors"], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    native = done["native", "auto"]["vectors"]
    table = Table("The embedder on each kernel path", ["CPU", "asked", "ran", "fp32 ref: min", "median", "vs native"])
    rows = {}
    for (cpu, products), result in done.items():
        vectors = result["vectors"]
        cosines = (vectors * expected).sum(axis=1)
        native_cos = float((vectors * native).sum(axis=1).min())
        label = "native" if cpu == "native" else f"{cpu} ({EMULATED[cpu]})"
        table.add(label, products, result["products"], float(cosines.min()), float(np.median(cosines)), native_cos)
        rows[f"{cpu}/{products}"] = {
            "ran": result["products"],
            "reference_cosines": [round(float(c), 5) for c in cosines],
            "min_cosine_with_native": native_cos,
        }
    table.print()
    return {"paths": rows}


def retrieval(paths: list[tuple[str, str]]) -> dict[str, Any]:
    """LoCoMo recall@5 (service, ids) with the vectors each path computes for every text the run embeds."""
    import numpy as np

    from bench import locomo
    from bench.embedcache import cached_minilm

    data = json.loads(locomo.DATA.read_text())
    recorder = _Recording(cached_minilm())
    locomo.via_service(data, with_ids=True, embedder=recorder)
    texts = sorted(recorder.texts)
    scores: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "texts.json"
        listed.write_text(json.dumps(texts))
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda p: embed_on(p[0], p[1], listed, Path(tmp) / f"{p[0]}-{p[1]}"), paths))
    table = Table(f"LoCoMo with each path's vectors ({len(texts)} texts)", ["CPU", "asked", "ran", "recall@5"])
    for (cpu, products), result in zip(paths, runs, strict=True):
        lookup = _Lookup(dict(zip(texts, np.asarray(result["vectors"]), strict=True)))
        rows = locomo.via_service(data, with_ids=True, embedder=lookup)["None"]
        recall = locomo.summarise(rows)["overall"]["recall@5"]
        table.add(cpu, products, result["products"], recall)
        scores[f"{cpu}/{products}"] = recall
    table.print()
    return scores


class _Recording:
    """An embedder that notes every text it is given."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dimension = inner, inner.name, inner.dimension
        self.texts: set[str] = set()

    def embed(self, texts: list[str]) -> Any:
        self.texts.update(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.embed([text])[0]


class _Lookup:
    """An embedder answering from vectors computed elsewhere (every text must be among them)."""

    def __init__(self, vectors: dict[str, Any]) -> None:
        from remember.search.embedders.minilm import DIMENSION

        self.name, self.dimension, self._vectors = "onnx:all-MiniLM-L6-v2-int8", DIMENSION, vectors

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        from remember.search.embedders.base import empty_vectors

        return np.stack([self._vectors[t] for t in texts]) if texts else empty_vectors(self.dimension)

    def embed_query(self, text: str) -> Any:
        return self._vectors[text]


def _embed_here(products: str, texts: Path, out: Path) -> None:
    """The subprocess's side: embed the texts and write the vectors and the products that ran."""
    import numpy as np

    from remember.search.embedders import MiniLMEmbedder

    embedder = MiniLMEmbedder(products=products)  # type: ignore[arg-type]  # checked by the runtime
    vectors = embedder.embed(json.loads(texts.read_text("utf-8")))
    np.save(out.with_suffix(".npy"), vectors)
    out.with_suffix(".json").write_text(json.dumps(embedder.products))


if __name__ == "__main__":
    _embed_here(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
