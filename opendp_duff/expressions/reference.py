"""The reference semantics: the value of an expression on one row, in plain Python.

This evaluator defines what every compiler must compute; the tests compare each engine with
it on random frames.  It is written for obviousness, not speed: Python's int is exact, Python
compares an int with a float exactly, and Python's float operations are binary64 rounded to
nearest, so each rule below is one line.

Values: NULL is ``None``; a float is a binary64 that is never NaN (a NaN read from a float
column, or produced by arithmetic, is NULL); an int is in int64; strings compare by code
points; booleans are ``True``/``False``.

* Logic is SQL's three-valued logic: ``NOT NULL`` is NULL; ``a AND b`` is FALSE if either is
  FALSE, else NULL if either is NULL, else TRUE; ``OR`` dually.
* A comparison, ``IN`` or ``BETWEEN`` with a NULL operand is NULL; ``x IN (l1, ..., lk)`` is
  ``x = l1 OR ... OR x = lk``; ``x BETWEEN a AND b`` is ``x >= a AND x <= b``; the ``NOT``
  forms negate these.  An int compares with a float by exact value (no rounding of either).
* ``+ - *`` on two ints: the exact result, NULL outside int64.  Otherwise both operands are
  converted to float (an int k with |k| > 2^53 rounds to the nearest float64, ties to even)
  and the binary64 operation is applied; ``/`` is always this float division, and NULL when
  the divisor is zero (``0.0`` or ``-0.0``).  A NaN result is NULL; overflow gives an infinity.
* ``-a`` and ``ABS(a)``: for an int, NULL at -2^63; for a float, the sign bit is flipped or
  cleared (``-0.0`` is a value: ``-(0.0)`` is ``-0.0``, ``ABS(-0.0)`` is ``0.0``).
* A filter keeps a row exactly when its predicate is TRUE (neither FALSE nor NULL).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .._constants import INT64_MAX, INT64_MIN
from .check import ExprType, Schema, annotate
from .nodes import Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic, Negate, Not

__all__ = ["evaluate_row", "evaluate_typed", "compare_values"]

Value = Any          # None, float (never NaN), int, str or bool


def evaluate_row(expr: Expr, row: Mapping[str, Any], schema: Schema) -> Value:
    """The value of ``expr`` on ``row`` (column name -> value; None or NaN is NULL).

    ``expr`` is checked against ``schema`` first (:func:`~opendp_duff.expressions.check`);
    the row's values must be of the schema's types.  Only the columns the expression names
    are read: the value depends on this row alone.
    """
    return _eval(expr, row, annotate(expr, schema))


def evaluate_typed(expr: Expr, row: Mapping[str, Any], types: dict[Expr, ExprType]) -> Value:
    """:func:`evaluate_row` with the types of ``annotate(expr, schema)`` already computed."""
    return _eval(expr, row, types)


# [proof:reference_semantics]
def _eval(e: Expr, row: Mapping[str, Any], types: dict[Expr, ExprType]) -> Value:
    if isinstance(e, Column):
        return _read(row[e.name], types[e].T)
    if isinstance(e, Literal):
        return e.value
    if isinstance(e, Logic):
        values = [_eval(arg, row, types) for arg in e.args]
        decisive = e.op == "OR"                    # TRUE decides an OR, FALSE an AND
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(e, Not):
        value = _eval(e.operand, row, types)
        return None if value is None else not value
    if isinstance(e, IsNull):
        return (_eval(e.operand, row, types) is None) != e.negated
    if isinstance(e, Compare):
        return compare_values(e.op, _eval(e.left, row, types), _eval(e.right, row, types))
    if isinstance(e, In):
        x = _eval(e.operand, row, types)
        found = None if x is None else any(x == item.value for item in e.items)
        return None if found is None else found != e.negated
    if isinstance(e, Between):
        x, lo, hi = (_eval(part, row, types) for part in (e.operand, e.low, e.high))
        inside = _and(compare_values(">=", x, lo), compare_values("<=", x, hi))
        return None if inside is None else inside != e.negated
    if isinstance(e, (Negate, Abs)):
        x = _eval(e.operand, row, types)
        if x is None:
            return None
        result = -x if isinstance(e, Negate) else abs(x)
        return _int64_or_null(result) if types[e].T is int else result
    assert isinstance(e, Arith)
    a, b = _eval(e.left, row, types), _eval(e.right, row, types)
    if a is None or b is None:
        return None
    if types[e].T is int:                          # + - * of two ints, exact
        return _int64_or_null(a + b if e.op == "+" else a - b if e.op == "-" else a * b)
    a, b = float(a), float(b)                      # int -> nearest float64
    if e.op == "/" and b == 0.0:
        return None
    result = a + b if e.op == "+" else a - b if e.op == "-" else a * b if e.op == "*" else a / b
    return None if math.isnan(result) else result


def _read(value: Any, T: type) -> Value:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return T(value)


def compare_values(op: str, a: Value, b: Value) -> bool | None:
    """``a op b`` on two values (NULL is None) of comparable types: NULL if either is NULL."""
    if a is None or b is None:
        return None
    result: bool = {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return result


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _int64_or_null(k: int) -> int | None:
    return k if INT64_MIN <= k <= INT64_MAX else None
# [end:reference_semantics]
