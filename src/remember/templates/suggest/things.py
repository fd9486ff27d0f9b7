"""Things kept somewhere: what the item is, its brand and model, where it is stored, whom it was lent to.

- where: "are in the top drawer of the hallway cabinet", "it's in the
  garage", "stored in the attic", "kept in my desk drawer", "lives in the
  pantry", "put the birth certificates in the safe", ", in my backpack";
- what: the noun phrase before "is/are (stored) in", after "bought a", "lent
  my", "put the", a count ("3 HDMI cables"), or opening the text before a
  comma; a leading brand ("Bosch cordless drill", "Sony WH-1000XM5
  headphones") and a model (a word with letters and digits after the brand) are
  kept apart, as are a condition word ("broken") and an owner ("Grandma's").
"""

from __future__ import annotations

import re

from remember.templates.suggest.spans import clean, only

_PLACE = r"((?:the|my|our|a|his|her)\s+[^,.;!?()]+)"
_WHERE = (
    re.compile(
        rf"\b(?:is|are|it's|it\u2019s|they're|they\u2019re|'s)\s+(?:still\s+|now\s+|all\s+)?(?:stored\s+|kept\s+)?(?:in|on|under|inside|behind)\s+{_PLACE}",
        re.I,
    ),
    re.compile(rf"\b(?:stored|kept|lives|live|sits|sit|stays|hangs)\s+(?:in|on|under|inside|behind)\s+{_PLACE}", re.I),
    re.compile(rf"\bput (?:the |my |our )?[\w\- ]{{2,40}}? (?:in|on|under|inside) {_PLACE}", re.I),
    re.compile(rf"^\d+ [\w\- ]{{2,40}}? (?:in|on|under|inside) {_PLACE}", re.I),
    re.compile(rf",\s*(?:in|on|under|inside) {_PLACE}$", re.I),
)
_STOP_PLACE = re.compile(r"\s+(?:since|until|for|because|but|and it|while|so)\b.*$", re.I)
_ITEM = (
    re.compile(
        r"^(?:the |my |our |\d+ )?([\w'\u2019\- ]{2,50}?) (?:is|are) (?:still |now |all )?(?:stored |kept )?(?:in|on|under|inside)\b",  # noqa: E501
        re.I,
    ),
    re.compile(r"^([A-Z][\w'\u2019\-]*(?: [\w'\u2019\-]+){0,3}?)(?=,| \(| serial\b)"),
    re.compile(
        r"\b(?:bought|got|ordered|lent|put|lost|found)(?: me)? (?:a |an |the |my |our |some )?([\w'\u2019\- ]{2,50}?)(?= for | to | in | on | at |,|\.|$| yesterday| today| last)",  # noqa: E501
        re.I,
    ),
    re.compile(r"\b(?:have|own) \d+ ([\w'\u2019\- ]{2,40}?) (?:stored |kept )?(?:in|on|under)\b", re.I),
    re.compile(r"^\d+ ([\w'\u2019\- ]{2,40}?) (?:in|on|under)\b", re.I),
)
_LENT = re.compile(r"\b(?i:lent) (?:my |the |our |a )?.{2,60}? to ([A-Z][\w'\u2019\-]+(?: [A-Z][\w'\u2019\-]+)?)")
_SERIAL = re.compile(r"\b(?:serial(?: number| no\.?)?|s/n)[:#]?\s*([A-Z0-9][A-Z0-9\-]{4,})", re.I)
_MODEL = re.compile(r"^[A-Z][\w]+ ([A-Z0-9][A-Z0-9\-]*\d[A-Z0-9\-]*)\b")
_CONDITION = frozenset({"broken", "new", "old", "used", "damaged"})
_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those", "one", "some", "everything", "stuff"})
_DETERMINERS = frozenset({"the", "my", "our", "a", "an", "some", "his", "her"})


def storage(text: str) -> str | None:
    found = [clean(_STOP_PLACE.sub("", m.group(1))) for pattern in _WHERE for m in pattern.finditer(text)]
    return only([f for f in found if f])


def item(text: str) -> tuple[str | None, str | None, str | None]:
    """(item name, brand, model) of the thing the text is about, each when read once."""
    for pattern in _ITEM:
        match = pattern.search(text)
        if match:
            return _split(match.group(1).strip(), at_start=match.start(1) == 0)
    return None, None, None


def lent_to(text: str) -> str | None:
    return only([m.group(1) for m in _LENT.finditer(text)])


def serial(text: str) -> str | None:
    return only([m.group(1) for m in _SERIAL.finditer(text)])


def _split(phrase: str, *, at_start: bool) -> tuple[str | None, str | None, str | None]:
    words = [w for w in phrase.split() if w]
    while words and words[0].lower() in _DETERMINERS:
        words.pop(0)
    if words and re.search(r"['\u2019]s$", words[0]):
        words.pop(0)  # the owner: "Grandma's gold necklace"
    while words and words[0].lower() in _CONDITION:
        words.pop(0)
    brand = model = None
    model_match = _MODEL.match(" ".join(words))
    if model_match and len(words) > 2:
        brand, model, words = words[0], model_match.group(1), words[2:]
    elif (
        len(words) > 1 and words[0][:1].isupper() and not words[0].isupper() and words[1][:1].islower() and not at_start
    ):
        brand, words = words[0], words[1:]
    elif len(words) > 1 and re.match(r"[A-Z][a-z]+[A-Z]", words[0]) and words[1][:1].islower():
        brand, words = words[0], words[1:]  # "KitchenAid stand mixer"
    name = clean(" ".join(words))
    if name.lower() in _PRONOUNS:
        return None, None, None
    return (name or None), brand, model
