"""Words for keyword matching: tokenisation on word boundaries and a light stemmer.

Content and trigger keywords go through the same steps, so that "Eating at",
"ate at" and "eat at" all become ``eat at``, while "ate" never matches inside
"private". The stemmer is deliberately small: a handful of English suffixes,
irregular verbs common in what people tell an assistant, and a few nouns kept
whole because stripping them would merge unrelated words ("meeting" is not
"meet").
"""

from __future__ import annotations

import re
import unicodedata

# Letters and digits; apostrophes and hyphens inside a word are dropped, so
# "couldn't" and "couldnt", "co-worker" and "coworker" are the same token.
_JOINERS = re.compile(r"(?<=\w)['\u2019\-\u2010](?=\w)")
_TOKEN = re.compile(r"[^\W_]+|[+$€£¥]")

IRREGULAR = {
    "ate": "eat", "eaten": "eat", "bought": "buy", "thought": "think", "flew": "fly", "flown": "fly",
    "went": "go", "gone": "go", "made": "make", "took": "take", "taken": "take", "saw": "see", "seen": "see",
    "learnt": "learn", "taught": "teach", "wrote": "write", "written": "write", "ran": "run", "began": "begin",
    "begun": "begin", "felt": "feel", "brought": "bring", "caught": "catch", "drank": "drink", "drunk": "drink",
    "slept": "sleep", "spent": "spend", "kept": "keep", "lent": "lend", "built": "build", "met": "met",
    "did": "do", "done": "do", "does": "do", "had": "have", "has": "have", "was": "be", "were": "be",
    "is": "be", "are": "be", "been": "be", "am": "be", "got": "get", "gotten": "get", "tried": "try",
    "watches": "watch", "goes": "go",
}  # fmt: skip
# Words whose -ing or -s is part of the noun people mean.
KEEP = frozenset(
    {"meeting", "meetings", "morning", "mornings", "evening", "evenings", "news", "series", "wedding", "building",
     "clothing", "painting", "thing", "things", "this", "his", "its", "us", "yes", "was", "bus", "less", "ring",
     "king", "sing", "spring", "string", "nothing", "something", "anything", "everything", "during"}
)  # fmt: skip


def normalise(text: str) -> str:
    """Case-folded text with accents kept, curly quotes and joiners inside words removed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _JOINERS.sub("", folded)


def tokens(text: str) -> list[str]:
    """The words of ``text`` in order (letters and digits, plus currency signs and ``+``)."""
    return _TOKEN.findall(normalise(text))


def stem(word: str) -> str:
    """A light stem: irregular verbs, then -ing, -ed, -es, -s; final ``y`` and ``ie`` folded to ``i``."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word in KEEP or len(word) <= 3 or not word.isalpha():
        return word
    base = _strip_suffix(word)
    if base.endswith("y"):
        return base[:-1] + "i"
    if base.endswith("ie"):
        return base[:-1]
    return base


def stems(text: str) -> list[str]:
    """``tokens`` of the text, each stemmed."""
    return [stem(word) for word in tokens(text)]


def _strip_suffix(word: str) -> str:
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return _restore(word[: -len(suffix)])
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _restore(base: str) -> str:
    """Undo what -ing and -ed did to the verb: ``runn`` -> ``run``, ``bak`` -> ``bake``, ``writ`` -> ``write``.

    A doubled final consonant is undoubled (``ll``, ``ss`` and ``zz`` stay, as in
    ``spell``); otherwise a short stem ending consonant-vowel-consonant gets its
    silent ``e`` back, as in the Porter stemmer's rule for one-syllable stems.
    """
    if base[-1] == base[-2] and base[-1] not in "lsz" and base[-1].isalpha():
        return base[:-1]
    short = len(base) == 3 or (len(base) == 4 and not _vowel(base[0]) and not _vowel(base[1]))
    if short and not _vowel(base[-3]) and _vowel(base[-2]) and not _vowel(base[-1]) and base[-1] not in "wxy":
        return base + "e"
    return base


def _vowel(letter: str) -> bool:
    return letter in "aeiou"
