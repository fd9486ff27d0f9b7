"""`remember reindex` moves a store from the default embedder to the multilingual one and back (real models)."""

from __future__ import annotations

import pytest

from support import run, run_json


def test_reindex_moves_between_minilm_and_multilingual(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = ["Mon frère Lucas habite à Lyon.", "The budget review moved to Thursday.", "Anna spielt dienstags Tennis."]
    ids = [run_json(capsys, "add", n)["id"] for n in notes]

    monkeypatch.setenv("REMEMBER_EMBEDDER", "multilingual")
    code, _, err = run(capsys, "search", "Wo wohnt mein Bruder?", "--alpha", "1")
    assert code != 0 and "remember reindex" in err
    assert run_json(capsys, "reindex") == {"reindexed": 3}
    found = run_json(capsys, "search", "Wo wohnt mein Bruder?", "--alpha", "1")
    assert found["results"][0]["memory"]["id"] == ids[0]

    monkeypatch.delenv("REMEMBER_EMBEDDER")
    code, _, err = run(capsys, "search", "budget", "--alpha", "1")
    assert code != 0 and "remember reindex" in err
    assert run_json(capsys, "reindex") == {"reindexed": 3}
    assert (
        run_json(capsys, "search", "when is the budget review?", "--alpha", "1")["results"][0]["memory"]["id"] == ids[1]
    )
