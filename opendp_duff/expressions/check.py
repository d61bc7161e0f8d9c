"""Typing before data: the type and nullability of every node, from the schema alone.

A schema maps each column name to an :class:`ExprType`: its element type (float, int, str or
bool) and whether NULL may occur (a float column's NaN counts as NULL).  :func:`check` refuses,
before any data is read, an unknown column, a NULL literal, arithmetic on strings or booleans,
a comparison of unlike types, an ordering of booleans, a non-boolean operand of AND, OR, NOT,
and an IN list of mixed or unlike literals; the message quotes the offending part of the
expression and names the types.  The typing rules, which the reference semantics
(:mod:`opendp_duff.expressions.reference`) follows and the tests check on every engine:

* a column has its schema type; a literal its own type, never NULL;
* ``a + b``, ``a - b``, ``a * b``: int when both are int (NULL when the exact result leaves
  int64), else float; ``a / b``: always float (NULL when b = 0).  A float result is NULL when it
  would be NaN.  Nullable unless the rules below exclude NULL;
* ``-a`` and ``ABS(a)``: the type of ``a``; NULL for an int ``a`` = -2^63;
* comparisons, ``IN`` and ``BETWEEN``: bool, NULL when an operand is NULL; ``IS [NOT] NULL``:
  bool, never NULL; ``AND``, ``OR``, ``NOT``: bool in three-valued logic.

A float result can be NULL only where an operand can be NULL or where NaN or a division by
zero can occur: ``a ± b`` with both operands possibly infinite, ``a * b`` with one possibly
infinite and the other possibly zero, ``a / b`` with b possibly zero or both possibly infinite.
A literal is neither infinite nor (unless it is 0) zero; an int operand is never infinite; every
other float may be either.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import MakeError, MakeTypeError
from .nodes import Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic, Negate, Not, children
from .printer import to_text

__all__ = ["ExprType", "Schema", "check", "check_predicate", "annotate"]

_KINDS = (float, int, str, bool)


def _kind(_: object, __: object, value: Any) -> None:
    if value not in _KINDS:
        raise MakeTypeError(f"T ({value!r}) must be float, int, str or bool")


def _flag(_: object, __: object, value: object) -> None:
    if not isinstance(value, bool):
        raise MakeTypeError(f"nullable must be a bool, not {type(value).__name__}")


@attrs.frozen
class ExprType:
    """The type of a column or of an expression's value.

    Attributes:
        T: the element type: ``float`` (binary64), ``int`` (int64), ``str`` or ``bool``.
        nullable: whether the value may be NULL (for a float column: missing or NaN).
    """

    T: type = attrs.field(validator=_kind)
    nullable: bool = attrs.field(default=False, validator=_flag)

    def __repr__(self) -> str:
        return f"ExprType({self.T.__name__}{', nullable' if self.nullable else ''})"


Schema = Mapping[str, ExprType]
_NUMBERS = (int, float)


# [proof:check]
def check(expr: Expr, schema: Schema) -> ExprType:
    """The type of ``expr``'s value on a row of ``schema`` (see the module docstring).

    Raises:
        MakeTypeError: ``expr`` is not a tree, or ``schema`` is not a mapping name -> ExprType.
        MakeError: ``expr`` is ill-typed for ``schema``; the message quotes the offending part.
    """
    return annotate(expr, schema)[expr]
# [end:check]


# [proof:check_predicate]
def check_predicate(expr: Expr, schema: Schema) -> ExprType:
    """:func:`check`, and refuse ``expr`` unless it is a predicate (its type is bool): what a
    filter needs, since it keeps a row only where the predicate is TRUE."""
    result = check(expr, schema)
    if result.T is not bool:
        raise MakeError(f"a filter needs a predicate (bool), but `{to_text(expr)}` is {result.T.__name__}")
    return result
# [end:check_predicate]


def annotate(expr: Expr, schema: Schema) -> dict[Expr, ExprType]:
    """The type of every node of ``expr``, an ``IN`` list's literals included (equal subtrees
    have equal types)."""
    if not isinstance(schema, Mapping) or not all(
            isinstance(k, str) and isinstance(t, ExprType) for k, t in schema.items()):
        raise MakeTypeError("schema must be a mapping column name (str) -> ExprType")
    if not isinstance(expr, (Column, Literal, Arith, Negate, Abs, Compare, Logic, Not, IsNull, In, Between)):
        raise MakeTypeError(f"expr must be an expression tree, not {type(expr).__name__}")
    types: dict[Expr, ExprType] = {}
    _annotate(expr, schema, types)
    return types


def _annotate(expr: Expr, schema: Schema, types: dict[Expr, ExprType]) -> ExprType:
    if expr in types:
        return types[expr]
    for child in children(expr):
        _annotate(child, schema, types)
    result = _rule(expr, schema, [types[child] for child in children(expr)])
    types[expr] = result
    if isinstance(expr, In):                 # the list's literals are typed too (the rule checked them)
        types.update((item, ExprType(type(item.value))) for item in expr.items)
    return result


def _rule(expr: Expr, schema: Schema, args: list[ExprType]) -> ExprType:
    if isinstance(expr, Column):
        if expr.name not in schema:
            known = ", ".join(repr(name) for name in sorted(schema)) or "none"
            raise MakeError(f"unknown column {expr.name!r} (the schema's columns: {known})")
        return schema[expr.name]
    if isinstance(expr, Literal):
        if expr.value is None:
            raise MakeError("NULL is not a value: a comparison or arithmetic with NULL is never TRUE; "
                            "test for missing values with IS NULL or IS NOT NULL")
        return ExprType(type(expr.value))
    if isinstance(expr, Arith):
        left, right = args
        _numbers(expr, args)
        T = int if left.T is int and right.T is int and expr.op != "/" else float
        nullable = T is int or left.nullable or right.nullable or _nan_possible(expr, left, right)
        return ExprType(T, nullable)
    if isinstance(expr, (Negate, Abs)):
        _numbers(expr, args)
        return ExprType(args[0].T, args[0].T is int or args[0].nullable)
    if isinstance(expr, Compare):
        _comparable(expr, expr.op, *args)
        return ExprType(bool, args[0].nullable or args[1].nullable)
    if isinstance(expr, (Logic, Not)):
        for child, t in zip(children(expr), args, strict=True):
            if t.T is not bool:
                word = expr.op if isinstance(expr, Logic) else "NOT"
                raise MakeError(f"{word} needs bool operands, but `{to_text(child)}` is {t.T.__name__}")
        return ExprType(bool, any(t.nullable for t in args))
    if isinstance(expr, IsNull):
        return ExprType(bool, False)
    if isinstance(expr, In):
        kinds = {type(item.value) for item in expr.items}
        if type(None) in kinds:
            raise MakeError(f"NULL in the IN list of `{to_text(expr)}`: x IN (..., NULL) is never FALSE; "
                            "test for missing values with IS NULL")
        if len(kinds) > 1:
            names = ", ".join(sorted(k.__name__ for k in kinds))
            raise MakeError(f"the IN list of `{to_text(expr)}` mixes literal types ({names}): use one type")
        _comparable(expr, "=", args[0], ExprType(kinds.pop()))
        return ExprType(bool, args[0].nullable)
    _comparable(expr, "<=", args[0], args[1])
    _comparable(expr, "<=", args[0], args[2])
    return ExprType(bool, any(t.nullable for t in args))


def _numbers(expr: Expr, args: list[ExprType]) -> None:
    for child, t in zip(children(expr), args, strict=True):
        if t.T not in _NUMBERS:
            raise MakeError(f"arithmetic needs numbers, but `{to_text(child)}` is {t.T.__name__} "
                            f"(in `{to_text(expr)}`)")


def _comparable(expr: Expr, op: str, left: ExprType, right: ExprType) -> None:
    same = left.T is right.T or (left.T in _NUMBERS and right.T in _NUMBERS)
    if not same:
        raise MakeError(f"cannot compare {left.T.__name__} with {right.T.__name__} in `{to_text(expr)}`")
    if left.T is bool and op not in ("=", "!="):
        raise MakeError(f"bool values compare only with = and != (in `{to_text(expr)}`)")


def _may_be_infinite(expr: Expr, t: ExprType) -> bool:
    return t.T is float and not isinstance(expr, Literal)


def _may_be_zero(expr: Expr) -> bool:
    return not (isinstance(expr, Literal) and expr.value != 0)


def _nan_possible(expr: Arith, left: ExprType, right: ExprType) -> bool:
    """Whether the float operation can meet inf - inf, 0 * inf, inf / inf or a zero divisor
    (the int operands of a float operation are converted, hence finite)."""
    inf_a, inf_b = _may_be_infinite(expr.left, left), _may_be_infinite(expr.right, right)
    if expr.op in "+-":
        return inf_a and inf_b
    if expr.op == "*":
        return (inf_a and _may_be_zero(expr.right)) or (inf_b and _may_be_zero(expr.left))
    return _may_be_zero(expr.right) or (inf_a and inf_b)
