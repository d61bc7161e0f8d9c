"""Several statistics in one query on a Spark DataFrame: with the same random bytes, a grouped
and an ungrouped ``agg`` release exactly what the same query releases on a pandas frame (the
shares, the searched scales and the samplers' inputs are the same), as one Spark DataFrame with
a column per statistic and one row per public key."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

KEYS = ["a", "b", "zz"]
BOUNDS = (0.0, 20.0)


@pytest.fixture(scope="module")
def frames(spark):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    rows = [(k, float(np.round(v, 2))) for k, n in {"a": 300, "b": 120, "c": 20}.items()
            for v in rng.normal(10.0, 3.0, size=n)]
    return (spark.createDataFrame(rows, "g string, x double"),
            pd.DataFrame({"g": [r[0] for r in rows], "x": [r[1] for r in rows]}))


def test_agg_on_spark_equals_agg_on_pandas(frames, no_reach):
    # no_reach: no (value, count) pairs beyond the window, as the local sources: the same bytes give
    # the same release (with them the law is the same; test_ranks_windows compares the pairs)
    columns = {"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}
    contexts = [dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                      privacy_loss=dp.loss_of(epsilon=10.0),
                                      domain=dp.dataframe_domain(columns, engine=engine))
                for df, engine in zip(frames, ("spark", None), strict=True)]
    stats = dict(n=dp.count(), median=dp.median("x", bounds=BOUNDS), p90=dp.quantile("x", 0.9, bounds=BOUNDS))
    for i, build in enumerate((lambda q: q.group_by("g", keys=KEYS).agg(**stats), lambda q: q.agg(**stats))):
        got = []
        for ctx in contexts:
            with seeded_rng_for_tests(300 + i):
                got.append(build(ctx.query(epsilon=1.0)).release())
        spark_release, pandas_release = got
        assert spark_release.columns == list(pandas_release.columns)
        rows = [tuple(r) for r in spark_release.collect()]
        assert rows == [tuple(r) for r in pandas_release.itertuples(index=False)]
    assert contexts[0].spent == contexts[1].spent == 2.0


def test_keys_discovered_on_spark_equal_those_on_pandas(frames):
    columns = {"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}
    contexts = [dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                      privacy_loss=dp.loss_of(epsilon=10.0, delta=1e-6),
                                      domain=dp.dataframe_domain(columns, engine=engine))
                for df, engine in zip(frames, ("spark", None), strict=True)]
    got = []
    for ctx in contexts:
        with seeded_rng_for_tests(400):
            got.append(ctx.query(epsilon=1.0, delta=1e-7).group_by("g").agg(n=dp.count()).release())
    spark_release, pandas_release = got
    assert [tuple(r) for r in spark_release.collect()] == [tuple(r) for r in pandas_release.itertuples(index=False)]
    assert set(pandas_release["g"]) <= {"a", "b", "c"} and {"a", "b"} <= set(pandas_release["g"])
