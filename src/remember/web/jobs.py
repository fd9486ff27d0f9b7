"""Imports started from the dashboard, each running in a thread of its own while the page polls it.

A job belongs to the user who started it and acts as that caller (user and trust
level) from start to end; ``Jobs.get`` finds only the asking user's jobs, so
another user's job id is as unknown as a made-up one. A user runs one import at a
time; the last ``KEPT`` finished jobs of each user are kept, ``MAX_JOBS`` in all
(in the server's memory: a restart forgets them).
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from remember.caller import Caller
from remember.clock import to_text, utc_now
from remember.errors import Conflict, NotFound, RememberError, excerpt
from remember.web.responses import error_body

KEPT = 20  # finished jobs kept per user
MAX_JOBS = 10_000  # finished jobs kept in all; the oldest go first
log = logging.getLogger(__name__)


@dataclass
class ImportJob:
    """How far an import is: records read, stored, skipped; at the end its report (or its error)."""

    id: str
    caller: Caller
    format: str
    dry_run: bool
    state: str = "running"  # running, done, failed
    total: int = 0  # memories to go through, once the file is read
    done: int = 0  # of them gone through
    read: int = 0
    stored: int = 0
    skipped: int = 0
    report: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    started_at: str = field(default_factory=lambda: to_text(utc_now()))
    finished_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "caller"}

    @property
    def user(self) -> str:
        return self.caller.user


Work = Callable[[ImportJob], dict[str, Any]]


class Jobs:
    def __init__(self) -> None:
        self._jobs: dict[str, ImportJob] = {}
        self._lock = threading.Lock()

    def start(self, caller: Caller, format: str, dry_run: bool, work: Work) -> ImportJob:
        """A new job of ``caller`` doing ``work`` in a thread; Conflict while another of theirs runs."""
        job = ImportJob(secrets.token_hex(8), caller, format, dry_run)
        with self._lock:
            if any(j.user == caller.user and j.state == "running" for j in self._jobs.values()):
                raise Conflict("An import of yours is still running: wait for it to finish, then start the next.")
            self._drop_old(caller.user)
            self._jobs[job.id] = job
        threading.Thread(target=self._run, args=(job, work), name=f"import-{job.id}", daemon=True).start()
        return job

    def get(self, user: str, job_id: str) -> ImportJob:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or job.user != user:
            raise NotFound(f"No import with id {excerpt(job_id)}: it may be from before the server restarted.")
        return job

    def _run(self, job: ImportJob, work: Work) -> None:
        try:
            job.report = work(job)
            job.state = "done"
        except RememberError as problem:
            job.error = {"errors": [], **error_body(problem)}
            job.state = "failed"
        except Exception:  # a bug: the page learns the import failed, the log keeps the details
            log.exception("import %s failed", job.id)
            message = "The import failed unexpectedly; the server's log has the details."
            job.error = {"error": "InternalError", "message": message, "errors": []}
            job.state = "failed"
        finally:
            job.finished_at = to_text(utc_now())

    def _drop_old(self, user: str) -> None:
        """Room for one more job: the user's oldest finished ones beyond KEPT, everyone's beyond MAX_JOBS."""
        finished = [j for j in self._jobs.values() if j.state != "running"]
        own = [j for j in finished if j.user == user]
        for old in own[: max(0, len(own) - KEPT + 1)] + finished[: max(0, len(finished) - MAX_JOBS + 1)]:
            self._jobs.pop(old.id, None)
