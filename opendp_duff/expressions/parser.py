"""Text to tree: a hand-written tokenizer and recursive-descent parser (no ``eval``).

Grammar (keywords case-insensitive; ``[x]`` optional, ``{x}`` repeated)::

    expr       := or
    or         := and {OR and}
    and        := not {AND not}
    not        := NOT not | predicate
    predicate  := additive [ compare additive | IS [NOT] NULL
                            | [NOT] IN "(" literal {"," literal} ")"
                            | [NOT] BETWEEN additive AND additive ]
    compare    := "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
    additive   := multiply {("+" | "-") multiply}
    multiply   := unary {("*" | "/") unary}
    unary      := "-" unary | primary          ("-" before a number is a negative literal)
    primary    := number | string | TRUE | FALSE | NULL | name | ABS "(" expr ")" | "(" expr ")"
    literal    := ["-"] number | string | TRUE | FALSE | NULL

A number is an integer (digits, an int64) or a float (digits with a ``.`` or an exponent,
``1.5``, ``.5``, ``2.``, ``1e-3``; finite).  A string is in single quotes, ``''`` standing for one
quote.  A name is an ASCII identifier that is not a keyword, or any non-empty text in double
quotes or backquotes (the quote doubled inside).  ``ABS`` is a function only before ``(``.
A syntax error is an :class:`ExpressionSyntaxError` (a ``MakeError``) that gives the position.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import NoReturn

import attrs

from ..errors import MakeError, MakeTypeError
from .nodes import (MAX_DEPTH, Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic,
                    Negate, Not)
from .printer import KEYWORDS

__all__ = ["parse", "ExpressionSyntaxError"]


class ExpressionSyntaxError(MakeError):
    """The text is not an expression of the language.

    Attributes:
        position: the 0-based index in the text where the problem was found.
    """

    def __init__(self, text: str, position: int, problem: str) -> None:
        self.position = position
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        line = text[start:] if end < 0 else text[start:end]
        super().__init__(f"{problem} at position {position}:\n    {line}\n    {' ' * (position - start)}^")


@attrs.frozen
class Token:
    kind: str           # "number", "string", "name", "quoted" (a name), "keyword", "symbol", "end"
    value: object       # the number, the string's content, the name, the keyword in capitals, the symbol
    pos: int


_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SYMBOLS = ("<=", ">=", "<>", "!=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
_INT64_LIMIT = 2 ** 63


def _tokens(text: str) -> list[Token]:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif m := _NUMBER.match(text, i):
            raw = m.group()
            out.append(Token("number", int(raw) if raw.isdigit() else _float(text, i, raw), i))
            i = m.end()
            if i < len(text) and (text[i].isalnum() or text[i] in "_.\"`'"):
                raise ExpressionSyntaxError(text, i, "expected an operator after a number")
        elif m := _WORD.match(text, i):
            word = m.group()
            out.append(Token("keyword", word.upper(), i) if word.upper() in KEYWORDS else Token("name", word, i))
            i = m.end()
        elif c in "'\"`":
            content, end = _quoted(text, i)
            if c != "'" and not content:
                raise ExpressionSyntaxError(text, i, "a quoted name must not be empty")
            out.append(Token("string" if c == "'" else "quoted", content, i))
            i = end
        elif text.startswith("==", i):
            raise ExpressionSyntaxError(text, i, "unexpected '==' (the language compares with =)")
        else:
            symbol = next((s for s in _SYMBOLS if text.startswith(s, i)), None)
            if symbol is None:
                raise ExpressionSyntaxError(text, i, f"unexpected character {c!r}")
            out.append(Token("symbol", "!=" if symbol == "<>" else symbol, i))
            i += len(symbol)
    out.append(Token("end", None, len(text)))
    return out


def _float(text: str, pos: int, raw: str) -> float:
    value = float(raw)                 # correctly rounded to the nearest float64
    if not math.isfinite(value):
        raise ExpressionSyntaxError(text, pos, f"float literal {raw} is beyond the float64 range")
    return value


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The content of the quoted token at ``start`` (the quote doubled inside) and the index after it."""
    quote, parts, i = text[start], [], start + 1
    while True:
        j = text.find(quote, i)
        if j < 0:
            raise ExpressionSyntaxError(text, start, f"unterminated {quote}...{quote}")
        parts.append(text[i:j])
        if text.startswith(quote * 2, j):
            parts.append(quote)
            i = j + 2
        else:
            return "".join(parts), j + 1


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.tokens, self.i, self.nesting = text, _tokens(text), 0, 0

    # tokens ---------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def at(self, kind: str, *values: object) -> bool:
        return self.tok.kind == kind and (not values or self.tok.value in values)

    def fail(self, problem: str, pos: int | None = None) -> NoReturn:
        raise ExpressionSyntaxError(self.text, self.tok.pos if pos is None else pos, problem)

    def expect(self, kind: str, value: object, what: str) -> Token:
        if not self.at(kind, value):
            self.fail(f"expected {what}, found {self.describe()}")
        return self.take()

    def describe(self) -> str:
        tok = self.tok
        if tok.kind == "end":
            return "the end of the expression"
        if tok.kind == "string":
            return "a string"
        if tok.kind == "quoted":
            return f"name {tok.value!r}"
        return f"{tok.kind} {tok.value!r}" if tok.kind != "keyword" else str(tok.value)

    def node(self, pos: int, make: Callable[..., Expr], *args: object, **kwargs: object) -> Expr:
        """A node, a refusal of its constructor (too deep, out of range) reported at ``pos``."""
        try:
            return make(*args, **kwargs)
        except (MakeError, MakeTypeError) as exc:
            self.fail(str(exc), pos)

    def enter(self) -> None:
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            self.fail(f"the expression is nested more than {MAX_DEPTH} levels deep")

    # grammar --------------------------------------------------------------------------
    def expr(self) -> Expr:
        return self.logic("OR", self.conjunction)

    def conjunction(self) -> Expr:
        return self.logic("AND", self.negation)

    def logic(self, op: str, operand: Callable[[], Expr]) -> Expr:
        pos = self.tok.pos
        args = [operand()]
        while self.at("keyword", op):
            self.take()
            args.append(operand())
        return args[0] if len(args) == 1 else self.node(pos, Logic, op, tuple(args))

    def negation(self) -> Expr:
        if not self.at("keyword", "NOT"):
            return self.predicate()
        pos = self.take().pos
        self.enter()
        operand = self.negation()
        self.nesting -= 1
        return self.node(pos, Not, operand)

    def predicate(self) -> Expr:
        pos = self.tok.pos
        left = self.additive()
        if self.at("symbol", "=", "!=", "<", "<=", ">", ">="):
            op = self.take().value
            result = self.node(pos, Compare, op, left, self.additive())
        elif self.at("keyword", "IS"):
            self.take()
            negated = self.at("keyword", "NOT") and bool(self.take())
            self.expect("keyword", "NULL", "NULL after IS [NOT]")
            result = self.node(pos, IsNull, left, negated)
        elif self.at("keyword", "NOT", "IN", "BETWEEN"):
            negated = self.at("keyword", "NOT") and bool(self.take())
            if self.at("keyword", "IN"):
                self.take()
                result = self.node(pos, In, left, self.in_list(), negated)
            elif self.at("keyword", "BETWEEN"):
                self.take()
                low = self.additive()
                self.expect("keyword", "AND", "AND between the bounds of BETWEEN")
                result = self.node(pos, Between, left, low, self.additive(), negated)
            else:
                self.fail(f"expected IN or BETWEEN after NOT, found {self.describe()}")
        else:
            return left
        if self.at("symbol", "=", "!=", "<", "<=", ">", ">=") or self.at("keyword", "IS", "IN", "BETWEEN"):
            self.fail("comparisons do not chain: join them with AND, or parenthesise")
        return result

    def in_list(self) -> tuple[Literal, ...]:
        self.expect("symbol", "(", "( to open the IN list")
        items = [self.literal()]
        while self.at("symbol", ","):
            self.take()
            items.append(self.literal())
        self.expect("symbol", ")", ", or ) in the IN list")
        return tuple(items)

    def literal(self) -> Literal:
        pos = self.tok.pos
        if self.at("symbol", "-") and self.tokens[self.i + 1].kind == "number":
            self.take()
            return self.number(pos, negative=True)
        if self.at("number"):
            return self.number(pos, negative=False)
        if self.at("string"):
            return Literal(str(self.take().value))
        if self.at("keyword", "TRUE", "FALSE", "NULL"):
            return Literal({"TRUE": True, "FALSE": False, "NULL": None}[str(self.take().value)])
        self.fail(f"expected a literal in the IN list, found {self.describe()}")

    def number(self, pos: int, negative: bool) -> Literal:
        value = self.take().value
        assert isinstance(value, (int, float))
        if negative:
            value = -value
        if isinstance(value, int) and not -_INT64_LIMIT <= value < _INT64_LIMIT:
            self.fail("integer literal outside int64 [-2^63, 2^63 - 1] (write a float, e.g. 1e19)", pos)
        return Literal(value)

    def additive(self) -> Expr:
        return self.binary(("+", "-"), self.multiplicative)

    def multiplicative(self) -> Expr:
        return self.binary(("*", "/"), self.unary)

    def binary(self, ops: tuple[str, ...], operand: Callable[[], Expr]) -> Expr:
        pos = self.tok.pos
        left = operand()
        while self.at("symbol", *ops):
            op = self.take().value
            left = self.node(pos, Arith, op, left, operand())
        return left

    def unary(self) -> Expr:
        if not self.at("symbol", "-"):
            return self.primary()
        pos = self.tok.pos
        if self.tokens[self.i + 1].kind == "number":
            self.take()
            return self.number(pos, negative=True)
        self.take()
        self.enter()
        operand = self.unary()
        self.nesting -= 1
        return self.node(pos, Negate, operand)

    def primary(self) -> Expr:
        tok = self.tok
        if tok.kind in ("number", "string") or self.at("keyword", "TRUE", "FALSE", "NULL"):
            return self.literal()
        if tok.kind == "name" and str(tok.value).upper() == "ABS" and self.tokens[self.i + 1].value == "(" \
                and self.tokens[self.i + 1].kind == "symbol":
            self.take()
            return self.node(tok.pos, Abs, self.parenthesised())
        if tok.kind in ("name", "quoted"):
            self.take()
            return Column(str(tok.value))
        if self.at("symbol", "("):
            return self.parenthesised()
        self.fail(f"expected a value, found {self.describe()}")

    def parenthesised(self) -> Expr:
        self.expect("symbol", "(", "(")
        self.enter()
        inner = self.expr()
        self.nesting -= 1
        self.expect("symbol", ")", ")")
        return inner


def parse(text: str) -> Expr:
    """The tree of an expression's text (see the module docstring for the grammar).

    Raises:
        MakeTypeError: ``text`` is not a str.
        ExpressionSyntaxError: a ``MakeError`` whose message quotes the text (an expression is
            public) and whose ``position`` says where the problem is.
    """
    if not isinstance(text, str):
        raise MakeTypeError(f"an expression is a str, not {type(text).__name__}")
    parser = _Parser(text)
    if parser.at("end"):
        parser.fail("empty expression")
    tree = parser.expr()
    if not parser.at("end"):
        parser.fail(f"unexpected {parser.describe()}")
    return tree
