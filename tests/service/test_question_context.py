"""The context a question is answered from: a templated memory shows its fields beside its own text."""

from __future__ import annotations

import pytest

from remember.caller import Caller
from remember.service import Services
from remember.service.question_context import question_context

ALICE = "alice"
WINE = {
    "name": "Wine tasting",
    "fields": [
        {"name": "wine", "type": "string", "required": True},
        {"name": "vintage", "type": "integer"},
        {"name": "score", "type": "number"},
    ],
}


@pytest.fixture
def wine(services: Services) -> str:
    return services.templates.create(Caller(ALICE), WINE).id


def test_a_templated_memory_with_its_own_text_shows_its_fields(services: Services, wine: str) -> None:
    fields = {"wine": "Barca Velha", "vintage": 2011, "score": 96}
    memory = services.memories.create(
        Caller(ALICE), {"content": "Tasted at Ana's place", "template_id": wine, "structured_content": fields}
    )
    services.memories.create(Caller(ALICE), {"content": "Dentist appointment moved to Tuesday."})
    packed = question_context(
        services.search, Caller(ALICE), "what score did I give Barca Velha", templates=services.templates
    )
    assert packed.sources[0].memory_id == memory.id
    first = packed.text.split("\n[2]")[0]
    assert first.endswith("Barca Velha: Tasted at Ana's place\nWine: Barca Velha\nVintage: 2011\nScore: 96")


def test_fields_that_are_the_text_are_shown_once(services: Services, wine: str) -> None:
    made = services.memories.create(
        Caller(ALICE), {"template_id": wine, "structured_content": {"wine": "Pera Manca", "score": 93}}
    )
    assert made.content == "Wine: Pera Manca\nScore: 93"
    assert services.templates.view_of(Caller(ALICE)).text_of(made) == made.content
    packed = question_context(services.search, Caller(ALICE), "Pera Manca", templates=services.templates)
    assert packed.text.count("Score: 93") == 1


def test_a_cut_memory_counts_its_fields(services: Services, wine: str) -> None:
    """The budget covers the fields too: a memory cut within them is marked truncated."""
    long_note = "A long evening of tasting. " * 14
    services.memories.create(
        Caller(ALICE),
        {"content": long_note, "template_id": wine, "structured_content": {"wine": "Barca Velha", "score": 96}},
    )
    packed = question_context(
        services.search, Caller(ALICE), "Barca Velha", templates=services.templates, token_budget=100
    )
    assert packed.sources[0].truncated and packed.tokens <= 100
    roomy = question_context(services.search, Caller(ALICE), "Barca Velha", templates=services.templates)
    assert not roomy.sources[0].truncated and roomy.text.endswith("Score: 96")
