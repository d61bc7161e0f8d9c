"""The Spark backend: pyspark DataFrames as data, statistics computed by Spark, releases
sampled on the driver by the single-machine samplers (so each has the single-machine law).

pyspark is imported only when a Spark object is used (install the ``spark`` extra).

* :mod:`.domain`: :func:`spark_frame_domain` (membership: the schema's types, then one
  distributed pass refusing null, NaN and out-of-bounds elements without quoting them) and
  the lazy :class:`SparkColumn` that the constructors pass on.
* :mod:`.transformations`: select a column, clamp it, count rows, count candidates;
  :mod:`.sum`: the exact sum of a bounded column (rounded once, as ``math.fsum``).
* :mod:`.measurements`: the Duff quantile and median (a rank window computed by Spark), the
  Duff mode (candidate counts by Spark, the exact race on the driver).
* :mod:`.grouped`: :func:`make_spark_grouped`, one release per public key in shared passes.
* :mod:`.ranks`: the rank windows; :mod:`.collection`: what reaches the driver, per release.

``dp.Context.compositor(data=spark_df, ...)`` runs its query plans with these constructors.
"""
from .collection import CollectionLog, last_collection
from .domain import (SparkColumn, SparkColumnDomain, SparkFrameDomain, spark_frame_domain,
                     spark_frame_domain_of)
from .grouped import make_spark_grouped
from .measurements import (make_spark_duff_median, make_spark_duff_mode, make_spark_duff_quantile,
                           then_spark_duff_median, then_spark_duff_mode, then_spark_duff_quantile)
from .ranks import SparkDataChanged
from .sum import make_spark_sum, then_spark_sum
from .transformations import (make_spark_clamp, make_spark_count, make_spark_count_by_candidates,
                              make_spark_select_column, then_spark_clamp, then_spark_count,
                              then_spark_count_by_candidates, then_spark_select_column)

__all__ = [
    "CollectionLog", "last_collection", "SparkColumn", "SparkColumnDomain", "SparkFrameDomain",
    "spark_frame_domain", "spark_frame_domain_of", "make_spark_grouped", "SparkDataChanged",
    "make_spark_duff_median", "make_spark_duff_mode", "make_spark_duff_quantile",
    "then_spark_duff_median", "then_spark_duff_mode", "then_spark_duff_quantile",
    "make_spark_clamp", "make_spark_count", "make_spark_count_by_candidates", "make_spark_select_column",
    "then_spark_clamp", "then_spark_count", "then_spark_count_by_candidates", "then_spark_select_column",
    "make_spark_sum", "then_spark_sum",
]
