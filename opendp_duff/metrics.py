"""Metrics: how far apart two inputs are, and so which inputs are neighbours.

A metric is a value object (frozen, compared by its fields); a constructor checks that its
input metric is the one it was proven for, and ``map(d_in)`` first asks the metric to
validate ``d_in``.  Dataset metrics (:class:`SymmetricDistance`, :class:`ChangeOneDistance`)
compare datasets as multisets and have integer distances; the others have float distances.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from . import _validate as v
from .errors import MakeTypeError, MapError

__all__ = [
    "Metric",
    "SymmetricDistance", "ChangeOneDistance", "AbsoluteDistance", "InfDifferenceDistance",
    "LInfDistance", "L1Distance", "L2Distance", "PartitionDistance", "PartitionBound", "L01InfDistance",
    "symmetric_distance", "change_one_distance", "absolute_distance",
    "inf_difference_distance", "linf_distance", "l1_distance", "l2_distance", "partition_distance",
    "l01inf_distance",
]


class Metric:
    """The base of every metric: the type of its distances and their validation."""

    distance_type: type = float  # int for dataset metrics

    def validate_distance(self, d_in: object, name: str = "d_in") -> Any:
        """Check a distance given to a map: a non-negative, non-NaN number of the metric's
        distance type (an integer for dataset metrics; +inf is allowed for float distances).

        Raises:
            MapError: the distance is not a number, is negative or NaN, or is not an integer
                for a dataset metric.
        """
        try:
            return v.number(name, d_in, integer=self.distance_type is int, nonneg=True,
                            allow_inf=self.distance_type is float)
        except (TypeError, ValueError) as exc:
            raise MapError(str(exc)) from None


@attrs.frozen
class SymmetricDistance(Metric):
    """|x triangle x'|, the size of the multiset symmetric difference: the number of records
    added or removed ([GM-Duff] Definition 1).  Neighbours (distance 1) differ by one record
    added or removed."""

    distance_type = int


# [proof:ChangeOneDistance]
@attrs.frozen
class ChangeOneDistance(Metric):
    """The number of records substituted, between datasets of the same public size n
    ([BS19] §2), comparing datasets as multisets: the fewest substitutions that turn
    one multiset into the other, |x minus x'|.  Datasets of different sizes are at infinite
    distance.  Neighbours (distance 1) differ by one record replaced by another."""

    distance_type = int
# [end:ChangeOneDistance]


@attrs.frozen
class AbsoluteDistance(Metric):
    """|x - x'| between single numbers of type T (0 when x = x', also for equal infinities)."""

    T: type = float


@attrs.frozen
class L1Distance(Metric):
    """sum_i |x_i - x'_i| between vectors of the same length (infinite between lengths that differ)."""

    T: type = float


@attrs.frozen
class L2Distance(Metric):
    """sqrt(sum_i (x_i - x'_i)^2) between vectors of the same length (infinite between lengths
    that differ)."""

    T: type = float


@attrs.frozen
class InfDifferenceDistance(Metric):
    """max_i (x_i - x'_i) - min_i (x_i - x'_i) between score vectors ([OpenDP-Gumbel] §3.1).

    It is the L-infinity distance after the best common shift, and is at most
    twice the L-infinity distance; for monotonic changes (all differences of one
    sign) it is at most the L-infinity distance.

    Conventions (shared with :class:`LInfDistance`; ``proofs/metrics_scores.inc``):

    * vectors of different lengths are at distance ``inf``: no finite ``d_in`` relates
      them, so a mechanism may treat each length (the empty vector included) apart;
    * entries may be +-inf: the difference x_i - x'_i is 0 when x_i = x'_i (also when
      both are the same infinity) and +-inf when they differ and one of them is infinite;
      a pair with an infinite difference is at distance ``inf``.  So at a finite distance
      both vectors have their +inf, -inf and finite entries at the same indices, and every
      difference is finite (0 at the infinite indices).
    """


