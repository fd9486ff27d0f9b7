"""``suggest`` and ``score_templates``: ranking, threshold, limit, reasons, prefill, with and without the model."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from remember.search.embedders import MiniLMEmbedder
from remember.templates import builtin_templates, parse_template
from remember.templates.suggest import Suggestion, score_templates, suggest
from remember.templates.suggest.score import reason

NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)


@pytest.mark.parametrize("with_model", [True, False])
def test_the_spec_example(minilm: MiniLMEmbedder, with_model: bool) -> None:
    found = suggest("Had great sushi at Nobu yesterday", builtin_templates(), now=NOW,
                    embedder=minilm if with_model else None)  # fmt: skip
    assert found[0].template_id == "builtin:restaurant_review"
    assert found[0].prefill == {"restaurant_name": "Nobu", "last_visited": "2026-02-10T00:00:00.000000Z"}
    assert "matched 'sushi'" in found[0].reason and "mentions a place" in found[0].reason
    assert 0.5 <= found[0].confidence <= 1


def test_as_dict_is_plain_json() -> None:
    suggestion = Suggestion("builtin:task", "Task", "d", 0.7, "matched 'todo'", {"due_date": "2026-02-13"})
    assert suggestion.as_dict() == {"template_id": "builtin:task", "name": "Task", "description": "d",
                                    "confidence": 0.7, "reason": "matched 'todo'",
                                    "prefill": {"due_date": "2026-02-13"}}  # fmt: skip


def test_threshold_and_limit(minilm: MiniLMEmbedder) -> None:
    content = "Watched the new season on Netflix, then read a chapter of my book and cooked a recipe"
    everything = suggest(content, builtin_templates(), now=NOW, embedder=minilm, threshold=0.0, limit=20)
    assert len(everything) == 15
    assert [s.confidence for s in everything] == sorted((s.confidence for s in everything), reverse=True)
    assert len(suggest(content, builtin_templates(), now=NOW, embedder=minilm, limit=2)) == 2
    assert suggest(content, builtin_templates(), now=NOW, embedder=minilm, threshold=1.01) == []
    assert suggest(content, builtin_templates(), now=NOW, embedder=minilm, limit=0) == []


def test_small_talk_and_questions_get_nothing(minilm: MiniLMEmbedder) -> None:
    for content in ("", "   ", "thanks!", "What's the weather tomorrow?", "lol ok"):
        assert suggest(content, builtin_templates(), now=NOW, embedder=minilm) == [], content


def test_a_request_lowers_the_score() -> None:
    statement, question = (
        {s.definition.id: s for s in score_templates(text, builtin_templates(), now=NOW)}["builtin:restaurant_review"]
        for text in ("the restaurant was great", "which restaurant was great?")
    )
    assert question.confidence < statement.confidence
    assert question.signals.request
    assert "question or request" in reason(question.signals)


def test_context_raises_a_template_that_asks_for_it() -> None:
    plain = _confidence("Great ramen tonight", None)
    located = _confidence("Great ramen tonight", {"location": "Ippudo, 4th Ave", "time_of_day": "dinner"})
    wrong = _confidence("Great ramen tonight", {"location_present": False, "time_of_day": "morning"})
    assert wrong < plain < located


def _confidence(content: str, context: dict[str, object] | None) -> float:
    scores = score_templates(content, builtin_templates(), now=NOW, context=context)
    return next(s.confidence for s in scores if s.definition.id == "builtin:restaurant_review")


def test_user_templates_and_inheritance() -> None:
    wine = parse_template({"id": "u:wine", "name": "Wine Note", "description": "A wine you tasted.",
                           "parent_template_id": "builtin:restaurant_review", "auto_apply": True,
                           "trigger_keywords": ["wine", "bottle of", "vintage"],
                           "fields": [{"name": "grape", "type": "string"}]})  # fmt: skip
    found = suggest("Opened a bottle of Barolo, 4/5", [wine], now=NOW)
    assert [s.template_id for s in found] == ["u:wine"]
    assert found[0].prefill == {"rating": 4.0}  # the inherited rating field


def test_a_template_whose_parent_is_gone_is_suggested_without_prefill() -> None:
    orphan = parse_template({"id": "u:o", "name": "Orphan", "parent_template_id": "u:missing", "auto_apply": True,
                             "trigger_keywords": ["orphan note"],
                             "fields": [{"name": "rating", "type": "number"}]})  # fmt: skip
    [found] = suggest("orphan note, 5 stars", [orphan], now=NOW)
    assert found.prefill == {}


def test_a_user_template_with_examples_is_suggested_by_meaning(minilm: MiniLMEmbedder) -> None:
    plants = {"id": "u:plants", "name": "Plant Care", "auto_apply": True, "trigger_keywords": ["repot"],
              "fields": [{"name": "plant", "type": "string"}, {"name": "note", "type": "text"}]}  # fmt: skip
    examples = ["The monstera has a new leaf unfurling", "Watered the ferns, soil was bone dry",
                "Fiddle leaf fig is dropping leaves again", "Moved the succulents to the sunny windowsill",
                "Basil on the balcony is finally bushy"]  # fmt: skip
    content = "Watered the cactus, it looks happier"
    without = parse_template(plants)
    with_examples = parse_template({**plants, "examples": examples})
    assert suggest(content, [without], now=NOW, embedder=minilm) == []
    [found] = suggest(content, [with_examples], now=NOW, embedder=minilm)
    assert found.template_id == "u:plants" and "like its examples" in found.reason
    # Without an embedder, examples play no part.
    assert suggest(content, [with_examples], now=NOW) == []
    assert suggest("Unrelated: what time is it in Tokyo?", [with_examples], now=NOW, embedder=minilm) == []


def test_templates_without_examples_keep_the_keyword_and_description_path(minilm: MiniLMEmbedder) -> None:
    bare = [replace(template, examples=()) for template in builtin_templates()]
    [score, *_] = score_templates("Had dinner at Luigi's, the carbonara was perfect", bare, now=NOW, embedder=minilm)
    assert score.definition.id == "builtin:restaurant_review"
    assert score.signals.examples is None and score.signals.summary is not None
    assert score.confidence >= 0.5
    # A built-in with examples and a user's template without compete on one scale.
    mixed = [*builtin_templates(), replace(bare[0], id="u:copy", name="My Book Log")]
    found = suggest("finished reading a novel by Le Guin, loved the prose", mixed, now=NOW, embedder=minilm)
    assert {"builtin:book_review", "u:copy"} <= {s.template_id for s in found}


def test_small_talk_lowers_every_template(minilm: MiniLMEmbedder) -> None:
    templates = builtin_templates()
    content = "ok thanks, that's all for now"
    with_talk = score_templates(content, templates, now=NOW, embedder=minilm)
    without = {s.definition.id: s for s in score_templates(content, templates, now=NOW, embedder=minilm, small_talk=())}
    assert all(s.signals.small_talk is not None and s.signals.small_talk > 0.2 for s in with_talk)
    assert all(s.confidence < without[s.definition.id].confidence for s in with_talk if s.confidence > 0)
    assert suggest(content, templates, now=NOW, embedder=minilm) == []
    # Without an embedder there is no small-talk signal.
    assert all(s.signals.small_talk is None for s in score_templates(content, templates, now=NOW))
