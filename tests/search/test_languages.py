"""Telling a text's language with the real detector (py3langid's model, inside its wheel)."""

from __future__ import annotations

import pytest

from remember.search.languages import DETECTOR, LanguageDetector


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Mon frère Lucas habite à Lyon et travaille comme boulanger.", "fr"),
        ("Meine Schwester Anna spielt jeden Dienstag Tennis im Verein.", "de"),
        ("Mi tía Carmen me enseñó a hacer paella valenciana.", "es"),
        ("Ho prestato la mia tenda da campeggio a Giulia.", "it"),
        ("A minha mãe faz bacalhau com natas na véspera de Natal.", "pt"),
        ("Mijn zus Femke woont sinds kort in Utrecht.", "nl"),
        ("Caroline: I went to the support group yesterday and it was great.", "en"),
    ],
)
def test_languages_are_told(text: str, language: str) -> None:
    assert DETECTOR.language(text) == language


def test_a_text_too_short_to_tell_has_no_language() -> None:
    assert DETECTOR.language("ok") is None
    assert DETECTOR.language("12:30 !!") is None
    assert LanguageDetector().languages(["Thanks!", "Merci beaucoup pour le dîner d'hier soir"]) == [None, "fr"]
