"""Metrics: how far apart two inputs are, and so which inputs are neighbours."""
import attrs

from . import _validate as v
from .errors import MapError

__all__ = [
    "Metric",
    "SymmetricDistance", "ChangeOneDistance", "AbsoluteDistance", "InfDifferenceDistance",
    "LInfDistance", "L1Distance", "L2Distance",
    "symmetric_distance", "change_one_distance", "absolute_distance",
    "inf_difference_distance", "linf_distance", "l1_distance", "l2_distance",
]


class Metric:
    distance_type = float  # int for dataset metrics

    def validate_distance(self, d_in, name="d_in"):
        """Check a distance given to a map: a non-negative, non-NaN number."""
        try:
            return v.number(name, d_in, integer=self.distance_type is int, nonneg=True,
                            allow_inf=self.distance_type is float)
        except (TypeError, ValueError) as exc:
            raise MapError(str(exc)) from None


@attrs.frozen
class SymmetricDistance(Metric):
    """|multiset symmetric difference|: the number of records added or removed (Duff, Definition 6)."""

    distance_type = int


@attrs.frozen
class ChangeOneDistance(Metric):
    """The number of records substituted, between datasets of the same public size n
    (Bun & Steinke), comparing datasets as multisets: the fewest substitutions that turn
    one multiset into the other.  Datasets of different sizes are at infinite distance."""

    distance_type = int


@attrs.frozen
class AbsoluteDistance(Metric):
    """|x - x'| between single numbers of type T."""

    T: type = float


@attrs.frozen
class L1Distance(Metric):
    """sum_i |x_i - x'_i| between vectors of the same length."""

    T: type = float


@attrs.frozen
class L2Distance(Metric):
    """sqrt(sum_i (x_i - x'_i)^2) between vectors of the same length."""

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


def symmetric_distance():
    return SymmetricDistance()


def change_one_distance():
    return ChangeOneDistance()


def _T(T):
    if T not in (float, int):
        raise v.MakeTypeError(f"T ({T!r}) must be float or int")
    return T


def absolute_distance(T=float):
    return AbsoluteDistance(_T(T))


def l1_distance(T=float):
    return L1Distance(_T(T))


def l2_distance(T=float):
    return L2Distance(_T(T))


def inf_difference_distance():
    return InfDifferenceDistance()


def linf_distance(monotonic=False):
    if not isinstance(monotonic, bool):
        raise v.MakeTypeError(f"monotonic ({monotonic!r}) must be a bool")
    return LInfDistance(monotonic)
