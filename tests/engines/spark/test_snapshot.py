"""The context reads one verified snapshot of a Spark frame.

* Creating a context persists the declared columns, checks membership, counts and fingerprints
  them in ONE Spark job; the snapshot is unpersisted when the context is garbage-collected.
* A grouped release on a context runs no admission pass of its own: its first aggregation
  carries the snapshot's check in the same job.  On a column of few distinct values (by the
  snapshot's estimate) a grouped median runs 1 job: sizes and windows with the check; on a
  column of many values whose keys need no bracket, 2 jobs: sizes with the check, then windows.
* That check is folded into the one-pass median's own scan (one job of two stages: the scan and
  the windows), whether the key is looked up in a literal map (integers), joined (doubles) or of
  two columns, and counts the rows of no public key too.
* A non-deterministic source (a column of fresh random bytes per evaluation) gives every pass
  the same rows once snapshotted; when its cache is lost and Spark recomputes other rows, the
  next release raises SparkDataChanged, and stays charged (the compositor never refunds).
* A measurement called directly on a frame snapshots it for the call and frees it after.
Deterministic: the data is hashed from row ids, the random source's two evaluations differ
except with probability below 2^-1000 (2,000 random rows)."""
import gc
import os

import pytest

import opendp_duff as dp
from opendp_duff.engines.spark import SparkDataChanged, collection

pytestmark = [pytest.mark.spark, pytest.mark.slow,   # a local SparkSession: not in the quick loop
              pytest.mark.filterwarnings("ignore:Arrow optimization failed:RuntimeWarning")]

KEYS = list(range(8))
DOM = dp.dataframe_domain({"x": dp.atom_domain(T=float, bounds=(0.0, 100.0)), "g": dp.atom_domain(T=int)},
                          engine="spark")


def _cache_is_empty(spark):
    return spark._jsparkSession.sharedState().cacheManager().isEmpty()


def _jobs(spark, group, run):
    sc = spark.sparkContext
    sc.setJobGroup(group, "counted")
    try:
        out = run()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return out, len(sc.statusTracker().getJobIdsForGroup(group))


@pytest.fixture
def tied(spark):
    from pyspark.sql import functions as F
    return spark.range(40_000, numPartitions=4).select(
        F.pmod(F.xxhash64("id"), F.lit(97)).cast("double").alias("x"),
        F.pmod(F.xxhash64(F.col("id") + 3), F.lit(8)).alias("g"))


def _context(data, n_queries, domain=DOM):
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=1), domain=domain,
                                 privacy_loss=dp.loss_of(epsilon=float(n_queries)), split_evenly_over=n_queries)


def _grouped_median(ctx):
    return ctx.query().group_by("g", keys=KEYS).column("x").clamp((0.0, 100.0)).median().release()


def test_creation_snapshots_in_one_job_and_garbage_collection_frees_it(spark, tied):
    gc.collect()
    assert _cache_is_empty(spark)
    ctx, jobs = _jobs(spark, "snapshot-creation", lambda: _context(tied, 2))
    assert jobs == 1
    assert not _cache_is_empty(spark)
    assert "n=" not in repr(collection.last_collection())   # the count and fingerprint are never shown
    del ctx
    gc.collect()
    assert _cache_is_empty(spark)


@pytest.fixture
def spread(spark):
    from pyspark.sql import functions as F
    return spark.range(40_000, numPartitions=4).select(
        (F.pmod(F.xxhash64("id"), F.lit(1_500)) / 15.0).alias("x"),
        F.pmod(F.xxhash64(F.col("id") + 3), F.lit(8)).alias("g"))


@pytest.mark.parametrize("data, expected", [("tied", 1), ("spread", 2)])
def test_a_grouped_release_carries_the_check_in_its_first_job(spark, data, expected, request):
    """97 distinct values (few: sizes and windows in one job) or 1,500 (sizes, then windows; each key's
    1,500 values need no bracket)."""
    ctx = _context(request.getfixturevalue(data), 2)
    for i in range(2):
        released, jobs = _jobs(spark, f"snapshot-release-{data}-{i}", lambda: _grouped_median(ctx).collect())
        log = collection.last_collection()
        assert len(released) == len(KEYS) and all(0.0 <= row[1] <= 100.0 for row in released)
        assert jobs == expected and log.actions == expected and log.verified and log.tails == 0


