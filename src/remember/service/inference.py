"""Templates inferred from a user's untemplated memories, and fields their templated memories keep stating.

``propose`` reads up to ``MAX_MEMORIES`` of the user's memories that follow no
template with their stored vectors (embedding only a memory without one) and
groups them (``remember.templates.infer``), reading the fields each states in its
first ``MAX_TEXT`` characters (so that a call's work is bounded whatever the texts' length);
nothing is stored. ``accept`` recomputes the proposals, creates the template of
the one asked for and, with ``apply``, applies it to each memory of its group
with the fields read from that memory's text: each memory is validated on its
own, and one that does not fit is left as it was and reported. Additions are
proposed for the user's own templates: a labelled field ("isbn: ...") stated in
at least three of a template's memories and a third of them that the template
lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from remember import deadline
from remember.caller import Caller
from remember.clock import Clock, utc_now
from remember.errors import NotFound, ValidationFailed, excerpt
from remember.models import Memory
from remember.service.indexer import Indexer
from remember.service.memories import MemoryService
from remember.service.templates import TemplateService

if TYPE_CHECKING:
    from remember.templates.infer import Proposal

MAX_MEMORIES = 2000
MAX_TEXT = 2_000  # characters of each memory read for the fields it states (a long text's start says its kind)
PAGE = 100
Apply = Callable[[Caller, str, str], Memory]


@dataclass(frozen=True)
class FieldAddition:
    """A field the memories of one of the user's templates keep stating, that the template lacks."""

    template_id: str
    template_name: str
    field: dict[str, Any]
    memories: int
    of: int
    example: str


@dataclass(frozen=True)
class Inference:
    proposals: list[Proposal]
    additions: list[FieldAddition]
    memories_read: int


@dataclass(frozen=True)
class Accepted:
    template_id: str
    applied: list[str] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)


@dataclass(eq=False)
class InferenceService:
    """Templates learned from the user's free-text memories, and the fields their templates lack."""

    memories: MemoryService
    templates: TemplateService
    indexer: Indexer
    apply: Apply
    clock: Clock = utc_now

    def propose(self, caller: Caller) -> Inference:
        """Proposed templates for the user's untemplated memories, and fields their templates lack."""
        from remember.templates.infer import Note, propose

        free, templated = self._memories(caller)
        vectors = self._vectors(caller, free)
        notes = [Note(m.id, m.content[:MAX_TEXT], vector) for m, vector in zip(free, vectors, strict=True)]
        proposals = propose(notes, self.clock().date()) if notes else []
        return Inference(proposals, self._additions(caller, templated), len(free) + len(templated))

    def accept(self, caller: Caller, proposal_id: str, *, apply: bool = False) -> Accepted:
        """Create the proposal's template; with ``apply``, apply it to each memory of its group that fits."""
        proposal = next((p for p in self.propose(caller).proposals if p.id == proposal_id), None)
        if proposal is None:
            raise NotFound(
                f"No proposal {excerpt(proposal_id)}: the memories changed since it was made. "
                "Call remember_infer_templates again and accept one of the ids it returns."
            )
        view = self.templates.create(caller, proposal.definition())
        accepted = Accepted(view.id)
        if not apply:
            return accepted
        for memory_id in proposal.member_ids:
            try:
                self.apply(caller, memory_id, view.id)
            except ValidationFailed as problem:
                errors = [e.as_dict() for e in problem.errors]
                accepted.skipped.append({"memory_id": memory_id, "errors": errors})
            else:
                accepted.applied.append(memory_id)
        return accepted

    def _memories(self, caller: Caller) -> tuple[list[Memory], list[Memory]]:
        free: list[Memory] = []
        templated: list[Memory] = []
        offset = 0
        while offset < MAX_MEMORIES:
            deadline.check()
            page = self.memories.list(caller, sort_by="created_at", sort_order="asc", limit=PAGE, offset=offset)
            for memory in page.items:
                (templated if memory.template_id else free).append(memory)
            offset += PAGE
            if len(page.items) < PAGE:
                break
        return free, templated

    def _vectors(self, caller: Caller, memories: list[Memory]) -> list[list[float]]:
        """Each memory's vector: the stored one, or embedded now for a memory without one."""
        if not memories:
            return []
        if self.indexer.embedder is None:
            raise ValidationFailed.single(
                "embedder", "unavailable", "Inferring templates needs the embedding model; configure an embedder."
            )
        rows: list[list[float]] = self.indexer.memory_vectors(caller.user, memories).tolist()
        return rows

    def _additions(self, caller: Caller, templated: list[Memory]) -> list[FieldAddition]:
        from remember.templates.infer import missing_fields

        by_template: dict[str, list[Memory]] = {}
        for memory in templated:
            by_template.setdefault(memory.template_id or "", []).append(memory)
        view = self.templates.view_of(caller)
        found: list[FieldAddition] = []
        for template_id, members in sorted(by_template.items()):
            deadline.check()
            try:
                resolved = view.resolved(template_id)
            except NotFound:
                continue
            known = [f.name for f in resolved.fields]
            for missing, count in missing_fields([m.content[:MAX_TEXT] for m in members], known):
                definition = {"name": missing.name, "type": missing.type}
                found.append(FieldAddition(template_id, resolved.name, definition, count, len(members), missing.value))
        return found
