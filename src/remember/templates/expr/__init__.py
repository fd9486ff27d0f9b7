"""The safe expression language of computed fields and ``show_if`` conditions.

Text is scanned and parsed into a small whitelisted tree (``nodes``), then
evaluated over field values. Nothing here calls ``eval``, ``exec`` or Python's
parser; sizes, nesting and numbers are bounded (see ``limits``).
"""

from remember.templates.expr.evaluate import evaluate, lookup
from remember.templates.expr.functions import ARITY, UNITS
from remember.templates.expr.nodes import Binary, Call, Expr, Literal, Name, Unary, referenced_names, uses_clock
from remember.templates.expr.parser import parse_expression
from remember.templates.expr.values import truthy

__all__ = [
    "ARITY",
    "UNITS",
    "Binary",
    "Call",
    "Expr",
    "Literal",
    "Name",
    "Unary",
    "evaluate",
    "lookup",
    "parse_expression",
    "referenced_names",
    "truthy",
    "uses_clock",
]
