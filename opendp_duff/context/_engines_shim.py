"""TEMPORARY, to be deleted when the engine layer (``opendp_duff.engines``) lands: the part of
it the context uses, over today's modules.

``engine_for(data)`` recognises the data by its type (never its values) and returns an
:class:`Engine` with ``name``, ``schema(data)`` (the domain read from the dtypes only),
``result_frame(like, columns)`` (a grouped release as a frame of the data's library),
``check_domain(domain)`` (refuses an explicit domain of the wrong kind) and
``implementations``: the constructors Spark replaces until the public constructors dispatch on
their input domain.  pandas, Polars and pyspark are never imported here; a frame is recognised
by its library, already loaded by whoever built it.
"""
from __future__ import annotations

import decimal
import importlib
import sys
from typing import Any, Callable, Mapping, Optional

import attrs
import numpy as np

from .. import combinators as comb
from .. import measurements as meas
from .. import transformations as trans
from .._constants import INT64_MAX, INT64_MIN
from ..domains import VectorDomain, atom_domain, vector_domain
from ..errors import MakeError, MakeTypeError
from ..frames import DataFrameDomain, dataframe_domain

__all__ = ["Engine", "engine_for"]


@attrs.frozen
class Engine:
    """How the context reads one kind of data (see the module docstring)."""

    name: str
    schema: Callable[[Any], Any]
    check_domain: Callable[[Any], None]
    result_frame: Callable[[Any, dict[str, list[Any]]], Any]
    implementations: Mapping[Callable[..., Any], Callable[..., Any]] = attrs.field(factory=dict)


def _library(data: object) -> str:
    return (type(data).__module__ or "").split(".")[0]


def dtype_T(dtype: Any) -> Optional[type]:
    """float, int or str for a numpy, pandas or Polars dtype; None for any other type (booleans,
    dates...).  Only the dtype is read: object columns are taken to hold strings, as in pandas."""
    if callable(getattr(dtype, "is_float", None)) and callable(getattr(dtype, "is_integer", None)):  # Polars
        if dtype.is_float():
            return float
        if dtype.is_integer():
            return int
        return str if str(dtype).split("(")[0] in ("String", "Utf8", "Categorical", "Enum") else None
    categories = getattr(dtype, "categories", None)
    if categories is not None:                                     # a pandas categorical
        return dtype_T(categories.dtype)
    return {"f": float, "i": int, "u": int, "U": str, "O": str}.get(getattr(dtype, "kind", None) or "")


def _element(T: Optional[type]) -> Any:
    try:
        return None if T is None else atom_domain(T=T)
    except (TypeError, ValueError):
        return None


def _vector_schema(data: Any) -> Any:
    if isinstance(data, (list, tuple)):
        raise MakeTypeError("a list or tuple has no schema to read its type from: pass "
                            "domain=dp.vector_domain(dp.atom_domain(T=float)) (or T=int, T=str), "
                            "or a numpy array")
    element = _element(dtype_T(getattr(data, "dtype", None)))
    if element is None:
        raise MakeTypeError(f"the data's dtype ({getattr(data, 'dtype', None)!s}) is not supported: "
                            "float, integer or string data only")
    return vector_domain(element)


def _frame_schema(data: Any) -> Any:
    schema = data.dtypes if _library(data) == "pandas" else data.schema
    columns = {}
    for name, dtype in schema.items():
        element = _element(dtype_T(dtype)) if isinstance(name, str) else None
        if element is not None:
            columns[name] = element
    return dataframe_domain(columns)


def _check_vector(domain: Any) -> None:
    if not isinstance(domain, VectorDomain):
        raise MakeTypeError(f"domain ({domain!r}) must be a vector_domain for 1-D data")


def _check_frame(domain: Any) -> None:
    if not isinstance(domain, DataFrameDomain):
        raise MakeTypeError(f"domain ({domain!r}) must be a dp.dataframe_domain for a data frame")


def _no_frame(like: Any, columns: dict[str, list[Any]]) -> Any:
    raise MakeError(".group_by() needs a data frame")


def _local_frame(like: Any, columns: dict[str, list[Any]]) -> Any:
    return sys.modules[_library(like)].DataFrame({k: list(v) for k, v in columns.items()})


