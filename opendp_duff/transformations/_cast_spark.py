"""The exact integer-to-float cast of a Spark column (the kernel of ``make_int_to_float`` for
``engine="spark"``): a row-wise step of the lazy column, evaluated by the statistic at the end
of the chain, so it costs no pass of its own.

pyspark is not imported here: the step is a public description that the column turns into a
Spark expression when a statistic runs.
"""
from __future__ import annotations

from typing import Any

from ..engines.spark import SparkColumn

__all__ = ["int_to_float_spark"]


# [proof:int_to_float_spark]
def int_to_float_spark(column: Any, bounds: tuple[float, float]) -> SparkColumn:
    """The Spark column of ``column``'s values as doubles, each equal to its integer.

    ``bounds`` are the float bounds of the input domain (integers within +-2^53, so exactly
    floats).  A Spark column's steps have no cast of their own; a clamp to these float bounds
    is one: every value lies within them already (the domain is bounded), so the clamp changes
    no value, and Spark evaluates ``greatest``/``least`` of a bigint and a double as doubles
    (numeric widening, in ANSI mode too), which converts each bigint k, |k| <= 2^53, to exactly k.
    """
    col: SparkColumn = column
    lo, hi = bounds
    return SparkColumn(col.frame, float, col.steps + (("clamp", lo, hi),), col.log)
# [end:int_to_float_spark]
