"""Data frames: the pandas/Polars frame domain and partitions of frames by public keys.

pandas and Polars are optional (extras ``pandas`` and ``polars``) and never imported by
``import opendp_duff``: a frame is recognised by its library, already loaded by whoever
built it.
"""
from .domain import ColumnDomains, DataFrameDomain, PartitionDomain, dataframe_domain

__all__ = ["ColumnDomains", "DataFrameDomain", "PartitionDomain", "dataframe_domain"]
