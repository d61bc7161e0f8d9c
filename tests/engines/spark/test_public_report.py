"""What anyone can read about a Spark release, apart from the released values, is the same on
neighbouring datasets: the result frame's schema and key column, the context's budget, the
driver bound (a function of public arguments), the Python warnings and the driver's log at
ERROR, and the public names of the engine (which hold no per-release counter).  The
neighbours differ where a per-release count would show it: the added row is a new distinct
value inside one key's rank window, so the test-only log of pairs sent to the driver differs
between them (checked, so the comparison is not vacuous).  Deterministic (seeded bytes)."""
import warnings

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines import spark as spark_engine
from opendp_duff.engines.spark import collection
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

KEYS = [0, 1, 2]
BOUNDS = (0.0, 100.0)


def _rows():
    rng = np.random.default_rng(5)
    # whole numbers 0..99 with ties; key 1 never holds 50.5, the added row's value
    return [(float(v), int(k)) for v, k in zip(rng.integers(0, 100, 3000), rng.integers(0, 3, 3000), strict=True)]


def _report(spark, rows, capfd):
    """Everything public about one grouped release on ``rows``, and the test-only pair counts."""
    df = spark.createDataFrame(rows, "x double, g long")
    domain = dp.dataframe_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}, engine="spark")
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), domain=domain,
                                privacy_loss=dp.loss_of(epsilon=2.0), split_evenly_over=2)
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as caught, seeded_rng_for_tests(11):
        warnings.simplefilter("always")
        result = ctx.query().group_by("g", keys=KEYS).column("x").clamp(BOUNDS).median().release()
        keys = [row[0] for row in result.collect()]
    pairs = dict(collection.last_collection().per_key)
    log = capfd.readouterr()
    report = {"schema": result.schema.simpleString(), "keys": keys, "remaining": repr(ctx.remaining),
              "spent": repr(ctx.spent), "warnings": [str(w.message) for w in caught],
              "stdout": log.out, "stderr": log.err,
              "bound": spark_engine.driver_pairs_bound(1000, 2.0),
              "public names": sorted(spark_engine.__all__)}
    return report, pairs


def test_the_public_report_is_identical_on_neighbouring_datasets(spark, capfd):
    rows = _rows()
    neighbour = [*rows, (50.5, 1)]                     # one row added (symmetric distance 1)
    report, pairs = _report(spark, rows, capfd)
    report_n, pairs_n = _report(spark, neighbour, capfd)
    assert pairs != pairs_n                            # the private count differs: it must not show
    assert report == report_n
    assert report["keys"] == KEYS
    assert not any("collection" in n.lower() for n in report["public names"])
