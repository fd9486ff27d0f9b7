"""Names of what the memory is about when it is a thing to do, to reach, to keep doing or to make.

- tasks: "remind me to X", "need to X", "don't forget to X", "TODO: X",
  "Task for Ben: X", "Done: X", "Urgent: X", "Finished X";
- goals: "my goal is to X", "Goal: X", "goal of X", "aiming to X", "want to X";
- habits: "habit of X", "Habit: X", "my X streak", "my X habit", "did my X
  today", or the opening words before "every", "daily", "3 times", "again";
- ideas: "Idea: X", "Gift idea for Mom: X", "Side project idea, big effort: X";
- projects: "Project Atlas", "New project: Garden Shed build", "the website
  redesign project";
- recipes: "Grandma's lasagna recipe", "Recipe for X", "made X tonight",
  "cooked X for dinner" (diet and difficulty words are left to their fields);
- concepts: "learned about the CAP theorem", "The strangler fig pattern: ...",
  "the Feynman technique means ...".

Each phrase stops at a comma, the sentence's end, a deadline ("by Friday",
"before March 15") or a trailing time word ("tomorrow").
"""

from __future__ import annotations

import re

from remember.templates.suggest.spans import clean, only

_END = r"(?=\s+(?:by|before|due|until)\b|[,.;!](?!\d)|$)"
_PHRASE = r"((?:[^,.;!?:]|(?<=\d)[,.](?=\d)){2,80}?)"
TASKS = (
    re.compile(
        rf"\b(?:remind me to|need to|have to|don'?t forget to|remember to|got to|gotta|must)\s+{_PHRASE}{_END}", re.I
    ),
    re.compile(
        rf"^(?:todo|to-?do|task(?: for [A-Z]\w+)?|done|urgent|(?:low|medium|high) priority)\s*:\s*{_PHRASE}{_END}", re.I
    ),
    re.compile(rf"^(?:finished|completed|done with)\s+{_PHRASE}{_END}", re.I),
)
GOALS = (
    re.compile(rf"\bgoal(?: this year| for \d{{4}})? is to\s+{_PHRASE}{_END}", re.I),
    re.compile(rf"\bgoal(?: for \d{{4}})?\s*:\s*{_PHRASE}{_END}", re.I),
    re.compile(rf"\bgoal of\s+{_PHRASE}{_END}", re.I),
    re.compile(rf"\b(?:aiming to|aim to|want to|trying to|plan to|hoping to)\s+{_PHRASE}{_END}", re.I),
)
_FREQUENCY = r"(?=\s+(?:every|each|daily|on weekdays|on \w+days?|on the|\d+ times|twice|once|again|today|yesterday|before|after|for \d+)\b|[,.;!:]|$)"  # noqa: E501
HABITS = (
    re.compile(rf"\bhabit (?:of|is to)\s+{_PHRASE}{_FREQUENCY}", re.I),
    re.compile(rf"\bhabit\s*:\s*{_PHRASE}{_FREQUENCY}", re.I),
    re.compile(r"\bmy ([a-z]+(?: [a-z]+)?) (?:streak|habit)\b", re.I),
    re.compile(rf"^(?:I )?did (?:my )?{_PHRASE}{_FREQUENCY}", re.I),
    re.compile(
        r"^(?:I've |I have |I )?([A-Za-z][^,.;!?:]{1,60}?)(?=\s+(?:every|daily|again|twice|once|\d+ times|on weekdays)\b)"  # noqa: E501
    ),
)
IDEAS = (re.compile(r"\bidea\b[^:.!?]{0,60}:\s*([^.!;]{2,120}?)(?=,|\.|!|;|$|\?)(\?)?", re.I),)
PROJECTS = (
    re.compile(r"\bproject\s*:\s*([^,.;!?]{2,60})"),
    re.compile(r"\b(?i:project)\s+(?!is\b|was\b)([A-Z][\w\-]*(?: [A-Z0-9][\w\-]*)*)"),
    re.compile(r"\b(?:the|my|our|a|an|this)\s+((?:[\w\-]+\s){0,2}?[\w\-]+)\s+project\b", re.I),
)
RECIPES = (
    re.compile(
        r"(?:^|:\s*|\b(?:a|an|the|my|this|that|our)\s+)((?:[\w'\u2019\-]+\s){0,3}?[\w'\u2019\-]+)\s+recipe\b", re.I
    ),
    re.compile(r"\brecipe(?: for)?\s*:?\s*([A-Z][^,.;!?:]{2,50})"),
    re.compile(
        r"^(?:made|cooked|baked|making|cooking|whipped up)\s+(?:a |an |the |some |my )?([^,.;!?]{2,50}?)(?=\s+(?:tonight|today|yesterday|last|for|from|with)\b|[,.;!]|$)",  # noqa: E501
        re.I,
    ),
    re.compile(
        r"^([A-Za-z][\w'\u2019\- ]{2,40}?)\s*(?:\(|\u2014|\u2013|from https?://|for (?:breakfast|lunch|dinner|dessert)\b)"  # noqa: E501
    ),
    re.compile(r"^[^:]{2,30}:\s*([a-z][\w'\u2019\- ]{2,40}?),"),
)
CONCEPTS = (
    re.compile(
        r"\blearn(?:ed|t)? about (?:the |a |an )?([^,.;!?]{2,60}?)(?=\s+(?:today|yesterday|from|in|at|on|this)\b|[,.;!]|$)",  # noqa: E501
        re.I,
    ),
    re.compile(r"^(?i:the |a |an )?([A-Za-z][\w\- ]{2,40}?):\s"),
    re.compile(r"\b(?:the |a |an )([A-Za-z][\w\- ]{2,40}?) means\b"),
)
_NOT_CONCEPTS = re.compile(r"\b(?:tip|note|til|idea|interesting|fun fact|reminder|today|from)\b", re.I)
_DROP_WORDS = re.compile(
    r"\b(?:easy|quick|simple|hard|homemade|healthy|vegan|vegetarian|gluten-?free|dairy-?free|nut-?free|low-?carb|keto)\s+",
    re.I,
)
_ASSIGNEE = re.compile(r"\b(?:task for|ask|assigned to|assign(?: it)? to|for) ([A-Z][\w'\u2019\-]+)(?=:| to\b)")
_SOURCE = (
    re.compile(
        r"\b(?:learn(?:ed|t)?|picked (?:it|this) up|read|heard)\b[^.;]{0,60}?\bfrom (?:the book )?([^,.;:!?]{2,60}?)(?= that\b|[,.;:!?]|$)",  # noqa: E501
        re.I,
    ),
    re.compile(r"^from ([^,.;:!?]{2,60}?):", re.I),
    re.compile(
        r"\bin (the (?:[\w\-]+ ){0,2}(?:workshop|course|class|lecture|talk|podcast|tutorial|docs|book|video|meetup))\b",
        re.I,
    ),
)


