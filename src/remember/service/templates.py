"""Template use-cases: the user's own templates beside the read-only built-in library.

A template id is either ``builtin:<name>`` (the library shipped in the package,
visible to every user) or ``tpl_<slug>_<hex>`` (a user's own, stored). Every
lookup goes through one owner's view: their own templates, then the built-ins.
A shared space's templates are stored under its key like a user's: a caller acting
in the space (``SpaceService``) sees them as its own, and its views name the space.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import (
    AccessDenied,
    Conflict,
    FieldError,
    NotFound,
    RememberError,
    TemplateError,
    ValidationFailed,
    excerpt,
)
from remember.jsontypes import JsonObject, JsonValue
from remember.models import (
    Compliance,
    HistoryEntry,
    Memory,
    MemoryChange,
    TemplateRecord,
    TemplateUsage,
    TemplateVersion,
    name_key,
)
from remember.nouns import counted
from remember.service import checks, template_edit, template_lookup, template_stats, visibility
from remember.service.drafts import TemplatePatch
from remember.service.identity import identity_key
from remember.service.template_stats import TemplateAnalytics
from remember.space_keys import is_space_key
from remember.store import Store
from remember.templates import (
    BUILTIN_PREFIX,
    ResolvedTemplate,
    TemplateDefinition,
    ValidationResult,
    ancestors,
    builtin_template,
    builtin_templates,
    definition_changes,
    parse_template,
    render_text,
    resolve,
    validate_content,
)

SortBy = Literal["usage_count", "name", "recent"]
MAX_TEMPLATES = 500
MAX_SEARCH = 200  # characters of a template search


@dataclass(frozen=True)
class TemplateView:
    """A template as one user sees it: its definition, resolved fields and usage."""

    definition: TemplateDefinition
    resolved: ResolvedTemplate
    usage: TemplateUsage
    space: str | None = None  # the key of the shared space that holds it; None: personal or built in

    @property
    def id(self) -> str:
        return self.definition.id


class UserTemplates:
    """One user's view of templates for the length of one operation (own ones read once)."""

    def __init__(self, store: Store, caller: Caller, adding: Sequence[TemplateDefinition] = ()) -> None:
        self.user_id = caller
        self.records = {r.id: r for r in store.templates.of_user(caller.user)}
        # Templates about to be created (an import checks its memories against them first): found by
        # lookup, not listed among the stored ones.
        self._parsed: dict[str, TemplateDefinition] = {d.id: d for d in adding}

    def lookup(self, template_id: str) -> TemplateDefinition | None:
        if template_id.startswith(BUILTIN_PREFIX):
            return builtin_template(template_id)
        if template_id not in self._parsed and template_id in self.records:
            self._parsed[template_id] = _definition(self.records[template_id])
        return self._parsed.get(template_id)

    def require(self, template_id: str) -> TemplateDefinition:
        found = self.lookup(template_id) if isinstance(template_id, str) else None
        if found is None:
            raise NotFound(
                f"No template with id {excerpt(template_id)}. List templates with remember_list_templates "
                "or `remember template list` (built-in ones start with 'builtin:')."
            )
        return found

    def own_by_name(self, name: str) -> TemplateDefinition | None:
        """The user's own template of this name (names are unique among them, regardless of case)."""
        return _named([d for d in (self.lookup(i) for i in self.records) if d is not None], name)

    def all(self) -> list[TemplateDefinition]:
        own = [d for d in (self.lookup(i) for i in self.records) if d is not None]
        return own + list(builtin_templates())

    def resolved(self, template_id: str) -> ResolvedTemplate:
        return resolve(self.require(template_id), self.lookup)

    def fields_text(self, memory: Memory) -> str | None:
        """The memory's template fields as ``Label: value`` lines; None without a template this view
        resolves (deleted, or a broken chain of parents): the fields are then left out, not an error."""
        if memory.template_id is None:
            return None
        try:
            return render_text(self.resolved(memory.template_id), memory.structured_content or {})
        except RememberError:
            return None

    def text_of(self, memory: Memory) -> str:
        """The memory as text for a reader (a model's context): its own text, then its template fields
        when they are not already that text, so that a tasting noted as "Tasted at Ana's place" still
        says its score."""
        fields = self.fields_text(memory)
        if not fields or fields == memory.content:
            return memory.content
        return f"{memory.content}\n{fields}" if memory.content else fields

    def descendants(self, template_id: str) -> list[str]:
        """Ids of own templates that inherit from ``template_id``, at any depth."""
        found: list[str] = []
        frontier = [template_id]
        while frontier:
            parent = frontier.pop()
            children = [i for i, r in self.records.items() if r.parent_template_id == parent and i not in found]
            found += children
            frontier += children
        return found


