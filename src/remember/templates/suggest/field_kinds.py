"""A field's kind for the readers: the one it declares, else the one its name implies.

A field that declares a ``kind`` (``templates.kinds``) is read as that kind,
whatever it is called. A field without one is read by its name, as before
kinds existed: the built-ins' field names stand for their kinds (``BY_NAME``;
each built-in field declares the same kind, which a test checks), and a name
ending in ``url``, ``_link``, ``links`` or ``website`` holds web addresses. Any
other field is read from its own words (``labels``, ``counts``, ``flags``,
``choices``). An enum's options and a yes/no field have no kind beyond these:
the synonyms known for some options (``choices.SYNONYMS``) and the phrases of
some booleans (``flags.FLAGS``) stay keyed by the field's name, as words for
its options.
"""

from __future__ import annotations

from remember.templates.fields import FieldDef

_GROUPS: dict[str, tuple[str, ...]] = {
    "person": ("name", "full_name", "person_name"),
    "people": ("travel_companions", "companions", "attendees"),
    "assignee": ("assignee",),
    "borrower": ("lent_to",),
    "author": ("author",),
    "director": ("director",),
    "cast": ("cast",),
    "children": ("children_names",),
    "relationship": ("relationship",),
    "job_title": ("job_title",),
    "company": ("company",),
    "met_at": ("where_met",),
    "interests": ("interests",),
    "venue": ("restaurant_name",),
    "destination": ("destination",),
    "country": ("country",),
    "accommodation": ("accommodation",),
    "storage_place": ("storage_location",),
    "sights": ("places_to_visit",),
    "cuisine": ("cuisine", "cuisine_type"),
    "foods": ("foods_to_try",),
    "title": ("title",),
    "project": ("project_name", "project"),
    "recipe": ("recipe_name",),
    "concept": ("concept_name",),
    "item": ("item_name",),
    "brand": ("brand",),
    "model": ("model",),
    "serial_number": ("serial_number",),
    "isbn": ("isbn",),
    "genre": ("genre",),
    "platform": ("platform",),
    "source": ("source",),
    "unit": ("metric",),
    "cue": ("cue",),
    "audience": ("target_audience",),
    "rating": ("rating", "score", "stars"),
    "money": ("purchase_price", "price", "cost", "budget", "amount"),
    "currency": ("currency",),
    "price_range": ("price_range",),
    "percent": ("progress_percent",),
    "quantity": ("quantity",),
    "hours": ("estimate_hours",),
    "servings": ("servings",),
    "prep_time": ("prep_minutes",),
    "cook_time": ("cook_minutes",),
    "pages": ("pages",),
    "streak": ("current_streak",),
    "best_streak": ("best_streak",),
    "times_per_period": ("times_per_period",),
    "season": ("season",),
    "episodes": ("episodes_watched",),
    "year": ("release_year",),
    "energy": ("energy",),
    "target_value": ("target_value",),
    "current_value": ("current_value",),
    "date": ("date",),
    "past_date": (
        "watched_on",
        "last_visited",
        "visited_on",
        "learned_on",
        "entry_date",
        "last_done",
        "last_interaction",
    ),
    "start_date": ("start_date", "date_started"),
    "end_date": ("end_date", "completed_on", "achieved_on"),
    "finish_date": ("date_finished",),
    "deadline": ("due_date", "target_date", "deadline"),
    "review_date": ("review_on",),
    "next_meeting": ("next_meeting",),
    "birthday": ("birthday",),
    "first_met": ("first_met",),
    "purchase_date": ("purchase_date",),
    "lent_date": ("lent_on",),
    "warranty_end": ("warranty_until",),
    "would_recommend": ("would_recommend",),
    "would_return": ("would_return",),
    "would_rewatch": ("would_rewatch",),
}
BY_NAME: dict[str, str] = {name: kind for kind, names in _GROUPS.items() for name in names}
_URL_ENDINGS = ("url", "_link", "links", "website")


def kind_by_name(name: str) -> str | None:
    """The kind a field of this name holds when it declares none, or None."""
    return BY_NAME.get(name) or ("url" if name.endswith(_URL_ENDINGS) else None)


def kind_of(field: FieldDef) -> str | None:
    """The kind the readers read ``field`` as: declared, else implied by its name."""
    return field.kind or kind_by_name(field.name)
