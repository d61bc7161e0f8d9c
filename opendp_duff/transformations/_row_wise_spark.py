"""The kernel of the row-wise steps (``make_filter``, ``make_with_column``) on Spark frames: the
checked expression compiled to one Spark column (:func:`opendp_duff.expressions.compile_spark`,
no Python UDF), applied lazily (a plan; nothing runs until an action).

pyspark is imported when the kernel runs, never at import.
"""
from __future__ import annotations

import math
from typing import Any

from ..engines.spark.column import quoted
from ..expressions import compile_spark
from ._row_step import RowStep

__all__ = ["spark_rows"]


# [proof:spark_rows]
def spark_rows(frame: Any, step: RowStep) -> Any:
    """The kept rows (a filter) or the frame with the derived column, of a Spark DataFrame (or a
    part of one), with the declared columns only."""
    from pyspark.sql import functions as F
    declared = [F.col(quoted(name)) for name in step.names]
    compiled = compile_spark(step.expr, step.schema)
    if step.name is None:
        return frame.select(*declared).where(compiled)     # true only: false and null drop
    if step.column is not None and step.column.nan:
        compiled = F.coalesce(compiled, F.lit(math.nan))    # a float NULL as NaN, as the domain admits
    return frame.select(*declared, compiled.alias(step.name))
# [end:spark_rows]
