"""Importing remember's own export into a database that may hold data (`remember import FILE`, the dashboard).

One check before any write (``plan``): every record is read and checked, then compared with what
the target holds of its user. A record whose id the user has (a memory, in the trash too; a
template; a relationship), or a preference the user has set to another value, is a clash, and
``on_conflict`` says what becomes of it: ``refuse`` (the default) writes nothing and names the
option; ``skip`` keeps what is stored; ``replace`` puts the imported record in its place, with its
history. Ids are kept as exported. Refused whatever ``on_conflict`` says: a template whose name
another of the user's templates holds, and a relationship linking a memory that is neither in the
file nor the user's; a preference value the preference does not take. An import acts with the
caller's rights: a caller below full trust (a token's session) cannot import memories above its trust
level, nor change a ``privacy.`` preference, as it could not store or set them otherwise.

``into`` imports the export of one user (or of one shared space) into the account or the space it names;
a file of several with it is an error (pick one at export time). A space's export is imported into a space
only (a file naming a space without ``into`` is refused), and into a space go memories, relationships and
templates: a space has no preferences nor suggestion record of its own, so the file's are left out (the plan
counts them). A memory of the file whose id is the importer's in another of their spaces (``elsewhere``) is
refused: an id names one memory among a member's spaces. Then ``write`` writes (``jsonl.import_records``),
the member importing into a space recorded as the one who stored and changed every row (``acting``; the
file's names are not taken), and checks the memories of every template stored with another definition
against the one it kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from remember import preferences as preference_specs
from remember.caller import Caller
from remember.errors import AccessDenied, Conflict, ValidationFailed, excerpt
from remember.models import OnConflict, Progress, name_key
from remember.service.import_export.jsonl import import_records
from remember.service.import_export.jsonl_reading import Contents, Record, contents
from remember.service.indexer import Indexer
from remember.service.preferences import TRUSTED_ONLY
from remember.service.templates import TemplateService
from remember.space_keys import is_space_key
from remember.store import Store

SPACELESS = ("preference", "preference_change", "suggestion_event")  # what a space holds none of
SHOWN = 3  # ids named per kind in a message
ONE = {"memories": "memory", "templates": "template", "relationships": "relationship", "preferences": "preference"}


@dataclass(frozen=True)
class Clash:
    """What of one user's part of the file the user has already: ids (paths for preferences) by kind."""

    user: str
    memories: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()
    relationships: tuple[str, ...] = ()
    preferences: tuple[str, ...] = ()
    changed_templates: tuple[str, ...] = ()  # of ``templates``, those stored with another definition

    def counts(self) -> dict[str, int]:
        kinds = ("memories", "templates", "relationships", "preferences")
        return {kind: len(getattr(self, kind)) for kind in kinds if getattr(self, kind)}

    def text(self) -> str:
        """``3 memories (a, b, c, …), 1 preference (search.default_limit)``."""
        parts = []
        for kind, count in self.counts().items():
            ids: tuple[str, ...] = getattr(self, kind)
            shown = ", ".join(excerpt(i) for i in ids[:SHOWN]) + (", …" if count > SHOWN else "")
            parts.append(f"{count} {kind if count > 1 else ONE[kind]} ({shown})")
        return ", ".join(parts)


@dataclass(frozen=True)
class Plan:
    """What an import will do: per user (as imported), how many memories the file holds, and its clashes."""

    memories: dict[str, int]
    clashes: tuple[Clash, ...]
    on_conflict: OnConflict
    into: str | None
    left_out: dict[str, int] = field(default_factory=dict)  # what of the file has no place where it goes

    def as_dict(self) -> dict[str, object]:
        """Per user its memories, and what of the file the users had already (``skip``: kept as stored,
        ``replace``: replaced by the file's)."""
        stored = {c.user: c.counts() for c in self.clashes}
        return {"users": self.memories, "memories": sum(self.memories.values()), "on_conflict": self.on_conflict,
                "stored_already": stored, **({"left_out": self.left_out} if self.left_out else {})}  # fmt: skip


