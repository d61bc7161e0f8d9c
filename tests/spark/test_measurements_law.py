"""Spark releases have exactly the single-machine law.

* With the same random bytes, a grouped Spark release (median, quantile, mode, count) equals
  the single-machine releases of the parts, key by key: the samplers read the same inputs.
* With tails forced open (a one-gap window), the releases still agree byte for byte and the
  tails are fetched by extra passes.
* A two-sample Kolmogorov-Smirnov test: many Spark releases (one grouped release over keys
  holding copies of one dataset) against as many single-machine releases from a pandas Series,
  with independent seeds; statistical: false-failure rate 1e-3 per attempt, 1e-6 with the
  rerun.
* The privacy maps are the single-machine maps.
"""
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.arithmetic import up
from opendp_duff.measurements import duff
from opendp_duff.samplers import check_entropy, seeded_rng_for_tests
from opendp_duff.spark import (collection, make_spark_grouped, spark_frame_domain, then_spark_clamp,
                               then_spark_count, then_spark_duff_median, then_spark_duff_mode,
                               then_spark_duff_quantile, then_spark_select_column)

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

DOM = spark_frame_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)})
SPACE = DOM, dp.symmetric_distance()
LOCAL = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
KEYS = [0, 1, 2, 3, 9]   # 9 is absent from the data


@pytest.fixture(scope="module")
def data(spark):
    rng = np.random.default_rng(11)
    parts = {0: rng.normal(size=300), 1: rng.integers(-3, 4, size=200).astype(float),
             2: np.full(50, 1.0), 3: np.array([0.5, -0.25])}
    frame = spark.createDataFrame([(float(v), k) for k, xs in parts.items() for v in xs], "x double, g long")
    parts[9] = np.array([])
    return frame, parts


def _same_bytes(frame, parts, spark_part, local, seed=5):
    with seeded_rng_for_tests(seed):
        released = make_spark_grouped(DOM, dp.symmetric_distance(), "g", KEYS, spark_part)(frame)
    with seeded_rng_for_tests(seed):
        check_entropy()   # the bytes Measurement.__call__ draws first
        expected = tuple(local._function(parts[k]) for k in KEYS)
    return released, expected


@pytest.mark.parametrize("statistic", ["median", "quantile", "mode", "count"])
def test_grouped_releases_equal_the_local_ones_byte_for_byte(data, statistic):
    frame, parts = data
    if statistic == "median":
        spark_part = (SPACE >> then_spark_select_column("x") >> then_spark_clamp((-2.0, 2.0))
                      >> then_spark_duff_median(1.0))
        local = LOCAL >> dp.t.then_clamp((-2.0, 2.0)) >> dp.m.then_duff_median(1.0)
    elif statistic == "quantile":
        spark_part = (SPACE >> then_spark_select_column("x") >> then_spark_clamp((-2.0, 2.0))
                      >> then_spark_duff_quantile(Fraction(3, 10), 0.5))
        local = LOCAL >> dp.t.then_clamp((-2.0, 2.0)) >> dp.m.then_duff_quantile(Fraction(3, 10), 0.5)
    elif statistic == "mode":
        spark_part = SPACE >> then_spark_select_column("x") >> then_spark_duff_mode([-1.0, 0.0, 1.0, 7.0], 0.5)
        local = LOCAL >> dp.m.then_duff_mode([-1.0, 0.0, 1.0, 7.0], 0.5)
    else:
        spark_part = SPACE >> then_spark_select_column("x") >> then_spark_count() >> dp.m.then_laplace(2.0)
        local = LOCAL >> dp.t.then_count() >> dp.m.then_laplace(2.0)
    released, expected = _same_bytes(frame, parts, spark_part, local)
    assert released == expected and len(released) == len(KEYS)
    for d in (0, 1, 3):
        assert spark_part.map(d) == local.map(d)


def test_tails_forced_open_still_agree(data, monkeypatch):
    frame, parts = data
    monkeypatch.setattr(duff, "_window", lambda n, scale: 1)   # one gap each side: tails carry mass
    spark_part = SPACE >> then_spark_select_column("x") >> then_spark_clamp((-2.0, 2.0)) >> then_spark_duff_median(8.0)
    local = LOCAL >> dp.t.then_clamp((-2.0, 2.0)) >> dp.m.then_duff_median(8.0)
    released, expected = _same_bytes(frame, parts, spark_part, local, seed=3)
    assert released == expected
    log = collection.last_collection()
    assert log is not None and log.tails >= 1


@rerun_once(2024)
def test_spark_and_pandas_releases_pass_a_two_sample_ks_test(spark):
    pd = pytest.importorskip("pandas")
    copies, xs = 300, np.round(np.random.default_rng(5).normal(size=25), 1)
    frame = spark.createDataFrame([(float(v), k) for k in range(copies) for v in xs], "x double, g long")
    spark_part = SPACE >> then_spark_select_column("x") >> then_spark_clamp((-3.0, 3.0)) >> then_spark_duff_median(1.0)
    spark_releases = make_spark_grouped(DOM, dp.symmetric_distance(), "g", list(range(copies)), spark_part)(frame)
    local = LOCAL >> dp.t.then_clamp((-3.0, 3.0)) >> dp.m.then_duff_median(1.0)
    series = pd.Series(xs)
    local_releases = [local(series) for _ in range(copies)]
    assert scipy.stats.ks_2samp(spark_releases, local_releases).pvalue > 1e-3


def test_grouped_map_is_the_parallel_composition_of_the_part_map():
    part = SPACE >> then_spark_select_column("x") >> then_spark_clamp((0.0, 1.0)) >> then_spark_duff_median(3.0)
    grouped = make_spark_grouped(DOM, dp.symmetric_distance(), "g", KEYS, part)
    assert grouped.map(0) == 0
    for d in (1, 2, 5):
        exact = Fraction(d) * Fraction(2 * d) / Fraction(3.0)     # k = d parts, each 2 d / scale
        assert Fraction(grouped.map(d)) >= exact
        assert grouped.map(d) == up(Fraction(d) * Fraction(part.map(d)))   # one rounding of d * map(d)