# ---- Spark --------------------------------------------------------------------------------------

def _spark_type(values: list[Any]) -> tuple[Any, list[Any]]:
    """A Spark type holding ``values`` exactly (public values of one column), and the values
    as that type wants them."""
    from pyspark.sql import types as t
    if all(isinstance(x, bool) for x in values):
        return t.BooleanType(), values
    if all(isinstance(x, int) and not isinstance(x, bool) for x in values):
        if all(INT64_MIN <= x <= INT64_MAX for x in values):
            return t.LongType(), values
        return t.DecimalType(38, 0), [decimal.Decimal(x) for x in values]
    if all(isinstance(x, float) for x in values):
        return t.DoubleType(), values
    if all(isinstance(x, str) for x in values):
        return t.StringType(), values
    return t.StringType(), [str(x) for x in values]


def _spark_frame(like: Any, columns: dict[str, list[Any]]) -> Any:
    """A small Spark DataFrame of these public columns, built on the driver."""
    from pyspark.sql import types as t
    typed = {name: _spark_type(list(values)) for name, values in columns.items()}
    schema = t.StructType([t.StructField(name, kind, False) for name, (kind, _) in typed.items()])
    rows = list(zip(*(values for _, values in typed.values()), strict=True))
    return like.sparkSession.createDataFrame(rows, schema)


def _unavailable(what: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise MakeError(f"{what} is not available on Spark data: use .median(), .quantile(), .mode(), "
                        ".count() or .sum(), or collect the column and use a pandas frame")
    return refuse


def _spark_engine() -> Engine:
    try:
        sp = importlib.import_module("opendp_duff.spark")
        grouped = importlib.import_module("opendp_duff.spark.grouped")
    except ImportError:
        raise MakeError("this build cannot read pyspark data (opendp_duff.spark is missing)") from None

    def check(domain: Any) -> None:
        if not isinstance(domain, sp.SparkFrameDomain):
            raise MakeTypeError(f"domain ({domain!r}) must be a spark_frame_domain for a Spark DataFrame")

    implementations: dict[Callable[..., Any], Callable[..., Any]] = {
        trans.make_select_column: sp.make_spark_select_column, trans.make_clamp: sp.make_spark_clamp,
        trans.make_count: sp.make_spark_count, trans.make_sum: sp.make_spark_sum,
        trans.make_partition_by: grouped.spark_partition, comb.make_parallel_composition: grouped.spark_parallel,
        meas.make_duff_median: sp.make_spark_duff_median, meas.make_duff_quantile: sp.make_spark_duff_quantile,
        meas.make_duff_mode: sp.make_spark_duff_mode,
        trans.make_sort: _unavailable("sorting (.smooth_median(), .trimmed_mean(), .sort())"),
        trans.make_impute_constant: _unavailable(".impute() (Spark frames are admitted without NaN)"),
        trans.make_int_to_float: _unavailable("a float statistic of an integer column"),
        meas.make_duff_mean: _unavailable(".mean()"),
        meas.make_smooth_median: _unavailable(".smooth_median()"),
        meas.make_smooth_trimmed_mean: _unavailable(".trimmed_mean()"),
    }
    return Engine("spark", sp.spark_frame_domain_of, check, _spark_frame, implementations)


# ---- recognition --------------------------------------------------------------------------------

def engine_for(data: object) -> Engine:
    """The engine that reads ``data``; MakeTypeError for data of no supported kind."""
    library = _library(data)
    if library == "pyspark":
        return _spark_engine()
    kind = type(data).__name__
    if library in ("pandas", "polars") and kind == "DataFrame":
        return Engine(library, _frame_schema, _check_frame, _local_frame)
    if (library in ("pandas", "polars") and kind == "Series") or isinstance(data, (list, tuple)) or (
            isinstance(data, np.ndarray) and data.ndim == 1):
        return Engine("numpy" if library not in ("pandas", "polars") else library, _vector_schema,
                      _check_vector, _no_frame)
    raise MakeTypeError(f"data of type {type(data).__name__} is not supported: a pandas or Polars DataFrame, "
                        "a 1-D numpy array, a pandas or Polars Series, a list with domain=, or a Spark DataFrame")