class TemplateService:
    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock

    def _usage_of(self, caller: Caller, template_id: str) -> TemplateUsage:
        """How many of the user's memories, within the caller's reach, were made with the template."""
        found = self.store.templates.usage(caller.user, max_trust=visibility.trust_cap(caller)).get(template_id)
        return found or TemplateUsage(template_id, 0, None)

    def view_of(self, caller: Caller, adding: Sequence[TemplateDefinition] = ()) -> UserTemplates:
        """The caller's templates, and ``adding``: definitions not stored yet, as if they were."""
        return UserTemplates(self.store, caller, adding)

    def get(self, caller: Caller, template_id: str) -> TemplateView:
        templates = self.view_of(caller)
        definition = templates.require(template_id)
        usage = self._usage_of(caller, definition.id)
        return TemplateView(
            definition, resolve(definition, templates.lookup), usage, template_space(caller, definition)
        )

    def find(self, caller: Caller, id_or_name: str) -> TemplateDefinition:
        """A template by id, name, slug or id prefix (own templates first), for the command line
        (``template_lookup``)."""
        templates = self.view_of(caller)
        return template_lookup.find(self.store, caller, templates.lookup, templates.all(), id_or_name)

    def list_templates(
        self,
        caller: Caller,
        *,
        include_default: bool = True,
        include_user: bool = True,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        sort_by: str = "usage_count",
        limit: int = 50,
        offset: int = 0,
        search: str | None = None,
        readers: Sequence[Caller] | None = None,
    ) -> tuple[list[TemplateView], int]:
        """Templates the user can use, filtered and sorted; and how many match in all.

        ``readers``: the caller acting in each space whose templates are listed (``SpaceService.reading``;
        default: the caller's own), each view naming its space; the built-ins are listed once.
        ``search`` keeps those whose name (or description) holds the words given, regardless of case.
        """
        _check_list_arguments(sort_by, limit, offset)
        words = _search_words(search)

        def wanted(d: TemplateDefinition) -> bool:
            return (
                (include_default if d.is_default else include_user)
                and (category is None or d.category.casefold() == category.casefold())
                and (not tags or bool({t.casefold() for t in tags} & {t.casefold() for t in d.tags}))
                and all(w in f"{d.name} {d.description}".casefold() for w in words)
            )

        views = [
            v for reader in readers or [caller] for v in self._views(reader, lambda d: not d.is_default and wanted(d))
        ]
        views += self._views(caller, lambda d: d.is_default and wanted(d))  # the built-ins, once
        views.sort(key=_sort_key(sort_by))
        return views[offset : offset + limit], len(views)

    def every(self, readers: Sequence[Caller]) -> list[tuple[Caller, TemplateDefinition]]:
        """Each template of the spaces of ``readers`` (the first's view gives the built-ins, once), with the
        caller acting where it is."""
        return [
            (reader, d)
            for i, reader in enumerate(readers)
            for d in self.view_of(reader).all()
            if i == 0 or not d.is_default
        ]

    def _views(self, reader: Caller, wanted: Any) -> list[TemplateView]:
        templates = self.view_of(reader)
        usage = self.store.templates.usage(reader.user, max_trust=visibility.trust_cap(reader))  # within reach
        return [
            TemplateView(
                d,
                resolve(d, templates.lookup),
                usage.get(d.id) or TemplateUsage(d.id, 0, None),
                template_space(reader, d),
            )
            for d in templates.all()
            if wanted(d)
        ]

    def create(self, caller: Caller, raw: JsonObject) -> TemplateView:
        templates = self.view_of(caller)
        if len(templates.records) >= MAX_TEMPLATES:
            raise ValidationFailed.single(
                "templates", "limit", f"A user, or a space, can have at most {MAX_TEMPLATES} templates."
            )
        if not isinstance(raw, Mapping):
            raise TemplateError.single("", "invalid", "A template definition must be an object.")
        clean = {k: v for k, v in raw.items() if k not in ("id", "is_default")}
        name = raw.get("name") or raw.get("template_name")
        try:
            definition = parse_template({**clean, "id": _new_id(str(name or "")), "is_default": False})
        except TemplateError as problem:
            # A name already taken is one more problem to fix: reported with the others, not after them.
            holder = templates.own_by_name(name) if isinstance(name, str) else None
            if holder is None:
                raise
            taken = FieldError("name", "conflict", self._taken(caller, str(name), holder.id))
            errors = [taken, *problem.errors]
            headline = f"template {excerpt(name)} is invalid: {counted(len(errors), 'problem')}; fix each one below"
            raise TemplateError(headline, errors) from problem
        holder = templates.own_by_name(definition.name)
        if holder is not None:
            raise Conflict(self._taken(caller, definition.name, holder.id))
        resolved = self._check_links(definition, templates)
        now = self.clock()
        self.store.templates.insert(TemplateRecord(caller.user, definition.id, definition.as_dict(), now, now))
        return TemplateView(
            definition, resolved, TemplateUsage(definition.id, 0, None), template_space(caller, definition)
        )

    def _taken(self, caller: Caller, name: str, holder_id: str) -> str:
        """What a name already taken among the caller's templates (or its space's) is answered with."""
        space = self.store.spaces.get(caller.user) if is_space_key(caller.user) else None
        who = f"Space {space.name} already has" if space else "You already have"
        return f"{who} a template named {excerpt(name)} ({holder_id}); choose another name."

    def restore(self, caller: Caller, definition: TemplateDefinition) -> TemplateView:
        """Store a template remember exported (a Markdown export's template file) under its own id, so
        that the memories made with it find it. The id must be free (Conflict otherwise), and its
        parent stored or built in."""
        templates = self.view_of(caller)
        if len(templates.records) >= MAX_TEMPLATES:
            raise ValidationFailed.single(
                "templates", "limit", f"A user, or a space, can have at most {MAX_TEMPLATES} templates."
            )
        if definition.is_default or definition.id.startswith(BUILTIN_PREFIX) or definition.id in templates.records:
            raise Conflict(f"Template id {excerpt(definition.id)} is taken; a restored template keeps its own id.")
        resolved = self._check_links(definition, templates)
        now = self.clock()
        self.store.templates.insert(TemplateRecord(caller.user, definition.id, definition.as_dict(), now, now))
        return TemplateView(
            definition, resolved, TemplateUsage(definition.id, 0, None), template_space(caller, definition)
        )

    def recheck(self, caller: Caller, template_ids: Sequence[str]) -> int:
        """Check the memories of these own templates (and of those inheriting from them) against them
        again, as after a change; how many memories' compliance changed."""
        templates = self.view_of(caller)
        own = [t for t in template_ids if t in templates.records]
        affected = sorted({*own, *(d for t in own for d in templates.descendants(t))})
        compliance = self._recheck(caller, templates, affected, only_changed=True)
        if compliance:
            self.store.templates.set_compliance(caller.user, compliance)
        return len(compliance)

    def update(self, caller: Caller, template_id: str, patch: TemplatePatch | JsonObject) -> tuple[TemplateView, int]:
        """Change an own template (a mapping is read as ``TemplatePatch.from_mapping``); every derived
        memory's compliance is recomputed with it.

        Returns the new view and how many memories were re-checked.
        """
        change = patch if isinstance(patch, TemplatePatch) else TemplatePatch.from_mapping(patch)
        templates = self.view_of(caller)
        current = self._own(templates, template_id, "change")
        if change.is_empty():
            raise ValidationFailed.single("changes", "empty", "Nothing to update: give attributes or field changes.")
        raw = template_edit.edited(current.as_dict(), change)
        return self._rewrite(caller, templates, current, parse_template(raw))

    def replace(
        self, caller: Caller, template_id: str, raw: JsonValue, *, base_version: str | None = None
    ) -> tuple[TemplateView, int, dict[str, Any]]:
        """Replace an own template's whole definition (as the dashboard's editor saves it), as ``update`` does.

        The id, and where it was copied from, stay; the version is bumped unless ``raw`` names a new
        one; ``base_version`` (the version the editor loaded) must still be current, else Conflict.
        Returns the new view, how many memories were re-checked, and what changed
        (``templates.definition_changes``).
        """
        templates = self.view_of(caller)
        current = self._own(templates, template_id, "change")
        if base_version is not None and base_version != current.version:
            raise Conflict(
                f"Template {current.id} was changed meanwhile (now version {current.version}, you edited "
                f"{excerpt(base_version)}); load it again and reapply your change."
            )
        definition = self._parsed(templates, template_edit.replaced(current.as_dict(), raw), current.id)
        view, rechecked = self._rewrite(caller, templates, current, definition)
        return view, rechecked, definition_changes(current.as_dict(), definition.as_dict())

    def check(self, caller: Caller, raw: JsonValue, *, replacing: str | None = None) -> ResolvedTemplate:
        """What ``create`` (or ``replace`` of ``replacing``) would store, resolved, without storing it:
        TemplateError lists every problem, a name already taken among them."""
        templates = self.view_of(caller)
        if replacing is None:
            if len(templates.records) >= MAX_TEMPLATES:
                raise ValidationFailed.single(
                    "templates", "limit", f"A user, or a space, can have at most {MAX_TEMPLATES} templates."
                )
            if not isinstance(raw, Mapping):
                raise TemplateError.single("", "invalid", "A template definition must be an object.")
            clean = {k: v for k, v in raw.items() if k not in ("id", "is_default")}
            name = raw.get("name") or raw.get("template_name")
            new_id = _new_id(str(name or ""))
            definition = self._parsed(templates, {**clean, "id": new_id, "is_default": False}, new_id)
        else:
            current = self._own(templates, replacing, "change")
            definition = self._parsed(templates, template_edit.replaced(current.as_dict(), raw), current.id)
        return self._check_links(definition, templates)

    def versions(self, caller: Caller, template_id: str) -> tuple[TemplateDefinition, list[TemplateVersion]]:
        """A template and its stored versions, oldest first (a built-in has none stored: only its current one)."""
        definition = self.view_of(caller).require(template_id)
        if definition.is_default:
            return definition, []
        return definition, self.store.templates.versions(caller.user, definition.id)

    def ancestry(self, caller: Caller, template_id: str) -> tuple[TemplateView, list[TemplateDefinition]]:
        """A template as ``get`` gives it, and its inheritance chain: the root first, the template itself last."""
        templates = self.view_of(caller)
        view = self.get(caller, template_id)
        chain = [templates.require(i) for i in reversed(view.resolved.ancestor_ids)]
        return view, [*chain, view.definition]

    def _parsed(self, templates: UserTemplates, raw: Mapping[str, Any], own_id: str) -> TemplateDefinition:
        """``parse_template``, with a name another own template holds reported beside the other problems."""
        name = raw.get("name") or raw.get("template_name")
        holder = templates.own_by_name(name) if isinstance(name, str) else None
        taken = []
        if holder is not None and holder.id != own_id:
            taken = [FieldError("name", "conflict", self._taken(templates.user_id, str(name), holder.id))]
        try:
            definition = parse_template(dict(raw))
        except TemplateError as problem:
            if not taken:
                raise
            errors = [*taken, *problem.errors]
            problems = counted(len(errors), "problem")
            raise TemplateError(
                f"template {excerpt(name)} is invalid: {problems}; fix each one below", errors
            ) from problem
        if taken:
            raise TemplateError(f"template {excerpt(name)} is invalid: 1 problem; fix each one below", taken)
        return definition

    def _rewrite(
        self, caller: Caller, templates: UserTemplates, current: TemplateDefinition, definition: TemplateDefinition
    ) -> tuple[TemplateView, int]:
        """Store ``definition`` in place of ``current``, re-checking the memories of it and of its descendants."""
        resolved = self._check_links(definition, templates)
        templates._parsed[definition.id] = definition  # later lookups see the new definition
        affected = [definition.id, *templates.descendants(definition.id)]
        compliance = self._recheck(caller, templates, affected)
        record = templates.records[definition.id]
        now = self.clock()
        updated = TemplateRecord(caller.user, definition.id, definition.as_dict(), record.created_at, now)
        self.store.templates.replace(updated, expected_version=current.version, compliance=compliance)
        # Memories written meanwhile (validated against the old definition, or changed since the
        # check above and so left alone by it) are checked again against what is now stored.
        settled = self._recheck(caller, self.view_of(caller), affected, only_changed=True)
        if settled:
            self.store.templates.set_compliance(caller.user, settled)
        usage = self._usage_of(caller, definition.id)
        return TemplateView(definition, resolved, usage, template_space(caller, definition)), self._seen(
            caller, compliance
        )

    def _seen(self, caller: Caller, compliance: list[Compliance]) -> int:
        """How many of the re-checked memories the caller may know of (all of them, at full trust)."""
        if not caller.restricted:
            return len(compliance)
        found = self.store.memories.get_many(caller.user, [c.memory_id for c in compliance])
        return len(visibility.only_reachable(caller, found))

    def delete(self, caller: Caller, template_id: str, *, delete_derived_memories: bool = False) -> tuple[str, int]:
        """Delete an own template; returns its id and how many memories went to the trash."""
        templates = self.view_of(caller)
        current = self._own(templates, template_id, "delete")
        children = self.store.templates.children(caller.user, current.id)
        if children:
            raise ValidationFailed.single(
                "template_id",
                "has_children",
                f"Templates {children} inherit from {current.id}; delete them or give them another parent first.",
                current.id,
            )
        trash = self._trash(caller, current, delete_derived_memories)
        self.store.templates.delete(caller.user, current.id, trash=trash)
        return current.id, len(trash)

    def copy(
        self, caller: Caller, source_id: str, *, name: str | None = None, source: Caller | None = None
    ) -> TemplateView:
        """A new template of the caller's space copied from ``source_id``, a template of ``source``'s space
        (default: the caller's) or a built-in."""
        found = self.view_of(source or caller).require(source_id)
        raw = found.as_dict()
        raw.update({"name": name or f"{found.name} (copy)", "derived_from": found.id})
        return self.create(caller, raw)

    def validate(
        self, caller: Caller, template_id: str, content: JsonValue
    ) -> tuple[ResolvedTemplate, ValidationResult]:
        resolved = self.view_of(caller).resolved(template_id)
        return resolved, validate_content(resolved, content, now=self.clock())

    def validate_draft(
        self, caller: Caller, raw: JsonValue, content: JsonValue, *, replacing: str | None = None
    ) -> tuple[ResolvedTemplate, ValidationResult]:
        """``validate`` against a definition not stored (``check`` refuses it when it is invalid)."""
        resolved = self.check(caller, raw, replacing=replacing)
        return resolved, validate_content(resolved, content, now=self.clock())

    def analytics(self, caller: Caller, template_id: str) -> TemplateAnalytics:
        """Figures over the live memories made with the template that the caller can read."""
        view = self.get(caller, template_id)
        memories = visibility.only_reachable(
            caller, self.store.memories.of_templates(caller.user, [view.id], include_deleted=False)
        )
        return template_stats.analytics(view.resolved, view.usage, memories, now=self.clock())

    def _own(self, templates: UserTemplates, template_id: Any, verb: str) -> TemplateDefinition:
        definition = templates.require(template_id)
        if definition.is_default:
            raise AccessDenied(
                f"{definition.id} is a built-in template and cannot be {verb}d; copy it "
                "(remember_copy_template, or `remember template copy`) and change the copy."
            )
        return definition

    def _check_links(self, definition: TemplateDefinition, templates: UserTemplates) -> ResolvedTemplate:
        """Refuse a missing parent or a cycle, then resolve (which checks inherited references)."""

        def lookup(template_id: str) -> TemplateDefinition | None:
            return definition if template_id == definition.id else templates.lookup(template_id)

        ancestors(definition, lookup)
        resolved = resolve(definition, lookup)
        for child in templates.descendants(definition.id):
            try:
                resolve(templates.require(child), lookup)
            except TemplateError as exc:
                raise TemplateError(
                    f"The change would break template {child}, which inherits from it: {exc}", exc.errors
                ) from exc
        return resolved

    def _recheck(
        self, caller: Caller, templates: UserTemplates, template_ids: list[str], *, only_changed: bool = False
    ) -> list[Compliance]:
        """Each memory's compliance with its template as it is now, and its identity key under the template's
        identity now (a changed identity re-keys them: service/identity.py)."""
        resolved = {tid: templates.resolved(tid) for tid in template_ids}
        out = []
        for memory in self.store.memories.of_templates(caller.user, template_ids, include_deleted=True):
            assert memory.template_id is not None
            template = resolved[memory.template_id]
            result = validate_content(template, memory.structured_content or {}, now=self.clock())
            errors = tuple(e.as_dict() for e in result.errors)
            key = identity_key(template.definition.identity, memory.structured_content)
            now = (result.valid, errors, key)
            if (
                not only_changed
                or (memory.template_compliance, memory.template_validation_errors, memory.identity_key) != now
            ):
                out.append(Compliance(memory.id, result.valid, errors, memory.version, key))
        return out

    def _trash(self, caller: Caller, template: TemplateDefinition, wanted: bool) -> list[MemoryChange]:
        if not wanted:
            return []
        now = self.clock()
        reason = f"template {excerpt(template.name)} ({template.id}) was deleted with its memories"
        changes = []
        # Memories above the caller's trust level stay: it cannot change what it cannot see.
        found = self.store.memories.of_templates(caller.user, [template.id], include_deleted=False)
        for memory in visibility.only_reachable(caller, found):
            gone = dataclasses.replace(memory, deleted_at=now, updated_at=now, version=memory.version + 1)
            entry = HistoryEntry(
                memory.id, caller.user, memory.version, "delete", {"deleted_at": None}, reason, now, actor=caller.actor
            )
            changes.append(MemoryChange(gone, memory.version, entry))
        return changes


