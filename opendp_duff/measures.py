"""Measures: how privacy loss is counted, and how two losses compare and add up."""

import attrs

from . import _validate as v
from . import arithmetic as ar
from .errors import MapError, MakeError

__all__ = [
    "MaxDivergence", "ZeroConcentratedDivergence", "ApproximateDivergence",
    "SmoothedMaxDivergence", "PrivacyProfile",
    "max_divergence", "zero_concentrated_divergence", "approximate_divergence",
    "smoothed_max_divergence",
]


def _nonneg(name, x):
    try:
        return v.number(name, x, nonneg=True, allow_inf=True)
    except (TypeError, ValueError) as exc:
        raise MapError(str(exc)) from None


@attrs.frozen
class MaxDivergence:
    """Pure differential privacy: distances are epsilon >= 0."""

    def validate(self, d, name="d_out"):
        return _nonneg(name, d)

    def ge(self, a, b):
        return a >= b

    def compose(self, ds):
        total = 0.0
        for d in ds:
            total = ar.add_up(total, d)
        return total


@attrs.frozen
class ZeroConcentratedDivergence:
    """rho-zCDP (Bun & Steinke 2016): D_alpha(M(x)||M(x')) <= rho * alpha for all alpha > 1."""

    validate = MaxDivergence.validate
    ge = MaxDivergence.ge
    compose = MaxDivergence.compose


@attrs.frozen
class ApproximateDivergence:
    """(epsilon, delta)-differential privacy: distances are pairs (epsilon, delta)."""

    def validate(self, d, name="d_out"):
        if not isinstance(d, (tuple, list)) or len(d) != 2:
            raise MapError(f"{name} ({d!r}) must be a pair (epsilon, delta)")
        eps = _nonneg(f"{name}[0] (epsilon)", d[0])
        delta = _nonneg(f"{name}[1] (delta)", d[1])
        return (eps, delta)

    def ge(self, a, b):
        return a[0] >= b[0] and a[1] >= b[1]

    def compose(self, ds):
        eps, delta = 0.0, 0.0
        for e, d in ds:
            eps, delta = ar.add_up(eps, e), ar.add_up(delta, d)
        return (eps, min(1.0, delta))


@attrs.frozen(eq=False)
class PrivacyProfile:
    """A curve delta -> epsilon(delta): the mechanism is (epsilon(delta), delta)-DP for every delta."""

    epsilon: object  # callable(delta) -> float, already rounded up
    description: str = ""

    def __call__(self, delta):
        delta = _nonneg("delta", delta)
        if delta >= 1:
            return 0.0
        return self.epsilon(delta)


@attrs.frozen
class SmoothedMaxDivergence:
    """Distances are privacy profiles; fix a delta with ``make_fix_delta``."""

    def validate(self, d, name="d_out"):
        if not isinstance(d, PrivacyProfile):
            raise MapError(f"{name} ({d!r}) must be a PrivacyProfile")
        return d

    def ge(self, a, b):
        raise MakeError("privacy profiles are compared at a fixed delta: use make_fix_delta first")

    def compose(self, ds):
        raise MakeError("composition of privacy profiles is not supported: compose in zCDP, then convert")


def max_divergence():
    return MaxDivergence()


def zero_concentrated_divergence():
    return ZeroConcentratedDivergence()


def approximate_divergence():
    return ApproximateDivergence()


def smoothed_max_divergence():
    return SmoothedMaxDivergence()
