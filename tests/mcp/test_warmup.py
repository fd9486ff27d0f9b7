"""The warm-up: what a first call waits for, made ready on a thread of its own, without changing any answer."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from mcp import Client

from remember.mcp.server import build_server
from remember.mcp.warmup import WarmUp
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import open_store
from support import error, ok

pytestmark = pytest.mark.anyio


def test_the_steps_run_once_in_order_on_a_thread_of_their_own() -> None:
    ran: list[tuple[str, str]] = []
    warm = WarmUp([lambda: ran.append(("a", threading.current_thread().name)), lambda: ran.append(("b", "-"))])
    assert warm.pending
    warm.start()
    warm.start()
    warm.stop()
    assert ran == [("a", "remember-warm-up"), ("b", "-")]
    assert not warm.pending and not any(t.name == "remember-warm-up" for t in threading.enumerate())


def test_stop_waits_for_the_step_in_progress_and_skips_the_rest() -> None:
    begun, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def slow() -> None:
        begun.set()
        release.wait(10)
        ran.append("slow")

    warm = WarmUp([slow, lambda: ran.append("next")])
    warm.start()
    assert begun.wait(10)
    stopper = threading.Thread(target=warm.stop)
    stopper.start()
    stopper.join(0.2)
    assert stopper.is_alive()  # waiting for the step in progress
    release.set()
    stopper.join(10)
    assert ran == ["slow"]


def test_a_warm_up_stopped_before_it_starts_never_runs() -> None:
    ran: list[str] = []
    warm = WarmUp([lambda: ran.append("a")])
    warm.stop()
    warm.start()
    assert ran == [] and not warm.pending


def test_a_failing_step_is_not_raised_and_the_next_ones_run() -> None:
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("no model here")

    warm = WarmUp([broken, lambda: ran.append("after")])
    warm.start()
    warm.stop()
    assert ran == ["after"]


def test_nothing_to_do_starts_no_thread() -> None:
    warm = WarmUp([])
    assert not warm.pending
    warm.start()
    warm.stop()


def _services(tmp_path: Path, name: str, embedder: MiniLMEmbedder) -> Services:
    return Services.over(open_store(str(tmp_path / f"{name}.db")), embedder=embedder)


async def test_a_model_that_fails_to_load_fails_the_first_call_as_without_the_warm_up(tmp_path: Path) -> None:
    answers = []
    for warm_up in (False, True):
        services = _services(tmp_path, f"warm-{warm_up}", MiniLMEmbedder(model_path=tmp_path / "absent.onnx"))
        server = build_server(services, lambda: "alice", warm_up=warm_up)
        async with Client(server) as client:
            await client.list_tools()
            server.warm_up.start()
            server.warm_up.stop()  # waits until it has run (and failed)
            answers.append(error(await client.call_tool("remember_create_memory", {"content": "Lunch with Pedro"})))
        services.close()
    assert answers[0] == answers[1]
    assert "Cannot read the embedding model file" in answers[1]


async def test_the_first_create_answers_the_same_after_a_warm_up(tmp_path: Path) -> None:
    content = {"content": "Had lunch with Pedro at Luigi's on Elm Street, the carbonara was great"}
    answers = []
    for warm_up in (True, False):
        services = _services(tmp_path, f"same-{warm_up}", MiniLMEmbedder())
        server = build_server(services, lambda: "alice", warm_up=warm_up)
        async with Client(server) as client:
            await client.list_tools()
            server.warm_up.start()
            server.warm_up.stop()
            embedder = services.indexer.embedder
            assert isinstance(embedder, MiniLMEmbedder) and embedder.loaded is warm_up
            answers.append(ok(await client.call_tool("remember_create_memory", content)))
        services.close()
    warmed, cold = answers
    assert warmed["template_suggestions"] and warmed["template_suggestions"] == cold["template_suggestions"]
    assert warmed["content"] == cold["content"]
