"""Memory use-cases: create, read, update with history, delete and restore, list."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from remember import preferences as known
from remember.caller import Caller
from remember.clock import Clock, from_text, to_text, utc_now
from remember.errors import Conflict, FieldError, NotFound, ValidationFailed
from remember.filters import Filter, conjoin, parse_filter
from remember.jsontypes import JsonObject
from remember.memory_fields import EDITABLE, INDEXED
from remember.models import HistoryEntry, IndexEntry, Memory, MemoryQuery, Page, SortField
from remember.nouns import counted
from remember.search import text
from remember.service import browsing, checks, conflicts, dedup, editable, identity, structured, validity, visibility
from remember.service.access_counts import note_access
from remember.service.drafts import MemoryDraft, MemoryPatch, memory_draft, memory_patch
from remember.service.indexer import Indexer
from remember.service.preferences import PreferenceService
from remember.service.templates import TemplateService, UserTemplates
from remember.store import Store

MAX_LIMIT = 100
MAX_OFFSET = 1_000_000
SORTS: dict[str, SortField] = {
    "created": "created_at",
    "created_at": "created_at",
    "updated": "updated_at",
    "updated_at": "updated_at",
    "weight": "weight",
    "occurred": "occurred_at",
    "occurred_at": "occurred_at",
}


@dataclasses.dataclass(frozen=True)
class Stored:
    """A memory as written, and the template field values given but not kept (computed, hidden)."""

    memory: Memory
    ignored: tuple[FieldError, ...] = ()
    duplicate: dedup.Duplicate | None = None  # the memory the create found already stored
    identity: identity.Outcome | None = None  # the memory about the same thing, and what was done with it
    superseded: tuple[str, ...] = ()  # the memories this one ended
    conflicts: tuple[conflicts.Hint, ...] = ()  # current memories it may update: near, differing in a value


@dataclasses.dataclass(frozen=True)
class Deletion:
    memory_id: str
    permanent: bool
    memory: Memory | None  # the soft-deleted memory; None once purged


class MemoryService:
    def __init__(
        self,
        store: Store,
        preferences: PreferenceService,
        templates: TemplateService,
        indexer: Indexer,
        clock: Clock = utc_now,
    ) -> None:
        self.store = store
        self.preferences = preferences
        self.templates = templates
        self.indexer = indexer
        self.clock = clock

    def create(self, caller: Caller, draft: MemoryDraft | JsonObject) -> Memory:
        """Store a new memory (a mapping is read as ``MemoryDraft.from_mapping``).

        With a ``template_id`` the structured content is validated (TemplateContentInvalid
        lists every problem) and ``content``, ``title`` and ``type`` may be left out.
        The memory and its search index entry are written in one transaction.
        """
        return self.store_new(caller, draft).memory

    def store_new(self, caller: Caller, draft: MemoryDraft | JsonObject) -> Stored:
        """``create``, also saying which given template field values were not kept, and why, which
        memory already held the text (dedup on write, ``memory.on_duplicate``: service/dedup.py), and
        which memory about the same thing it updated or superseded (``memory.on_identity``)."""
        clean = memory_draft(draft)
        memory, fields_text, ignored = self._prepare(caller, clean)
        replaced = self._supersedable(caller, clean.supersedes or ())
        same = self._same_thing(caller, memory)
        if same is not None and same[0] == "update":
            return self._absorb(caller, same[1], memory, ignored)
        if same is not None and same[1].id not in {m.id for m in replaced}:
            replaced.append(same[1])
        memory = dataclasses.replace(memory, supersedes=tuple(m.id for m in replaced))
        entry = self.indexer.entry(memory, fields_text)
        stored = self._store_new(caller, memory, entry, ignored, stamped=bool((clean.context or {}).get("timestamp")))
        if stored.memory.id != memory.id:
            return stored
        ended = tuple(self._end(caller, old, memory) for old in replaced)
        outcome = None
        if same is not None:
            change = identity.changes(same[1].structured_content, memory.structured_content)
            outcome = identity.Outcome("superseded", same[1].id, self._identity_of(caller, memory), change)
        return dataclasses.replace(
            stored, identity=outcome, superseded=ended, conflicts=self._conflicts(caller, memory, entry.vector)
        )

    def _conflicts(self, caller: Caller, memory: Memory, vector: bytes | None) -> tuple[conflicts.Hint, ...]:
        """The current free-text memories a new free-text one may update (service/conflicts.py)."""
        if vector is None or memory.template_id is not None:
            return ()
        current = validity.condition(self.store, caller.user, validity.CURRENT, self.clock())
        least = self.indexer.scale.passages.own(conflicts.COSINE)  # the embedder's own cosine (scale.py)
        return conflicts.hints(self.store, caller, memory, vector, current, least)

    def _store_new(
        self, caller: Caller, memory: Memory, entry: IndexEntry, ignored: tuple[FieldError, ...], *, stamped: bool
    ) -> Stored:
        """The memory stored, unless a duplicate of it is (then what ``memory.on_duplicate`` says); ``stamped``:
        its time was given."""
        repeat = dedup.repeat_rule({memory.id} if stamped else set())
        found = dedup.find(
            self.store, caller, memory, entry.vector, repeat, self.indexer.scale.passages.own(dedup.COSINE)
        )
        mode = known.text(self.preferences.effective(caller), "memory.on_duplicate")
        if found is not None and (found.match == "repeat" or mode != "keep"):
            return self._settle(caller, memory, found, mode, ignored)
        twin = self.store.memories.insert_new([(memory, entry)], max_trust=caller.trust, repeat=repeat)[0]
        if twin is not None:  # the same call, made at the same time, got there first
            return Stored(twin, ignored, dedup.Duplicate(twin.id, "repeat", 1.0, "skipped"))
        kept = dedup.Duplicate(found.memory.id, found.match, found.similarity, "stored") if found else None
        return Stored(memory, ignored, kept)

    def _supersedable(self, caller: Caller, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories ``supersedes`` names, each one the caller can reach and not deleted; else nothing is
        stored and every id that is not is named."""
        errors: checks.Errors = []
        found: list[Memory] = []
        for i, given in enumerate(dict.fromkeys(memory_ids)):
            clean_id = checks.identifier(given, f"supersedes[{i}]", errors)
            memory = visibility.reachable(caller, self.store.memories.get(caller.user, clean_id)) if clean_id else None
            if clean_id is not None and (memory is None or memory.is_deleted):
                errors.append(FieldError(f"supersedes[{i}]", "not_found", str(visibility.unknown(clean_id)), given))
            elif memory is not None:
                found.append(memory)
        if errors:
            raise ValidationFailed(
                "The memory cannot be stored: supersedes names memories that cannot be used.", errors
            )
        return found

    def _same_thing(self, caller: Caller, memory: Memory) -> tuple[str, Memory] | None:
        """The current memory about the same thing as ``memory`` (its template's identity values), and what
        ``memory.on_identity`` says to do with it; None when there is none or the preference is ``keep``."""
        if memory.identity_key is None or memory.template_id is None:
            return None
        mode = known.text(self.preferences.effective(caller), "memory.on_identity")
        if mode == "keep":
            return None
        found = self.store.memories.same_identity(
            caller.user, memory.template_id, memory.identity_key, max_trust=caller.trust
        )
        return (mode, found[-1]) if found else None

    def _identity_of(self, caller: Caller, memory: Memory) -> tuple[str, ...]:
        view = self.templates.view_of(caller)
        return view.resolved(memory.template_id).definition.identity if memory.template_id else ()

    def _absorb(self, caller: Caller, same: Memory, new: Memory, ignored: tuple[FieldError, ...]) -> Stored:
        """``same`` taking the values of ``new``, a memory about the same thing, as a new version whose history
        says when they became true; values that happened before ``same``'s are only added where it has none."""
        latest = max([same.starts, *(h.effective for h in self.store.memories.history(caller.user, same.id))])
        named = self._identity_of(caller, same)  # kept as first written: "ana nunez" is still "Ana Núñez"
        given = {k: v for k, v in (new.structured_content or {}).items() if k not in named}
        content = identity.merged(same.structured_content, given, overwrite=new.starts >= latest)
        patch = MemoryPatch(structured_content=content, tags=list(dict.fromkeys((*same.tags, *new.tags))))
        changed = self.change(
            caller, same.id, patch, reason=f"a new memory about the same thing ({new.title or new.type})",
            effective_at=new.starts,
        )  # fmt: skip
        difference = identity.changes(same.structured_content, changed.memory.structured_content)
        action: identity.Action = "updated" if changed.memory.version != same.version else "unchanged"
        outcome = identity.Outcome(action, same.id, named, difference)
        return Stored(changed.memory, (*ignored, *changed.ignored), identity=outcome)

    def _end(self, caller: Caller, old: Memory, successor: Memory) -> str:
        """End ``old`` where ``successor`` begins; its id."""
        after, entry = validity.ended(old, successor, self.clock(), caller.actor)
        self.store.memories.replace(after, expected_version=old.version, history=entry)
        return old.id

    def prepare_new(
        self, caller: Caller, draft: MemoryDraft, templates: UserTemplates | None = None
    ) -> tuple[Memory, str | None]:
        """The memory ``draft`` describes, checked but not stored, and its rendered template fields;
        its template is looked up in ``templates`` (by default the caller's)."""
        memory, fields_text, _ = self._prepare(caller, draft, templates)
        return memory, fields_text

    def insert_prepared(
        self, caller: Caller, batch: Sequence[tuple[Memory, str | None]], stamped: set[str]
    ) -> list[Memory | None]:
        """Store prepared memories in one transaction, each unless it repeats a stored one (an import read
        twice): per memory, the one it repeats (nothing written) or None. ``stamped``: ids of the
        memories whose time was given."""
        entries = self.indexer.entries(batch)
        repeat = dedup.repeat_rule(stamped, within=None)
        pairs = [(m, e) for (m, _), e in zip(batch, entries, strict=True)]
        return self.store.memories.insert_new(pairs, max_trust=caller.trust, repeat=repeat)

    def _settle(
        self, caller: Caller, new: Memory, found: dedup.Found, mode: str, ignored: tuple[FieldError, ...]
    ) -> Stored:
        """A duplicate not stored: the existing memory as it is (skip, a retry) or with the new one merged in."""
        if found.match == "repeat" or mode == "skip":
            return Stored(
                found.memory, ignored, dedup.Duplicate(found.memory.id, found.match, found.similarity, "skipped")
            )
        merged = self._merge(caller, found, new)
        return Stored(merged, ignored, dedup.Duplicate(merged.id, found.match, found.similarity, "merged"))

    def _merge(self, caller: Caller, found: dedup.Found, new: Memory) -> Memory:
        """The existing memory with the new one's tags, references and a higher weight; a similar free
        text takes the new wording. The values replaced go to its history."""
        old = found.memory
        patch: dict[str, Any] = {}
        for name in ("tags", "references"):
            union = tuple(dict.fromkeys((*getattr(old, name), *getattr(new, name))))
            if union != getattr(old, name):
                patch[name] = list(union)
        if new.weight > old.weight:
            patch["weight"] = new.weight
        if new.title and not old.title:
            patch["title"] = new.title
        free_text = old.template_id is None and new.template_id is None
        if found.match == "similar" and free_text and new.content != old.content:
            patch["content"] = new.content
        if not patch:
            return old
        return self.change(caller, old.id, patch, reason="merged a duplicate create").memory

    def create_many(self, caller: Caller, drafts: Sequence[MemoryDraft | JsonObject]) -> list[Memory]:
        """Store several memories at once, embedding them in batches: all are stored, or none.

        Problems are reported for every item, with paths like ``[3].content``.
        """
        prepared: list[tuple[Memory, str | None]] = []
        errors: list[FieldError] = []
        for i, draft in enumerate(drafts):
            try:
                memory, fields_text, _ = self._prepare(caller, memory_draft(draft))
                prepared.append((memory, fields_text))
            except ValidationFailed as problem:
                errors += [dataclasses.replace(e, field=f"[{i}].{e.field}") for e in problem.errors]
            except NotFound as problem:
                errors.append(FieldError(f"[{i}].template_id", "not_found", str(problem)))
        if errors:
            raise ValidationFailed(f"{counted(len(errors), 'problem')} in the batch; nothing was stored.", errors)
        entries = self.indexer.entries(prepared)
        self.store.memories.insert_many([(m, e) for (m, _), e in zip(prepared, entries, strict=True)])
        return [m for m, _ in prepared]

    def _prepare(
        self, caller: Caller, draft: MemoryDraft, templates: UserTemplates | None = None
    ) -> tuple[Memory, str | None, tuple[FieldError, ...]]:
        """The memory ``draft`` describes, checked; its rendered template fields if any; and the
        template field values given but not kept."""
        raw = draft.given()
        if raw.get("content") is None and raw.get("template_id") is None:
            raise ValidationFailed.single(
                "content", "required", "content is required: the text to remember (or a template_id and its fields)."
            )
        values = editable.clean(raw, headline="The memory cannot be stored.")
        visibility.check_trust_given(caller, values.get("trust"))
        now = self.clock()
        applied = None
        if values.get("template_id") is not None:
            applied = structured.apply(
                self.templates, caller, values["template_id"], values.get("structured_content"), now, templates
            )
        context, stamp = values.pop("context", None) or ({}, None)
        defaults = self.preferences.effective(caller)
        default_trust = visibility.default_trust(caller, known.number(defaults, "privacy.default_trust"))
        template_fields = applied.fields() if applied else {"structured_content": values.get("structured_content")}
        memory = Memory(
            id=str(uuid.uuid4()),
            user_id=caller.user,
            content=values.get("content") or (applied.text if applied else ""),
            title=values.get("title") or (applied.title if applied else None),
            type=values.get("type") or (applied.type if applied else known.text(defaults, "memory.default_type")),
            weight=_given(values, "weight", known.number(defaults, "memory.default_weight")),
            trust=_given(values, "trust", default_trust),
            tags=values.get("tags") or (),
            references=values.get("references") or (),
            context=context,
            location=values.get("location"),
            **template_fields,
            created_at=now,
            updated_at=now,
            occurred_at=from_text(stamp) if stamp else now,
            valid_from=values.get("valid_from"),
            valid_until=values.get("valid_until"),
            created_by=caller.actor,
        )
        validity.check_span(memory)
        return memory, applied.text if applied else None, applied.ignored if applied else ()

    def get(self, caller: Caller, memory_id: str, *, record_access: bool = True) -> Memory:
        memory = self._find(caller, memory_id)
        if record_access:
            now = self.clock()
            if note_access(self.store, caller.user, [memory.id], now):
                memory = dataclasses.replace(memory, access_count=memory.access_count + 1, last_accessed_at=now)
        return memory

    def update(
        self, caller: Caller, memory_id: str, patch: MemoryPatch | JsonObject, *, reason: str | None = None
    ) -> Memory:
        """Apply a partial change (a mapping is read as ``MemoryPatch.from_mapping``: null clears a field);
        the replaced values go to the memory's history."""
        return self.change(caller, memory_id, patch, reason=reason).memory

    def change(
        self, caller: Caller, memory_id: str, patch: MemoryPatch | JsonObject, *, reason: str | None = None,
        expected_version: int | None = None, effective_at: datetime | None = None,
    ) -> Stored:  # fmt: skip
        """``update``, also saying which given template field values were not kept, and why; with
        ``expected_version``, refused (Conflict) unless the memory is still at that version. The history
        entry says the new values became true at ``effective_at`` when given (what ``as_of`` reads)."""
        why = checks.reason(reason)
        values = editable.clean(memory_patch(patch).changes(), headline="The update cannot be applied.")
        if not values:
            raise ValidationFailed.single(
                "changes", "empty", f"Nothing to update: give at least one of {', '.join(EDITABLE)}."
            )
        visibility.check_trust_given(caller, values.get("trust"))
        current = self._find(caller, memory_id)
        if expected_version is not None and current.version != expected_version:
            raise Conflict(
                f"Memory {current.id} was changed since you read it (now version {current.version}, "
                f"you edited version {expected_version}); reload it and reapply your change."
            )
        if current.is_deleted:
            raise ValidationFailed.single(
                "memory_id",
                "deleted",
                f"Memory {memory_id} is deleted; restore it first (remember_restore_memory, "
                f"or `remember restore {memory_id}`).",
            )
        ignored: tuple[FieldError, ...] = ()
        if "template_id" in values or "structured_content" in values:
            values, ignored = self._retemplate(caller, current, values)
        updated, previous = _apply(current, values)
        validity.check_span(updated)
        if not previous:
            return Stored(current, ignored)
        now = self.clock()
        updated = dataclasses.replace(updated, updated_at=now, version=current.version + 1)
        entry = HistoryEntry(
            current.id, caller.user, current.version, "update", previous, why, now, effective_at, caller.actor
        )
        index = self._reindexed(caller, current, updated) if set(previous) & INDEXED else None
        self.store.memories.replace(updated, expected_version=current.version, history=entry, index=index)
        return Stored(updated, ignored)

    def _reindexed(self, caller: Caller, before: Memory, after: Memory) -> IndexEntry:
        """The new index entry; the vector is reused when the text it is made from did not change."""
        same_text = text.vector_text(before.title, before.content) == text.vector_text(after.title, after.content)
        vector = self.store.index.get_vector(caller.user, after.id) if same_text else None
        return self.indexer.entry(after, self.fields_text(caller, after), vector=vector)

    def fields_text(self, caller: Caller, memory: Memory) -> str | None:
        """The memory's template fields rendered as text; None without a usable template."""
        return self.templates.view_of(caller).fields_text(memory)

    def delete(self, caller: Caller, memory_id: str, *, permanent: bool = False, reason: str | None = None) -> Deletion:
        """Soft-delete (restorable), or with ``permanent`` erase the memory and its history."""
        why = checks.reason(reason)
        current = self._find(caller, memory_id)
        if permanent:
            self.store.memories.purge(caller.user, current.id)
            return Deletion(current.id, True, None)
        if current.is_deleted:
            return Deletion(current.id, False, current)
        now = self.clock()
        deleted = dataclasses.replace(current, deleted_at=now, updated_at=now, version=current.version + 1)
        entry = HistoryEntry(
            current.id, caller.user, current.version, "delete", {"deleted_at": None}, why, now, actor=caller.actor
        )
        self.store.memories.replace(deleted, expected_version=current.version, history=entry)
        return Deletion(current.id, False, deleted)

    def restore(self, caller: Caller, memory_id: str, *, reason: str | None = None) -> Memory:
        why = checks.reason(reason)
        current = self._find(caller, memory_id)
        if not current.is_deleted:
            return current
        now = self.clock()
        restored = dataclasses.replace(current, deleted_at=None, updated_at=now, version=current.version + 1)
        previous = {"deleted_at": to_text(current.deleted_at) if current.deleted_at else None}
        entry = HistoryEntry(
            current.id, caller.user, current.version, "restore", previous, why, now, actor=caller.actor
        )
        self.store.memories.replace(restored, expected_version=current.version, history=entry)
        return restored

    def history(self, caller: Caller, memory_id: str) -> list[HistoryEntry]:
        memory = self._find(caller, memory_id)
        return visibility.visible_history(caller, memory, self.store.memories.history(caller.user, memory.id))

    def list(
        self,
        caller: Caller,
        *,
        filters: JsonObject | None = None,
        type: str | None = None,
        tags: list[str] | None = None,
        tags_match: Literal["any", "all"] = "any",
        created_after: str | None = None,
        created_before: str | None = None,
        sort_by: str = "created_at",
        sort_order: str = "desc",
        limit: int = 20,
        offset: int = 0,
        deleted: str = "exclude",
        when: validity.When = validity.CURRENT,
    ) -> Page:
        """One page of the user's memories (those ``when`` says: by default the current ones); the shortcut
        arguments AND with ``filters``."""
        current = validity.condition(self.store, caller.user, when, self.clock(), parse_filter(filters))
        query = listing_query(
            caller,
            filters,
            conjoin(_shortcuts(type, tags, tags_match, created_after, created_before), current),
            sort_by,
            sort_order,
            deleted,
        )
        query = dataclasses.replace(
            query,
            limit=checks.whole_number("limit", limit, 1, MAX_LIMIT),
            offset=checks.whole_number("offset", offset, 0, MAX_OFFSET),
        )
        page = self.store.memories.page(caller.user, query)
        seen = validity.seen_as(self.store, caller, page.items, when)
        return dataclasses.replace(page, items=tuple(seen))

    def browse(
        self, caller: Caller, *, filters: JsonObject | None = None, sort_by: str = "created_at",
        sort_order: str = "desc", limit: int = 20, cursor: str | None = None, deleted: str = "exclude",
        when: validity.When = validity.CURRENT,
    ) -> browsing.Browsed:  # fmt: skip
        """A keyset page of the user's memories (by default the current ones): the page after ``cursor`` (from
        the first without one), and the cursor of the next; no total and no offset, so every page costs the same."""
        current = validity.condition(self.store, caller.user, when, self.clock(), parse_filter(filters))
        query = listing_query(caller, filters, current, sort_by, sort_order, deleted)
        size = checks.whole_number("limit", limit, 1, MAX_LIMIT)
        page = browsing.browse(self.store, caller.user, query, size, cursor)
        return dataclasses.replace(page, items=tuple(validity.seen_as(self.store, caller, page.items, when)))

    def _retemplate(
        self, caller: Caller, current: Memory, values: dict[str, Any]
    ) -> tuple[dict[str, Any], tuple[FieldError, ...]]:
        """Validate the memory's fields against its (possibly new) template before an update; the
        values to write, and the given field values not kept."""
        template_id = values.get("template_id", current.template_id)
        if template_id is None:
            cleared = {"template_version": None, "template_compliance": None, "template_validation_errors": (),
                       "identity_key": None}  # fmt: skip
            return {**values, **cleared}, ()
        content = current.structured_content or {}
        if template_id != current.template_id and content:
            content = structured.carried_over(self.templates, caller, template_id, content)
        if "structured_content" in values:
            patch = values["structured_content"]
            content = {} if patch is None else structured.merge_patch(content, patch)
        applied = structured.apply(self.templates, caller, template_id, content, self.clock())
        out = {**values, **applied.fields()}
        if "content" not in values and self._was_rendered(caller, current):
            out["content"] = applied.text
        return out, applied.ignored

    def _was_rendered(self, caller: Caller, memory: Memory) -> bool:
        """Whether the memory's text is its fields rendered (so it follows them when they change)."""
        rendered = self.fields_text(caller, memory)
        return rendered is not None and memory.content == rendered

    def _find(self, caller: Caller, memory_id: str) -> Memory:
        errors: checks.Errors = []
        clean_id = checks.identifier(memory_id, "memory_id", errors)
        if errors or clean_id is None:
            raise ValidationFailed("The memory id is not usable.", errors)
        memory = visibility.reachable(caller, self.store.memories.get(caller.user, clean_id))
        if memory is None:
            raise visibility.unknown(clean_id)
        return memory


