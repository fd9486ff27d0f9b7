"""A zip of Markdown notes, uploaded for a basic-memory import, unpacked with care.

Only ``.md`` members (and the template files of remember's own Markdown export, YAML in
``remember-templates/``) are unpacked, each under the target folder (a member named
``../x.md`` or ``/etc/x.md`` is refused, as is a link), and the archive is bounded:
at most ``MAX_NOTES`` notes and ``MAX_UNPACKED`` bytes unpacked in all, counted
while unpacking (a small archive that inflates to gigabytes stops there).
"""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path, PurePosixPath

from remember.errors import ValidationFailed
from remember.service.import_export.peers import template_files

MAX_NOTES = 10_000
MAX_UNPACKED = 64 << 20  # bytes of notes unpacked from one upload
CHUNK = 1 << 16


def unpack(data: bytes, folder: Path) -> int:
    """The ``.md`` notes of the zip ``data`` written under ``folder``; how many."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _refused(f"it is not a readable zip ({exc}).") from exc
    folder.mkdir(parents=True)
    written = budget = 0
    with archive:
        for member in archive.infolist():
            if member.is_dir() or not _wanted(member.filename):
                continue
            written += 1
            if written > MAX_NOTES:
                raise _refused(f"it holds more than {MAX_NOTES} notes; import it in parts.")
            budget = _extract(archive, member, _target(folder, member), budget)
    return written


def _wanted(name: str) -> bool:
    """A note, or a template file of remember's export."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.suffix.lower() == ".md":
        return True
    return path.parent.as_posix() == template_files.FOLDER and path.suffix.lower() in (".yaml", ".yml")


def _target(folder: Path, member: zipfile.ZipInfo) -> Path:
    name = PurePosixPath(member.filename.replace("\\", "/"))
    if name.is_absolute() or ".." in name.parts or stat.S_ISLNK(member.external_attr >> 16):
        raise _refused(f"its member {member.filename[:100]!r} points outside the archive.")
    target = folder.joinpath(*name.parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # e.g. a.md and a.md/b.md: a note where a folder must be
        raise _refused(f"its member {member.filename[:100]!r} cannot be unpacked ({_why(exc)}).") from exc
    return target


def _extract(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, budget: int) -> int:
    try:
        with archive.open(member) as source, target.open("xb") as out:
            while chunk := source.read(CHUNK):
                budget += len(chunk)
                if budget > MAX_UNPACKED:
                    raise _refused(f"its notes unpack to more than {MAX_UNPACKED >> 20} MiB; import it in parts.")
                out.write(chunk)
    except OSError as exc:  # its message would name the server's temporary folder
        raise _refused(f"its member {member.filename[:100]!r} cannot be unpacked ({_why(exc)}).") from exc
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as exc:
        raise _refused(f"its member {member.filename[:100]!r} cannot be unpacked ({exc}).") from exc
    return budget


def _why(exc: OSError) -> str:
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return "another member of the archive has the same path, or a note stands where a folder must"
    return exc.strerror or type(exc).__name__


def _refused(why: str) -> ValidationFailed:
    return ValidationFailed.single("file", "format", f"Cannot import the zip of notes: {why} Nothing was imported.")