KEYED = dp.dataframe_domain({"x": dp.atom_domain(T=float, bounds=(0.0, 100.0)), "g": dp.atom_domain(T=int),
                              "gf": dp.atom_domain(T=float), "h": dp.atom_domain(T=int)}, engine="spark")


@pytest.mark.parametrize("by, keys", [("g", KEYS[:5]), ("gf", [float(k) for k in KEYS[:5]]),
                                      (("g", "h"), [(k, k % 3) for k in KEYS[:5]])],
                         ids=["literal-map", "join", "two-columns"])
def test_the_check_is_folded_into_the_one_pass_scan(spark, tied, by, keys):
    """Keys 0..4 of 0..7: the rows of keys 5..7 belong to no part, and the folded check counts them
    (a check that missed them would see fewer rows than admitted and raise)."""
    from pyspark.sql import functions as F
    data = tied.select("x", "g", F.col("g").cast("double").alias("gf"), (F.col("g") % 3).alias("h"))
    ctx = _context(data, 1, KEYED)
    released, jobs = _jobs(spark, f"snapshot-fold-{by}", lambda: ctx.query().group_by(by, keys=keys).column("x")
                           .clamp((0.0, 100.0)).median().release().collect())
    log = collection.last_collection()
    assert len(released) == len(keys) and all(0.0 <= row[-1] <= 100.0 for row in released)
    assert log.actions == 1 and log.verified
    tracker = spark.sparkContext.statusTracker()
    stages = sorted(len(tracker.getJobInfo(job).stageIds) for job in tracker.getJobIdsForGroup(f"snapshot-fold-{by}"))
    # one job of one scan of the snapshot and one reduce (no second scan for the check); a joined
    # key table is broadcast by a one-stage job of its own (Spark collects a local table to broadcast it)
    assert stages == ([2] if by == "g" else [1, 2])


def test_a_refused_frame_leaves_no_cache(spark):
    gc.collect()
    frame = spark.createDataFrame([(1.0, 0), (float("nan"), 1)], "x double, g long")
    with pytest.raises(dp.NotAMemberValueError):
        _context(frame, 1)
    gc.collect()
    assert _cache_is_empty(spark)


@pytest.fixture
def changing(spark):
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType
    draw = F.udf(lambda: os.urandom(1)[0] / 256.0, DoubleType()).asNondeterministic()
    return spark.range(2000, numPartitions=2).select((draw() * 10.0).alias("x"))


# pyspark checks the pandas version for any Python UDF and warns about pandas 3 (not ours to fix)
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_a_non_deterministic_source_is_fixed_by_the_snapshot_and_caught_when_recomputed(changing):
    ctx = dp.Context.compositor(data=changing, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=4)
    query = lambda: ctx.query().column("x").impute(0.0).clamp((0.0, 10.0)).median().release()  # noqa: E731
    for spent in (0.25, 0.5):   # every pass of every release reads the same cached rows
        assert 0.0 <= query() <= 10.0
        assert ctx.spent == spent
    ctx._queryable._data.unpersist(blocking=True)   # the cache is lost: Spark recomputes other rows
    for spent in (0.75, 1.0):
        with pytest.raises(SparkDataChanged):
            query()
        assert ctx.spent == spent                   # charged: the function had started
    with pytest.raises(dp.BudgetExceeded):
        ctx.query()


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_a_folded_check_catches_a_recomputed_grouped_source(spark, changing):
    """Keys 0..2 of 0..3, so the check's fold also counts rows of no public key."""
    from pyspark.sql import functions as F
    data = changing.withColumn("g", F.monotonically_increasing_id() % 4)
    ctx = _context(data, 2)
    query = lambda: ctx.query().group_by("g", keys=[0, 1, 2]).column("x").clamp((0.0, 100.0)).median().release()  # noqa: E731
    assert len(query().collect()) == 3
    assert collection.last_collection().actions == 1
    ctx._queryable._data.unpersist(blocking=True)
    with pytest.raises(SparkDataChanged):
        query()
    assert ctx.spent == 2.0


def test_a_direct_measurement_call_snapshots_for_the_call_only(spark, tied):
    gc.collect()
    median = ((DOM, dp.symmetric_distance()) >> dp.t.then_select_column("x")
              >> dp.t.then_clamp((0.0, 100.0)) >> dp.m.then_duff_median(1.0))
    assert 0.0 <= median(tied) <= 100.0
    assert collection.last_collection().verified
    gc.collect()
    assert _cache_is_empty(spark)
