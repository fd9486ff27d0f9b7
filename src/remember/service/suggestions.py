"""Template suggestions for what the user just said, and learning from what they apply.

Candidates are the templates the user can use that have ``auto_apply``, minus the
ones their preferences suppress (by id or category). Every suggestion returned is
logged as shown; applying a template to a memory logs it as applied. Each user's
own record shifts their templates' confidence within a bound
(``remember.templates.suggest.learning``); one user's choices never touch another's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from remember import preferences as known
from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import ValidationFailed
from remember.jsontypes import JsonObject, JsonValue
from remember.models import Memory, SuggestionEvent, fields_as_json
from remember.service import checks
from remember.service.preferences import PreferenceService
from remember.service.template_stats import TemplateAnalytics
from remember.service.templates import TemplateService
from remember.store import SuggestionLog
from remember.templates import TemplateDefinition

if TYPE_CHECKING:
    from remember.search.embedders import Embedder
    from remember.templates.suggest import PrototypeCache, Suggestion, TemplateStats
    from remember.templates.suggest.semantic import KeptRows

MAX_CONTENT = 20_000
MAX_LIMIT = 10
CONTEXT_KEYS = ("location_present", "participants_present", "time_of_day", "day_of_week", "conversation_type")


@dataclass(frozen=True)
class SuggestionFigures:
    """How often a template was suggested to the user and applied after a suggestion.

    ``acceptance_rate`` is None until it is suggested; ``smoothed_acceptance_rate`` (the one that
    moves its confidence, ``templates.suggest.learning``) is None until anything is logged for it,
    and then left out of the JSON.
    """

    suggested: int
    applied_after_suggestion: int
    acceptance_rate: float | None
    smoothed_acceptance_rate: float | None = None

    def as_dict(self) -> dict[str, JsonValue]:
        out = fields_as_json(self)
        if self.smoothed_acceptance_rate is None:
            del out["smoothed_acceptance_rate"]
        return out


@dataclass(frozen=True)
class TemplateReport:
    """A template's analytics with its suggestion figures: what ``remember_template_analytics`` reports."""

    analytics: TemplateAnalytics
    suggestions: SuggestionFigures

    def as_dict(self) -> dict[str, JsonValue]:
        return {**self.analytics.as_dict(), **self.suggestions.as_dict()}


@dataclass(frozen=True)
class Prefill:
    """The values of a template's fields read from a text without a model, each valid for its field."""

    template_id: str
    values: Mapping[str, JsonValue]


