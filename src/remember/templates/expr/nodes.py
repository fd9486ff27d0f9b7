"""The whitelisted tree an expression is parsed into.

Only these five node kinds exist; the evaluator knows each one, and nothing
else can be expressed. ``depth`` is kept on every node so that the parser can
refuse trees deeper than the limit as it builds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, eq=False)
class Literal:
    value: Any  # None, bool, int, float or str
    depth: int = field(default=1, compare=False)

    # Python holds 1 == 1.0 == True; literals of different types must differ, or a
    # cache keyed by tree would hand `true` the closure compiled for `1`.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Literal) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))


@dataclass(frozen=True, slots=True)
class Name:
    """A field reference; ``path`` has one part per dot (``contact_info.email``)."""

    path: tuple[str, ...]
    depth: int = field(default=1, compare=False)

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "-", "+", "not"
    operand: Expr
    depth: int = field(default=1, compare=False)


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # arithmetic, comparison, "and", "or"
    left: Expr
    right: Expr
    depth: int = field(default=1, compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    function: str
    args: tuple[Expr, ...]
    depth: int = field(default=1, compare=False)


Expr = Literal | Name | Unary | Binary | Call


def referenced_names(expr: Expr) -> set[str]:
    """Every dotted field name the expression reads."""
    found: set[str] = set()
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            found.add(node.dotted)
        elif isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, Binary):
            stack.extend((node.left, node.right))
        elif isinstance(node, Call):
            stack.extend(node.args)
    return found


def uses_clock(expr: Expr) -> bool:
    """Whether the value depends on the time of evaluation (``now()``, ``today()``)."""
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Call):
            if node.function in {"now", "today"}:
                return True
            stack.extend(node.args)
        elif isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, Binary):
            stack.extend((node.left, node.right))
    return False
