"""The Spark tests' shared fixture: one local SparkSession (two cores, four shuffle
partitions, no UI) for the whole run, stopped at the end.  The tests skip only when pyspark
or a Java runtime is missing (neither ``java`` on PATH nor ``JAVA_HOME``)."""
import os
import shutil
import warnings

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: Spark needs one (e.g. Debian's openjdk-17-jre-headless)")
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
