"""Spark releases are quiet and total: no JVM warning of the engine's plans (the driver's log at
WARN, read from the process's stderr, which the JVM shares), and an empty frame releases as
pandas does (every key absent; with the same random bytes, the same releases).  Deterministic."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

COLUMNS = {"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}
SYM = dp.symmetric_distance()


def _queries(engine=None):
    dom = dp.dataframe_domain(COLUMNS, engine=engine) if engine else dp.dataframe_domain(COLUMNS)
    column = (dom, SYM) >> dp.t.then_select_column("x") >> dp.t.then_clamp((0.0, 10.0))
    parts = (dom, SYM) >> dp.t.then_partition_by("g", keys=[0, 1, 2])
    inner = ((parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
             >> dp.t.then_clamp((0.0, 10.0)) >> dp.m.then_duff_median(2.0))
    return {"median": column >> dp.m.then_duff_median(2.0),
            "quantile": column >> dp.m.then_duff_quantile(0.9, 1.0),
            "grouped median": parts >> dp.c.then_parallel_composition(inner)}


def test_no_engine_warning_in_the_driver_log(spark, capfd):
    rng = np.random.default_rng(8)
    frame = spark.createDataFrame([(float(v), int(k)) for v, k in zip(np.round(rng.uniform(0, 10, 3000)),
                                                                       rng.integers(0, 3, 3000), strict=True)],
                                  "x double, g long")
    capfd.readouterr()
    spark.sparkContext.setLogLevel("WARN")
    try:
        released = {name: m(frame) for name, m in _queries("spark").items()}
    finally:
        spark.sparkContext.setLogLevel("ERROR")
    err = capfd.readouterr().err
    assert all(0.0 <= r <= 10.0 for r in (released["median"], released["quantile"], *released["grouped median"]))
    assert "WindowExec" not in err and "WARN" not in err, err[-2000:]


def test_an_empty_frame_releases_as_pandas_does(spark):
    pd = pytest.importorskip("pandas")
    empty = spark.createDataFrame([], "x double, g long")
    local = pd.DataFrame({"x": pd.Series([], dtype="float64"), "g": pd.Series([], dtype="int64")})
    for name, m in _queries("spark").items():
        with seeded_rng_for_tests(3):
            got = m(empty)
        with seeded_rng_for_tests(3):
            want = _queries()[name](local)
        assert got == want, name                 # the same bytes give the same release
