"""Templates learned from a user's own memories: groups of free-text memories that say the same kind of thing.

``propose`` groups memories by the meaning of their text (vectors the caller
computes) and by the fields the extractors find in them, and proposes a
template per group: its fields and their types, example memories, and how
many memories it would cover. ``missing_fields`` notices a field that the
memories of a template keep stating and the template lacks ("isbn" in book
reviews). Pure: no database, no embedder; docs/suggestions.md describes it.
"""

from remember.templates.infer.groups import Note, Proposal, ProposedField, propose
from remember.templates.infer.stated_fields import FoundField, field_values, missing_fields

__all__ = ["FoundField", "Note", "Proposal", "ProposedField", "field_values", "missing_fields", "propose"]
