"""Suggestions for a memory just stored reuse the vector its text was stored with, and say the same."""

from __future__ import annotations

from conftest import TickingClock
from remember.caller import Caller
from remember.search.embedders import MiniLMEmbedder
from remember.service import Services
from remember.store import Store

TEXTS = (
    "Met Sarah Chen, a PM at Google, for coffee at Blue Bottle on Tuesday; she will introduce me to their design lead.",
    "Finished reading Dune by Frank Herbert, five stars, the best science fiction I have read.",
    "Pancakes: two cups of flour, two eggs, a cup of milk; whisk and fry for two minutes a side.",
    "Caroline: Hey Mel! Good to see you! How have you been?",
)


def test_suggestions_after_a_create_embed_nothing_again_and_match_a_fresh_model(
    store: Store, clock: TickingClock
) -> None:
    embedder = MiniLMEmbedder()
    services = Services.over(store, clock, embedder)
    fresh = Services.over(store, clock, MiniLMEmbedder())
    suggested = 0
    for text in TEXTS:
        memory = services.memories.create(Caller("alice"), {"content": text})
        hits = embedder.recent_hits
        found = services.suggestions.for_memory(Caller("alice"), memory)
        assert embedder.recent_hits == hits + 1  # the text was not run through the model again
        # Another user, another embedder that never saw the text: the same suggestions, the same figures.
        expected = fresh.suggestions.for_memory(Caller("bob"), memory)
        assert [s.as_dict() for s in found] == [s.as_dict() for s in expected]
        suggested += len(found)
    assert suggested > 0
