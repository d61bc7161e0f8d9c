"""numpy: an expression evaluated on a dict of column arrays.

A column is a one-dimensional array: a float array (NaN is NULL), an int or bool array, an
object array (of str, or of numbers or booleans; None, NaN or any element not of the column's
type is NULL), a numpy str array, or a ``numpy.ma.MaskedArray`` of any of these (a masked
element is NULL).  Every column read must have the same length.  A value is carried as a pair
(data, null mask); the data under a NULL is arbitrary but harmless (no operation on it raises
or warns).  Constants, and the null mask of a column that has no NULL, are zero-dimensional
arrays that numpy broadcasts, so a literal costs nothing per row; the result is broadcast to the
number of rows at the end.  The pandas compiler reads its columns into the same pairs and
shares these primitives.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import attrs
import numpy as np

from .._constants import INT64_MIN
from ..errors import MakeError
from .check import ExprType, Schema, annotate
from .lower import TWO_63, lower_settled
from .nodes import Expr

__all__ = ["compile_numpy", "NumpyExpression", "Values", "NumpyPrimitives", "read_array"]

_DTYPES: dict[type, Any] = {float: np.float64, int: np.int64, bool: np.bool_, str: object}
_COMPARE = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


class Values(NamedTuple):
    """A column of values: ``data`` (float64, int64, bool or object of str) and ``null``, each
    one-dimensional or zero-dimensional (the same for every row)."""

    data: np.ndarray
    null: np.ndarray


def _values(data: Any, null: Any) -> Values:
    return Values(np.asarray(data), np.asarray(null))       # numpy returns scalars for 0-d operands


_NEVER = np.zeros((), dtype=bool)


def _present(value: object, T: type) -> bool:
    """Whether an element of an object array is a value of type T (else it is NULL)."""
    if T is str:
        return isinstance(value, str)
    if T is bool:
        return isinstance(value, (bool, np.bool_))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return T is float or isinstance(value, (int, np.integer)) if value == value else False


def read_array(array: Any, T: type) -> Values:
    """A column array (see the module docstring) as values of type T."""
    mask = np.ma.getmaskarray(array) if np.ma.isMaskedArray(array) else None
    data = np.asarray(np.ma.getdata(array))
    if data.ndim != 1:
        raise MakeError("a column must be a one-dimensional array")
    if data.dtype == object:
        present = np.fromiter((_present(v, T) for v in data), dtype=bool, count=len(data))
        fill = "" if T is str else T(0)
        values = [T(v) if ok else fill for v, ok in zip(data, present, strict=True)]
        data = np.array(values, dtype=object) if T is str else np.array(values, dtype=_DTYPES[T])
        null = ~present
    else:
        data = data.astype(_DTYPES[T], copy=False)
        null = np.isnan(data) if T is float else _NEVER
    if mask is not None:
        null = null | mask
        if T is str:
            data[mask] = ""
    return Values(data, null)


class NumpyPrimitives:
    """The primitives of :mod:`opendp_duff.expressions.lower` on :class:`Values`."""

    def __init__(self, read: Callable[[str, type], Values], n: int) -> None:
        self.read, self.n = read, n

    def column(self, name: str, t: ExprType) -> Values:
        values = self.read(name, t.T)
        if len(values.data) != self.n:
            raise MakeError("every column must have the same number of rows")
        return values

    def settle(self, a: Values, T: type) -> Values:
        return a                                    # NaN is marked NULL where it arises

    def literal(self, value: int | float | str | bool | None, T: type) -> Values:
        data = np.empty((), dtype=_DTYPES[T])
        data[()] = {float: 0.0, int: 0, bool: False, str: ""}[T] if value is None else value
        return Values(data, np.asarray(value is None))

    def compare(self, op: str, a: Values, b: Values, T: type) -> Values:
        return _values(np.asarray(_COMPARE[op](a.data, b.data), dtype=bool), a.null | b.null)

    def logic(self, op: str, a: Values, b: Values) -> Values:
        decisive = op == "OR"                # TRUE decides an OR, FALSE an AND
        decided = ((a.data == decisive) & ~a.null) | ((b.data == decisive) & ~b.null)
        null = ~decided & (a.null | b.null)
        return _values(decided if decisive else ~decided & ~null, null)

    # [proof:NumpyPrimitives.not_]
    def not_(self, a: Values) -> Values:
        return _values(~a.data & ~a.null, a.null)
    # [end:NumpyPrimitives.not_]

    def is_null(self, a: Values) -> Values:
        return Values(a.null, _NEVER)

    # [proof:NumpyPrimitives.null_where]
    def null_where(self, cond: Values, a: Values) -> Values:
        return _values(a.data, a.null | cond.data)
    # [end:NumpyPrimitives.null_where]

    def to_float(self, a: Values) -> Values:
        return _values(a.data.astype(np.float64), a.null)

    # [proof:NumpyPrimitives.float_to_int]
    def float_to_int(self, a: Values) -> Values:
        finite = np.isfinite(a.data)
        clipped = np.clip(np.where(finite, a.data, 0.0), -TWO_63, TWO_63 - 1024.0)
        return _values(clipped.astype(np.int64), a.null)
    # [end:NumpyPrimitives.float_to_int]

    # [proof:numpy_int_arith]
    def int_arith(self, op: str, a: Values, b: Values) -> Values:
        x, y = a.data, b.data
        with np.errstate(all="ignore"):              # int64 wraps modulo 2^64 (arrays silently)
            r = _ARITH[op](x, y)
            if op == "+":
                overflow = ((x ^ r) & (y ^ r)) < 0   # both operands' signs differ from the result's
            elif op == "-":
                overflow = ((x ^ y) & (x ^ r)) < 0
            else:
                p = x.astype(np.float64) * y.astype(np.float64)
                overflow = (np.abs(p) >= 2.0 ** 64) | (np.abs(r.astype(np.float64) - p) > 2.0 ** 32)
        return _values(r, a.null | b.null | overflow)
    # [end:numpy_int_arith]

    def float_arith(self, op: str, a: Values, b: Values) -> Values:
        with np.errstate(all="ignore"):
            if op == "/":
                zero = b.data == 0.0
                r = a.data / np.where(zero, 1.0, b.data)
            else:
                zero, r = _NEVER, _ARITH[op](a.data, b.data)
            return _values(r, a.null | b.null | zero | np.isnan(r))

    def negate(self, a: Values, T: type) -> Values:
        with np.errstate(all="ignore"):
            return _values(-a.data, a.null | (a.data == INT64_MIN) if T is int else a.null)

    def abs(self, a: Values, T: type) -> Values:
        with np.errstate(all="ignore"):
            return _values(np.abs(a.data), a.null | (a.data == INT64_MIN) if T is int else a.null)


def as_column(values: Values, T: type) -> np.ma.MaskedArray:
    """Values as a masked array (the data under a NULL: NaN, 0, False or None)."""
    data = values.data.copy()
    data[values.null] = {float: np.nan, int: 0, bool: False, str: None}[T]
    return np.ma.MaskedArray(data, mask=values.null.copy())


@attrs.frozen(eq=False)
class NumpyExpression:
    """A checked expression, ready to evaluate on dicts of numpy columns.

    Attributes:
        expr: the tree.
        type: the type of its value (from :func:`~opendp_duff.expressions.check`).
    """

    expr: Expr
    type: ExprType
    _types: dict[Expr, ExprType] = attrs.field(alias="types", repr=False)

    def _primitives(self, columns: Any) -> NumpyPrimitives:
        n = len(next(iter(columns.values()))) if columns else 0
        return NumpyPrimitives(lambda name, T: read_array(columns[name], T), n)

    def values(self, columns: Any) -> Values:
        """The value on every row, as one-dimensional (data, null)."""
        prims = self._primitives(columns)
        data, null = lower_settled(self.expr, self._types, prims)
        rows = (prims.n,)
        return Values(data if data.ndim else np.broadcast_to(data, rows).copy(),
                      null if null.ndim else np.broadcast_to(null, rows).copy())

    # [proof:NumpyExpression.mask]
    def mask(self, columns: Any) -> Any:
        """A filter's mask: True exactly where the predicate is TRUE (not FALSE, not NULL)."""
        if self.type.T is not bool:
            raise MakeError(f"a mask needs a predicate (bool), not {self.type.T.__name__}")
        values = self.values(columns)
        return values.data & ~values.null
    # [end:NumpyExpression.mask]

    def column(self, columns: Any) -> Any:
        """The values as a masked array of float64, int64, bool or object (str); NULL masked."""
        return as_column(self.values(columns), self.type.T)


def compile_numpy(expr: Expr, schema: Schema) -> NumpyExpression:
    """Check ``expr`` against ``schema`` and prepare it for numpy columns.

    Raises:
        MakeError: ``expr`` is ill-typed for ``schema`` (see :func:`~opendp_duff.expressions.check`).
    """
    types = annotate(expr, schema)
    return NumpyExpression(expr, types[expr], types)
