"""People named in the content: "met Sarah Chen", "coffee with Maria", "my coworker Lina".

Only a capitalised name right after a cue that introduces a person counts, so
"with the team" or a capitalised first word of a sentence never does. Besides
the cues before a name, a name is read before what introduces it: "Priya Nair
is my new manager", "Lena Park, a recruiter at Google", "Jess from book club";
a name given as someone's child ("a daughter named Poppy") is not the person
the memory is about.
"""

from __future__ import annotations

import re

from remember.templates.suggest.places import proper_names

_NAME = r"([A-Z][\w'\u2019\-]+(?:\s+[A-Z][\w'\u2019\-]+){0,2})"
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?"
_RELATION_WORDS = (
    "sister-in-law", "brother-in-law", "mother-in-law", "father-in-law", "best friend", "friend", "coworker",
    "co-worker", "colleague", "boss", "manager", "neighbour", "neighbor", "roommate", "flatmate", "cousin",
    "sister", "brother", "aunt", "uncle", "niece", "nephew", "mentor", "mentee", "classmate", "partner",
    "recruiter", "landlord", "landlady", "doctor", "dentist", "therapist", "trainer", "accountant", "lawyer",
    "teacher", "tutor", "coach", "client", "barber", "hairdresser", "vet", "babysitter", "grandma", "grandpa",
)  # fmt: skip
RELATIONS = "|".join(re.escape(word) for word in _RELATION_WORDS)
PERSON_CUE = re.compile(
    r"\b(?i:met|meet|meeting|ran into|bumped into|caught up with|catch up with|reconnected with|coffee with|"
    r"lunch with|drinks with|introduced (?:me )?to|named|called|name is|talked to|chatted with|spoke with|"
    rf"(?:my|our)\s+(?:new\s+|old\s+|best\s+|former\s+)?(?:{RELATIONS}),?(?:\s+is\s+called)?)\s+{_TITLE}{_NAME}"
)
OWNER_CUE = re.compile(rf"\b{_NAME}['\u2019]s\s+(?:birthday|wife|husband|partner|kids|number|email)\b")
_INTRODUCED = re.compile(
    r"(?:^|[.!?]\s+)([A-Z][\w'\u2019\-]+(?:\s+[A-Z][\w'\u2019\-]+){0,2}(?= is (?:my|our) )|"
    r"[A-Z][\w'\u2019\-]+\s+[A-Z][\w'\u2019\-]+(?=, (?:a|an|the) [a-zA-Z]+)|"
    r"[A-Z][\w'\u2019\-]+(?= from (?!the |a |an |my |our )[a-z][a-z ]{2,30}? (?:has|is|says|said|who|was)\b))"
)
_CHILD_CUE = re.compile(r"\b(?:kids?|children|sons?|daughters?),? (?:named |called )?$", re.I)


def person_names(text: str) -> list[str]:
    """Distinct names introduced by a person cue, in order of appearance."""
    names = [n for n in _cued(text, PERSON_CUE) if n]
    for found in [*proper_names(text, OWNER_CUE), *proper_names(text, _INTRODUCED)]:
        name = _possessive(found)
        if name not in names:
            names.append(name)
    return names


def mentions_people(text: str) -> bool:
    """Whether the text names at least one person."""
    return bool(person_names(text))


def _cued(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Names after a cue, without the ones given as someone's children."""
    kept: list[str] = []
    for match in pattern.finditer(text):
        if _CHILD_CUE.search(text[: match.start(1)]):
            continue
        for found in proper_names(match.group(0)[match.start(1) - match.start() :], re.compile(rf"^{_NAME}")):
            name = _possessive(found)
            if name not in kept:
                kept.append(name)
    return kept


def _possessive(name: str) -> str:
    return re.sub(r"['\u2019]s$", "", name)
