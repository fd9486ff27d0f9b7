"""A call past its time limit stops part-way: a walk of related memories and template inference check the
limit between steps (it follows the call into its worker thread), and stop with GivenUp, changing nothing."""

from __future__ import annotations

import asyncio

import anyio.to_thread
import pytest

from bench.infer import mix
from conftest import TickingClock
from remember import deadline
from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.service import RelationshipDraft, Services
from remember.store import Store

ALICE = Caller("alice")


def test_check_stops_only_past_the_limit() -> None:
    deadline.check()  # no limit: never stops
    with deadline.limit(60):
        deadline.check()
    with deadline.limit(-1.0), pytest.raises(deadline.GivenUp, match="REMEMBER_CALL_TIMEOUT"):
        deadline.check()
    deadline.check()  # the limit ended with its block


def test_a_walk_and_an_inference_past_the_limit_stop(
    store: Store, clock: TickingClock, embedder: MiniLMEmbedder
) -> None:
    services = Services.over(store, clock, embedder)
    ids = [m.id for m in services.memories.create_many(ALICE, [{"content": t} for t, _ in mix(per_kind=4)])]
    services.relationships.create(ALICE, RelationshipDraft(memory_ids=ids[:2], relationship_type="about"))
    before = services.memories.list(ALICE, limit=100)
    assert services.related.related(ALICE, ids[0], depth=3)  # within the limit, it answers
    assert services.inference.propose(ALICE).proposals
    with deadline.limit(-1.0):
        with pytest.raises(deadline.GivenUp):
            services.related.related(ALICE, ids[0], depth=3)
        with pytest.raises(deadline.GivenUp):
            services.inference.propose(ALICE)
    assert services.memories.list(ALICE, limit=100) == before


def test_the_limit_follows_a_call_into_its_worker_thread() -> None:
    async def call() -> None:
        await asyncio.sleep(0.05)
        await anyio.to_thread.run_sync(deadline.check)

    async def serve() -> BaseException | None:
        with deadline.limit(0.01):  # as the MCP server starts a call it may give up on
            task = asyncio.ensure_future(call())
        done, _ = await asyncio.wait({task}, timeout=5)
        deadline.check()  # the server itself is not limited
        return next(iter(done)).exception()

    assert isinstance(asyncio.run(serve()), deadline.GivenUp)
