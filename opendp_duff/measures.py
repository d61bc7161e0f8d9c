"""Privacy measures: what a measurement's ``d_out`` promises, how two promises compare and how
they add up under composition.

A measurement M with input metric d and privacy map p promises, for every pair of inputs with
d(x, x') <= d_in, that the laws of M(x) and M(x') are within p(d_in) in the measure's sense:

* :class:`MaxDivergence` (pure DP, [DR14] Def. 2.4): ``eps`` with
  Pr[M(x) in E] <= e^eps Pr[M(x') in E] for every event E;
* :class:`ZeroConcentratedDivergence` (zCDP, [BS16] Def. 1.1): ``rho`` with
  D_alpha(M(x) || M(x')) <= rho * alpha for every Renyi order alpha > 1;
* :class:`ApproximateDivergence` ((eps, delta)-DP, [DR14] Def. 2.4): a pair ``(eps, delta)`` with
  Pr[M(x) in E] <= e^eps Pr[M(x') in E] + delta for every event E;
* :class:`ApproximateZeroConcentratedDivergence` (delta-approximate rho-zCDP, [BS16]): a pair
  ``(rho, delta)``, rho-zCDP outside events of probability at most delta;
* :class:`SmoothedMaxDivergence`: a :class:`PrivacyProfile`, the whole curve delta -> eps(delta)
  of (eps, delta) guarantees at once ([BS16] Prop. 1.3 gives one for zCDP).

Every bound holds in both directions (x and x' swapped), since the input metrics are symmetric.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Tuple

import attrs

from . import _validate as v
from . import arithmetic as ar
from .errors import MakeError, MapError

__all__ = [
    "Measure", "MaxDivergence", "ZeroConcentratedDivergence", "ApproximateDivergence",
    "SmoothedMaxDivergence", "PrivacyProfile", "ApproximateZeroConcentratedDivergence",
    "max_divergence", "zero_concentrated_divergence", "approximate_divergence",
    "approximate_zero_concentrated_divergence",
    "smoothed_max_divergence",
]

ApproxDistance = Tuple[float, float]


# [proof:_nonneg]
def _nonneg(name: str, x: object) -> float:
    """x as a float >= 0 (inf allowed); MapError naming ``name`` otherwise."""
    try:
        value: float = v.number(name, x, nonneg=True, allow_inf=True)   # a float without integer=True
    except (TypeError, ValueError) as exc:
        raise MapError(str(exc)) from None
    return value
# [end:_nonneg]


class Measure:
    """The base of every privacy measure: what a measurement's ``d_out`` is, how two compare and
    how several compose.  A measure is a value object (frozen, compared by its fields)."""

    def validate(self, d: object, name: str = "d_out") -> Any:
        """``d`` as a distance of this measure; MapError otherwise."""
        raise NotImplementedError

    def ge(self, a: Any, b: Any) -> bool:
        """Whether the promise ``a`` is at least as weak as ``b``."""
        raise NotImplementedError

    # [proof:Measure.compose]
    def compose(self, ds: Iterable[Any]) -> Any:
        """The promise of the composition of independent releases with promises ``ds``."""
        raise NotImplementedError
    # [end:Measure.compose]


@attrs.frozen
class _AdditiveMeasure(Measure):
    """A measure whose distances are single numbers >= 0 that add under composition."""

    def validate(self, d: object, name: str = "d_out") -> float:
        """``d`` as a float >= 0 (inf allowed); MapError for NaN, negatives and non-numbers."""
        return _nonneg(name, d)

    def ge(self, a: float, b: float) -> bool:
        """Whether the promise ``a`` is at least as weak as ``b``."""
        return a >= b

    # [proof:_AdditiveMeasure.compose]
    def compose(self, ds: Iterable[float]) -> float:
        """The sum of ``ds``, rounded up (0 for none)."""
        # [proof:additive_compose]
        total = 0.0
        for d in ds:
            total = ar.add_up(total, d)
        return total
        # [end:additive_compose]
    # [end:_AdditiveMeasure.compose]


# [proof:MaxDivergence]
@attrs.frozen
class MaxDivergence(_AdditiveMeasure):
    """Pure differential privacy ([DR14] Def. 2.4, delta = 0).

    ``d_out = eps >= 0`` promises Pr[M(x) in E] <= e^eps Pr[M(x') in E] for every event E and
    every pair with d(x, x') <= d_in, i.e. the max-divergence D_inf(M(x) || M(x')) <= eps.
    Composition adds the eps ([DR14] Thm. 3.16).
    """
# [end:MaxDivergence]


# [proof:ZeroConcentratedDivergence]
@attrs.frozen
class ZeroConcentratedDivergence(_AdditiveMeasure):
    """Zero-concentrated differential privacy, rho-zCDP ([BS16] Def. 1.1).

    ``d_out = rho >= 0`` promises D_alpha(M(x) || M(x')) <= rho * alpha for every Renyi order
    alpha > 1 and every pair with d(x, x') <= d_in.  Composition adds the rho ([BS16] Lemma 2.3).
    """
# [end:ZeroConcentratedDivergence]


# [proof:_PairMeasure]
class _PairMeasure(Measure):
    """A measure whose distances are pairs ``(first, delta)`` of numbers >= 0, compared and added
    componentwise, delta capped at 1; ``first`` names the first part in messages."""

    first = "epsilon"

    def validate(self, d: object, name: str = "d_out") -> ApproxDistance:
        """``d`` as a pair of floats >= 0; MapError otherwise."""
        if not isinstance(d, (tuple, list)) or len(d) != 2:
            raise MapError(f"{name} ({d!r}) must be a pair ({self.first}, delta)")
        eps = _nonneg(f"{name}[0] ({self.first})", d[0])
        delta = _nonneg(f"{name}[1] (delta)", d[1])
        return (eps, delta)

    def ge(self, a: ApproxDistance, b: ApproxDistance) -> bool:
        """Whether the promise ``a`` is at least as weak as ``b`` (componentwise)."""
        return a[0] >= b[0] and a[1] >= b[1]

    def compose(self, ds: Iterable[ApproxDistance]) -> ApproxDistance:
        """The componentwise sum of ``ds``, rounded up, with delta capped at 1."""
        # [proof:approx_compose]
        eps, delta = 0.0, 0.0
        for e, d in ds:
            eps, delta = ar.add_up(eps, e), ar.add_up(delta, d)
        return (eps, min(1.0, delta))
        # [end:approx_compose]
# [end:_PairMeasure]


@attrs.frozen
class ApproximateDivergence(_PairMeasure):
    """Approximate differential privacy, (eps, delta)-DP ([DR14] Def. 2.4).

    ``d_out = (eps, delta)`` with eps >= 0 and delta >= 0 promises
    Pr[M(x) in E] <= e^eps Pr[M(x') in E] + delta for every event E and every pair with
    d(x, x') <= d_in.  Composition adds both parts ([DR14] Thm. 3.16); delta is capped at 1.
    """


# [proof:ApproximateZeroConcentratedDivergence]
@attrs.frozen
class ApproximateZeroConcentratedDivergence(_PairMeasure):
    """delta-approximate rho-zCDP ([BS16], approximate zCDP).

    ``d_out = (rho, delta)`` promises, for every pair with d(x, x') <= d_in, events E and E' of
    the outputs M(x) and M(x') (an event may also read a coin independent of the data), each of
    probability at least 1 - delta, with D_alpha(M(x)|E || M(x')|E') <= rho alpha and
    D_alpha(M(x')|E' || M(x)|E) <= rho alpha for every alpha > 1 (M(x)|E: the law of M(x)
    conditioned on E).  Composition adds both parts, adaptive composition included (the events
    of the whole are built with the common floor 1 - delta: the case (rho, delta) of
    ``proofs/combinators/sequential/make_sequential_composition.tex``); delta is capped at 1.
    Proof of what the threshold mechanisms use: ``proofs/measurements/threshold_keys/make_threshold_keys.tex``.
    """

    first = "rho"
# [end:ApproximateZeroConcentratedDivergence]


# [proof:PrivacyProfile.def]
@attrs.frozen(eq=False)
class PrivacyProfile:
    """A privacy profile: the measurement is (epsilon(delta), delta)-DP for every delta >= 0.

    ``curve`` computes epsilon (rounded up) for delta in [0, 1); :meth:`epsilon` (also the call
    ``profile(delta)``) validates delta first: delta >= 1 gives 0 (any two laws are
    (0, 1)-indistinguishable), and NaN, negatives and non-numbers raise MapError naming delta.

    Example:
        >>> import opendp_duff as dp
        >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> profile = dp.c.make_zCDP_to_approxDP(g).map(1.0)
        >>> profile.epsilon(1.5)
        0.0
    """

    curve: Callable[[float], float]
    description: str = ""

    def epsilon(self, delta: float) -> float:
        """The epsilon (rounded up) that the measurement satisfies at this delta."""
        # [proof:PrivacyProfile]
        delta = _nonneg("delta", delta)
        if delta >= 1:
            return 0.0
        return self.curve(delta)
        # [end:PrivacyProfile]

    def __call__(self, delta: float) -> float:
        return self.epsilon(delta)
# [end:PrivacyProfile.def]


# [proof:SmoothedMaxDivergence]
@attrs.frozen
class SmoothedMaxDivergence(Measure):
    """Distances are privacy profiles (:class:`PrivacyProfile`): the promise holds at every delta.

    Profiles are not compared or composed here: fix a delta with
    :func:`opendp_duff.c.make_fix_delta` (which gives an :class:`ApproximateDivergence`), or
    compose in zCDP before converting.
    """

    def validate(self, d: object, name: str = "d_out") -> PrivacyProfile:
        if not isinstance(d, PrivacyProfile):
            raise MapError(f"{name} ({d!r}) must be a PrivacyProfile")
        return d

    def ge(self, a: PrivacyProfile, b: PrivacyProfile) -> bool:
        raise MakeError("privacy profiles are compared at a fixed delta: use make_fix_delta first")

    def compose(self, ds: Iterable[PrivacyProfile]) -> PrivacyProfile:
        raise MakeError("composition of privacy profiles is not supported: compose in zCDP, then convert")
# [end:SmoothedMaxDivergence]


def max_divergence() -> MaxDivergence:
    """Pure DP: ``d_out`` is epsilon ([DR14] Def. 2.4)."""
    return MaxDivergence()


def zero_concentrated_divergence() -> ZeroConcentratedDivergence:
    """rho-zCDP: ``d_out`` is rho ([BS16] Def. 1.1)."""
    return ZeroConcentratedDivergence()


def approximate_divergence() -> ApproximateDivergence:
    """(eps, delta)-DP: ``d_out`` is the pair (epsilon, delta) ([DR14] Def. 2.4)."""
    return ApproximateDivergence()


def approximate_zero_concentrated_divergence() -> ApproximateZeroConcentratedDivergence:
    """delta-approximate rho-zCDP: ``d_out`` is the pair (rho, delta) ([BS16], approximate zCDP)."""
    return ApproximateZeroConcentratedDivergence()


def smoothed_max_divergence() -> SmoothedMaxDivergence:
    """Privacy profiles: ``d_out`` is a :class:`PrivacyProfile`."""
    return SmoothedMaxDivergence()
