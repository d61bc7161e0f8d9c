"""The Spark engine's sum is the exact rational sum, so ``make_sum`` releases it rounded once,
i.e. ``math.fsum`` of the same records, for data that a float sum gets wrong (cancellation,
magnitudes 1e5 to the smallest subnormal), grouped and not; the map is make_sum's.  Deterministic."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.spark import SparkColumn
from opendp_duff.engines.spark.parts import keyed_rows, split_by_keys
from opendp_duff.engines.spark.sum import exact_sums, grid_floor, limb_exponents

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
    low, M = grid_floor(rows)
    assert M == max(abs(v) for xs in groups.values() for v in xs)
    sums = exact_sums(rows, n_keys, limb_exponents(M, low))
    assert sums == [sum(map(Fraction, groups[k].tolist()), Fraction(0)) for k in groups]   # exact
    rounded = [s.numerator / s.denominator for s in sums]
    assert rounded == [math.fsum(groups[k].tolist()) for k in groups]
    assert rounded[0] != float(np.sum(groups[0]))   # the data does defeat a float sum


def test_sum_chain_releases_fsum_with_make_sums_map(spark):
    xs = [0.1] * 10 + [2.0, -7.5]
    frame = spark.createDataFrame([(x,) for x in xs], "x double")
    space = dp.dataframe_domain({"x": dp.atom_domain(T=float)}, size=len(xs), engine="spark"), dp.symmetric_distance()
    t = space >> dp.t.then_select_column("x") >> dp.t.then_clamp((-5.0, 1.0)) >> dp.t.then_sum()
    assert t(frame) == math.fsum(min(max(x, -5.0), 1.0) for x in xs)
    local = (dp.vector_domain(dp.atom_domain(T=float, bounds=(-5.0, 1.0)), size=len(xs)), dp.symmetric_distance())
    for d in (0, 1, 2, 7):
        assert t.map(d) == dp.t.make_sum(*local).map(d)
    unsized = ((dp.dataframe_domain({"x": dp.atom_domain(T=float)}, engine="spark"), dp.symmetric_distance())
               >> dp.t.then_select_column("x") >> dp.t.then_clamp((0.0, 1.0)))
    with pytest.raises(dp.MakeError):   # unknown size, as make_sum
        dp.t.make_sum(unsized.output_domain, unsized.output_metric)


def test_zeros_and_empty_columns_sum_to_zero(spark):
    frame = spark.createDataFrame([(0.0, 1), (-0.0, 1)], "x double, g long")
    rows, n_keys = keyed_rows(SparkColumn(split_by_keys(frame, "g", int, (1, 2))[0], float, X))
    low, M = grid_floor(rows)
    assert (low, M) == (0, 0.0) and exact_sums(rows, n_keys, limb_exponents(M, low)) == [0, 0]
