"""dp.Context over a Spark DataFrame (the Spark engine; the constructors dispatch on the domain).

* With the same random bytes, each query (median, mode, mean, grouped median, grouped count,
  imputed median, smooth median, trimmed mean) releases exactly what the same query releases on
  the same data as a pandas frame: the searched scales and the samplers' inputs are the same.
* A grouped release is a Spark DataFrame with one row per public key, in order, absent keys
  included; the counter reads at most the window's width in data values per key.
* Queries that do not fit are refused before any data is read, and charge nothing.
* pyspark's notice about pandas >= 3 is not emitted by the engine's import of pyspark (with
  pandas < 3 there is no notice and that test checks only that the import happens).
"""
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.spark import collection
from opendp_duff.errors import MakeError
from opendp_duff.measurements.duff import sampler_ranks
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

KEYS = ["a", "b", "c", "zz"]          # "zz" is absent from the data
SIZES = {"a": 400, "b": 150, "c": 3, "other": 50}


@pytest.fixture(scope="module")
def frames(spark):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    rows = [(k, float(np.round(v, 2))) for k, n in SIZES.items() for v in rng.normal(10.0, 3.0, size=n)]
    return (spark.createDataFrame(rows, "g string, x double"),
            pd.DataFrame({"g": [r[0] for r in rows], "x": [r[1] for r in rows]}))


