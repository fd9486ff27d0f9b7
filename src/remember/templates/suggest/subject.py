"""What a template's memories are about, for reading a ``title`` field: a work, a habit, a goal, a task, an idea.

The other fields tell: a template with an author, a director, a cast, a
platform, a season, an ISBN, a page count or a release year holds works; one
with a streak a habit; one with a goal's target or unit a goal; one with an
assignee or an estimate in hours a task. Their kinds are read first (a user's
fields may be called anything), then, for what kinds cannot tell apart (a
goal's ``target_date`` and a task's ``due_date`` are both deadlines) or do not
cover (an enum such as ``frequency`` or ``idea_type``), their names. The first
thing that fits, in that order, decides.
"""

from __future__ import annotations

from collections.abc import Callable

from remember.templates.suggest import aims, works
from remember.templates.suggest.spans import only

# (what the memories are about, the sibling kinds that tell, the sibling names that tell)
SUBJECTS: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (
    ("work", frozenset({"author", "director", "cast", "platform", "season", "isbn", "pages", "year"}), frozenset()),
    ("habit", frozenset({"streak"}), frozenset({"frequency"})),
    ("goal", frozenset({"target_value", "unit"}), frozenset({"target_date"})),
    ("task", frozenset({"assignee", "hours"}), frozenset({"due_date"})),
    ("idea", frozenset(), frozenset({"idea_type", "effort", "impact"})),
)
TITLE_READERS: dict[str, Callable[[str], str | None]] = {
    "work": lambda text: only(works.titles(text)),
    "habit": aims.habit_title,
    "goal": aims.goal_title,
    "task": aims.task_title,
    "idea": aims.idea_title,
}


def subject(kinds: frozenset[str], names: frozenset[str]) -> str | None:
    """What a template whose fields have these kinds and names is about, or None."""
    for thing, by_kind, by_name in SUBJECTS:
        if kinds & by_kind or names & by_name:
            return thing
    return None


def title_reader(kinds: frozenset[str], names: frozenset[str]) -> Callable[[str], str | None] | None:
    """The reader of a ``title`` field in a template whose fields have these kinds and names."""
    thing = subject(kinds, names)
    return TITLE_READERS[thing] if thing else None