def phrase(patterns: tuple[re.Pattern[str], ...], text: str, *, keep_question: bool = False) -> str | None:
    """The first pattern's phrase (cleaned), or None."""
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            value = match.group(1) + ("?" if keep_question and match.lastindex == 2 and match.group(2) else "")
            cleaned = clean(value, keep_question=keep_question)
            if cleaned:
                return cleaned
    return None


def task_title(text: str) -> str | None:
    return phrase(TASKS, text)


def goal_title(text: str) -> str | None:
    return phrase(GOALS, text)


def habit_title(text: str) -> str | None:
    return phrase(HABITS, text)


def idea_title(text: str) -> str | None:
    value = phrase(IDEAS, text, keep_question=True)
    return value if value and not value.lower().startswith(("for ", "is ")) else None


def project_name(text: str) -> str | None:
    for pattern in PROJECTS:
        names = [clean(m.group(1)) for m in pattern.finditer(text)]
        names = [n for n in names if n and n.lower() not in ("side", "new", "big", "this", "the", "a", "my")]
        if names:
            return only(names)
    return None


def recipe_name(text: str) -> str | None:
    value = phrase(RECIPES, text)
    return clean(_DROP_WORDS.sub("", value)) or None if value else None


def concept_name(text: str) -> str | None:
    for pattern in CONCEPTS:
        match = pattern.search(text)
        if match and not _NOT_CONCEPTS.search(match.group(1)):
            return clean(match.group(1)) or None
    return None


def assignee(text: str) -> str | None:
    return only([m.group(1) for m in _ASSIGNEE.finditer(text)])


def source(text: str) -> str | None:
    return phrase(_SOURCE, text)
