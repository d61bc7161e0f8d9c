"""Spark: an expression compiled to one ``pyspark.sql.Column``, whatever ``spark.sql.ansi.enabled``.

NULL is Spark's null: a float column's NaN is read as null and a NaN result is made null
(``nanvl``), so Spark's own NaN ordering (NaN = NaN, NaN above every number) never applies.
No operation here can raise under ANSI mode: integer ``+ - *`` and negation are computed
exactly in ``decimal(20,0)`` and brought back by ``try_cast`` to long (null out of the long range,
in both modes), division is ``try_divide`` (null for a zero divisor), and a float is cast to long
only after clamping into the long range.  Not ``try_add`` and ``try_multiply``: Spark's optimiser
reassociates nested integer additions and multiplications (``i + (j + c)`` becomes ``(i + j) + c``),
which moves where a long overflows, so a sum whose every step fits could be null; it leaves
decimal arithmetic alone.  Doubles are IEEE binary64 in Spark (the JVM's arithmetic, ``-0.0 = 0.0`` in
comparisons); strings compare as UTF-8 bytes, which is code-point order (the default
collation; on Spark 4 the columns and literals are put in the binary collation explicitly).
pyspark is imported only when an expression is compiled.
"""
from __future__ import annotations

from typing import Any

from .check import ExprType, Schema, annotate
from .lower import TWO_63, lower_settled
from .nodes import Expr

__all__ = ["compile_spark", "SparkPrimitives"]

_TYPES = {float: "double", int: "long", bool: "boolean", str: "string"}


class SparkPrimitives:
    """The primitives of :mod:`opendp_duff.expressions.lower` on ``pyspark.sql.Column``."""

    def __init__(self) -> None:
        from pyspark.sql import functions as F
        self.F = F
        self.null_double = F.lit(None).cast("double")
        self.zero = F.lit(0).cast("long")

    def _binary_strings(self, value: Any) -> Any:
        collate = getattr(self.F, "collate", None)          # Spark 4: collations exist
        return collate(value, "UTF8_BINARY") if collate is not None else value

    def column(self, name: str, t: ExprType) -> Any:
        value = self.F.col("`" + name.replace("`", "``") + "`").cast(_TYPES[t.T])
        if t.T is float:
            return self.F.nanvl(value, self.null_double)
        return self._binary_strings(value) if t.T is str else value

    def settle(self, a: Any, T: type) -> Any:
        return a                                              # NaN was made null where it arose

    def literal(self, value: int | float | str | bool | None, T: type) -> Any:
        lit = self.F.lit(value).cast(_TYPES[T])
        return self._binary_strings(lit) if T is str else lit

    def compare(self, op: str, a: Any, b: Any, T: type) -> Any:
        return {"=": a.__eq__, "!=": a.__ne__, "<": a.__lt__, "<=": a.__le__,
                ">": a.__gt__, ">=": a.__ge__}[op](b)

    def logic(self, op: str, a: Any, b: Any) -> Any:
        return a & b if op == "AND" else a | b                # Kleene logic

    # [proof:SparkPrimitives.not_]
    def not_(self, a: Any) -> Any:
        return ~a
    # [end:SparkPrimitives.not_]

    def is_null(self, a: Any) -> Any:
        return a.isNull()

    # [proof:SparkPrimitives.null_where]
    def null_where(self, cond: Any, a: Any) -> Any:
        return self.F.when(~cond, a)                          # no otherwise: null
    # [end:SparkPrimitives.null_where]

    def to_float(self, a: Any) -> Any:
        return a.cast("double")

    # [proof:SparkPrimitives.float_to_int]
    def float_to_int(self, a: Any) -> Any:
        clamped = self.F.least(self.F.greatest(a, self.F.lit(-TWO_63)), self.F.lit(TWO_63 - 1024.0))
        return clamped.cast("long")
    # [end:SparkPrimitives.float_to_int]

    def int_arith(self, op: str, a: Any, b: Any) -> Any:
        x, y = a.cast("decimal(20,0)"), b.cast("decimal(20,0)")   # any long; a product fits 38 digits
        return (x + y if op == "+" else x - y if op == "-" else x * y).try_cast("long")

    def float_arith(self, op: str, a: Any, b: Any) -> Any:
        if op == "/":
            result = self.F.try_divide(a, b)
        else:
            result = a + b if op == "+" else a - b if op == "-" else a * b
        return self.F.nanvl(result, self.null_double)

    def negate(self, a: Any, T: type) -> Any:
        return self.int_arith("-", self.zero, a) if T is int else -a

    def abs(self, a: Any, T: type) -> Any:
        if T is not int:
            return self.F.abs(a)
        # abs raises on -2^63 under ANSI; a lambda over a one-element array names a once, where
        # a CASE on a would repeat it (and nested ABS would grow exponentially)
        F = self.F
        return F.transform(F.array(a), lambda v: F.when(v < 0, self.int_arith("-", self.zero, v)).otherwise(v))[0]


# [proof:compile_spark]
def compile_spark(expr: Expr, schema: Schema) -> Any:
    """Check ``expr`` against ``schema`` and compile it to a ``pyspark.sql.Column`` of type
    double, long, boolean or string (NULL as null); no Python UDF.

    Raises:
        MakeError: ``expr`` is ill-typed for ``schema`` (see :func:`~opendp_duff.expressions.check`).
    """
    types = annotate(expr, schema)              # refusals come before pyspark is touched
    return lower_settled(expr, types, SparkPrimitives())
# [end:compile_spark]
