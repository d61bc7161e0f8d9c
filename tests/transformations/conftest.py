"""The transformation tests that run on Spark use the Spark tests' session fixture (one local
SparkSession for the whole run), imported here rather than defined twice."""
from engines.spark.conftest import spark  # noqa: F401
