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
* :mod:`.ranks` and :mod:`._brackets`: rank windows by exact histograms; :mod:`.sum`: exact sums
  by integer limbs; :mod:`.collection`: what reaches the driver, per release.
"""
from .collection import CollectionLog, last_collection
from .column import SparkColumn
from .engine import SparkEngine
from .parts import SparkPart
from .ranks import SparkDataChanged

__all__ = ["SparkEngine", "SparkColumn", "SparkPart", "SparkDataChanged", "CollectionLog", "last_collection"]
