"""The counts per key of a Spark frame: one aggregation (``groupBy(key).count()``), whose result,
one row per distinct key, reaches the driver; no Python UDF.

pyspark is imported when the kernel runs, never at import.
"""
from __future__ import annotations

from typing import Any

from ..engines.spark import collection
from ..engines.spark.column import quoted

__all__ = ["count_by_key_spark"]

_KEY, _COUNT = "__opendp_key", "__opendp_count"


# [proof:count_by_key_spark]
def count_by_key_spark(df: Any, by: tuple[str, ...], T: tuple[type, ...]) -> dict[Any, int]:
    """{key: count} of the key columns ``by`` (of types ``T``) of a member Spark frame (or part),
    in increasing key order: a key is the value of the one column, or the tuple of the values
    of several.  A float key is read with -0.0 as 0.0 (a member has no NaN and no null)."""
    from pyspark.sql import functions as F
    keys = []
    for j, (name, t) in enumerate(zip(by, T, strict=True)):
        key = F.col(quoted(name)).cast({str: "string", int: "long", float: "double"}[t])
        if t is float:
            key = F.when(key == 0.0, F.lit(0.0)).otherwise(key)      # -0.0 and 0.0: one key
        keys.append(key.alias(f"{_KEY}{j}"))
    rows = collection.collect(df.groupBy(*keys).agg(F.count(F.lit(1)).alias(_COUNT)))
    collection.current().note(0, values=len(rows), counts=len(rows))  # the keys are data values
    if len(by) == 1:
        counts = {T[0](row[f"{_KEY}0"]): int(row[_COUNT]) for row in rows}
    else:
        counts = {tuple(t(row[f"{_KEY}{j}"]) for j, t in enumerate(T)): int(row[_COUNT]) for row in rows}
    return {k: counts[k] for k in sorted(counts)}
# [end:count_by_key_spark]
