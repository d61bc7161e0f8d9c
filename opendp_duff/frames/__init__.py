"""Data frames: the frame domain and partitions of frames by public keys (engine-neutral).

pandas, Polars and pyspark are optional (extras ``pandas``, ``polars``, ``spark``) and never
imported by ``import opendp_duff``: a frame is recognised by its engine
(:mod:`opendp_duff.engines`) through its library, already loaded by whoever built it.
"""
from .domain import ColumnDomains, DataFrameDomain, PartitionDomain, dataframe_domain

__all__ = ["ColumnDomains", "DataFrameDomain", "PartitionDomain", "dataframe_domain"]
