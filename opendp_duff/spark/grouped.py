"""make_spark_grouped: one release per public key of a Spark frame, in shared passes.

The Spark form of partitioning a frame by public keys and composing a measurement in
parallel over the parts (``make_partition_by`` then ``make_parallel_composition``, [McS09]).

Proof: ``proofs/spark/grouped/make_spark_grouped.tex``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from .. import _validate as v
from .. import arithmetic as ar
from .._constants import INT64_MAX, INT64_MIN
from ..combinators.composition import check_part
from ..combinators.parallel import _plus, _times
from ..core import Measurement, Transformation, _derived, _fit, make_chain_mt
from ..errors import (MakeError, MakeTypeError, MetricMismatch, NotAMemberTypeError)
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..metrics import Metric, PartitionDistance, SymmetricDistance, symmetric_distance
from . import collection
from ._parts import SparkPart, split_by_keys
from .domain import SparkFrameDomain, admits
from .transformations import check_metric

__all__ = ["make_spark_grouped", "validate_keys", "parallel_map", "SparkPartitionDomain", "spark_partition",
           "spark_parallel"]


def validate_keys(keys: Any, T: type) -> tuple[Any, ...]:
    """The public keys as a tuple of distinct values of type T (floats finite, as +0.0;
    ints within int64; str), non-empty.  Errors name ``keys``."""
    if isinstance(keys, (str, bytes, dict, set, frozenset)) or not isinstance(keys, Sequence):
        raise MakeTypeError(f"keys ({keys!r}) must be a list or tuple of public keys")
    if not keys:
        raise MakeError("keys ([]) must not be empty")
    out: list[Any] = []
    for i, k in enumerate(keys):
        name = f"keys[{i}]"
        if T is str:
            if not isinstance(k, str):
                raise MakeTypeError(f"{name} ({k!r}) must be a str, as the column")
            out.append(str(k))
        elif T is int:
            k = v.number(name, k, integer=True)
            if not INT64_MIN <= k <= INT64_MAX:
                raise MakeError(f"{name} ({k!r}) must fit in a 64-bit integer")
            out.append(k)
        else:
            out.append(v.number(name, k) + 0.0)
    if len(set(out)) != len(out):
        raise MakeError(f"keys ({keys!r}) must be distinct")
    return tuple(out)


# [proof:parallel_map]
def parallel_map(inner: Measurement, d_in: int) -> Any:
    """The map of the partition followed by the parallel composition of ``inner``.

    Partitioning maps d_in to (l0, l1, linf) = (d_in, d_in, d_in); then at most
    k = min(l0, l1) parts differ, each by at most min(linf, l1): ``k * inner.map(d_in)``
    for pure DP and zCDP, k times each component for (eps, delta), rounded up."""
    k = d_in
    each = inner.map(d_in)             # min(linf, l1) = d_in
    if isinstance(inner.output_measure, ApproximateDivergence):
        return (ar.mul_up(k, each[0]), min(1.0, ar.mul_up(k, each[1])))
    return ar.mul_up(k, each)
# [end:parallel_map]


def make_spark_grouped(input_domain: SparkFrameDomain, input_metric: Metric, by: str, keys: Sequence[Any],
                       measurement: Measurement) -> Measurement:
    """Release ``measurement`` on the rows of every public key of a Spark frame, in shared passes.

    The frame is cut by the column ``by`` into one part per public key, in the order of
    ``keys`` (rows whose key is not public are dropped; a key absent from the data gets an
    empty part and a release too), and ``measurement`` runs on each part with fresh
    randomness.  Each part is a real DataFrame, so any measurement on the part domain works;
    those built from :mod:`opendp_duff.spark` constructors compute every key's statistic in
    the same Spark passes instead of one pass per key.  Returns the tuple of the releases
    in key order.

    Contract:
        * Input domain: a ``SparkFrameDomain`` declaring ``by`` (element type str, int or float).
        * Input metric: ``symmetric_distance()``.
        * Output measure: that of ``measurement``: ``max_divergence()``,
          ``zero_concentrated_divergence()`` or ``approximate_divergence()``.

    Args:
        input_domain: the frame domain.
        input_metric: ``symmetric_distance()``.
        by: the column of the keys.
        keys: the public keys: a non-empty list or tuple of distinct values of the type of ``by``.
        measurement: a measurement whose input domain is the part domain
            ``SparkFrameDomain(input_domain's columns, size=None)`` and whose input metric
            is ``symmetric_distance()``; not interactive (MakeError), and built by the library
            unless the feature "honest-but-curious" is on (the result is certified iff it is).

    Privacy map:
        The partition maps d_in to (d_in, d_in, d_in) in the partition distance, and the
        parallel composition ([McS09]) then costs k = d_in parts of ``measurement.map(d_in)``
        each: ``d_in * measurement.map(d_in)`` (each component for (eps, delta)), rounded up;
        ``map(0) = 0``.  With one row per person (d_in = 1), a grouped release costs one release.

    Proof: ``proofs/spark/grouped/make_spark_grouped.tex``.

    References: [McS09] (parallel composition).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain, make_spark_grouped, then_spark_count
        >>> dom = spark_frame_domain({"g": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
        >>> part = (dom, dp.symmetric_distance()) >> then_spark_count() >> dp.m.then_laplace(scale=1.0)
        >>> make_spark_grouped(dom, dp.symmetric_distance(), "g", [1, 2, 3], part).map(1)
        1.0
    """
    # [proof:make_spark_grouped]
    partition = spark_partition(input_domain, input_metric, by, keys)
    parallel = spark_parallel(partition.output_domain, partition.output_metric, measurement)  # type: ignore[arg-type]
    chain = make_chain_mt(parallel, partition)
    return _derived(Measurement(input_domain, input_metric, measurement.output_measure, chain._function,
                                lambda d_in: parallel_map(measurement, d_in)), chain)
    # [end:make_spark_grouped]


# [proof:spark_partition]
@attrs.frozen
class SparkPartitionDomain:
    """The parts of a Spark frame by public keys: tuples of ``len(keys)`` :class:`SparkPart`
    of one batch over ``keys``, part i at position i, whose frame is a member of ``part_domain``
    (so every part is: a subset of a member's rows, and the part domain has no size)."""

    part_domain: SparkFrameDomain
    keys: tuple[Any, ...]

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member (one distributed pass over the batch's frame)."""
        return admits(self, x)

    def admit(self, x: object) -> tuple[Any, ...]:
        """``x`` if it is a member (the batch's frame admitted by ``part_domain``, one pass)."""
        parts = tuple(x) if isinstance(x, (tuple, list)) else None
        if (parts is None or len(parts) != len(self.keys)
                or any(not isinstance(p, SparkPart) or p.index != i or p.batch is not parts[0].batch
                       for i, p in enumerate(parts))
                or parts[0].batch.keys != self.keys):
            raise NotAMemberTypeError(self, f"a member is a tuple of the {len(self.keys)} parts of one "
                                            "Spark frame split by these keys, in key order")
        self.part_domain.admit(parts[0].batch.frame)
        return parts


def spark_partition(input_domain: SparkFrameDomain, input_metric: Metric, by: str, keys: Any) -> Transformation:
    """The frame cut into one lazy part per public key (no Spark call); map d -> (d, d, d)."""
    v.instance("input_domain", input_domain, SparkFrameDomain, "a SparkFrameDomain")
    check_metric(input_metric)
    T = input_domain.column(by).T
    public = validate_keys(keys, T)
    out = SparkPartitionDomain(SparkFrameDomain(input_domain.columns, None), public)
    return Transformation(input_domain, out, input_metric, PartitionDistance(symmetric_distance()),
                          lambda frame: tuple(split_by_keys(frame, by, T, public)), lambda d: (d, d, d))


def spark_parallel(input_domain: SparkPartitionDomain, input_metric: PartitionDistance,
                   measurement: Measurement) -> Measurement:
    """``measurement`` on every part, in key order, under one collection log (the batch's)."""
    v.instance("input_domain", input_domain, SparkPartitionDomain, "a SparkPartitionDomain")
    v.instance("input_metric", input_metric, PartitionDistance, "a PartitionDistance")
    v.instance("measurement", measurement, Measurement, "a Measurement")
    check_part(measurement, "the measurement")   # interactive, or not built by the library: refused
    _fit(input_domain.part_domain, input_metric.inner, measurement.input_domain, measurement.input_metric,
         "the measurement must take one part")
    if not isinstance(measurement.input_metric, SymmetricDistance):
        raise MetricMismatch(input_metric.inner, measurement.input_metric)
    if not isinstance(measurement.output_measure, (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence)):
        raise MakeError(f"the measure of the measurement ({measurement.output_measure!r}) does not "
                        "compose in parallel here")
    inner, inner_map, n_parts = measurement._function, measurement.privacy_map, len(input_domain.keys)

    def function(parts: tuple[Any, ...]) -> tuple[Any, ...]:
        with collection.release(parts[0].batch.log):
            return tuple(inner(part) for part in parts)   # every key, absent ones included

    def privacy_map(d_in: Any) -> Any:                     # that of make_parallel_composition
        l0, l1, linf = d_in
        zero = inner_map(0)
        m = min(l0, l1, n_parts)
        total = _times(m, inner_map(min(linf, l1))) if m else _times(0, zero)
        if zero != _times(0, zero):
            total = _plus(total, _times(n_parts - m, zero))
        return total

    return _derived(Measurement(input_domain, input_metric, measurement.output_measure, function, privacy_map),
                    measurement)
# [end:spark_partition]
