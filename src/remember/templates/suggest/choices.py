"""Enum fields read from their options' words and synonyms: "high priority", "1:1", "kindle", "bucket list".

Three kinds of evidence, strongest first:

1. the option beside the field's own word: "high priority", "priority: high",
   "status active", "medium difficulty", "small effort" (with the option's
   aliases: "low effort" is ``small``);
2. a synonym of the option known for a field of that name (``SYNONYMS``):
   "urgent" is a high priority, "one-on-one" a ``one_on_one`` meeting, "on hold"
   a ``paused`` status, "kindle" an ``ebook``; a synonym names several options in
   order of preference ("finished" is ``done``, ``completed`` or ``achieved``,
   whichever the field has);
3. the option's own words alone, for options that are not everyday words
   ("documentary", "audiobook", "vegetarian"; never "low", "good" or "main").

The strongest kind found decides; two different options at that level mean
none. Quoted text (a title) is not read, and an option word right before
another field's word ("low energy") belongs to that field.
"""

from __future__ import annotations

import re
from functools import lru_cache

from remember.templates.fields import FieldDef, Scalar
from remember.templates.suggest.spans import compiled, unquoted

# field name -> option -> synonyms (regular expressions, matched on word boundaries, case-insensitive)
SYNONYMS: dict[str, dict[str, str]] = {
    "status": {
        "done": r"done:|finished|completed|wrapped up|fixed",
        "completed": r"finished|completed|wrapped up|done:",
        "achieved": r"achieved|hit my goal|reached my goal|accomplished|finished",
        "paused": r"paus(?:e|ed|ing)|on hold|put on ice",
        "shelved": r"shelv(?:e|ed|ing)",
        "cancelled": r"cancel(?:l?ed|l?ing)?|scrapped",
        "abandoned": r"abandon(?:ed|ing)?|gave up on|giving up on",
        "dropped": r"dropp(?:ed|ing)|quit",
        "blocked": r"blocked",
        "in_progress": r"in progress|ongoing|underway|working on",
        "active": r"active|kicked off|started|working on|underway",
        "planning": r"planning|planned|new project",
        "exploring": r"explor(?:e|ed|ing)",
        "validated": r"validated",
        "building": r"new habit|build(?:ing)? (?:a|the) habit|trying to build",
        "established": r"established|second nature",
    },
    "priority": {"high": r"urgent|asap|high-priority|important", "low": r"no rush|whenever", "critical": r"critical"},
    "area": {
        "health": r"health|fitness|gym|marathon|5k|10k|run(?:ning)?|lose \d+ ?(?:kg|lbs?|pounds)|weight|push-?ups|"
        r"yoga|meditat\w*|floss\w*|steps|stretch\w*|diet|sleep|workout",
        "career": r"career|promot\w+|certified|certification|job|raise",
        "learning": r"learn(?:ing)?|duolingo|spanish|japanese|french|german|course|study\w*",
        "finance": r"sav(?:e|ing)|budget|pay off|debt|credit card|invest\w*|finance\w*|deposit",
        "relationships": r"parents|grandma|grandpa|family|friends|partner|mom|dad",
        "creative": r"novel|writing|paint\w*|creative|sketch\w*",
    },
    "meeting_type": {
        "one_on_one": r"1:1|1-on-1|one[- ]on[- ]one",
        "team": r"team meeting|team sync|all-hands",
        "standup": r"stand-?up",
        "planning": r"planning",
        "review": r"review",
        "retrospective": r"retro(?:spective)?|post-?mortem",
        "client": r"client|customer call",
        "interview": r"interview\w*",
    },
    "idea_type": {
        "product": r"app(?: idea)?|product",
        "business": r"business",
        "writing": r"story|novel|poem|essay|blog post|writing",
        "art": r"painting|drawing|sculpture|art",
        "research": r"research",
        "side_project": r"side project",
        "improvement": r"improvement|what if we",
        "gift": r"gift",
    },
    "effort": {"small": r"small change|quick win|low effort", "large": r"big effort|huge effort|high effort"},
    "mood": {
        "great": r"great|amazing|fantastic|awesome|wonderful",
        "good": r"good|nice",
        "okay": r"okay|ok|fine|meh|so-so",
        "low": r"low|down|sad|blue",
        "bad": r"bad|awful|terrible|horrible",
    },
    "trip_status": {
        "wishlist": r"wishlist|wish list|bucket list|someday|dream trip",
        "planned": r"planning|planned|heading to|headed to",
        "booked": r"booked",
        "visited": r"visited|back from|got back|returned from",
    },
    "frequency": {
        "daily": r"daily|every (?:day|night|morning|evening)|each (?:day|night|morning)|(?:once|twice|\d+ times) a day",
        "weekdays": r"weekdays|every weekday|each weekday",
        "weekly": r"weekly|every week|(?:once|twice|\d+ times) a week",
        "monthly": r"monthly|every month|(?:once|twice|\d+ times) a month",
    },
    "kind": {
        "movie": r"movie|film",
        "tv_show": r"season \d+|episodes?|tv show|(?<!mini-)(?<!mini)series",
        "miniseries": r"mini-?series|limited series",
        "documentary": r"documentary|docuseries",
        "anime": r"anime",
    },
    "format": {
        "print": r"paperback|hardcover|hardback|print(?:ed)? (?:copy|edition)",
        "ebook": r"e-?book|kindle|kobo",
        "audiobook": r"audio-?book|audible|listened to",
    },
    "category": {
        "language": r"the word|particle|grammar|vocabulary|conjugation|idiom",
        "framework": r"react|django|rails|vue|angular|flask|spring boot|framework",
        "library": r"pandas|numpy|lodash|library",
        "pattern": r"pattern",
        "tool": r"git|docker|kubernetes|vim|tmux|tool",
        "concept": r"theorem|concept",
        "practice": r"technique|practice",
    },
    "item_category": {
        "electronics": r"laptop|macbook|headphones|phone|cables?|hdmi|charger|camera|tablet|ipad|monitor|router",
        "appliance": r"vacuum|fridge|microwave|washer|dryer|toaster|kettle|blender",
        "furniture": r"chairs?|table|sofa|couch|bookshelf|dresser",
        "tool": r"drill|saw|hammer|wrench|screwdriver|ladder|toolbox",
        "clothing": r"coats?|jackets?|shoes|boots|dress|shirts?|sweaters?",
        "book": r"books?|copy of|novel",
        "kitchen": r"pans?|pots|knife|knives|cutlery",
        "document": r"passports?|certificates?|deeds?|contracts?|documents|papers|tax returns",
        "jewelry": r"necklace|ring|bracelet|earrings|jewell?ery",
    },
    "course": {
        "breakfast": r"breakfast|brunch",
        "appetizer": r"appetizer|starter",
        "main": r"a main|main (?:course|dish)",
        "side": r"side dish|as a side",
        "dessert": r"dessert",
        "snack": r"snack",
        "drink": r"a drink|cocktail|smoothie",
        "sauce": r"sauce|dressing",
    },
    "difficulty": {"easy": r"easy|simple", "medium": r"medium difficulty", "hard": r"hard|difficult|tricky"},
    "occasion": {
        "date": r"date night|on a date",
        "business": r"business (?:lunch|dinner|meal)|work lunch|client dinner",
        "family": r"family",
        "celebration": r"anniversary|birthday|celebrat\w+",
        "solo": r"solo|alone|by myself",
    },
    "condition": {"new": r"brand new|still new", "broken": r"broken|doesn'?t work", "poor": r"worn out"},
    "proficiency": {"beginner": r"beginner|novice", "intermediate": r"intermediate", "advanced": r"advanced|expert"},
    "dietary": {
        "vegetarian": r"vegetarian|veggie",
        "vegan": r"vegan",
        "gluten_free": r"gluten-?free|gluten free",
        "dairy_free": r"dairy-?free|dairy free",
        "nut_free": r"nut-?free",
        "low_carb": r"low-?carb|keto",
        "halal": r"halal",
        "kosher": r"kosher",
    },
}
# Options too common as words to be read alone (they count beside the field's word or as a synonym).
EVERYDAY = frozenset(
    {"low", "medium", "high", "small", "large", "good", "bad", "great", "okay", "fair", "poor", "new", "easy",
     "hard", "other", "raw", "done", "main", "side", "date", "solo", "casual", "team", "review", "client", "tool",
     "book", "concept", "pattern", "practice", "language", "library", "framework", "personal", "active",
     "paused", "planning", "planned", "building", "movie", "print", "todo", "family", "business", "art",
     "gift", "product", "writing", "research", "health", "career", "learning", "finance", "daily", "weekly",
     "monthly", "kitchen", "sports", "document", "appliance", "clothing", "snack", "drink", "sauce",
     "breakfast", "dessert", "blocked", "visited", "booked", "wishlist", "critical", "broken"}
)  # fmt: skip
# field name -> option -> other words for it beside the field's word ("low effort" is a small effort)
ALIASES: dict[str, dict[str, str]] = {
    "effort": {"small": "low|little|quick", "large": "big|high|huge"},
    "impact": {"high": "big|huge", "low": "small|little"},
    "difficulty": {"easy": "low", "hard": "high"},
}
_FOLLOWERS = r"(?:\s*(?::|=|is|was|-)\s*|\s+)"