@dataclass(eq=False)
class SuggestionService:
    store: SuggestionLog
    preferences: PreferenceService
    templates: TemplateService
    embedder: Embedder | None
    clock: Clock = utc_now
    kept: KeptRows | None = None  # the templates' texts' rows kept beyond the process; None: embedded in each one
    _prototypes: PrototypeCache | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def suggest(
        self,
        caller: Caller,
        content: str,
        *,
        context: JsonObject | None = None,
        limit: int | None = None,
        memory_id: str | None = None,
        record: bool = True,
    ) -> list[Suggestion]:
        """Templates that fit ``content`` above the user's threshold, best first, with prefill.

        Each is logged as shown (the template analytics' acceptance), unless ``record`` is false: a
        preview while the text is still being typed (the dashboard's new memory form)."""
        text = _content(content)
        situation = _context(context)
        prefs = self.preferences.effective(caller)
        count = (
            known.whole(prefs, "templates.max_suggestions")
            if limit is None
            else checks.whole_number("limit", limit, 1, MAX_LIMIT)
        )
        view = self.templates.view_of(caller)
        everything = view.all()
        copied = {d.derived_from for d in everything if d.derived_from is not None}
        candidates = [d for d in everything if d.id not in copied and _eligible(d, prefs)]
        now = self.clock()
        from remember.templates.suggest import suggest

        found = suggest(
            text, candidates, now=now, context=situation, embedder=self.embedder,
            threshold=known.number(prefs, "templates.suggestion_threshold"), limit=count,
            adjustments=self._adjustments(caller, now), lookup=view.lookup, cache=self.prototypes(),
            keywords_apply=self._keywords_apply(text),
        )  # fmt: skip
        if record:
            events = [SuggestionEvent(s.template_id, "shown", now, memory_id, s.confidence) for s in found]
            self.store.log(caller.user, events)
        return found

    def _keywords_apply(self, text: str) -> bool:
        """Whether the templates' trigger keywords (English words) can be read in ``text``: not where the
        embedder reads other languages and the text is told to be in one."""
        if not getattr(self.embedder, "crosses_languages", False):
            return True
        from remember.search.languages import DETECTOR

        return DETECTOR.language(text) in (None, "en")

    def prototypes(self) -> PrototypeCache:
        """The templates' vectors: the engine's cache for the process, or one over the kept rows (made on first use:
        the engine is imported only when a suggestion is asked for)."""
        from remember.templates.suggest.semantic import DEFAULT_CACHE, PrototypeCache

        if self.kept is None:
            return DEFAULT_CACHE
        with self._lock:
            if self._prototypes is None:
                self._prototypes = PrototypeCache(kept=self.kept)
            return self._prototypes

    def ready_builtins(self) -> None:
        """Make the built-in templates' vectors ready (read from the rows shipped or kept) as the first suggestion
        would, when the model runs in this process; nothing is logged or stored."""
        from remember.search.embedders.base import LocalModel
        from remember.templates.library import builtin_templates

        if isinstance(self.embedder, LocalModel):
            self.prototypes().stack(self.embedder, [d for d in builtin_templates() if d.auto_apply])

    def for_memory(self, caller: Caller, memory: Memory) -> list[Suggestion]:
        """Suggestions for a memory just stored as free text (its place, people and time as context)."""
        situation: dict[str, Any] = {"local_time": memory.occurred_at.isoformat()}
        if memory.location:
            situation["location_present"] = True
        if memory.context.get("participants"):
            situation["participants_present"] = True
        return self.suggest(caller, memory.content, context=situation, memory_id=memory.id)

    def record_applied(self, caller: Caller, template_id: str, memory_id: str) -> None:
        self.store.log(caller.user, [SuggestionEvent(template_id, "applied", self.clock(), memory_id)])

    def acceptance(self, caller: Caller, template_id: str) -> SuggestionFigures:
        """Suggestion figures of one template for the analytics."""
        from remember.templates.suggest import acceptance_rate

        stats = self.store.stats(caller.user).get(template_id)
        if stats is None:
            return SuggestionFigures(0, 0, None)
        rate = stats.applied / stats.shown if stats.shown else None
        return SuggestionFigures(
            suggested=stats.shown,
            applied_after_suggestion=stats.applied,
            acceptance_rate=None if rate is None else min(1.0, rate),
            smoothed_acceptance_rate=round(acceptance_rate(_stats(stats)), 4),
        )

    def prefill(self, caller: Caller, template_id: str, content: str) -> Prefill:
        """The values of the template's fields that can be read from ``content`` without a model."""
        resolved = self.templates.view_of(caller).resolved(template_id)
        now = self.clock()
        from remember.templates.suggest import extract, prefill

        return Prefill(resolved.id, prefill(extract(content, now.date()), resolved, now))

    def analytics(self, caller: Caller, template_id: str) -> TemplateReport:
        """The template's analytics with its suggestion acceptance figures."""
        figures = self.templates.analytics(caller, template_id)
        return TemplateReport(figures, self.acceptance(caller, figures.template_id))

    def _adjustments(self, caller: Caller, now: Any) -> dict[str, float]:
        from remember.templates.suggest import adjustment

        return {tid: adjustment(_stats(s), now) for tid, s in self.store.stats(caller.user).items()}


def _stats(s: Any) -> TemplateStats:
    from remember.templates.suggest import TemplateStats

    return TemplateStats(shown=s.shown, applied=s.applied, ignored=s.ignored, last_applied=s.last_applied)


def _eligible(definition: TemplateDefinition, prefs: Mapping[str, JsonValue]) -> bool:
    """Suggested by itself: auto-applied and not suppressed (a template the user copied is left out by the caller:
    their copy stands for it)."""
    return (
        definition.auto_apply
        and definition.id not in known.texts(prefs, "templates.suppressed_templates")
        and definition.category not in known.texts(prefs, "templates.suppressed_categories")
    )


def _content(content: Any) -> str:
    errors: checks.Errors = []
    text = checks.text(content, "content", errors, limit=MAX_CONTENT, required=True)
    if errors or text is None:
        raise ValidationFailed("The content cannot be used for suggestions.", errors)
    return text


def _context(context: JsonObject | None) -> dict[str, Any] | None:
    if context is None:
        return None
    if not isinstance(context, Mapping):
        raise ValidationFailed.single("context", "type", "context must be an object.", context)
    unknown = sorted(set(context) - {*CONTEXT_KEYS, "location", "participants", "local_time"})
    if unknown:
        known = ", ".join([*CONTEXT_KEYS, "location", "participants", "local_time"])
        raise ValidationFailed.single("context", "unknown_field", f"Unknown context keys {unknown}; known: {known}.")
    return dict(context)
