"""Template inference over a synthetic mix of memories of known kinds, with the real MiniLM model."""

from __future__ import annotations

from datetime import date

from bench.infer import TODAY, mix, score
from remember.search.embedders import MiniLMEmbedder
from remember.templates.infer import Note, missing_fields, propose


def test_each_kind_is_covered_and_few_proposals_are_spurious() -> None:
    rows = mix()
    vectors = MiniLMEmbedder().embed([text for text, _ in rows])
    notes = [Note(f"m{i}", text, [float(v) for v in vectors[i]]) for i, (text, _) in enumerate(rows)]
    proposals = propose(notes, TODAY)
    result = score(rows, proposals)
    assert min(result["coverage"].values()) >= 0.8
    assert result["spurious_per_5"] <= 1
    wine = next(p for p in proposals if "Merlot" in " ".join(p.examples) or "wine" in p.keywords)
    assert {"rating", "vintage"} & {f.name for f in wine.fields}
    assert wine.definition()["fields"][0] == {"name": "summary", "type": "text"}


def test_a_field_the_memories_keep_stating_is_noticed() -> None:
    texts = [f"Loved it, ISBN 978014{n}000000, 4/5" for n in range(4)] + ["no code here"]
    [(found, count)] = missing_fields(texts, ["title", "rating"])
    assert (found.name, count) == ("isbn", 4)
    assert missing_fields(texts, ["isbn", "title"]) == []
    assert date(2026, 1, 1) < TODAY