def _given(values: Mapping[str, Any], name: str, default: float) -> float:
    value = values.get(name)
    return default if value is None else float(value)


def _apply(current: Memory, values: Mapping[str, Any]) -> tuple[Memory, dict[str, Any]]:
    """The memory with ``values`` applied, and the previous values of what changed."""
    previous: dict[str, Any] = {}
    public = current.as_dict()
    updates: dict[str, Any] = {}
    for name, value in values.items():
        if name == "context":
            context, stamp = value
            updates["context"] = context
            if stamp is not None:
                updates["occurred_at"] = from_text(stamp)
                if "valid_from" not in values and current.starts == current.occurred_at:
                    updates["valid_from"] = updates["occurred_at"]  # a span from when it happened follows it
        else:
            updates[name] = value
    updated = dataclasses.replace(current, **updates)
    after = updated.as_dict()
    for name in values:
        if name in public and public[name] != after[name]:
            previous[name] = public[name]
    if "valid_from" in updates and "valid_from" not in values and public["valid_from"] != after["valid_from"]:
        previous["valid_from"] = public["valid_from"]
    return updated, previous


def _shortcuts(
    type_: str | None,
    tags: list[str] | None,
    tags_match: str,
    created_after: str | None,
    created_before: str | None,
) -> Filter | None:
    raw: dict[str, Any] = {}
    if type_ is not None:
        errors: checks.Errors = []
        raw["type"] = checks.memory_type(type_, errors)
        if errors:
            raise ValidationFailed("The type filter is not usable.", errors)
    if tags:
        if tags_match not in ("any", "all"):
            raise ValidationFailed.single("tags_match", "invalid", "tags_match must be 'any' or 'all'.", tags_match)
        raw["tags"] = {tags_match: tags}
    window = {op: v for op, v in (("gte", created_after), ("lt", created_before)) if v is not None}
    if window:
        raw["created_at"] = window
    return parse_filter(raw, where="arguments") if raw else None


def listing_query(
    caller: Caller,
    filters: Mapping[str, Any] | None,
    shortcuts: Filter | None,
    sort_by: str,
    sort_order: str,
    deleted: str,
) -> MemoryQuery:
    """The query of a listing, within the caller's reach."""
    tree = visibility.within_reach(caller, conjoin(parse_filter(filters), shortcuts))
    return MemoryQuery(
        filter=tree, sort_by=_sort(sort_by), descending=_descending(sort_order), deleted=checks.deleted_mode(deleted)
    )


def _sort(sort_by: str) -> SortField:
    if sort_by not in SORTS:
        raise ValidationFailed.single(
            "sort_by", "invalid", f"sort_by must be one of {', '.join(sorted(SORTS))}.", sort_by
        )
    return SORTS[sort_by]


def _descending(order: str) -> bool:
    if order not in ("asc", "desc"):
        raise ValidationFailed.single("sort_order", "invalid", "sort_order must be 'asc' or 'desc'.", order)
    return order == "desc"
