"""People named in the content: "met Sarah Chen", "coffee with Maria", "my coworker Lina".

Only a capitalised name right after a cue that introduces a person counts, so
"with the team" or a capitalised first word of a sentence never does.
"""

from __future__ import annotations

import re

from remember.templates.suggest.places import proper_names

_NAME = r"([A-Z][a-z'\u2019\-]+(?:\s+[A-Z][a-z'\u2019\-]+){0,2})"
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?"
_RELATIONS = (
    r"friend|coworker|co-worker|colleague|boss|manager|neighbou?r|roommate|cousin|sister|brother|"
    r"sister-in-law|brother-in-law|aunt|uncle|niece|nephew|mentor|classmate|partner|recruiter|landlord|doctor"
)
PERSON_CUE = re.compile(
    r"\b(?i:met|meet|meeting|ran into|bumped into|caught up with|catch up with|reconnected with|coffee with|"
    r"lunch with|drinks with|introduced (?:me )?to|named|called|name is|talked to|chatted with|spoke with|"
    rf"(?:my|our)\s+(?:new\s+|old\s+)?(?:{_RELATIONS}),?(?:\s+is\s+called)?)\s+{_TITLE}{_NAME}"
)
OWNER_CUE = re.compile(rf"\b{_NAME}['\u2019]s\s+(?:birthday|wife|husband|partner|kids|number|email)\b")


def person_names(text: str) -> list[str]:
    """Distinct names introduced by a person cue, in order of appearance."""
    names = proper_names(text, PERSON_CUE)
    for name in proper_names(text, OWNER_CUE):
        if name not in names:
            names.append(name)
    return names


def mentions_people(text: str) -> bool:
    """Whether the text names at least one person."""
    return bool(person_names(text))
