"""The Spark sum is the exact sum rounded once, i.e. ``math.fsum`` of the same records, for data
that a float sum gets wrong (cancellation, magnitudes 1e5 to the smallest subnormal), grouped
and not; its map is make_sum's.  Deterministic."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.spark import (make_spark_sum, spark_frame_domain, then_spark_clamp, then_spark_select_column,
                               then_spark_sum)
from opendp_duff.spark._parts import keyed_rows, split_by_keys
from opendp_duff.spark.domain import SparkColumn
from opendp_duff.spark.sum import exact_sums, grid_floor, limb_exponents

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

X = (("column", "x", float),)


def test_grouped_exact_sums_equal_fsum(spark):
    rng = np.random.default_rng(0)
    groups = {0: np.concatenate([rng.normal(size=200) * 1e5, [1e5, -1e5 + 1e-11, 0.1, 0.2, 0.3]]),
              1: np.array([1e-300, -1e-300, 5e-324, 3e-310, 1.0, -1.0]),
              2: np.array([0.0, -0.0]),
              3: np.array([])}
    frame = spark.createDataFrame([(float(v), k) for k, xs in groups.items() for v in xs], "x double, g long")
    rows, n_keys = keyed_rows(SparkColumn(split_by_keys(frame, "g", int, tuple(groups))[0], float, X))
    sums = exact_sums(rows, n_keys, limb_exponents(2e5, grid_floor(rows)))
    assert sums == [math.fsum(groups[k].tolist()) for k in groups]
    assert sums[0] != float(np.sum(groups[0]))   # the data does defeat a float sum


def test_sum_chain_releases_fsum_with_make_sums_map(spark):
    xs = [0.1] * 10 + [2.0, -7.5]
    frame = spark.createDataFrame([(x,) for x in xs], "x double")
    space = spark_frame_domain({"x": dp.atom_domain(T=float)}, size=len(xs)), dp.symmetric_distance()
    t = space >> then_spark_select_column("x") >> then_spark_clamp((-5.0, 1.0)) >> then_spark_sum()
    assert t(frame) == math.fsum(min(max(x, -5.0), 1.0) for x in xs)
    local = (dp.vector_domain(dp.atom_domain(T=float, bounds=(-5.0, 1.0)), size=len(xs)), dp.symmetric_distance())
    for d in (0, 1, 2, 7):
        assert t.map(d) == dp.t.make_sum(*local).map(d)
    unsized = ((spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance())
               >> then_spark_select_column("x") >> then_spark_clamp((0.0, 1.0)))
    with pytest.raises(dp.MakeError):   # unknown size, as make_sum
        make_spark_sum(unsized.output_domain, unsized.output_metric)
