"""The fusion of the keyword and vector sides: an alpha given is used as it is; without one, the
candidates' lengths and the two sides' shapes decide."""

from __future__ import annotations

import pytest

from remember.search.fusion import (
    LONG_TEXT,
    above_floor,
    fuse,
    fuse_by_shape,
    long_text_factor,
    shape_alpha,
)

KEYWORD = {"a": 8.0, "b": 4.0, "c": 2.0}
COSINE = {"a": 0.5, "b": 0.7, "c": 0.3, "d": 0.6}


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.55, 1.0])
def test_an_alpha_given_is_the_blend_exactly(alpha: float) -> None:
    by_id = {f.memory_id: f for f in fuse(KEYWORD, COSINE, alpha)}
    keyword = {"a": 1.0, "b": 0.5, "c": 0.25, "d": 0.0}  # by the best keyword score
    semantic = {"a": 0.5, "b": 1.0, "c": 0.0, "d": 0.75}  # min-max over the candidates
    for memory_id, f in by_id.items():
        assert (f.keyword, f.semantic) == (pytest.approx(keyword[memory_id]), pytest.approx(semantic[memory_id]))
        assert f.fused == alpha * f.semantic + (1 - alpha) * f.keyword  # no other weighing
        assert f.long_text == 1.0
    assert [i for i, f in by_id.items() if f.matched] == ["a", "b", "c"]


def test_a_text_up_to_a_paragraph_keeps_its_keyword_score_and_a_longer_one_is_scaled_down() -> None:
    assert long_text_factor(0) == long_text_factor(LONG_TEXT) == 1.0
    assert long_text_factor(4 * LONG_TEXT) == pytest.approx(0.5)
    assert long_text_factor(LONG_TEXT + 1) < 1.0


def test_without_an_alpha_a_long_text_no_longer_wins_on_its_keywords_alone() -> None:
    keyword = {"essay": 10.0, "answer": 8.0}
    cosine = {"essay": 0.5, "answer": 0.5}
    assert max(fuse(keyword, cosine, 0.3), key=lambda f: f.fused).memory_id == "essay"
    _, fused = fuse_by_shape(keyword, cosine, {"essay": 16 * LONG_TEXT, "answer": 80})
    by_id = {f.memory_id: f for f in fused}
    assert by_id["essay"].long_text == pytest.approx(0.25)
    assert (by_id["answer"].keyword, by_id["essay"].keyword) == (1.0, pytest.approx(10 * 0.25 / 8))
    assert by_id["answer"].fused > by_id["essay"].fused


def test_the_side_whose_best_stands_out_leads() -> None:
    one_stands_out = [1.0, 0.2, 0.2, 0.2, 0.2, 0.1]
    all_alike = [1.0, 0.95, 0.9, 0.9, 0.9, 0.0]
    assert shape_alpha(one_stands_out, all_alike) == pytest.approx(0.1 / 0.9)  # keywords lead
    assert shape_alpha(all_alike, one_stands_out) == pytest.approx(0.8 / 0.9)  # meaning leads
    assert shape_alpha([1.0, 1.0], [1.0, 1.0]) == 0.5  # neither drops
    assert shape_alpha([], [1.0, 0.5, 0.0]) == 1.0  # no keyword found anything


def test_the_alpha_chosen_is_the_one_the_scores_are_blended_by() -> None:
    keyword = {f"k{n}": 10.0 - n for n in range(8)}
    cosine = {f"k{n}": 0.3 + n / 50 for n in range(8)} | {"v": 0.9}
    alpha, fused = fuse_by_shape(keyword, cosine, {})
    keywords, semantics = [f.keyword for f in fused], [f.semantic for f in fused]
    assert alpha == shape_alpha(keywords, semantics)
    assert all(f.fused == alpha * f.semantic + (1 - alpha) * f.keyword for f in fused)


def test_the_floor_keeps_keyword_matches_and_close_meanings() -> None:
    fused = fuse({"a": 1.0}, {"a": 0.05, "b": 0.25, "c": 0.1}, 0.3)
    assert [f.memory_id for f in above_floor(fused, 0.2)] == ["a", "b"]


def test_a_candidate_in_another_language_is_fused_by_meaning_alone() -> None:
    keyword = {"english": 4.0, "french": 0.0}
    cosine = {"english": 0.80, "french": 0.90, "far": 0.70}
    fused = {f.memory_id: f for f in fuse(keyword, cosine, 0.5, apart={"french"})}
    assert fused["french"].fused == pytest.approx(1.0)  # its semantic share, whole: no keyword evidence missing
    assert fused["english"].fused == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert fused["far"].fused == pytest.approx(0.0)
    alpha, shaped = fuse_by_shape(keyword, cosine, {}, apart={"english"})
    by_id = {f.memory_id: f for f in shaped}
    assert by_id["english"].fused == pytest.approx(by_id["english"].semantic)  # a chance shared word counts nothing
    assert by_id["french"].fused == pytest.approx(alpha * by_id["french"].semantic)
