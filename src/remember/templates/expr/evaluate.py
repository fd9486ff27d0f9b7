"""Evaluation of a parsed expression over field values.

The tree is turned once into nested Python closures (cached per tree), which
makes evaluating the same formula over many memories cheap. No ``eval``: each
closure is one of the handful below, chosen by node kind and operator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import InvalidOperation
from functools import lru_cache
from typing import Any

from remember.templates.expr.functions import FUNCTIONS
from remember.templates.expr.nodes import Binary, Call, Expr, Literal, Name, Unary
from remember.templates.expr.values import EvalError, checked, equal, less, number, truthy

Scope = tuple[Mapping[str, Any], datetime]  # field values, the moment of evaluation
Compiled = Callable[[Scope], Any]


def evaluate(expr: Expr, values: Mapping[str, Any], *, now: datetime | None = None) -> Any:
    """The value of ``expr``, or None when a value is missing or the formula cannot apply.

    ``now`` is the clock for ``now()`` and ``today()`` (default: the current time);
    a naive ``now`` is taken as UTC.
    """
    moment = datetime.now(UTC) if now is None else (now if now.tzinfo else now.replace(tzinfo=UTC))
    try:
        return compile_expr(expr)((values, moment))
    except (EvalError, ArithmeticError, InvalidOperation, ValueError, OverflowError):
        return None


@lru_cache(maxsize=2048)
def compile_expr(expr: Expr) -> Compiled:
    if isinstance(expr, Literal):
        value = expr.value
        return lambda _scope: value
    if isinstance(expr, Name):
        return _name(expr.path)
    if isinstance(expr, Unary):
        return _unary(expr.op, compile_expr(expr.operand))
    if isinstance(expr, Binary):
        return _binary(expr.op, compile_expr(expr.left), compile_expr(expr.right))
    return _call(expr)


def _name(path: tuple[str, ...]) -> Compiled:
    if len(path) == 1:
        key = path[0]
        return lambda scope: scope[0].get(key)
    return lambda scope: lookup(scope[0], path)


def lookup(values: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    """Follow a dotted path; through a list it collects the part from every item."""
    current: Any = values
    for part in path:
        if isinstance(current, Mapping):
            current = current.get(part)
        elif isinstance(current, list):
            current = [item.get(part) for item in current if isinstance(item, Mapping)]
        else:
            return None
    return current


def _unary(op: str, operand: Compiled) -> Compiled:
    if op == "not":
        return lambda scope: not truthy(operand(scope))

    def sign(scope: Scope) -> Any:
        value = operand(scope)
        if value is None:
            return None
        value = number(value, f"unary {op}")
        return -value if op == "-" else value

    return sign


def _binary(op: str, left: Compiled, right: Compiled) -> Compiled:
    if op == "and":
        return lambda scope: truthy(left(scope)) and truthy(right(scope))
    if op == "or":
        return lambda scope: truthy(left(scope)) or truthy(right(scope))
    if op == "==":
        return lambda scope: equal(left(scope), right(scope))
    if op == "!=":
        return lambda scope: not equal(left(scope), right(scope))
    apply = _OPERATIONS[op]

    def run(scope: Scope) -> Any:
        a, b = left(scope), right(scope)
        if a is None or b is None:
            return None
        return apply(a, b)

    return run


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, str) and isinstance(b, str):
        return checked(a + b)
    return checked(number(a, "+") + number(b, "+"))


def _divide(a: Any, b: Any) -> Any:
    divisor = number(b, "/")
    if divisor == 0:
        raise EvalError("division by zero")
    return checked(number(a, "/") / divisor)


def _modulo(a: Any, b: Any) -> Any:
    divisor = number(b, "%")
    if divisor == 0:
        raise EvalError("division by zero")
    return checked(number(a, "%") % divisor)


_OPERATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "+": _add,
    "-": lambda a, b: checked(number(a, "-") - number(b, "-")),
    "*": lambda a, b: checked(number(a, "*") * number(b, "*")),
    "/": _divide,
    "%": _modulo,
    "<": less,
    ">": lambda a, b: less(b, a),
    "<=": lambda a, b: not less(b, a),
    ">=": lambda a, b: not less(a, b),
}


def _call(expr: Call) -> Compiled:
    args = tuple(compile_expr(arg) for arg in expr.args)
    if expr.function == "if":
        return _if(args)
    if expr.function == "coalesce":
        return _coalesce(args)
    if expr.function == "now":
        return lambda scope: scope[1]
    if expr.function == "today":
        return lambda scope: scope[1].astimezone(UTC).date()
    function = FUNCTIONS[expr.function]
    return lambda scope: function([arg(scope) for arg in args])


def _if(args: tuple[Compiled, ...]) -> Compiled:
    condition, then = args[0], args[1]
    otherwise = args[2] if len(args) == 3 else None

    def run(scope: Scope) -> Any:
        if truthy(condition(scope)):
            return then(scope)
        return otherwise(scope) if otherwise is not None else None

    return run


def _coalesce(args: tuple[Compiled, ...]) -> Compiled:
    def run(scope: Scope) -> Any:
        for arg in args:
            value = arg(scope)
            if value is not None:
                return value
        return None

    return run