def read_choice(text: str, field: FieldDef, other_labels: tuple[str, ...]) -> Scalar | list[Scalar] | None:
    """The option of an enum (or the options of an array of enums) that the text states, or None."""
    options = field.options
    if not options:
        return None
    plain = unquoted(text)
    levels = (_beside_label(plain, field), _synonyms(plain, field, other_labels), _alone(plain, field, other_labels))
    if field.type == "array":
        chosen = [o for o in options if any(o in level for level in levels)]
        return [o for o in chosen if not _conditional(plain, o, field)] or None
    for level in levels:
        if len(level) == 1:
            return level[0]
        if level:
            return None
    return None


def _beside_label(text: str, field: FieldDef) -> list[Scalar]:
    label = _label(field.name)
    found: list[Scalar] = []
    for option in field.options:
        words = _option_words(field.name, option)
        before = compiled(rf"\b(?:{words})\s+{label}\b").search(text)
        after = compiled(rf"\b{label}{_FOLLOWERS}(?:{words})\b").search(text)
        if before or after:
            found.append(option)
    return found


def _synonyms(text: str, field: FieldDef, other_labels: tuple[str, ...]) -> list[Scalar]:
    table = SYNONYMS.get(field.name, {})
    found: list[Scalar] = []
    for option in field.options:
        pattern = table.get(str(option))
        if pattern and _said(text, pattern, other_labels):
            found.append(option)
    return _preferred(found, field)