@attrs.frozen
class LInfDistance(Metric):
    """max_i |x_i - x'_i| between score vectors; ``monotonic=True`` promises all differences
    x_i - x'_i share a sign (so the inf-difference distance is at most this distance;
    without the promise it is at most twice).

    Same conventions as :class:`InfDifferenceDistance`: vectors of different lengths are
    at distance ``inf``; a difference is 0 between equal entries (the same infinity
    included) and +-inf, making the distance ``inf``, when the entries differ and one is
    infinite.
    """

    monotonic: bool = False


# [proof:symmetric_distance]
def symmetric_distance() -> SymmetricDistance:
    """The add/remove distance between datasets: d(x, x') = |x triangle x'| (multisets).

    Neighbours at distance d differ by d records added or removed ([GM-Duff] Definition 1).

    Example:
        >>> import opendp_duff as dp
        >>> dp.symmetric_distance()
        SymmetricDistance()
    """
    return SymmetricDistance()
# [end:symmetric_distance]


# [proof:change_one_distance]
def change_one_distance() -> ChangeOneDistance:
    """The substitution distance between datasets of one public size n: the fewest records
    replaced to turn one multiset into the other, |x minus x'| ([BS19] §2).

    Neighbours at distance d differ by d substitutions; datasets of different sizes are never
    neighbours.  Use it with a vector domain of known ``size``.

    Example:
        >>> import opendp_duff as dp
        >>> dp.change_one_distance()
        ChangeOneDistance()
    """
    return ChangeOneDistance()
# [end:change_one_distance]


def _T(T: type) -> type:
    if T not in (float, int):
        raise MakeTypeError(f"T ({T!r}) must be float or int")
    return T


def absolute_distance(T: type = float) -> AbsoluteDistance:
    """The distance |x - x'| between single numbers of type T (float or int).

    Neighbours within d_in: |x - x'| <= d_in; a statistic of sensitivity Delta maps datasets
    within d to numbers within Delta d.

    Example:
        >>> import opendp_duff as dp
        >>> dp.absolute_distance(T=float)
        AbsoluteDistance(T=<class 'float'>)
    """
    return AbsoluteDistance(_T(T))


def l1_distance(T: type = float) -> L1Distance:
    """The distance sum_i |x_i - x'_i| between vectors of one length, elements of type T.

    Neighbours within d_in: ||x - x'||_1 <= d_in (the metric of the vector Laplace mechanism).
    """
    return L1Distance(_T(T))


def l2_distance(T: type = float) -> L2Distance:
    """The distance sqrt(sum_i (x_i - x'_i)^2) between vectors of one length, elements of type T.

    Neighbours within d_in: ||x - x'||_2 <= d_in (the metric of the vector Gaussian mechanism).
    """
    return L2Distance(_T(T))


def inf_difference_distance() -> InfDifferenceDistance:
    """The distance between score vectors of :class:`InfDifferenceDistance` (see its docstring):
    neighbours within d_in have max_i (s_i - s'_i) - min_i (s_i - s'_i) <= d_in."""
    return InfDifferenceDistance()


def linf_distance(monotonic: bool = False) -> LInfDistance:
    """The distance between score vectors of :class:`LInfDistance` (see its docstring):
    neighbours within d_in have max_i |s_i - s'_i| <= d_in, with all differences of one sign
    when ``monotonic=True``.

    Raises:
        MakeTypeError: ``monotonic`` is not a bool.
    """
    if not isinstance(monotonic, bool):
        raise MakeTypeError(f"monotonic ({monotonic!r}) must be a bool")
    return LInfDistance(monotonic)


# [proof:PartitionBound]
class PartitionBound(NamedTuple):
    """A distance between partitions, ``(l0, l1, linf)``: at most l0 parts differ, their inner
    distances sum to at most l1, and each is at most linf.

    Bounds are compared componentwise (a partial order): ``a >= b`` when every component of
    ``a`` is at least that of ``b``, which is what ``check(d_in, d_out)`` needs."""

    l0: int
    l1: int
    linf: int

    def __ge__(self, other: Any) -> bool:
        o = PartitionBound(*other)
        return self.l0 >= o.l0 and self.l1 >= o.l1 and self.linf >= o.linf

    def __le__(self, other: Any) -> bool:
        o = PartitionBound(*other)
        return self.l0 <= o.l0 and self.l1 <= o.l1 and self.linf <= o.linf

    def __gt__(self, other: Any) -> bool:
        return self >= other and tuple(self) != tuple(other)

    def __lt__(self, other: Any) -> bool:
        return self <= other and tuple(self) != tuple(other)
