"""A recursive-descent parser from expression text to the whitelisted tree.

Grammar, loosest binding first::

    expr       := or
    or         := and (("or" | "||") and)*
    and        := not (("and" | "&&") not)*
    not        := ("not" | "!") not | comparison
    comparison := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/" | "%") unary)*
    unary      := ("-" | "+") unary | primary
    primary    := number | string | true | false | null
                | name ("." name)* | function "(" [expr ("," expr)*] ")" | "(" expr ")"

Nesting is counted as the parser descends and every node records its depth,
so a hostile input is refused at the limit instead of exhausting the stack.
"""

from __future__ import annotations

from functools import lru_cache

from remember.errors import TemplateError, excerpt
from remember.templates.expr.functions import ARITY
from remember.templates.expr.lexer import Token, syntax_error, tokenize
from remember.templates.expr.nodes import Binary, Call, Expr, Literal, Name, Unary
from remember.templates.limits import MAX_EXPRESSION_DEPTH

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_LITERALS = {"true": True, "false": False, "null": None}


@lru_cache(maxsize=1024)
def parse_expression(source: str) -> Expr:
    """Parse ``source`` or raise ``TemplateError`` saying what is wrong and where."""
    if not isinstance(source, str):
        raise TemplateError.single("expression", "syntax", "an expression must be a string", source)
    if not source.strip():
        raise TemplateError.single("expression", "syntax", "the expression is empty", source)
    return _Parser(source).parse()


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.index = 0
        self.nesting = 0

    def parse(self) -> Expr:
        expr = self.expression()
        token = self.peek()
        if token.kind != "end":
            raise self.error(token, f"unexpected {excerpt(token.text)}; expected an operator or the end")
        return expr

    # Helpers -----------------------------------------------------------------

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def accept(self, *texts: str) -> Token | None:
        token = self.peek()
        if token.kind in {"op", "keyword"} and token.value in texts:
            self.index += 1
            return token
        return None

    def expect(self, text: str, what: str) -> None:
        if self.accept(text) is None:
            token = self.peek()
            found = "the end" if token.kind == "end" else repr(token.text)
            raise self.error(token, f"expected {what}, found {found}")

    def error(self, token: Token, problem: str) -> TemplateError:
        return syntax_error(self.source, token.pos, problem)

    def descend(self, token: Token) -> None:
        self.nesting += 1
        if self.nesting > MAX_EXPRESSION_DEPTH:
            raise self._too_deep(token)

    def _too_deep(self, token: Token) -> TemplateError:
        message = (
            f"the expression is more than {MAX_EXPRESSION_DEPTH} levels deep at position {token.pos + 1}; simplify it"
        )
        return TemplateError.single("expression", "too_deep", message, self.source[:80])

    def node(self, token: Token, built: Expr) -> Expr:
        if built.depth > MAX_EXPRESSION_DEPTH:
            raise self._too_deep(token)
        return built

    def binary(self, token: Token, op: str, left: Expr, right: Expr) -> Expr:
        depth = 1 + max(left.depth, right.depth)
        return self.node(token, Binary(op, left, right, depth))

    # Grammar -----------------------------------------------------------------

    def expression(self) -> Expr:
        return self.or_expr()

    def or_expr(self) -> Expr:
        left = self.and_expr()
        while token := self.accept("or", "||"):
            left = self.binary(token, "or", left, self.and_expr())
        return left

    def and_expr(self) -> Expr:
        left = self.not_expr()
        while token := self.accept("and", "&&"):
            left = self.binary(token, "and", left, self.not_expr())
        return left

    def not_expr(self) -> Expr:
        token = self.accept("not", "!")
        if token is None:
            return self.comparison()
        self.descend(token)
        operand = self.not_expr()
        self.nesting -= 1
        return self.node(token, Unary("not", operand, operand.depth + 1))

    def comparison(self) -> Expr:
        left = self.sum()
        token = self.accept(*_COMPARISONS)
        if token is None:
            return left
        expr = self.binary(token, str(token.value), left, self.sum())
        if (extra := self.accept(*_COMPARISONS)) is not None:
            raise self.error(extra, "comparisons cannot be chained; join them with 'and'")
        return expr

    def sum(self) -> Expr:
        left = self.product()
        while token := self.accept("+", "-"):
            left = self.binary(token, str(token.value), left, self.product())
        return left

    def product(self) -> Expr:
        left = self.unary()
        while token := self.accept("*", "/", "%"):
            left = self.binary(token, str(token.value), left, self.unary())
        return left

    def unary(self) -> Expr:
        token = self.accept("-", "+")
        if token is None:
            return self.primary()
        self.descend(token)
        operand = self.unary()
        self.nesting -= 1
        return self.node(token, Unary(str(token.value), operand, operand.depth + 1))

    def primary(self) -> Expr:
        token = self.advance()
        if token.kind in {"number", "string"}:
            return Literal(token.value)
        if token.kind == "keyword" and token.value in _LITERALS:
            return Literal(_LITERALS[token.value])
        if token.kind == "name":
            if self.peek().text == "(":
                return self.call(token)
            return Name(tuple(token.text.split(".")))
        if token.kind == "op" and token.value == "(":
            self.descend(token)
            expr = self.expression()
            self.expect(")", "')'")
            self.nesting -= 1
            return expr
        if token.kind == "end":
            raise self.error(token, "the expression ends too early")
        raise self.error(token, f"unexpected {excerpt(token.text)}")

    def call(self, name: Token) -> Expr:
        function = name.text.lower()
        if function not in ARITY:
            known = ", ".join(sorted(ARITY))
            raise self.error(name, f"unknown function {excerpt(name.text)} (available: {known})")
        self.advance()  # "("
        self.descend(name)
        args: list[Expr] = []
        if self.accept(")") is None:
            args.append(self.expression())
            while self.accept(","):
                args.append(self.expression())
            self.expect(")", "',' or ')'")
        self.nesting -= 1
        low, high = ARITY[function]
        if not low <= len(args) <= (high if high is not None else len(args)):
            raise self.error(name, f"{function}() takes {_arity_text(low, high)}, got {len(args)}")
        depth = 1 + max((arg.depth for arg in args), default=0)
        return self.node(name, Call(function, tuple(args), depth))


def _arity_text(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low} argument{'s' if low != 1 else ''}"
    if low == high:
        return f"exactly {low} argument{'s' if low != 1 else ''}"
    return f"{low} to {high} arguments"
