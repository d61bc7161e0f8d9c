"""pyspark, imported only when a Spark object is used, and the Spark types of each element type.

``import opendp_duff`` and ``import opendp_duff.spark`` work without pyspark; the first
constructor or admission that needs it imports it here (install the ``spark`` extra).
"""
from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

__all__ = ["functions", "window", "types", "is_spark_frame", "spark_type_kind", "key_type"]


def _import(name: str) -> ModuleType:
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("opendp_duff.spark needs pyspark: pip install 'opendp_duff[spark]' "
                          "(and a Java runtime, e.g. Debian's openjdk-17-jre-headless)") from None


def functions() -> Any:
    """``pyspark.sql.functions``."""
    return _import("pyspark.sql.functions")


def window() -> Any:
    """``pyspark.sql.Window``."""
    return _import("pyspark.sql.window").Window


def types() -> Any:
    """``pyspark.sql.types``."""
    return _import("pyspark.sql.types")


def is_spark_frame(x: object) -> bool:
    """Whether ``x`` is a pyspark DataFrame (classic or Connect), without importing pyspark:
    a program that holds one has imported it already."""
    sql = sys.modules.get("pyspark.sql")
    return sql is not None and isinstance(x, sql.DataFrame)


_FLOAT_TYPES = ("DoubleType", "FloatType")
_INT_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType")


def spark_type_kind(data_type: object) -> type | None:
    """The element type T (float, int or str) that a Spark column type holds exactly, or None.

    FloatType and DoubleType hold float64 values (a float32 widens exactly); the integer
    types hold int64 values; StringType holds str.  Decimal, boolean, dates and nested
    types have no element domain here."""
    name = type(data_type).__name__
    if name in _FLOAT_TYPES:
        return float
    if name in _INT_TYPES:
        return int
    if name == "StringType":
        return str
    return None


def key_type(T: type) -> Any:
    """The Spark type in which a column of element type T is compared with public values."""
    t = types()
    return {float: t.DoubleType(), int: t.LongType(), str: t.StringType()}[T]
