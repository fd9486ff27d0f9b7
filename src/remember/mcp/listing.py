"""The ``tools/list`` answer, kept on disk between starts.

Describing the tools means importing their modules and pydantic building an argument
model, an output model and two JSON Schemas for each: about a quarter of a cold start.
The answer only changes when the code or the libraries that produce it change, so
``serve`` keeps it in ``$REMEMBER_HOME/cache/tools.json`` under a key made of
the versions of Python (and its optimisation level: ``-OO`` drops the
docstrings that describe the tools), remember, pydantic and the MCP SDK, and
the size and modification time of every source file of this package (the way
Python keys its bytecode cache). A missing, stale, unreadable or malformed file
is rebuilt; a directory that cannot be written is only a slower start.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pydantic
import pydantic_core
from mcp_types import Tool

import remember

Listing = list[dict[str, Any]]
FILE_NAME = "tools.json"
PACKAGE = Path(remember.__file__).parent


def fingerprint(package: Path = PACKAGE) -> str | None:
    """A key that changes whenever the tool descriptions could (``package``: the source tree).

    None when the sources cannot be seen (no ``.py`` files, or one vanished while being
    read, as during an upgrade): the listing is then built and not kept.
    """
    versions = (
        sys.version, f"optimize={sys.flags.optimize}", remember.__version__, _mcp_version(),
        pydantic.VERSION, pydantic_core.__version__,
    )  # fmt: skip
    digest = hashlib.sha256("\0".join(versions).encode())
    seen = 0
    try:
        for path in _sources(package):
            stat = path.stat()
            digest.update(f"\0{path}:{stat.st_size}:{stat.st_mtime_ns}".encode())
            seen += 1
    except OSError:
        return None
    return digest.hexdigest() if seen else None


def _mcp_version() -> str:
    try:
        return metadata.version("mcp")
    except metadata.PackageNotFoundError:  # pragma: no cover - the SDK is a dependency
        return "?"


def _sources(root: Path) -> Iterator[Path]:
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder, name)


class ListingCache:
    """One JSON file holding the tool descriptions and the key they were made under.

    The key is taken when the cache is made, at the server's start: sources changed
    on disk after the code was imported must not lend the running code's listing
    their key.
    """

    def __init__(self, folder: Path, key: Callable[[], str | None] = fingerprint) -> None:
        self.path = folder / FILE_NAME
        self._key = key()

    def load(self) -> list[Tool] | None:
        """The kept listing, or None when it is missing, stale or not tool descriptions."""
        if self._key is None:
            return None
        found = self._load(self._key)
        if found is None:
            return None
        try:
            return [Tool.model_validate(tool) for tool in found]
        except ValueError:  # well-formed JSON, but not tool descriptions (pydantic errors are ValueErrors)
            return None

    def save(self, tools: list[Tool]) -> None:
        """Keep ``tools`` (nothing is kept when the sources cannot be seen)."""
        if self._key is not None:
            self._save(self._key, [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools])

    def _load(self, key: str) -> Listing | None:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != key:
            return None
        tools = stored.get("tools")
        if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
            return None
        return tools

    def _save(self, key: str, listing: Listing) -> None:
        """Write atomically: a reader sees the old file or the new one, never half of one."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".tools-", suffix=".json")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"key": key, "tools": listing}, out)
            os.replace(temporary, self.path)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
