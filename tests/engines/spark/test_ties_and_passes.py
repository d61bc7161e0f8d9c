"""Tie-heavy data on Spark: what reaches the driver, how many Spark jobs a grouped release runs,
and the windows against the single-machine ones.

* 10^6 rows of integers 0..99 in 10 groups (every window lies inside a block of equal values):
  a grouped median runs at most 6 Spark jobs (counted by the status tracker under a job group),
  opens no tail, and sends per key at most ``driver_pairs_bound(n, scale)`` (value, count)
  pairs; the windows and the tails' pairs that feed the sampler equal those of the
  single-machine source on the same records, exactly.
* The bound on the pairs per key holds at epsilon = 1, 0.01 and 0.001 on distinct values (where
  it binds) and on tied ones.
Deterministic (the tail-free assertion fails only if a tail block is opened: its bound is
below e^-400 of the mass at the tie blocks' edges here).
"""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.selection import SelectedRecords
from opendp_duff.engines.spark import SparkColumn, collection, driver_pairs_bound, ranks
from opendp_duff.engines.spark.parts import keyed_rows, split_by_keys
from opendp_duff.measurements.duff import sampler_ranks

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

HALF = Fraction(1, 2)
KEYS = list(range(10))
DOM = dp.dataframe_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}, engine="spark")
SYM = dp.symmetric_distance()


@pytest.fixture(scope="module")
def tied(spark):
    """10^6 rows: x an integer 0..99 and g a key 0..9, both hashed from the row id (no
    randomness), cached; and the same records on the driver, per key."""
    from pyspark.sql import functions as F
    frame = spark.range(1_000_000).select(
        F.pmod(F.xxhash64("id"), F.lit(100)).cast("double").alias("x"),
        F.pmod(F.xxhash64(F.col("id") + 7), F.lit(10)).alias("g")).cache()
    # every record reaches the driver, as one list of values per key: ten rows to unpickle rather
    # than 10^6 (no pandas conversion either: pyspark warns about pandas 3)
    lists = {row.g: row.xs for row in frame.groupBy("g").agg(F.collect_list("x").alias("xs")).collect()}
    per_key = {k: np.array(lists.get(k, []), dtype=np.float64) for k in KEYS}
    yield frame, per_key
    frame.unpersist()


def _jobs(spark, run):
    """``run()`` under a job group of its own; the number of Spark jobs it started."""
    sc = spark.sparkContext
    group = f"opendp-duff-test-{id(run)}"
    sc.setJobGroup(group, "a release")
    try:
        out = run()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return out, len(sc.statusTracker().getJobIdsForGroup(group))


def _median(scale):
    parts = (DOM, SYM) >> dp.t.then_partition_by("g", keys=KEYS)
    inner = ((parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
             >> dp.t.then_clamp((0.0, 100.0)) >> dp.m.then_duff_median(scale))
    return parts >> dp.c.then_parallel_composition(inner)


def test_grouped_median_on_tied_integers_runs_few_jobs_and_sends_few_pairs(spark, tied):
    frame, per_key = tied
    scale = 2.0
    m = _median(scale)
    released, jobs = _jobs(spark, lambda: m(frame))
    log = collection.last_collection()
    assert len(released) == 10 and all(0.0 <= r <= 100.0 for r in released)
    assert jobs <= 6, jobs
    assert log.tails == 0
    for i, k in enumerate(KEYS):
        n = per_key[k].size
        assert 0 < log.per_key[i] <= min(driver_pairs_bound(n, scale), 100)


def test_tied_windows_and_tail_pairs_equal_the_single_machine_ones(spark, tied):
    frame, per_key = tied
    parts = split_by_keys(frame, "g", int, tuple(KEYS))
    rows, n_keys = keyed_rows(SparkColumn(parts[0], float, (("column", "x", float),)))
    for scale in (2.0, 200.0):
        with collection.release():
            predict = (lambda s: lambda n: sampler_ranks(n, HALF, s))(scale)
            sources = ranks.spark_rank_sources(rows, n_keys, predict, 0.0, 100.0)
        for k in KEYS:
            first, last = sampler_ranks(per_key[k].size, HALF, scale)
            w, want = sources[k].window(first, last), SelectedRecords(per_key[k]).window(first, last)
            assert (w.n, w.first) == (want.n, want.first) and np.array_equal(w.values, want.values)
            for a, b in ((w.left, want.left), (w.right, want.right)):
                assert (a.count, a.ties) == (b.count, b.ties)
                assert a.near[0].size >= 1      # the block beyond the window's ties is handed out
                (av, ac), (bv, bc) = a.pairs(), b.pairs()
                assert np.array_equal(av, bv) and np.array_equal(ac, bc)


@pytest.mark.parametrize("epsilon", [1.0, 0.01, 0.001])
def test_pairs_per_key_stay_within_the_stated_bound(spark, epsilon):
    from pyspark.sql import functions as F
    n = 300_000
    frame = spark.range(n).select(                        # distinct values: the bound binds
        (F.pmod(F.xxhash64("id"), F.lit(10**9)) / 1e7).alias("x"), (F.col("id") % 2).alias("g")).cache()
    try:
        scale = 2.0 / epsilon
        released = _median_of(frame, scale)
        log = collection.last_collection()
        assert len(released) == 2
        for i in range(2):
            assert 0 < log.per_key[i] <= driver_pairs_bound(n // 2, scale)
    finally:
        frame.unpersist()


def _median_of(frame, scale):
    parts = (DOM, SYM) >> dp.t.then_partition_by("g", keys=[0, 1])
    inner = ((parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
             >> dp.t.then_clamp((0.0, 100.0)) >> dp.m.then_duff_median(scale))
    return (parts >> dp.c.then_parallel_composition(inner))(frame)


def test_the_bound_is_a_function_of_scale_and_n():
    assert driver_pairs_bound(0, 2.0) == 0
    assert driver_pairs_bound(10, 2.0) == 10                     # never more than the records
    for n, scale in ((10**5, 2.0), (10**7, 200.0), (10**8, 2000.0)):
        first, last = sampler_ranks(n, HALF, scale)
        w = last - first + 1
        assert driver_pairs_bound(n, scale) >= w + 2 * ((w + 1) // 2)
