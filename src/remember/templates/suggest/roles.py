"""What the content says about a person: role and organisation, relationship, where met, interests, children.

- "he's a staff engineer at Stripe", "Lena Park, a recruiter at Google", "now a
  product manager at Shopify", "works at Siemens as a data analyst", "the CTO
  of Finch Labs": the job title and the organisation;
- "my sister-in-law Rina", "my dentist, Dr. Alvarez", "Priya Nair is my new
  manager": the relationship;
- "met ... at the meetup", "met her first at PyCon 2025", "Jess from book
  club": where they met;
- "he's into birdwatching and jazz", "loves pottery and hiking": interests;
- "has two kids, Anika and Dev", "a daughter named Poppy": children.
"""

from __future__ import annotations

import re

from remember.templates.suggest.people import RELATIONS
from remember.templates.suggest.places import NAME_PATTERN
from remember.templates.suggest.spans import clean, only, split_list

_ROLE = r"((?:[a-z][a-z\-]+ ){0,2}[a-z][a-z\-]+|[A-Z]{2,5})"
_ORG = rf"({NAME_PATTERN}(?: \d+)?)"
_A = r"(?:a|an|the)"
_JOBS = (
    re.compile(rf"\b(?:he|she|they)(?:'s|\u2019s| is| are| was) (?:now )?{_A} {_ROLE} (?:at|of|for|with) {_ORG}"),
    re.compile(rf"[A-Z][\w'\u2019\-]+, {_A} {_ROLE} (?:at|of|for) {_ORG}"),
    re.compile(rf"\bnow {_A} {_ROLE} (?:at|of|for) {_ORG}"),
    re.compile(rf"\bworks? (?:at|for) {_ORG} as {_A} {_ROLE}\b", re.I),
)
_ORG_ONLY = re.compile(rf"\b(?:runs|leads|heads|manages) {_A} [a-z]+ at {_ORG}")
_RELATION = re.compile(
    rf"\b(?i:my)\s+(?:(?i:new|old|best|former)\s+)?({RELATIONS})\b(?=,?\s+(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z])"
)
_IS_MY = re.compile(
    rf"\b[A-Z][\w'\u2019\-]+(?: [A-Z][\w'\u2019\-]+)? is my (?:new |old |best |former )?({RELATIONS})\b"
)
_WHERE = (
    re.compile(
        r"\b(?:met|meeting|introduced to)\b[^.;]{0,60}? at ((?:the |a )?[\w'\u2019 \-]+?\b(?: \d{4})?)(?=[,.;!]|$| (?:today|yesterday|last|this|on)\b)",  # noqa: E501
        re.I,
    ),
    re.compile(r"^[A-Z][\w'\u2019\-]+ from ([a-z][a-z ]{2,30}?) (?:has|is|says|said|who|was)\b"),
)
_INTERESTS = re.compile(
    r"\b(?:(?:he|she|they)(?:'s|\u2019s| is| are) into|loves|enjoys|is into|interested in) ([^.;!]+)", re.I
)
_CHILDREN = re.compile(
    rf"\b(?:kids?|children|sons?|daughters?),? (?:named |called )?((?:{NAME_PATTERN})(?:(?:,| and) (?:{NAME_PATTERN}))*)"  # noqa: E501
)


def job(text: str) -> tuple[str | None, str | None]:
    """(job title, organisation), each when said once."""
    roles, orgs = [], []
    for pattern in _JOBS:
        for match in pattern.finditer(text):
            role, org = (
                (match.group(1), match.group(2)) if pattern is not _JOBS[3] else (match.group(2), match.group(1))
            )
            roles.append(role)
            orgs.append(org)
    orgs += [m.group(1) for m in _ORG_ONLY.finditer(text)]
    return only(roles), only([o.rstrip(".") for o in orgs])


def relationship(text: str) -> str | None:
    return only(
        [m.group(1).lower() for m in _RELATION.finditer(text)] + [m.group(1).lower() for m in _IS_MY.finditer(text)]
    )


def where_met(text: str) -> str | None:
    found = [clean(m.group(1)) for pattern in _WHERE for m in pattern.finditer(text)]
    return only([f for f in found if f and not f[:1].isdigit()])


def interests(text: str) -> list[str] | None:
    match = _INTERESTS.search(text)
    return split_list(match.group(1)) if match else None


def children(text: str) -> list[str] | None:
    match = _CHILDREN.search(text)
    if not match:
        return None
    return [name for name in split_list(match.group(1)) if name[:1].isupper()]


def child_names(text: str) -> set[str]:
    """Names that are someone's children (not the person the memory is about)."""
    return set(children(text) or [])
