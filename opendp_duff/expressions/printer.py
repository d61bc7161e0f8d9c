"""Canonical text of a tree: ``parse(to_text(e)) == e`` for every tree ``e``.

Keywords in capitals, ``!=`` for inequality, one space around binary operators, a column name
bare when it is an ASCII identifier that is not a keyword and double-quoted otherwise, floats in
Python's shortest round-trip form (always with a ``.`` or an exponent), and parentheses exactly
where the tree's shape needs them (operators of one level associate to the left).
"""
from __future__ import annotations

import re

from .nodes import Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic, Negate, Not

__all__ = ["to_text", "KEYWORDS", "quote_name"]

KEYWORDS = frozenset({"AND", "OR", "NOT", "IN", "IS", "NULL", "BETWEEN", "TRUE", "FALSE"})
BARE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Binding strength of each level: a child printed at a lower level than its slot needs
# parentheses.  PRIMARY covers columns, non-negative literals, ABS(...) and (...).
# [proof:NOT]
OR, AND, NOT, PREDICATE, ADDITIVE, MULTIPLICATIVE, UNARY, PRIMARY = range(1, 9)
# [end:NOT]


def quote_name(name: str) -> str:
    """A column name as the language writes it: bare, or in double quotes (``"`` doubled)."""
    if BARE_NAME.fullmatch(name) and name.upper() not in KEYWORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)          # int, or a finite float: repr round-trips and has '.' or 'e'


def _level(expr: Expr) -> int:
    if isinstance(expr, Logic):
        return OR if expr.op == "OR" else AND
    if isinstance(expr, Not):
        return NOT
    if isinstance(expr, (Compare, IsNull, In, Between)):
        return PREDICATE
    if isinstance(expr, Arith):
        return ADDITIVE if expr.op in "+-" else MULTIPLICATIVE
    if isinstance(expr, Negate):
        return UNARY
    if isinstance(expr, Literal) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        # "-5" reads back as one literal, at the unary level
        return UNARY if str(expr.value).startswith("-") else PRIMARY
    return PRIMARY


def _at(expr: Expr, least: int) -> str:
    """The text of ``expr`` in a slot that binds at ``least``: parenthesised below it."""
    text = to_text(expr)
    return text if _level(expr) >= least else f"({text})"


def to_text(expr: Expr) -> str:
    """The canonical text of a tree (see the module docstring)."""
    if isinstance(expr, Column):
        return quote_name(expr.name)
    if isinstance(expr, Literal):
        return _literal(expr.value)
    if isinstance(expr, Logic):
        level = _level(expr)
        return f" {expr.op} ".join(_at(arg, level + 1) for arg in expr.args)
    if isinstance(expr, Not):
        return "NOT " + _at(expr.operand, NOT)
    if isinstance(expr, Arith):
        level = _level(expr)
        return f"{_at(expr.left, level)} {expr.op} {_at(expr.right, level + 1)}"
    if isinstance(expr, Negate):
        operand = expr.operand
        if isinstance(operand, Literal):          # "-5" would read back as the literal -5
            return f"-({to_text(operand)})"
        return "-" + _at(operand, UNARY)
    if isinstance(expr, Abs):
        return f"ABS({to_text(expr.operand)})"
    if isinstance(expr, Compare):
        return f"{_at(expr.left, ADDITIVE)} {expr.op} {_at(expr.right, ADDITIVE)}"
    if isinstance(expr, IsNull):
        return _at(expr.operand, ADDITIVE) + (" IS NOT NULL" if expr.negated else " IS NULL")
    if isinstance(expr, In):
        items = ", ".join(_literal(item.value) for item in expr.items)
        return f"{_at(expr.operand, ADDITIVE)} {'NOT IN' if expr.negated else 'IN'} ({items})"
    keyword = "NOT BETWEEN" if expr.negated else "BETWEEN"
    return (f"{_at(expr.operand, ADDITIVE)} {keyword} {_at(expr.low, ADDITIVE)} "
            f"AND {_at(expr.high, ADDITIVE)}")
