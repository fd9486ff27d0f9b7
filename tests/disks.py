"""Real disk faults for tests: mounts (a read-only bind, a small tmpfs) where the machine allows them,
and filling a disk to its last byte."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path


def mount(*argv: str) -> str | None:
    """None when the mount worked, else why it could not be made."""
    if os.geteuid() != 0:
        return "mounting needs root"
    done = subprocess.run(["mount", *argv], capture_output=True, text=True, check=False)
    return None if done.returncode == 0 else f"mount failed: {done.stderr.strip()}"


def small_tmpfs(folder: Path, size: str = "8m") -> str | None:
    """Mount a tmpfs of ``size`` on ``folder`` (made if missing); None, or why it could not be."""
    folder.mkdir(parents=True, exist_ok=True)
    return mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))


def unmount(folder: Path) -> None:
    subprocess.run(["umount", "--lazy", str(folder)], check=True)


def fill_disk(ballast: Path) -> None:
    """Write ``ballast`` until the disk has no space left (unbuffered: a buffer left over would fail
    again when the file closes, depending on how much space there was)."""
    try:
        with ballast.open("wb", buffering=0) as handle:
            while True:
                handle.write(b"\0" * 65_536)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
