"""Parameters more than one tool takes, described once."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

MemoryId = Annotated[str, Field(description="The memory's id.")]
TemplateId = Annotated[str, Field(description="e.g. 'builtin:book_review'.")]
Reason = Annotated[str | None, Field(description="Why; kept in its history.")]
Filters = Annotated[
    dict[str, Any] | None,
    Field(
        description='e.g. {"structured_content.rating": {"gte": 4}}: fields (type, tags, created_at, occurred_at, '
        "template_id, structured_content.<path>, ...), operators eq ne gt gte lt lte in nin contains exists, "
        "and/or/not."
    ),
]
