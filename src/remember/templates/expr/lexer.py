"""Tokens of the expression language used by computed fields and ``show_if``.

A hand-written scanner: anything it does not recognise is refused with the
position, so no input ever reaches Python's own parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from remember.errors import TemplateError, excerpt
from remember.templates.limits import MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_NUMBER

KEYWORDS = frozenset({"true", "false", "null", "and", "or", "not"})

# Longest first, so "<=" is not read as "<" then "=".
_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "(", ")", ",")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "number", "string", "name", "keyword", "op", "end"
    text: str
    value: Any
    pos: int


def syntax_error(source: str, pos: int, problem: str) -> TemplateError:
    """The error for a bad expression; ``pos`` is 0-based, the message counts from 1."""
    message = f"{problem} at position {pos + 1} of {excerpt(source)}"
    return TemplateError.single("expression", "syntax", message, source)


def tokenize(source: str) -> list[Token]:
    if len(source) > MAX_EXPRESSION_LENGTH:
        raise TemplateError.single(
            "expression",
            "too_long",
            f"the expression is {len(source)} characters long; the limit is {MAX_EXPRESSION_LENGTH}",
            source[:80] + "...",
        )
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        char = source[pos]
        if char.isspace():
            pos += 1
        elif "0" <= char <= "9":  # ASCII only: str.isdigit() also accepts "²"
            token = _number(source, pos)
            tokens.append(token)
            pos += len(token.text)
        elif char in "'\"":
            token = _string(source, pos)
            tokens.append(token)
            pos += len(token.text)
        elif char.isascii() and (char.isalpha() or char == "_"):
            token = _name(source, pos)
            tokens.append(token)
            pos += len(token.text)
        else:
            token = _operator(source, pos)
            tokens.append(token)
            pos += len(token.text)
    tokens.append(Token("end", "", None, len(source)))
    return tokens


def _number(source: str, start: int) -> Token:
    pos = _digits(source, start)
    is_float = False
    if pos < len(source) and source[pos] == "." and pos + 1 < len(source) and _is_digit(source[pos + 1]):
        pos = _digits(source, pos + 1)
        is_float = True
    if pos < len(source) and source[pos] in "eE":
        exp = pos + 1
        if exp < len(source) and source[exp] in "+-":
            exp += 1
        if exp < len(source) and _is_digit(source[exp]):
            pos = _digits(source, exp)
            is_float = True
    text = source[start:pos]
    value: float | int = float(text) if is_float else int(text)
    if not abs(value) <= MAX_EXPRESSION_NUMBER:  # also refuses inf from 1e999
        raise syntax_error(source, start, f"the number {text} is larger than {MAX_EXPRESSION_NUMBER:.0e}")
    return Token("number", text, value, start)


def _digits(source: str, pos: int) -> int:
    while pos < len(source) and _is_digit(source[pos]):
        pos += 1
    return pos


def _is_digit(char: str) -> bool:
    return "0" <= char <= "9"


def _string(source: str, start: int) -> Token:
    quote = source[start]
    chars: list[str] = []
    pos = start + 1
    while pos < len(source):
        char = source[pos]
        if char == quote:
            return Token("string", source[start : pos + 1], "".join(chars), start)
        if char == "\\":
            escaped = source[pos + 1 : pos + 2]
            if escaped not in _ESCAPES:
                raise syntax_error(source, pos, "unknown escape in string (use \\\\, \\', \\\", \\n or \\t)")
            chars.append(_ESCAPES[escaped])
            pos += 2
            continue
        chars.append(char)
        pos += 1
    raise syntax_error(source, start, "unterminated string")


def _name(source: str, start: int) -> Token:
    """A field name, dotted for nested fields (``contact_info.email``), or a keyword."""
    pos = start
    while True:
        while pos < len(source) and source[pos].isascii() and (source[pos].isalnum() or source[pos] == "_"):
            pos += 1
        nxt = source[pos + 1 : pos + 2]
        if source[pos : pos + 1] == "." and nxt.isascii() and (nxt.isalpha() or nxt == "_"):
            pos += 1
            continue
        break
    text = source[start:pos]
    if text.lower() in KEYWORDS:
        return Token("keyword", text, text.lower(), start)
    return Token("name", text, text, start)


def _operator(source: str, pos: int) -> Token:
    if source.startswith("**", pos):
        raise syntax_error(source, pos, "the power operator ** is not supported")
    for op in _OPERATORS:
        if source.startswith(op, pos):
            return Token("op", op, op, pos)
    char = source[pos]
    if char == "=":
        raise syntax_error(source, pos, "'=' is not an operator; compare with '=='")
    if char == ".":
        raise syntax_error(source, pos, "'.' may only join field names (contact_info.email)")
    raise syntax_error(source, pos, f"unexpected character {excerpt(char)}")