# [end:PartitionBound]


@attrs.frozen
class PartitionDistance(Metric):
    """The distance between two partitions (tuples of datasets, one per key) measured by
    ``inner`` part by part: the triple ``(l0, l1, linf)`` bounds the number of parts at a
    positive inner distance, the sum of the inner distances and their maximum
    ([McS09], the parallel composition theorem).  Distances are :class:`PartitionBound` triples of
    integers, compared componentwise."""

    inner: Metric
    distance_type = PartitionBound

    def validate_distance(self, d_in: object, name: str = "d_in") -> PartitionBound:
        """A triple ``(l0, l1, linf)`` of non-negative integers, as a :class:`PartitionBound`.

        Raises:
            MapError: ``d_in`` is not a triple, or a component is not a non-negative integer.
        """
        return _bound_triple(d_in, name)


def _bound_triple(d_in: Any, name: str) -> PartitionBound:
    """A triple ``(l0, l1, linf)`` of non-negative integers as a :class:`PartitionBound`, or MapError."""
    if not isinstance(d_in, (tuple, list)) or len(d_in) != 3:
        raise MapError(f"{name} ({d_in!r}) must be a triple (l0, l1, linf) of non-negative integers")
    try:
        parts = [v.number(f"{name}[{i}]", c, integer=True, nonneg=True) for i, c in enumerate(d_in)]
    except (TypeError, ValueError) as exc:
        raise MapError(str(exc)) from None
    return PartitionBound(*parts)


# [proof:L01InfDistance]
@attrs.frozen
class L01InfDistance(Metric):
    """The distance between maps from keys to integer counts, a missing key read as a count of 0:
    the triple ``(l0, l1, linf)`` bounds the number of keys whose counts differ, the sum of the
    absolute differences and their maximum (OpenDP's L01InfDistance).  Distances are
    :class:`PartitionBound` triples of integers, compared componentwise.  One person who adds or
    removes k records changes at most k counts, each by at most k: ``(k, k, k)``."""

    distance_type = PartitionBound

    def validate_distance(self, d_in: object, name: str = "d_in") -> PartitionBound:
        """A triple ``(l0, l1, linf)`` of non-negative integers, as a :class:`PartitionBound`.

        Raises:
            MapError: ``d_in`` is not a triple, or a component is not a non-negative integer.
        """
        return _bound_triple(d_in, name)
# [end:L01InfDistance]


def l01inf_distance() -> L01InfDistance:
    """The distance between maps key -> count of :class:`L01InfDistance`: ``(l0, l1, linf)``.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.metrics import l01inf_distance
        >>> l01inf_distance().validate_distance((1, 2, 2))
        PartitionBound(l0=1, l1=2, linf=2)
    """
    return L01InfDistance()


# [proof:partition_distance]
def partition_distance(inner: Metric) -> PartitionDistance:
    """The distance between partitions of datasets, part by part under ``inner``.

    Two partitions are within ``(l0, l1, linf)`` when at most l0 parts differ (have a positive
    inner distance), the inner distances sum to at most l1, and each is at most linf.
    ``make_partition_by`` maps frames within d (symmetric distance) to partitions within
    ``(d, d, d)``: each added or removed row lands in at most one part.

    Args:
        inner: the dataset metric of the parts, ``symmetric_distance()`` or
            ``change_one_distance()``.

    Raises:
        MakeTypeError: ``inner`` is not a dataset metric.

    Example:
        >>> import opendp_duff as dp
        >>> metric = dp.partition_distance(dp.symmetric_distance())
        >>> metric, metric.validate_distance((1, 1, 1))
        (PartitionDistance(inner=SymmetricDistance()), PartitionBound(l0=1, l1=1, linf=1))
    """
    if not isinstance(inner, (SymmetricDistance, ChangeOneDistance)):
        raise MakeTypeError(f"inner ({inner!r}) must be symmetric_distance() or change_one_distance()")
    return PartitionDistance(inner)
# [end:partition_distance]
