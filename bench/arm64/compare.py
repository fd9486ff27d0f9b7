"""Compare RESULTS/<cpu>-<products>.npy with the fp32 reference and with this machine's vectors.

Usage: compare.py [RESULTS]   (default /tmp/arm/results; native-<products>.npy must be there)
"""

import json
import sys
from pathlib import Path

import numpy as np

RESULTS = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/arm/results")
REFERENCE = Path(__file__).resolve().parents[2] / "tests" / "search" / "data" / "minilm_reference.json"
CPUS = ["native", "cortex-a53", "cortex-a76", "neoverse-n1", "max"]
PRODUCTS = ["auto", "signed", "unsigned", "float"]


def main() -> None:
    expected = np.asarray(json.loads(REFERENCE.read_text())["vectors"], dtype=np.float64)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    runs = {}
    for cpu in CPUS:
        for products in PRODUCTS:
            path = RESULTS / f"{cpu}-{products}.npy"
            if path.exists():
                ran = json.loads(path.with_suffix(".json").read_text())
                runs[cpu, products] = (np.load(path).astype(np.float64), ran)
    print("| CPU | asked | ran | reference: min | median | per sentence | worst cosine with native |")
    print("|---|---|---|---|---|---|---|")
    for (cpu, products), (vectors, ran) in runs.items():
        cosines = (vectors * expected).sum(axis=1)
        native = (vectors * runs["native", products][0]).sum(axis=1).min()
        each = " ".join(f"{c:.5f}" for c in cosines)
        low, mid = cosines.min(), np.median(cosines)
        print(f"| {cpu} | {products} | {ran} | {low:.5f} | {mid:.5f} | {each} | {native:.7f} |")
    groups: dict[bytes, list[str]] = {}
    for (cpu, products), (vectors, _) in runs.items():
        groups.setdefault(vectors.astype(np.float32).tobytes(), []).append(f"{cpu}/{products}")
    print("\nBit-identical groups:")
    for group in groups.values():
        print("  " + ", ".join(group))


if __name__ == "__main__":
    main()
