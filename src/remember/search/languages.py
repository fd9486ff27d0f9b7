"""The language a text is written in, for weighing keyword evidence across languages.

Keywords connect a question to a memory only when both are in one language: a German question shares
no words with a French memory, and the words it does share with an English one (a name, a place) say
little about what it asks. With an embedder whose vectors cross languages (the multilingual one), the
search weighs a keyword match by whether the memory's language is the question's (``fusion.by_language``).

The detector is py3langid (langid.py's model, in its wheel: nothing downloaded), installed with the
``multilingual`` extra, loaded on first use (about a second) and then 0.05-0.3 ms a text. A text too
short to tell (under ``MIN_LETTERS`` letters) or told with less than ``MIN_CONFIDENCE`` has no language.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from remember.errors import ConfigError

#: Languages told apart; a text in another is given the nearest of them or, unsure, none.
LANGUAGES = (
    "en", "fr", "de", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "pl", "cs", "ro", "hu", "tr", "el", "ru",
    "uk", "ar", "he", "hi", "ja", "zh", "ko", "vi", "id",
)  # fmt: skip
MIN_LETTERS = 12
MIN_CONFIDENCE = 0.8


class LanguageDetector:
    """``language(text)``: an ISO 639-1 code, or None when the text is too short or the call too close."""

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def language(self, text: str) -> str | None:
        if sum(c.isalpha() for c in text) < MIN_LETTERS:
            return None
        code, confidence = self._get().classify(text)
        return str(code) if confidence >= MIN_CONFIDENCE else None

    def languages(self, texts: Iterable[str]) -> list[str | None]:
        return [self.language(text) for text in texts]

    def _get(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _load()
        return self._model


def _load() -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]
    except ImportError as exc:
        raise ConfigError(
            "Weighing keywords by language needs py3langid, installed with the multilingual embedder: "
            "`pip install 'remember[multilingual]'`."
        ) from exc
    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    model.set_languages(list(LANGUAGES))
    return model


#: One detector per process: its model is read once.
DETECTOR = LanguageDetector()
