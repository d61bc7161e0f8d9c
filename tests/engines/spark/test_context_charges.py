"""A Spark release that fails after reading data stays charged.

A DataFrame whose rows change between passes (a non-deterministic column) makes the Spark
median raise ``SparkDataChanged`` after its first passes have read the data.  The query was
charged when its function started, so the exception neither refunds the budget nor frees the
share: each attempt costs what a release costs."""
import os

import pytest

import opendp_duff as dp
from opendp_duff.engines.spark import SparkDataChanged

pytestmark = [pytest.mark.spark, pytest.mark.slow,   # a local SparkSession: not in the quick loop
              pytest.mark.filterwarnings("ignore:Arrow optimization failed:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")]


@pytest.fixture(scope="module")
def changing(spark):
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType
    # the data's own randomness, fresh in every Python worker and every pass (the workers are
    # forked, so a seeded module-level generator could repeat itself)
    draw = F.udf(lambda: os.urandom(1)[0] / 256.0, DoubleType()).asNondeterministic()
    # each pass keeps another random half of the rows, with other values
    return spark.range(4000).where(draw() < 0.5).select((draw() * 10.0).alias("x"))


def test_a_frame_that_changes_between_passes_is_charged_each_time(changing):
    ctx = dp.Context.compositor(data=changing, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=2)
    for spent in (0.5, 1.0):
        with pytest.raises(SparkDataChanged):
            ctx.query().column("x").impute(0.0).clamp((0.0, 10.0)).median().release()
        assert ctx.spent == spent
    with pytest.raises(dp.BudgetExceeded):
        ctx.query()


def test_creating_a_context_on_a_spark_frame_runs_one_job(spark):
    """Admission at creation is one Spark job (the status tracker's count for a job group)."""
    df = spark.range(20_000, numPartitions=4).selectExpr("CAST(id % 97 AS DOUBLE) AS x", "id % 5 AS g")
    domain = dp.dataframe_domain({"x": dp.atom_domain(T=float, bounds=(0.0, 100.0)), "g": dp.atom_domain(T=int)},
                                 engine="spark")
    sc = spark.sparkContext
    sc.setJobGroup("context-creation", "creating a context", interruptOnCancel=False)
    try:
        ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), domain=domain,
                                    privacy_loss=dp.loss_of(epsilon=1.0))
    finally:
        sc.setJobGroup("idle", "after", interruptOnCancel=False)
    assert len(sc.statusTracker().getJobIdsForGroup("context-creation")) == 1
    assert ctx.spent == 0