def plan(
    store: Store,
    records: Iterable[Record],
    *,
    into: str | None = None,
    on_conflict: OnConflict = "refuse",
    option: str = "--on-conflict",
    into_option: str = "--user",
    reach: Caller | None = None,
    elsewhere: Mapping[str, str] | None = None,
    space_option: str = "--space",
    admin: bool = True,
    spaces_to_spaces: bool = False,
) -> Plan:
    """Every record read and checked against the target; Conflict or ValidationFailed before any write.
    ``option``, ``into_option`` and ``space_option`` are what the edge calls ``on_conflict``, ``into`` and the
    space imported into in its messages; ``reach`` is the caller of an import into its own account (a session
    of a token below full trust cannot replace what it cannot see); ``elsewhere``: the importer's spaces (names
    by key, their own id for the personal one), where no id of the file may be but in the one imported into;
    ``admin``: whether the importer is an admin of the shared space imported into (only admins bring in its
    templates or replace what it holds, history included); ``spaces_to_spaces``: a space's export is refused
    into a user's account too, not only without ``into``."""
    read = contents(records)
    _spaces_placed(read, None if spaces_to_spaces and into and not is_space_key(into) else into, space_option)
    found = _renamed(read, into, into_option)
    clashes = []
    left_out: dict[str, int] = {}
    for user, held in found.items():
        _nowhere_else(store, held, {k: name for k, name in (elsewhere or {}).items() if k != user})
        if is_space_key(user):
            left_out = {"preferences": len(held.preferences)} if held.preferences else {}
            held.preferences = {}
        _members_known(store, user, held)
        _names_free(store, user, held, on_conflict)
        clash = _clash(store, user, held)
        if clash.counts():
            clashes.append(clash)
        if is_space_key(user):
            _only_admins(held, clash, on_conflict, admin)
            _ids_free(store, user, held)
        _preferences_usable(store, user, held, reach)
        if reach is not None and reach.restricted:
            if on_conflict == "replace":
                _replaceable(store, clash, reach)
            _within_reach(held, reach, kept=set(clash.memories) if on_conflict == "skip" else set())
    if clashes and on_conflict == "refuse":
        raise _refusal(clashes, option)
    memories = {user: len(held.memories) for user, held in found.items()}
    return Plan(memories, tuple(clashes), on_conflict, into, left_out)


def write(
    store: Store,
    indexer: Indexer,
    templates: TemplateService,
    records: Iterable[Record],
    planned: Plan,
    progress: Progress | None = None,
    acting: Caller | None = None,
) -> dict[str, int]:
    """Write the records ``plan`` checked (read again), as it planned; per user, memories read. ``acting``: the
    caller importing into its own account or a space (there recorded as the one who stored every row)."""
    author = acting.person if acting is not None and is_space_key(acting.user) else None
    counts = import_records(
        store, indexer, as_user(records, planned.into), progress, on_conflict=planned.on_conflict, author=author
    )
    for clash in planned.clashes:
        if clash.changed_templates:  # their memories were checked against the other definition
            owner = acting if acting is not None and acting.user == clash.user else Caller(clash.user)
            templates.recheck(owner, clash.changed_templates)
    return counts


def as_user(records: Iterable[Record], user: str | None) -> Iterator[Record]:
    """The records, with ``user`` as their user when given (the file's one user becomes that user); into a
    shared space, without what a space holds none of (``SPACELESS``)."""
    for record in records:
        if not user or not isinstance(record, dict) or "user_id" not in record:
            yield record
        elif not (is_space_key(user) and record.get("kind") in SPACELESS):
            yield {**record, "user_id": user}


def _spaces_placed(found: dict[str, Contents], into: str | None, space_option: str) -> None:
    """A shared space's export goes into a space named by the import, never by the file."""
    spaces = sorted(user for user in found if is_space_key(user))
    chosen = f"{space_option} NAME" if space_option.startswith("-") else space_option
    if spaces and into is None:
        raise ValidationFailed.single(
            "file", "space", f"This file is the export of shared space {spaces[0]}: import it into a space of yours "
            f"where you write ({chosen}; create one first if need be). Nothing was imported.",
        )  # fmt: skip


