"""The dashboard's import jobs: run in a thread as their caller, seen only by their user, one at a time."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from remember.caller import Caller
from remember.errors import Conflict, NotFound, ValidationFailed
from remember.web.jobs import KEPT, ImportJob, Jobs


def wait(jobs: Jobs, user: str, job: ImportJob) -> ImportJob:
    for _ in range(1000):
        found = jobs.get(user, job.id)
        if found.state != "running":
            return found
        threading.Event().wait(0.01)
    raise AssertionError("the job did not finish")


def test_a_job_runs_as_its_caller_and_its_progress_is_seen_while_it_runs() -> None:
    jobs, halfway, go_on = Jobs(), threading.Event(), threading.Event()

    def work(job: ImportJob) -> dict[str, Any]:
        job.total, job.done = 10, 4
        halfway.set()
        go_on.wait(30)
        job.done = 10
        return {"user": job.caller.user, "trust": job.caller.trust}

    job = jobs.start(Caller("ann", 0.4), "mem0", False, work)
    assert halfway.wait(30)
    running = jobs.get("ann", job.id).as_dict()
    assert (running["state"], running["done"], running["total"]) == ("running", 4, 10)
    assert "user" not in running
    with pytest.raises(Conflict, match="still running"):
        jobs.start(Caller("ann"), "mem0", False, work)
    with pytest.raises(NotFound):
        jobs.get("bob", job.id)
    go_on.set()
    done = wait(jobs, "ann", job)
    assert done.state == "done" and done.report == {"user": "ann", "trust": 0.4}
    assert done.finished_at is not None


def test_a_failed_job_keeps_the_error_and_a_bug_is_not_shown_in_detail() -> None:
    jobs = Jobs()

    def refused(_: ImportJob) -> dict[str, Any]:
        raise ValidationFailed.single("file", "format", "Cannot import the file: it is not JSON.")

    def broken(_: ImportJob) -> dict[str, Any]:
        raise RuntimeError("internal detail")

    failed = wait(jobs, "ann", jobs.start(Caller("ann"), "mem0", False, refused))
    assert failed.state == "failed" and failed.error is not None
    assert failed.error["message"] == "Cannot import the file: it is not JSON."
    assert failed.error["errors"][0]["field"] == "file"
    crashed = wait(jobs, "ann", jobs.start(Caller("ann"), "mem0", False, broken))
    assert crashed.error is not None and "internal detail" not in crashed.error["message"]


def test_only_the_last_finished_jobs_of_a_user_are_kept() -> None:
    jobs = Jobs()
    started = [wait(jobs, "ann", jobs.start(Caller("ann"), "mem0", True, lambda _: {})) for _ in range(KEPT + 3)]
    other = wait(jobs, "bob", jobs.start(Caller("bob"), "mem0", True, lambda _: {}))
    with pytest.raises(NotFound):
        jobs.get("ann", started[0].id)
    assert jobs.get("ann", started[-1].id).state == "done"
    assert jobs.get("bob", other.id).state == "done"


def test_the_oldest_finished_jobs_of_anyone_go_past_the_overall_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("remember.web.jobs.MAX_JOBS", 3)
    jobs = Jobs()
    made = [wait(jobs, f"u{i}", jobs.start(Caller(f"u{i}"), "mem0", True, lambda _: {})) for i in range(5)]
    for gone in made[:2]:
        with pytest.raises(NotFound):
            jobs.get(gone.user, gone.id)
    assert [jobs.get(j.user, j.id).state for j in made[2:]] == ["done"] * 3
