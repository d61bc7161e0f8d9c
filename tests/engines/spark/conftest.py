"""The Spark tests' shared fixture: one local SparkSession (two cores, four shuffle
partitions, no UI) for the whole run, stopped at the end.  The tests skip only when pyspark
or a Java runtime is missing (neither ``java`` on PATH nor ``JAVA_HOME``), and fail instead
when ``OPENDP_DUFF_REQUIRE_SPARK`` is set (not "0"), as CI sets it."""
import os
import shutil
import warnings

import pytest


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
    session = (SparkSession.builder.master("local[2]").appName("opendp_duff tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
