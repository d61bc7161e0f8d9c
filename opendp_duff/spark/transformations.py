"""Spark transformations: select a column, clamp it, count records, count candidates.

Each mirrors its single-machine constructor (same output domain and metric, same stability
map) with a function that builds Spark expressions (select, clamp: no pass) or runs one
aggregation (the counts), for one frame or for every key of a grouped release at once
(:mod:`opendp_duff.spark._parts`).  The input metric is ``symmetric_distance()``.

Proofs: ``proofs/spark/transformations/<constructor>.tex``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validate as v
from .._constants import EXACT_INT_BOUND
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError
from ..metrics import AbsoluteDistance, InfDifferenceDistance, Metric, SymmetricDistance
from ..transformations.count_by_candidates import validate_candidates
from . import _pyspark as ps
from . import collection
from ._parts import KID, VAL, release, shared
from .domain import SparkColumn, SparkColumnDomain, SparkFrameDomain

__all__ = ["make_spark_select_column", "then_spark_select_column", "make_spark_clamp", "then_spark_clamp",
           "make_spark_count", "then_spark_count", "make_spark_count_by_candidates",
           "then_spark_count_by_candidates"]


def check_metric(input_metric: Metric) -> None:
    """Spark constructors take add/remove neighbours (rows of a frame of unknown size)."""
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance()")


def column_space(input_domain: Any, input_metric: Metric, *, bounded: bool = False,
                 T: type | None = None) -> AtomDomain:
    """Check a Spark column space; return its element domain."""
    v.instance("input_domain", input_domain, SparkColumnDomain, "a SparkColumnDomain (chain "
               "make_spark_select_column first)")
    check_metric(input_metric)
    elem = input_domain.element_domain
    if T is not None and elem.T is not T:
        raise MakeError(f"input_domain ({input_domain!r}) must hold elements of type {T.__name__}")
    if elem.nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN")
    if bounded and elem.bounds is None:
        raise MakeError(f"input_domain ({input_domain!r}) must be bounded: chain make_spark_clamp first")
    return elem


def make_spark_select_column(input_domain: SparkFrameDomain, input_metric: Metric, key: str) -> Transformation:
    """Select one column of a Spark DataFrame, lazily.

    Contract:
        * Input domain: a :class:`~opendp_duff.spark.domain.SparkFrameDomain` declaring ``key``.
        * Input metric: ``symmetric_distance()`` (rows added or removed).
        * Output domain: ``SparkColumnDomain(columns[key], size)``; its members are
          :class:`~opendp_duff.spark.domain.SparkColumn` values (the frame and the column
          expression: a float column read as double, with -0.0 read as +0.0).
        * Output metric: ``symmetric_distance()``.

    Args:
        input_domain: the frame domain.
        input_metric: ``symmetric_distance()``.
        key: the name of a declared column.

    Stability map:
        ``map(d_in) = d_in``: the column has one element per row.

    Proof: ``proofs/spark/transformations/make_spark_select_column.tex``.

    References: none needed (one element per row; see the proof).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain, then_spark_select_column
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()
        >>> (space >> then_spark_select_column("x")).map(3)
        3
    """
    # [proof:make_spark_select_column]
    v.instance("input_domain", input_domain, SparkFrameDomain, "a SparkFrameDomain")
    check_metric(input_metric)
    elem = input_domain.column(key)

    def function(frame: Any) -> SparkColumn:
        return SparkColumn(frame, elem.T, (("column", key, elem.T),))

    return Transformation(input_domain, SparkColumnDomain(elem, input_domain.size), input_metric, input_metric,
                          function, lambda d_in: d_in)
    # [end:make_spark_select_column]


def make_spark_clamp(input_domain: SparkColumnDomain, input_metric: Metric, bounds: tuple[Any, Any]) -> Transformation:
    """Replace each element x of a Spark column by min(max(x, lo), hi), lazily.

    The Spark form of :func:`opendp_duff.transformations.make_clamp`: Spark's ``least`` and
    ``greatest`` compare doubles (or longs) exactly, as ``np.clip`` does; no NaN reaches
    them (the domain excludes it) and zeros are +0.0 already.

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T))``, T float or int, without NaN.
        * Input metric: ``symmetric_distance()``.
        * Output domain: ``SparkColumnDomain(atom_domain(T, bounds=(lo, hi)), size)`` (the size kept).
        * Output metric: ``symmetric_distance()``.

    Args:
        input_domain: the column domain.
        input_metric: ``symmetric_distance()``.
        bounds: ``(lo, hi)``, finite numbers of type T with lo <= hi.

    Stability map:
        ``map(d_in) = d_in`` (a row-wise map).

    Proof: ``proofs/spark/transformations/make_spark_clamp.tex``.

    References: none needed (a row-wise map; see the proof).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain, then_spark_select_column, then_spark_clamp
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()
        >>> t = space >> then_spark_select_column("x") >> then_spark_clamp((0.0, 1.0))
        >>> t.output_domain, t.map(1)
        (SparkColumnDomain(AtomDomain(T=float, bounds=(0.0, 1.0))), 1)
    """
    # [proof:make_spark_clamp]
    elem = column_space(input_domain, input_metric)
    if elem.T not in (float, int):
        raise MakeError(f"input_domain ({input_domain!r}) must hold floats or integers to clamp")
    lo, hi = v.bounds("bounds", bounds, elem.T)
    if elem.T is float:
        lo, hi = lo + 0.0, hi + 0.0
    out = SparkColumnDomain(AtomDomain(elem.T, (lo, hi), False), input_domain.size)

    def function(column: SparkColumn) -> SparkColumn:
        return column.then("clamp", lo, hi)

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_spark_clamp]


def make_spark_count(input_domain: SparkColumnDomain | SparkFrameDomain, input_metric: Metric) -> Transformation:
    """Count the rows (of a frame, or the elements of a column) with one Spark aggregation.

    The Spark form of :func:`opendp_duff.transformations.make_count`; the count reaches the
    driver, no data value does.  Chain ``dp.m.then_laplace(scale)`` for a release.

    Contract:
        * Input domain: a ``SparkColumnDomain`` (without NaN) or a ``SparkFrameDomain``.
        * Input metric: ``symmetric_distance()``.
        * Output domain: ``atom_domain(T=int, bounds=(0, 2^53))``.
        * Output metric: ``absolute_distance(T=int)``.

    Args:
        input_domain: the column or frame domain.
        input_metric: ``symmetric_distance()``.

    Stability map:
        ``map(d_in) = d_in``: d_in rows added or removed move the count by at most d_in.

    Proof: ``proofs/spark/transformations/make_spark_count.tex``.

    References: [DMNS06] (the count has sensitivity 1 under add/remove).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain, then_spark_count
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()
        >>> (space >> then_spark_count() >> dp.m.then_laplace(scale=2.0)).map(1)
        0.5
    """
    # [proof:make_spark_count]
    if isinstance(input_domain, SparkFrameDomain):
        check_metric(input_metric)
    else:
        column_space(input_domain, input_metric)
    out = AtomDomain(int, (0, EXACT_INT_BOUND), False)
    token = object()   # names this statistic in a grouped release's shared results

    def counts(rows: Any, n_keys: int) -> list[int]:
        got = collection.collect(rows.groupBy(KID).count())
        n = [0] * n_keys
        for row in got:
            n[row[KID]] = min(int(row["count"]), EXACT_INT_BOUND)
            collection.current().note(row[KID], counts=1)
        return n

    def function(x: Any) -> int:
        column = x if isinstance(x, SparkColumn) else SparkColumn(x, int, (("row",),))
        with release(column.frame):
            return int(shared(column, token, counts))

    return Transformation(input_domain, out, input_metric, AbsoluteDistance(int), function, lambda d_in: d_in)
    # [end:make_spark_count]


def make_spark_count_by_candidates(input_domain: SparkColumnDomain, input_metric: Metric,
                                   candidates: Any) -> Transformation:
    """Count the elements equal to each public candidate, with one Spark aggregation.

    The Spark form of :func:`opendp_duff.transformations.make_count_by_candidates`: an
    inner join of the column with a broadcast table of the candidates (Spark compares
    doubles, longs and strings exactly), grouped by candidate; elements equal to no
    candidate are not counted.  Only the counts reach the driver.

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T))`` without NaN.
        * Input metric: ``symmetric_distance()``.
        * Output domain: int vectors of length len(candidates), in the candidates' order,
          entries in [0, 2^53].  Output metric: ``inf_difference_distance()``.

    Args:
        input_domain: the column domain.
        input_metric: ``symmetric_distance()``.
        candidates: as in ``make_count_by_candidates`` (public, non-empty, distinct, of type T).

    Stability map:
        ``map(d_in) = d_in`` (each added or removed element moves at most one count by one).

    Proof: ``proofs/spark/transformations/make_spark_count_by_candidates.tex``.

    References: [OpenDP-Gumbel] §3.1 (the inf-difference distance and monotone scores).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import (spark_frame_domain, then_spark_select_column,
        ...                                then_spark_count_by_candidates)
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=int)}), dp.symmetric_distance()
        >>> (space >> then_spark_select_column("x") >> then_spark_count_by_candidates([1, 2])).map(1)
        1
    """
    # [proof:make_spark_count_by_candidates]
    elem = column_space(input_domain, input_metric)
    cands = validate_candidates(candidates, elem.T)
    out = VectorDomain(AtomDomain(int, (0, EXACT_INT_BOUND), False), len(cands), False)
    token = object()

    def counts(rows: Any, n_keys: int) -> list[np.ndarray]:
        F, t = ps.functions(), ps.types()
        schema = t.StructType([t.StructField("__cid", t.IntegerType(), False),
                               t.StructField("__cand", ps.key_type(elem.T), False)])
        table = rows.sparkSession.createDataFrame(list(enumerate(cands)), schema)
        joined = rows.join(F.broadcast(table), F.col(VAL) == F.col("__cand"))
        got = collection.collect(joined.groupBy(KID, "__cid").count())
        out = [np.zeros(len(cands), dtype=np.int64) for _ in range(n_keys)]
        for row in got:
            out[row[KID]][row["__cid"]] = min(int(row["count"]), EXACT_INT_BOUND)
            collection.current().note(row[KID], counts=1)
        return out

    def function(column: SparkColumn) -> np.ndarray:
        with release(column.frame):
            return shared(column, token, counts).copy()

    return Transformation(input_domain, out, input_metric, InfDifferenceDistance(), function,
                          lambda d_in: d_in)
    # [end:make_spark_count_by_candidates]


then_spark_select_column = then(make_spark_select_column)
then_spark_clamp = then(make_spark_clamp)
then_spark_count = then(make_spark_count)
then_spark_count_by_candidates = then(make_spark_count_by_candidates)
