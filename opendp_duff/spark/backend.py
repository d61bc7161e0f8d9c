"""The Spark backend of the context: ``dp.Context.compositor(data=spark_df, ...)``.

Importing :mod:`opendp_duff.spark` registers :class:`SparkBackend` with the context (the
context imports the module the first time it sees a pyspark DataFrame).  A query on Spark
data is built from the constructors of :mod:`opendp_duff.spark`: ``.column`` selects lazily,
``.clamp`` clamps lazily, ``.median()`` / ``.quantile(alpha)`` are the Duff quantile on a rank
window computed by Spark, ``.mode(candidates)`` the Duff mode on candidate counts computed by
Spark, ``.count()`` and ``.sum()`` a Spark aggregation plus Laplace noise drawn on the driver.
``.group_by(by, keys)`` runs the per-key query for every public key in shared passes.

A grouped release is a small **Spark** DataFrame (the data's library, as for pandas and
Polars), built on the driver from public values only: the ``by`` column (the keys, in order)
and the statistic, one row per key, keys absent from the data included.  ``.toPandas()`` or
``.collect()`` reads it.

Not available on Spark data (refused when the query is built, before any data is read):
``.mean()``, ``.smooth_median()``, ``.trimmed_mean()``, ``.impute()`` (Spark frames are
admitted without NaN) and steps that sort.
"""
from __future__ import annotations

import decimal
from collections.abc import Mapping, Sequence
from typing import Any, Callable

from .. import measurements as meas
from .._constants import INT64_MAX, INT64_MIN
from ..context._backends import Backend
from ..context._mechanisms import BUILDERS, Built, Info, Space, _scaled, output_space, then
from ..core import Measurement, PartialConstructor
from ..core import then as partial_of
from ..errors import MakeError, MakeTypeError
from . import _pyspark as ps
from .domain import SparkColumnDomain, SparkFrameDomain, spark_frame_domain_of
from .grouped import spark_parallel, spark_partition
from .measurements import make_spark_duff_median, make_spark_duff_mode, make_spark_duff_quantile
from .sum import then_spark_sum
from .transformations import then_spark_clamp, then_spark_count, then_spark_select_column

__all__ = ["SparkBackend"]


def _column(space: Space, what: str) -> SparkColumnDomain:
    domain, _ = output_space(space)
    if not isinstance(domain, SparkColumnDomain):
        raise MakeError(f"{what} needs a column: call .column(name) first")
    return domain


def _bounded(space: Space, bounds: Any, what: str) -> Space:
    domain = _column(space, what)
    if bounds is not None:
        return then(space, then_spark_clamp(bounds))
    if domain.element_domain.bounds is None:
        raise MakeError(f"{what} needs public bounds: call .clamp((lo, hi)) first, or pass bounds=(lo, hi)")
    return space


def median(space: Space, info: Info, bounds: Any = None) -> Built:
    return _scaled(_bounded(space, bounds, ".median()"), "median", make_spark_duff_median)


def quantile(space: Space, info: Info, alpha: Any, bounds: Any = None) -> Built:
    return _scaled(_bounded(space, bounds, ".quantile()"), f"quantile_{alpha}", make_spark_duff_quantile,
                   alpha=alpha)


def mode(space: Space, info: Info, candidates: Any) -> Built:
    _column(space, ".mode()")
    return _scaled(space, "mode", make_spark_duff_mode, candidates=candidates)


def count(space: Space, info: Info) -> Built:
    _column(space, ".count()")   # as for pandas and Polars frames
    return _scaled(then(space, then_spark_count()), "count", meas.make_laplace)


def sum_(space: Space, info: Info, bounds: Any = None) -> Built:
    space = _bounded(space, bounds, ".sum()")
    if output_space(space)[0].size is None:
        raise MakeError(".sum() needs the number of rows to be public: declare it with "
                        "domain=spark_frame_domain(..., size=n) when creating the context")
    return _scaled(then(space, then_spark_sum()), "sum", meas.make_laplace)


def _unavailable(name: str) -> Callable[..., Built]:
    def refuse(space: Space, info: Info, *args: Any, **kwargs: Any) -> Built:
        raise MakeError(f".{name}() is not available on Spark data: use .median(), .quantile(), .mode(), "
                        ".count() or .sum(), or collect the column and use a pandas frame")
    return refuse


def _spark_type(values: list[Any]) -> tuple[Any, list[Any]]:
    """A Spark type holding ``values`` exactly (public values of one column), and the values
    as that type wants them."""
    t = ps.types()
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


class SparkBackend(Backend):
    """pyspark DataFrames: the constructors of :mod:`opendp_duff.spark` (see the module)."""

    name = "spark"
    groups = True
    mechanisms: Mapping[str, Callable[..., Any]] = {
        **BUILDERS, "median": median, "quantile": quantile, "mode": mode, "count": count, "sum": sum_,
        "mean": _unavailable("mean"), "smooth_median": _unavailable("smooth_median"),
        "trimmed_mean": _unavailable("trimmed_mean"),
    }

    def accepts(self, data: object) -> bool:
        return ps.is_spark_frame(data)

    def domain_of(self, data: object) -> Any:
        return spark_frame_domain_of(data)

    def check_domain(self, domain: Any) -> None:
        if not isinstance(domain, SparkFrameDomain):
            raise MakeTypeError(f"domain ({domain!r}) must be a spark_frame_domain for a Spark DataFrame")

    def column(self, name: str) -> PartialConstructor:
        return then_spark_select_column(name)

    def clamp(self, bounds: tuple[Any, Any]) -> PartialConstructor:
        return then_spark_clamp(bounds)

    def partition(self, by: str, keys: Sequence[Any]) -> PartialConstructor:
        return partial_of(spark_partition)(by, keys)

    def parallel(self, measurement: Measurement) -> PartialConstructor:
        return partial_of(spark_parallel)(measurement)

    def sort(self) -> PartialConstructor:
        raise MakeError("sorting is not available on Spark data")

    def result_frame(self, data: object, columns: dict[str, list[Any]]) -> Any:
        """A small Spark DataFrame of these public columns, built on the driver."""
        t = ps.types()
        typed = {name: _spark_type(list(values)) for name, values in columns.items()}
        schema = t.StructType([t.StructField(name, kind, False) for name, (kind, _) in typed.items()])
        rows = list(zip(*(values for _, values in typed.values()), strict=True))
        return data.sparkSession.createDataFrame(rows, schema)  # type: ignore[attr-defined]
