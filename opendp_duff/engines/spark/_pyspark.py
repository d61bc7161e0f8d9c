"""pyspark, imported only when a Spark object is used, and the Spark types of each element type.

``import opendp_duff`` and ``import opendp_duff.engines.spark`` work without pyspark; the first
admission or statistic that needs it imports it here (install the ``spark`` extra).
"""
from __future__ import annotations

import math
import sys
import warnings
import weakref
from collections.abc import Callable, Hashable
from types import ModuleType
from typing import Any

__all__ = ["functions", "window", "types", "is_spark_frame", "spark_type_kind", "key_type", "local_frame",
           "inheritable_thread", "quoted", "sql_number", "sql_string", "parallelism",
           "session_memo"]


def _import(name: str) -> ModuleType:
    try:
        module = __import__(name, fromlist=["_"])
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the Spark engine needs pyspark: pip install 'opendp_duff[spark]' "
                          "(and a Java runtime, e.g. Debian's openjdk-17-jre-headless)") from None
    _quiet_pandas_notice()
    return module


def _quiet_pandas_notice() -> None:
    """Import ``pyspark.testing.utils`` once, without its notice that pandas >= 3 is not fully
    supported (pyspark 4 imports that module when py4j first converts a value, and the module
    emits the notice on import; this backend never converts through pandas).  Only that
    FutureWarning is filtered, only during this import."""
    if "pyspark.testing.utils" in sys.modules:
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                                category=FutureWarning)
        try:
            __import__("pyspark.testing.utils")
        except Exception:  # noqa: BLE001 - pyspark 3.x or a trimmed install: nothing to quiet
            pass


_MEMO: weakref.WeakKeyDictionary[Any, dict[Hashable, Any]] = weakref.WeakKeyDictionary()
MEMO_SIZE = 256


# [proof:session_memo]
def session_memo(session: Any, key: Hashable, build: Callable[[], Any]) -> Any:
    """``build()`` once per session and ``key``: for Spark expressions of public values only
    (a column's steps, a key column, the public keys), which a release would otherwise build
    again, each function and operator a round trip to the JVM.  A Column is an unresolved
    expression: the same one serves every DataFrame of its session.  At most MEMO_SIZE entries
    per session (then it starts afresh)."""
    made = _MEMO.setdefault(session, {})
    if key not in made:
        if len(made) >= MEMO_SIZE:
            made.clear()
        made[key] = build()
    return made[key]
# [end:session_memo]


def quoted(name: str) -> str:
    """A column name as a Spark identifier (backquoted), so dots and spaces are literal."""
    return "`" + name.replace("`", "``") + "`"


def functions() -> Any:
    """``pyspark.sql.functions``."""
    return _import("pyspark.sql.functions")


def window() -> Any:
    """``pyspark.sql.Window``."""
    return _import("pyspark.sql.window").Window


def types() -> Any:
    """``pyspark.sql.types``."""
    return _import("pyspark.sql.types")


def inheritable_thread(session: Any) -> Any:
    """``target -> thread``: a thread that runs Spark actions with the calling thread's job group,
    description and other local properties (``pyspark.InheritableThread``; a plain thread does
    not inherit them, so its jobs would escape the caller's group)."""
    inheritable = _import("pyspark").InheritableThread
    return lambda target: inheritable(target, session=session, name="opendp_duff-spark-key")


def parallelism(session: Any) -> int | None:
    """The session's default parallelism (classic Spark: the cores of its executors), or None
    where it is not known (Spark Connect has no SparkContext)."""
    try:
        return max(1, int(session.sparkContext.defaultParallelism))
    except Exception:  # noqa: BLE001 - a Connect session, or a stopped context
        return None


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


# [proof:key_type]
def key_type(T: type) -> Any:
    """The Spark type in which a column of element type T is compared with public values."""
    t = types()
    return {float: t.DoubleType(), int: t.LongType(), str: t.StringType()}[T]
# [end:key_type]


# [proof:sql_number]
def sql_number(x: int | float) -> str:
    """A Spark SQL literal of the integer or finite double ``x``, exactly: an integer's digits;
    a double's shortest repr with the suffix D, which Spark parses as Java's ``Double.parseDouble``
    does (correctly rounded), giving back x itself.  Nothing but digits, a sign, a point and an
    exponent reach the SQL text."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise TypeError("a number is required")
    if isinstance(x, int):
        return str(x)
    if not math.isfinite(x):
        raise ValueError("a finite double is required")
    text = repr(x)
    return f"({text}D)" if text.startswith("-") else f"{text}D"
# [end:sql_number]


def sql_string(x: str) -> str | None:
    """A Spark SQL expression of the string ``x``, exactly: its UTF-8 bytes as a binary literal
    (hexadecimal digits only) cast to a string, which reads the bytes as UTF-8; None for a string
    with no UTF-8 form (a lone surrogate)."""
    try:
        data = x.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return f"CAST(X'{data.hex()}' AS STRING)"


LOCAL_CELLS = 20_000   # values of a table built as a local relation; a larger one goes through an RDD


def local_frame(spark: Any, schema: Any, rows: list[tuple[Any, ...]]) -> Any:
    """A small DataFrame of ``rows`` (public values matching the StructType ``schema``) built
    on the driver as a local relation, by SQL ``VALUES``: a broadcast of it runs no Spark job,
    where ``createDataFrame`` of a list makes an RDD that a broadcast collects by a job of its
    own, one per pass.  Integers of the long range and finite doubles are written as exact
    literals (:func:`sql_number`), strings as their UTF-8 bytes in a hexadecimal binary literal
    cast to a string (:func:`sql_string`): each parameter would cost round trips to the JVM and
    its analysis.  Any other value (decimals, non-finite doubles, a string that is not valid
    Unicode) is a parameter marker.  So no text of a value enters the SQL, only digits.
    Tables above LOCAL_CELLS values (many keys) still go through ``createDataFrame``."""
    names = [f.name for f in schema.fields]
    if not rows or len(rows) * len(names) > LOCAL_CELLS:
        return spark.createDataFrame(rows, schema)
    args: dict[str, Any] = {}

    def cell(i: int, j: int, v: Any) -> str:
        if isinstance(v, int) and not isinstance(v, bool) and -2 ** 63 <= v < 2 ** 63:
            return sql_number(v)
        if isinstance(v, float) and math.isfinite(v):
            return sql_number(v)
        if isinstance(v, str) and (text := sql_string(v)) is not None:
            return text
        args[f"p{i}_{j}"] = v
        return f":p{i}_{j}"
    values = ", ".join("(" + ", ".join(cell(i, j, v) for j, v in enumerate(row)) + ")" for i, row in enumerate(rows))
    casts = ", ".join(f"CAST(c{j} AS {f.dataType.simpleString()}) AS `{f.name}`" for j, f in enumerate(schema.fields))
    columns = ", ".join(f"c{j}" for j in range(len(names)))
    return spark.sql(f"SELECT {casts} FROM VALUES {values} AS t({columns})", args=args or None)
