"""Polars: an expression compiled to one ``polars.Expr`` (eager and lazy frames alike).

NULL is Polars' null.  Inside arithmetic a float's NaN stands for NULL (both absorb every
operation; a zero divisor is replaced by NaN), and it is made null only where a value is
consumed (a comparison, ``IS NULL``, the result): that step repeats its operand, so applying it
at every operation would grow the expression exponentially with its depth.  Integer
``+ - *``, ``-`` and ``ABS`` are computed in Int128 (where no int64 operands overflow) and cast
back with ``strict=False``, so a result outside int64 becomes null.  Polars evaluates every
branch of ``when/then`` on every row, so no branch here can raise either.

Float arithmetic never meets a constant operand: Polars rewrites ``x + 0.0`` and ``x - -0.0`` to
``x`` (wrong for ``x = -0.0``), computes ``c - x`` as ``-(x - c)`` (wrong sign for a zero
result) and ``x / c`` as ``x * (1 / c)`` (not the correctly rounded quotient), so a constant
operand is first made a column of its value, where Polars applies the IEEE operation itself.
A comparison puts a constant on its right (on the left, beside a column of NULLs only, Polars 2.1
returns one row instead of one per row).  These deviations were found by the agreement tests,
which compare every compiler with the reference on random frames, constant columns included.
Polars is imported only when an expression is compiled.  Use the result with
``df.filter(e)`` (keeps the rows where it is TRUE) or ``df.with_columns(e.alias(name))``, which
give one value per row; alone in a ``select``, an expression that names no column is a single
row (Polars broadcasts a literal only beside columns).
"""
from __future__ import annotations

from typing import Any

from ..errors import MakeError
from .check import ExprType, Schema, annotate
from .lower import TWO_63, lower_settled
from .nodes import Column, Expr, children

__all__ = ["compile_polars", "PolarsPrimitives", "check_polars_names"]


class PolarsPrimitives:
    """The primitives of :mod:`opendp_duff.expressions.lower` on ``polars.Expr``."""

    def __init__(self) -> None:
        import polars as pl
        self.pl = pl
        self.dtypes = {float: pl.Float64, int: pl.Int64, bool: pl.Boolean, str: pl.String}

    def column(self, name: str, t: ExprType) -> Any:
        return self.pl.col(name).cast(self.dtypes[t.T])

    def settle(self, a: Any, T: type) -> Any:
        # a constant (a literal after folding) is never NaN; otherwise NaN -> null, as a when/then
        # that names its operand twice (fill_nan names it three times)
        return self.pl.when(a.is_nan().not_()).then(a) if T is float and a.meta.root_names() else a

    def literal(self, value: int | float | str | bool | None, T: type) -> Any:
        return self.pl.lit(value, dtype=self.dtypes[T])

    def compare(self, op: str, a: Any, b: Any, T: type) -> Any:
        if not a.meta.root_names() and b.meta.root_names():
            # a constant on the left of a comparison with a column whose values are all NULL
            # gives Polars 2.1 a result of one row, not one per row: put the constant on the right
            a, b, op = b, a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        return {"=": a.eq, "!=": a.ne, "<": a.lt, "<=": a.le, ">": a.gt, ">=": a.ge}[op](b)

    def logic(self, op: str, a: Any, b: Any) -> Any:
        return a.and_(b) if op == "AND" else a.or_(b)        # Kleene logic on Boolean

    # [proof:PolarsPrimitives.not_]
    def not_(self, a: Any) -> Any:
        return a.not_()
    # [end:PolarsPrimitives.not_]

    def is_null(self, a: Any) -> Any:
        return a.is_null()

    # [proof:PolarsPrimitives.null_where]
    def null_where(self, cond: Any, a: Any) -> Any:
        return self.pl.when(cond.not_()).then(a)            # no otherwise: null
    # [end:PolarsPrimitives.null_where]

    def to_float(self, a: Any) -> Any:
        return a.cast(self.pl.Float64)

    # [proof:PolarsPrimitives.float_to_int]
    def float_to_int(self, a: Any) -> Any:
        return a.clip(-TWO_63, TWO_63 - 1024.0).cast(self.pl.Int64, strict=False)
    # [end:PolarsPrimitives.float_to_int]

    def _via_int128(self, value: Any) -> Any:
        return value.cast(self.pl.Int64, strict=False)      # outside int64 -> null

    def int_arith(self, op: str, a: Any, b: Any) -> Any:
        x, y = a.cast(self.pl.Int128), b.cast(self.pl.Int128)
        return self._via_int128(x + y if op == "+" else x - y if op == "-" else x * y)

    def _column_shaped(self, value: Any) -> Any:
        """A constant (an expression that names no column) as a column of its value: it times a
        column of ones, which is exact for every float, -0.0 and the infinities included."""
        if value.meta.root_names():
            return value
        ones = self.pl.int_range(self.pl.len()).cast(self.pl.Float64) * 0.0 + 1.0
        return value * ones

    def float_arith(self, op: str, a: Any, b: Any) -> Any:
        a, b = self._column_shaped(a), self._column_shaped(b)
        if op == "/":
            return a / b.replace(0.0, float("nan"))           # 0.0 and -0.0 alike: a zero divisor gives NaN
        return a + b if op == "+" else a - b if op == "-" else a * b

    def negate(self, a: Any, T: type) -> Any:
        return self.int_arith("-", self.literal(0, int), a) if T is int else -a

    def abs(self, a: Any, T: type) -> Any:
        return self._via_int128(a.cast(self.pl.Int128).abs()) if T is int else a.abs()


# [proof:compile_polars]
def compile_polars(expr: Expr, schema: Schema) -> Any:
    """Check ``expr`` against ``schema`` and compile it to a ``polars.Expr`` whose dtype is
    Float64, Int64, Boolean or String (NULL as null).

    Raises:
        MakeError: ``expr`` is ill-typed for ``schema`` (see :func:`~opendp_duff.expressions.check`),
            or names a column that Polars would read as a pattern (``*``, or ``^...$``).
    """
    types = annotate(expr, schema)
    check_polars_names(expr)
    return lower_settled(expr, types, PolarsPrimitives())
# [end:compile_polars]


# [proof:check_polars_names]
def check_polars_names(expr: Expr) -> None:
    """Refuse an expression naming a column that Polars would read as a pattern (``*``, or
    ``^...$``); Polars is not imported, so a constructor can refuse before any data is read.

    Raises:
        MakeError: such a column is named.
    """
    stack = [expr]
    while stack:
        node = stack.pop()
        stack.extend(children(node))
        if isinstance(node, Column) and (node.name == "*" or (node.name.startswith("^") and node.name.endswith("$"))):
            raise MakeError(f"column name {node.name!r} is a pattern in Polars, not a name")
# [end:check_polars_names]
