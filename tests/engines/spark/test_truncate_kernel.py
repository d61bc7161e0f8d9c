"""The Spark truncation kernel against the definition, by brute force on random frames: per
person (and per kept group) the rows first in the order (xxhash64 under the key, canonical
content), the groups first in the order (group hash, group value); ties forced by zeroing
the hashes go through the content order; -0.0/0.0 and NaN/null hash as one value; the result
does not depend on how the rows are partitioned, and differs with the key.  Deterministic."""
import math

import numpy as np
import pytest

from helpers import canonical_rows, reference_truncation
from opendp_duff.transformations import _truncate_spark as kernel
from opendp_duff.transformations._truncate_kernels import Truncation, temp_columns
from opendp_duff.transformations._truncate_spark import spark_hashed, truncate_spark

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

KEY = bytes(range(16))
TYPES = {"id": int, "v": float, "s": str}
SCHEMA = "id long, v double, s string"
FLOATS = [0.0, -0.0, 1.5, math.nan, None, 2.0, -3.0]
STRINGS = ["a", "b", "é", ""]
SPECS = [((), None, 1), ((), None, 3), (("s",), 1, 2), (("v", "s"), 2, 1)]
TOP_BITS = b"\xff" * 16                           # key words above 2^63, passed to Spark as signed longs


def spec(by=(), g=None, k=2, key=KEY):
    return Truncation("id", tuple(TYPES.items()), k, key, tuple(by), g)


def random_rows(rng, n, n_ids=5):
    return [(int(rng.integers(n_ids)), FLOATS[rng.integers(len(FLOATS))], STRINGS[rng.integers(len(STRINGS))])
            for _ in range(n)]


def canonical(rows):
    return canonical_rows({"id": [r[0] for r in rows], "v": [r[1] for r in rows], "s": [r[2] for r in rows]},
                          TYPES)


def expected(spark, rows, s):
    tmp = temp_columns(s)
    hashed = spark_hashed(spark.createDataFrame(rows, SCHEMA), s).collect()
    names = sorted(TYPES)
    return reference_truncation(canonical([(r["id"], r["v"], r["s"]) for r in hashed]),
                                [r[tmp.row_hash] for r in hashed], names.index("id"), s.contributions,
                                [r[tmp.group_hash] for r in hashed] if s.by else None,
                                tuple(names.index(b) for b in s.by), s.max_groups)


def kept(spark, rows, s, partitions=None):
    df = spark.createDataFrame(rows, SCHEMA)
    if partitions:
        df = df.repartition(partitions)
    out = truncate_spark(df, s)
    assert out.columns == list(TYPES)
    return sorted(canonical([tuple(r) for r in out.collect()]))


def test_spark_kernel_keeps_what_the_definition_keeps(spark):
    rng = np.random.default_rng(7)
    for (by, g, k), key in zip(SPECS, [KEY, TOP_BITS, KEY, TOP_BITS], strict=True):
        s = spec(by, g, k, key)
        for n in (0, 30):
            rows = random_rows(rng, n)
            assert kept(spark, rows, s) == sorted(expected(spark, rows, s).elements())
            if n:
                assert kept(spark, rows, s, partitions=3) == kept(spark, rows, s)


def test_colliding_hashes_are_ordered_by_content(spark, monkeypatch):
    from pyspark.sql import functions as F
    original = kernel.spark_hashed

    def zeroed(df, s):
        tmp = temp_columns(s)
        out = original(df, s).withColumn(tmp.row_hash, F.lit(0).cast("long"))
        return out.withColumn(tmp.group_hash, F.lit(0).cast("long")) if s.by else out

    monkeypatch.setattr(kernel, "spark_hashed", zeroed)
    rng = np.random.default_rng(8)
    for by, g, k in SPECS:
        s = spec(by, g, k)
        rows = random_rows(rng, 25, n_ids=2)
        names = sorted(TYPES)
        want = reference_truncation(canonical(rows), [0] * len(rows), names.index("id"), k,
                                    [0] * len(rows) if by else None, tuple(names.index(b) for b in by), g)
        assert kept(spark, rows, s) == sorted(want.elements())


def test_zero_signs_and_missing_values_hash_as_one_value(spark):
    s = spec(("v",), 1, 1)
    tmp = temp_columns(s)
    a = spark_hashed(spark.createDataFrame([(1, -0.0, "x"), (1, math.nan, "x")], SCHEMA), s).collect()
    b = spark_hashed(spark.createDataFrame([(1, 0.0, "x"), (1, None, "x")], SCHEMA), s).collect()
    for name in (tmp.row_hash, tmp.group_hash):
        assert [r[name] for r in a] == [r[name] for r in b]
    other = spark_hashed(spark.createDataFrame([(1, -0.0, "x")], SCHEMA), spec(("v",), 1, 1, key=bytes(16)))
    assert other.collect()[0][tmp.row_hash] != a[0][tmp.row_hash]          # the key changes the hash


def test_string_identifiers(spark):
    s = Truncation("id", (("id", str), ("v", float)), 1, KEY)
    df = spark.createDataFrame([("ann", 1.0), ("ann", 2.0), ("bo", 3.0), ("", 4.0)], "id string, v double")
    assert sorted(r["id"] for r in truncate_spark(df, s).collect()) == ["", "ann", "bo"]
