"""The truncation kernel for Spark DataFrames: Spark SQL expressions and window functions
only (no Python UDF), so the work stays in the executors.

Same rule as the local kernels (:mod:`._truncate_kernels`): for each identifier (and group),
keep the rows that come first in the order ``(row hash, canonical content)``; grouped, keep
the groups that come first in the order ``(group hash, canonical group value)``.  The keyed
hash is Spark's ``xxhash64`` over the key's two 64-bit halves followed by the canonical
columns (``xxhash64`` hashes its arguments in turn, each seeded with the hash so far, so the
key seeds the content).  Canonical content: a float column as a double with -0.0 read as 0.0
and every NaN or null as one NaN (Spark compares NaN equal to NaN and orders it last); an int
column as a long; a str column as a string.

pyspark is imported when the kernel runs, never at import.
"""
from __future__ import annotations

import math
from typing import Any

from ._keyed_hash import key_words
from ._truncate_kernels import _GROUP, _ROW, Truncation, temp_columns

__all__ = ["truncate_spark"]


def _signed(word: int) -> int:
    """A 64-bit word as the signed long Spark stores."""
    return word - 2 ** 64 if word >= 2 ** 63 else word


# [proof:spark_hashed]
def _spark_canonical(F: Any, name: str, T: type) -> Any:
    c = F.col(name)
    if T is str:
        return c.cast("string")
    if T is int:
        return c.cast("long")
    c = c.cast("double")
    return (F.when(c.isNull() | F.isnan(c), F.lit(math.nan))
            .when(c == 0.0, F.lit(0.0)).otherwise(c))


def spark_hashed(df: Any, spec: Truncation) -> Any:
    """A Spark DataFrame of the declared columns, their canonical values and the hashes
    (:func:`temp_columns` names them)."""
    from pyspark.sql import functions as F
    tmp = temp_columns(spec)
    key = [F.lit(_signed(w)).cast("long") for w in key_words(spec.key)]
    c = {name: F.col(tmp.canonical[name]) for name in spec.names}
    out = df.select(*spec.names).select(
        *spec.names, *(_spark_canonical(F, name, T).alias(tmp.canonical[name]) for name, T in spec.columns))
    out = out.withColumn(tmp.row_hash, F.xxhash64(*key, F.lit(_ROW).cast("long"),
                                                  *(c[name] for name, _ in spec.hashed)))
    if spec.by:
        out = out.withColumn(tmp.group_hash, F.xxhash64(*key, F.lit(_GROUP).cast("long"), c[spec.identifier],
                                                        *(c[b] for b in spec.by)))
    return out
# [end:spark_hashed]


# [proof:truncate_spark]
def truncate_spark(df: Any, spec: Truncation) -> Any:
    """The kept rows of a Spark DataFrame (lazy: a plan, nothing runs until an action), with
    the declared columns only."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    tmp = temp_columns(spec)
    rank = tmp.row_hash + "_rank"                      # not a declared name either
    c = {name: F.col(tmp.canonical[name]) for name in spec.names}
    content = [c[name] for name, _ in spec.hashed]
    groups = [c[b] for b in spec.by]
    in_run = Window.partitionBy(c[spec.identifier], *groups).orderBy(F.col(tmp.row_hash), *content)
    out = spark_hashed(df, spec).withColumn(rank, F.row_number().over(in_run))
    out = out.filter(F.col(rank) <= spec.contributions)
    if spec.max_groups is not None:                    # grouped (a Truncation has both or neither)
        in_person = Window.partitionBy(c[spec.identifier]).orderBy(F.col(tmp.group_hash), *groups)
        out = out.withColumn(rank, F.dense_rank().over(in_person)).filter(F.col(rank) <= spec.max_groups)
    return out.select(*spec.names)
# [end:truncate_spark]