def _contexts(frames):
    unit, loss = dp.unit_of(contributions=1), dp.loss_of(epsilon=10.0)
    columns = {"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}   # declared without NaN
    return [dp.Context.compositor(data=df, privacy_unit=unit, privacy_loss=loss,
                                  domain=dp.dataframe_domain(columns, engine=engine))
            for df, engine in zip(frames, ("spark", None), strict=True)]


QUERIES = {
    "median": lambda q: q.column("x").clamp((0.0, 20.0)).median(),
    "mode": lambda q: q.column("g").mode(candidates=["a", "b", "c"]),
    "mean": lambda q: q.column("x").clamp((0.0, 20.0)).mean(),
    "grouped_median": lambda q: q.group_by("g", keys=KEYS).column("x").clamp((0.0, 20.0)).median(),
    "grouped_count": lambda q: q.group_by("g", keys=KEYS).column("x").count(),
    "grouped_mean": lambda q: q.group_by("g", keys=KEYS).column("x").clamp((0.0, 20.0)).mean(),
}


def test_spark_context_releases_equal_the_pandas_context_ones_byte_for_byte(frames):
    spark_ctx, pandas_ctx = _contexts(frames)
    assert spark_ctx.domain.engine == "spark"
    for i, (name, build) in enumerate(QUERIES.items()):
        got = []
        for ctx in (spark_ctx, pandas_ctx):
            query = build(ctx.query(epsilon=0.5))
            with seeded_rng_for_tests(100 + i):
                got.append(query.release())
        spark_release, pandas_release = got
        if name.startswith("grouped"):
            rows = spark_release.collect()
            assert spark_release.columns == list(pandas_release.columns)
            assert [r[0] for r in rows] == KEYS == list(pandas_release["g"])
            assert [r[1] for r in rows] == list(pandas_release.iloc[:, 1]), name
        else:
            assert spark_release == pandas_release, name
    assert spark_ctx.remaining == pandas_ctx.remaining


def test_grouped_release_reads_at_most_the_window_per_key(frames):
    spark_ctx, _ = _contexts(frames)
    result = QUERIES["grouped_median"](spark_ctx.query(epsilon=1.0)).release()
    log = collection.last_collection()
    assert log is not None and result.count() == len(KEYS)
    # epsilon = 1 = 2 / scale within 1e-12 relative: the window at a slightly larger scale is
    # at least as wide.  No tail is opened but with probability < 1e-12 per key (duff._window).
    assert log.tails == 0
    for i, k in enumerate(KEYS):
        ranks = sampler_ranks(SIZES.get(k, 0), Fraction(1, 2), 2.0 * (1 + 1e-9))
        assert log.per_key.get(i, 0) <= (0 if ranks is None else ranks[1] - ranks[0] + 1)
    assert log.per_key.get(0, 0) < SIZES["a"]        # the big key's window is narrower than its data


def _sized_contexts(frames, **domain_options):
    spark_df, pandas_df = frames
    n = len(pandas_df)
    unit, loss = dp.unit_of(changes=1), dp.loss_of(epsilon=10.0)     # the size is public
    columns = {"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float, **domain_options)}
    return [dp.Context.compositor(data=df, privacy_unit=unit, privacy_loss=loss,
                                  domain=dp.dataframe_domain(columns, size=n, engine=engine))
            for df, engine in ((spark_df, "spark"), (pandas_df, None))]


SIZED_QUERIES = {
    "imputed median": ({"nan": True}, lambda q: q.column("x").impute(5.0).clamp((0.0, 20.0)).median()),
    "smooth median": ({}, lambda q: q.column("x").clamp((0.0, 20.0)).smooth_median()),
    "trimmed mean": ({}, lambda q: q.column("x").clamp((0.0, 20.0)).trimmed_mean(m=20)),
    "sum": ({}, lambda q: q.column("x").clamp((0.0, 20.0)).sum()),
}


@pytest.mark.parametrize("name", sorted(SIZED_QUERIES))
def test_spark_context_imputes_and_runs_the_smooth_mechanisms_as_pandas_does(spark, frames, name):
    options, build = SIZED_QUERIES[name]
    if options.get("nan"):                      # every seventh value missing
        _, pandas_df = frames
        pandas_df = pandas_df.assign(x=[float("nan") if i % 7 == 0 else v for i, v in enumerate(pandas_df["x"])])
        frames = (spark.createDataFrame(list(pandas_df.itertuples(index=False)), "g string, x double"), pandas_df)
    got = []
    for ctx in _sized_contexts(frames, **options):
        query = build(ctx.query(epsilon=1.0))
        with seeded_rng_for_tests(7):
            got.append(query.release())
    assert got[0] == got[1]


def test_queries_that_do_not_fit_are_refused_before_reading_data(frames):
    spark_ctx, _ = _contexts(frames)
    before = spark_ctx.remaining
    with collection.release() as log:
        for build in (lambda q: q.column("x").clamp((0.0, 1.0)).smooth_median(),   # no public size
                      lambda q: q.column("x").impute(0.0),                    # x is declared without NaN
                      lambda q: q.column("x").median(),                       # no bounds
                      lambda q: q.group_by("g", keys=[1, 2]).column("x").count(),   # int keys, str column
                      lambda q: q.median(bounds=(0.0, 1.0))):               # no column
            with pytest.raises((MakeError, TypeError)):
                build(spark_ctx.query(epsilon=0.5)).release()
    assert log.actions == 0 and spark_ctx.remaining == before


def test_an_explicit_spark_domain_is_used_and_a_frame_domain_refused(frames):
    spark_df, _ = frames
    unit, loss = dp.unit_of(contributions=1), dp.loss_of(epsilon=1.0)
    domain = dp.dataframe_domain({"x": dp.atom_domain(T=float)}, engine="spark")
    assert dp.Context.compositor(data=spark_df, privacy_unit=unit, privacy_loss=loss, domain=domain).domain == domain
    with pytest.raises(TypeError):
        dp.Context.compositor(data=spark_df, privacy_unit=unit, privacy_loss=loss,
                              domain=dp.dataframe_domain({"x": dp.atom_domain(T=float)}))


def test_importing_pyspark_through_the_engine_emits_no_pandas_notice(spark, monkeypatch):
    from opendp_duff.engines.spark import _pyspark
    monkeypatch.delitem(sys.modules, "pyspark.testing.utils", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _pyspark.functions()
    assert "pyspark.testing.utils" in sys.modules
    assert not [w for w in caught if "fully support pandas" in str(w.message)]


def test_a_spark_frame_with_nan_in_a_column_declared_without_is_refused_without_quoting_it(spark):
    secret = 31415.9265358979
    df = spark.createDataFrame([(secret,), (float("nan"),)], "x double")
    unit, loss = dp.unit_of(contributions=1), dp.loss_of(epsilon=1.0)
    inferred = dp.Context.compositor(data=df, privacy_unit=unit, privacy_loss=loss).domain
    assert inferred == dp.dataframe_domain({"x": dp.atom_domain(T=float, nan=True)}, engine="spark")
    with pytest.raises(ValueError) as caught:
        dp.Context.compositor(data=df, privacy_unit=unit, privacy_loss=loss,
                              domain=dp.dataframe_domain({"x": dp.atom_domain(T=float)}, engine="spark"))
    text = " ".join([str(caught.value), repr(caught.value), *map(str, caught.value.args)])
    assert "NaN" in text and "31415" not in text