def _only_admins(held: Contents, clash: Clash, on_conflict: OnConflict, admin: bool) -> None:
    """What only a space's admins do by import: bring in templates, and replace stored records (their history)."""
    if admin:
        return
    if held.templates:
        raise AccessDenied(
            f"The file holds {len(held.templates)} templates: only the space's admins change its templates. "
            "Ask an admin to import it, or import a file without templates."
        )
    if on_conflict == "replace" and clash.counts():
        raise AccessDenied(
            "Replacing a space's records replaces their history (who changed what): only the space's admins do "
            "that. Import with skip, or ask an admin."
        )


def _ids_free(store: Store, space: str, held: Contents) -> None:
    """An id imported into a shared space names nothing else in the database: lookups by id go through every
    space of a member, and must never find two."""
    for kind, ids in (("memories", list(held.memories)), ("relationships", list(held.relationships))):
        taken = store.transfer.held_by_others(space, kind, ids) if ids else set()
        if taken:
            raise Conflict(
                f"{len(taken)} of the file's {kind} (the first: {excerpt(min(taken))}) have ids used elsewhere in "
                "this database, and what is imported into a shared space keeps its ids. Nothing was imported. "
                "Import it into another database."
            )


def _nowhere_else(store: Store, held: Contents, elsewhere: Mapping[str, str]) -> None:
    """No memory or relationship of the file is one the importer has in another of their spaces (``elsewhere``:
    names by key)."""
    for kind, ids in (("memories", list(held.memories)), ("relationships", list(held.relationships))):
        for owner, name in elsewhere.items():
            found = store.transfer.existing(owner, kind, ids) if ids else set()
            if found:
                where = f"your space {excerpt(name)}" if is_space_key(owner) else "your personal space"
                raise Conflict(
                    f"{len(found)} of the file's {kind} (the first: {excerpt(min(found))}) are in {where} already, "
                    f"and an id names one of your {kind} in one space only. Nothing was imported. Import the file "
                    "into another database, or where they are."
                )


def _renamed(found: dict[str, Contents], into: str | None, into_option: str) -> dict[str, Contents]:
    if into is None or not found:
        return found
    if len(found) > 1:
        raise ValidationFailed.single(
            "file", "users", f"This export holds {len(found)} users ({', '.join(sorted(found))}); "
            f"{into_option} takes the export of one user. Export one user (`remember --user NAME export`), or "
            "import the whole file with `remember import FILE`, each user as themselves.",
        )  # fmt: skip
    return {into: next(iter(found.values()))}


def _clash(store: Store, user: str, held: Contents) -> Clash:
    memories = store.transfer.existing(user, "memories", list(held.memories))
    stored_templates = {r.id: r for r in store.templates.of_user(user)}
    templates = [t for t in held.templates if t in stored_templates]
    changed = [t for t in templates if _same(stored_templates[t].definition) != _same(held.templates[t][1].definition)]
    stored_preferences = store.preferences.get(user)
    preferences = [
        path for path, value in held.preferences.items()
        if path in stored_preferences and _same(stored_preferences[path]) != _same(value)
    ]  # fmt: skip
    return Clash(
        user,
        tuple(m for m in held.memories if m in memories),
        tuple(templates),
        tuple(sorted(store.transfer.existing(user, "relationships", list(held.relationships)))),
        tuple(sorted(preferences)),
        tuple(changed),
    )


def _members_known(store: Store, user: str, held: Contents) -> None:
    """A relationship links the user's memories: each member in the file or stored for the user."""
    elsewhere = sorted({m for _, members in held.relationships.values() for m in members} - held.memories.keys())
    stored = store.transfer.existing(user, "memories", elsewhere) if elsewhere else set()
    for rel_id, (line, members) in held.relationships.items():
        missing = [m for m in members if m not in held.memories and m not in stored]
        if missing:
            raise ValidationFailed.single(
                f"line {line}", "member", f"Line {line}: relationship {excerpt(rel_id)} links memory "
                f"{excerpt(missing[0])}, which is neither in the file nor one of user {user}'s. "
                "Nothing was imported.",
            )  # fmt: skip


