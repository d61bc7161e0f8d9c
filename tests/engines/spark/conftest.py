"""The Spark tests' shared fixture: one SparkSession (four shuffle partitions, no UI) for the
whole run, stopped at the end: ``local[2]``, or the master ``OPENDP_DUFF_SPARK_MASTER`` names
(``.ci/run`` starts a standalone cluster and sets it to ``spark://127.0.0.1:7077``; the engine
runs no Python on the executors, so they need no copy of the package).  Its JVMs compile with the
quick JIT tier only (``JIT``).  Under pytest-xdist on such a cluster each worker is a Spark
application with one core, so that two run side by side.  The tests skip only when pyspark
or a Java runtime is missing (neither ``java`` on PATH nor ``JAVA_HOME``), and fail instead
when ``OPENDP_DUFF_REQUIRE_SPARK`` is set (not "0"), as CI sets it."""
import os
import shutil
import warnings

import pytest

JIT = "-XX:TieredStopAtLevel=1"


def _missing(reason):
    if os.environ.get("OPENDP_DUFF_REQUIRE_SPARK", "0") != "0":
        pytest.fail(f"{reason}, and OPENDP_DUFF_REQUIRE_SPARK is set")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def spark():
    try:
        import pyspark  # noqa: F401
    except ImportError:
        _missing("pyspark is not installed (the spark extra)")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _missing("no Java runtime: Spark needs one (e.g. Debian's openjdk-17-jre-headless)")
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    from pyspark.sql import SparkSession
    master = os.environ.get("OPENDP_DUFF_SPARK_MASTER", "local[2]")   # e.g. spark://127.0.0.1:7077
    builder = (SparkSession.builder.master(master).appName("opendp_duff tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               # the tests run many small, different queries: the JVMs' warm-up, not their peak
               # speed, is what they pay for, and C2's optimising compiles cost more CPU than
               # they save (the quick JIT tier only; driver and cluster executors alike)
               .config("spark.driver.extraJavaOptions", JIT)
               .config("spark.executor.extraJavaOptions", JIT))
    if master.startswith("spark://") and os.environ.get("PYTEST_XDIST_WORKER"):
        # Each pytest-xdist worker is a Spark application of its own.  On a standalone cluster an
        # application takes every free core by default, so the second would wait for the first to
        # end: one core and a small executor each let the applications run side by side.
        builder = builder.config("spark.cores.max", "1").config("spark.executor.memory", "512m")
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def no_reach(monkeypatch):
    """The Spark passes keep only the groups meeting the window: the Spark rank source then
    hands out no near pairs beyond the window, as the local sources, so the Duff sampler races
    the same items and blocks and the same random bytes give the same release (with the reach
    the law is the same, and the pairs are compared exactly in test_ranks_windows)."""
    from opendp_duff.engines.spark import _brackets
    monkeypatch.setattr(_brackets, "near_values", lambda first, last: 0)
    monkeypatch.setattr(_brackets, "near_values_sql", lambda: "0")
