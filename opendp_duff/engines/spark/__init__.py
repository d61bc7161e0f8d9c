"""The Spark engine: pyspark DataFrames as data, statistics computed by Spark, releases sampled
on the driver by the single-machine samplers, so each has the single-machine law.

pyspark is imported only when a Spark object is used (install the ``spark`` extra); this package
is imported by the engine registry without it.  Spark data is described by the ordinary domains
with ``engine="spark"`` (``dp.dataframe_domain(columns, size, engine="spark")``; its columns are
``vector_domain(..., engine="spark")``), and the ordinary constructors run on it.

* :mod:`.engine`: :class:`SparkEngine`, what the constructors call.
* :mod:`.column`: admission (the schema's types, then one distributed pass refusing null, NaN
  and out-of-bounds elements without quoting them) and the lazy :class:`SparkColumn`.
* :mod:`.parts`: the lazy parts of a frame split by public keys, whose statistics are computed
  for every key in shared passes.
* :mod:`.ranks` and :mod:`._brackets`: rank windows by exact histograms, or, for a column of few
  values, with the sampler's window predicted by Spark itself (:mod:`.predicted`) in the pass
  that counts the records; :mod:`.sum`: exact sums
  by integer limbs; :mod:`.collection`: a test-only count of what reaches the driver
  (private: it differs between neighbouring datasets, so it is no public report).
"""
from .column import SparkColumn
from .engine import SparkEngine
from .parts import SparkPart
from .ranks import SparkDataChanged, driver_pairs_bound

__all__ = ["SparkEngine", "SparkColumn", "SparkPart", "SparkDataChanged", "driver_pairs_bound"]