def _names_free(store: Store, user: str, held: Contents, on_conflict: OnConflict) -> None:
    """After the import no two of the user's templates may share a name (whatever ``on_conflict``)."""
    final: dict[str, tuple[str, int | None]] = {r.id: (r.name, None) for r in store.templates.of_user(user)}
    for template_id, (number, record) in held.templates.items():
        if template_id not in final or on_conflict == "replace":
            final[template_id] = (record.name, number)
    holders: dict[str, str] = {}
    for template_id, (name, line) in sorted(final.items(), key=lambda item: item[1][1] or 0):
        other = holders.setdefault(name_key(name), template_id)
        if other != template_id:
            where = f"line {line}" if line else "the file"
            raise Conflict(
                f"Cannot import {where}: template {excerpt(name)} ({excerpt(template_id)}) would have the name of "
                f"template {excerpt(other)} of user {user}; rename one of them (`remember --user "
                f"{user} template update ID --name NEW`, or in the file) and import again. Nothing was imported."
            )


def _preferences_usable(store: Store, user: str, held: Contents, reach: Caller | None) -> None:
    """Each preference of the file one the user could set: a value its preference takes and, for a caller below
    full trust, none that decides what lower-trust callers read (``privacy.``) changed. Paths this version does
    not know are kept as they are (they change nothing here)."""
    current = preference_specs.effective(store.preferences.get(user))
    for path, value in held.preferences.items():
        if path not in current:
            continue
        try:
            preference_specs.coerce(preference_specs.spec_for(path), value)
        except ValidationFailed as exc:
            raise ValidationFailed.single(
                f"preference {path}", "value", f"The file's preference {exc.message} Nothing was imported.", value
            ) from exc
        if (
            reach is not None
            and reach.restricted
            and path.startswith(TRUSTED_ONLY)
            and _same(value) != _same(current[path])
        ):
            raise AccessDenied(
                f"The file sets {path}, which decides which callers can read new memories; a session below full "
                f"trust ({reach.trust:g}) may not change it. Nothing was imported. Import with a full-trust token, "
                "or from the command line."
            )


def _within_reach(held: Contents, reach: Caller, kept: set[str]) -> None:
    """Every memory of the file that is written (all but the stored ones ``kept``) within the caller's trust: a
    session does not store what it may not read."""
    above = [m for m, trust in held.trust.items() if not reach.reaches(trust) and m not in kept]
    if above:
        line = held.memories[above[0]]
        raise AccessDenied(
            f"{len(above)} of the file's memories (the first on line {line}) need a trust level above this "
            f"session's ({reach.trust:g}), and a session does not store what it may not read. Nothing was "
            "imported. Import with a token of full trust, or from the command line."
        )


def _replaceable(store: Store, clash: Clash, reach: Caller) -> None:
    """The stored records a replace would overwrite are all within the caller's reach."""
    hidden = [m.id for m in store.memories.get_many(clash.user, list(clash.memories)) if not reach.reaches(m.trust)]
    visible = {r.id for r in store.relationships.by_id(clash.user, list(clash.relationships), trust=reach.trust)}
    hidden += [r for r in clash.relationships if r not in visible]
    if hidden:
        raise AccessDenied(
            f"{len(hidden)} of the stored records the file would replace are above this session's trust level "
            f"({reach.trust:g}), and what a session cannot see it cannot overwrite. Nothing was imported. Skip "
            "them instead, or import with a token of full trust."
        )


def _refusal(clashes: list[Clash], option: str) -> Conflict:
    listed = "; ".join(f"{_owner(c.user)}: {c.text()}" for c in clashes)  # user ids are checked: plain
    return Conflict(
        f"The file holds records that are stored already ({listed}). Nothing was imported. Choose with {option}: "
        "skip keeps what is stored and imports the rest, replace overwrites each stored record with the file's "
        "(ids stay as exported)."
    )


def _owner(key: str) -> str:
    return f"space {key}" if is_space_key(key) else f"user {key}"


def _same(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)
