"""The Spark tests' shared fixture: one local SparkSession (two cores, four shuffle
partitions, no UI) for the whole run, stopped at the end."""
import warnings

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
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