def _alone(text: str, field: FieldDef, other_labels: tuple[str, ...]) -> list[Scalar]:
    found: list[Scalar] = []
    for option in field.options:
        if str(option).lower() in EVERYDAY or not isinstance(option, str):
            continue
        if _said(text, _option_words("", option), other_labels):
            found.append(option)
    return found


def _preferred(found: list[Scalar], field: FieldDef) -> list[Scalar]:
    """One synonym may name several options ("finished": done, completed, achieved); keep the field's first."""
    if len(found) < 2:
        return found
    table = SYNONYMS.get(field.name, {})
    patterns = {option: set(table[str(option)].split("|")) for option in found}
    first = found[0]
    if all(patterns[first] & patterns[o] for o in found[1:]):
        return [first]
    return found


def _said(text: str, pattern: str, other_labels: tuple[str, ...]) -> bool:
    for match in _compiled(pattern).finditer(text):
        after = text[match.end() :].lstrip().lower()
        if not any(after.startswith(label) for label in other_labels):
            return True
    return False


def _conditional(text: str, option: Scalar, field: FieldDef) -> bool:
    """ "gluten-free if you use GF oats": an option said with a condition is not stated."""
    pattern = SYNONYMS.get(field.name, {}).get(str(option)) or _option_words("", option)
    return bool(compiled(rf"(?:{pattern})\s+if\b").search(text))


def _option_words(name: str, option: Scalar) -> str:
    text = str(option)
    spaced = re.escape(text.replace("_", " "))
    words = {spaced, re.escape(text), spaced.replace(r"\ ", "[- ]")}
    alias = ALIASES.get(name, {}).get(text)
    return "|".join(sorted(words)) + (f"|{alias}" if alias else "")


def _label(name: str) -> str:
    words = name.split("_")
    return rf"(?:{re.escape(' '.join(words))}|{re.escape(words[-1])})"


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.I)