def template_space(caller: Caller, definition: TemplateDefinition) -> str | None:
    """The key of the shared space a template of ``caller``'s view is in (None: personal, or a built-in)."""
    return caller.user if is_space_key(caller.user) and not definition.is_default else None


def _definition(record: TemplateRecord) -> TemplateDefinition:
    return parse_template(dict(record.definition))


def _new_id(name: str) -> str:
    return f"tpl_{template_lookup.slug(name)[:40] or 'template'}_{uuid.uuid4().hex[:8]}"


def _sort_key(sort_by: str) -> Any:
    if sort_by == "name":
        return lambda v: v.definition.name.casefold()
    if sort_by == "recent":
        return lambda v: (-(v.usage.last_used.timestamp() if v.usage.last_used else 0), v.definition.name.casefold())
    return lambda v: (-v.usage.usage_count, v.definition.name.casefold())


def _check_list_arguments(sort_by: str, limit: Any, offset: Any) -> None:
    if sort_by not in ("usage_count", "name", "recent"):
        raise ValidationFailed.single("sort_by", "invalid", "sort_by must be usage_count, name or recent.", sort_by)
    checks.whole_number("limit", limit, 1, 100)
    checks.whole_number("offset", offset, 0, 1_000_000)


def _search_words(search: Any) -> list[str]:
    if search is None:
        return []
    if not isinstance(search, str) or len(search) > MAX_SEARCH:
        raise ValidationFailed.single("search", "invalid", f"search is a text of at most {MAX_SEARCH} characters.")
    return search.casefold().split()


def _named(definitions: list[TemplateDefinition], name: str) -> TemplateDefinition | None:
    wanted = name_key(name)
    return next((d for d in definitions if name_key(d.name) == wanted), None)
