"""The exact law of a release: what a measurement's ``output_law(x)`` returns.

A measurement built by this library may carry ``output_law``: a function data -> the EXACT law
of its release (idealised arithmetic, before the sampler's final rounding to a float).  Three
kinds of law cover every mechanism here:

* :class:`DiscreteLaw` (support, log_pmf): report noisy max, Duff mode, point masses;
* :class:`PiecewiseConstantLaw` (left, right, log_density): the Duff median, quantiles and
  mean, whose density is exp(u(x)/scale)/Z on the pieces of the utility's step function;
* :class:`LocationScaleLaw` (loc, scale, noise): the Laplace and Gaussian mechanisms and the
  smooth-sensitivity releases, loc + scale * Z with Z a law of :mod:`opendp_duff.distributions`;
  loc and scale may be exact rationals (:class:`fractions.Fraction`), as the samplers read them.

The builders (:func:`discrete_law`, :func:`step_function_law`, :func:`location_scale_law`)
describe what the samplers draw, edge cases included, over the whole float range: a width
``right - left`` or a gap ``value - top`` beyond the largest float is formed from halved ends
(exact, since both ends are then large), and a subnormal difference of two floats is exact, so
every piece of positive width keeps its mass and the law of any input is normalised.
:mod:`opendp_duff.audit` compares two laws.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Any, Protocol, Union

import attrs
import numpy as np

from ._constants import INF, MAX

__all__ = ["DiscreteLaw", "PiecewiseConstantLaw", "LocationScaleLaw", "Noise", "discrete_law",
           "step_function_law", "location_scale_law", "log_widths", "relative_log_weights"]

Real = Union[float, Fraction]
_LOG2 = math.log(2.0)


class Noise(Protocol):
    """A standard noise law Z (an object of :mod:`opendp_duff.distributions`)."""

    def logpdf(self, z: Any) -> Any:
        """The log density of Z at z (array in, array out)."""


def _f64(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).reshape(-1)


def _tuple(values: Iterable[Hashable]) -> tuple:
    return tuple(values)


def _frozen(a: Any) -> np.ndarray:
    a = np.array(a, dtype=np.float64).reshape(-1)
    a.setflags(write=False)
    return a


def logsumexp(a: Any) -> float:
    """log(sum(exp(a))) without overflow; -inf for an empty or all -inf input."""
    a = _f64(a)
    if a.size == 0:
        return -INF
    m = float(np.max(a))
    if m in (-INF, INF):
        return m
    with np.errstate(under="ignore"):
        return m + math.log(float(np.sum(np.exp(a - m))))


def log_widths(left: Any, right: Any) -> np.ndarray:
    """log(right - left) for float arrays, -inf where right <= left.

    The float ``right - left`` is correctly rounded, and exact when the difference is subnormal
    (so a gap one subnormal wide keeps its width); where it overflows, both ends are large, the
    halves ``right/2`` and ``left/2`` are exact and log(right/2 - left/2) + log 2 is used.

    >>> from opendp_duff.laws import log_widths
    >>> [round(float(w), 3) for w in log_widths([5e-324, -1.7e308], [1e-323, 1.7e308])]
    [-744.44, 710.42]
    """
    left, right = _f64(left), _f64(right)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        width = right - left
        out = np.log(np.where(width > 0, width, 0.0))
        over = np.isposinf(width) & np.isfinite(left) & np.isfinite(right)
        if over.any():
            out = np.where(over, np.log(0.5 * right - 0.5 * left) + _LOG2, out)
    return out


def _scaled_difference(z: np.ndarray, loc: float, scale: float) -> np.ndarray:
    """(z - loc) / scale for a float array z and floats loc, scale: one rounding for the difference
    and one for the quotient; where the difference overflows while z is finite, both are large,
    their halves are exact and 2 ((z/2 - loc/2) / scale) is used.  Silent over- and underflow."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        d = z - loc
        y = d / scale
        wide = np.isinf(d) & np.isfinite(z)
        if wide.any():
            y = np.where(wide, 2.0 * ((0.5 * z - 0.5 * loc) / scale), y)
    return y


# [proof:relative_log_weights]
def relative_log_weights(values: Any, top: float, scale: float) -> np.ndarray:
    """(value - top) / scale, capped at 0: the log weight of each value relative to ``top``.

    ``top`` is finite and ``scale >= 0``; a value of -inf gets -inf.  ``scale = 0`` gives 0 for
    values >= top and -inf otherwise; ``scale = inf`` gives 0 for every value above -inf.
    Otherwise the difference is formed without overflow: where ``value - top`` overflows both are
    large, their halves are exact, and 2 ((value/2 - top/2) / scale) is used.  A result below
    -(largest float) is -inf (a weight that is 0 in floats anyway).

    >>> from opendp_duff.laws import relative_log_weights
    >>> relative_log_weights([1e308, -1e308], 1e308, 1e308).tolist()
    [0.0, -2.0]
    """
    values = _f64(values)
    if scale == 0:
        return np.where(values >= top, 0.0, -INF)
    if math.isinf(scale):
        return np.where(np.isneginf(values), -INF, 0.0)
    return np.minimum(_scaled_difference(values, top, scale), 0.0)
# [end:relative_log_weights]


# ----------------------------------------------------------------------------- law objects

@attrs.frozen(eq=False)
class DiscreteLaw:
    """A law on finitely many values: P(release = support[i]) = exp(log_pmf[i]).

    ``support`` holds distinct hashable values; ``log_pmf`` sums (in exp) to 1 within 1e-9.

    >>> from opendp_duff.laws import DiscreteLaw
    >>> law = DiscreteLaw((0, 1), [math.log(0.25), math.log(0.75)])
    >>> round(law.prob(1), 12)
    0.75
    """

    support: tuple = attrs.field(converter=_tuple)
    log_pmf: np.ndarray = attrs.field(converter=_frozen)

    def __attrs_post_init__(self) -> None:
        if len(self.support) != self.log_pmf.size or self.log_pmf.size == 0:
            raise ValueError("support and log_pmf must have the same, positive length")
        if np.isnan(self.log_pmf).any() or abs(logsumexp(self.log_pmf)) > 1e-9:
            raise ValueError("log_pmf must be a normalised log probability vector")

    def as_dict(self) -> dict[Hashable, float]:
        """{value: log probability} (values of mass zero included)."""
        return dict(zip(self.support, self.log_pmf.tolist(), strict=True))

    def prob(self, value: Hashable) -> float:
        """P(release == value)."""
        return math.exp(self.as_dict().get(value, -INF))


@attrs.frozen(eq=False)
class PiecewiseConstantLaw:
    """A density constant on each of disjoint intervals: exp(log_density[i]) on
    (left[i], right[i]), zero elsewhere.  Ends are finite floats; pieces have positive width
    (possibly beyond the largest float, or one subnormal), are sorted and do not overlap.

    >>> from opendp_duff.laws import PiecewiseConstantLaw
    >>> law = PiecewiseConstantLaw([0.0, 1.0], [1.0, 3.0], [math.log(0.5), math.log(0.25)])
    >>> float(law.cdf(2.0))
    0.75
    """

    left: np.ndarray = attrs.field(converter=_frozen)
    right: np.ndarray = attrs.field(converter=_frozen)
    log_density: np.ndarray = attrs.field(converter=_frozen)

    def __attrs_post_init__(self) -> None:
        if not (self.left.size == self.right.size == self.log_density.size) or self.left.size == 0:
            raise ValueError("left, right and log_density must have the same, positive length")
        if not (np.all(np.isfinite(self.left)) and np.all(np.isfinite(self.right))):
            raise ValueError("the ends of the pieces must be finite")
        if not (np.all(self.right > self.left) and np.all(self.left[1:] >= self.right[:-1])):
            raise ValueError("pieces must have positive width, be sorted and not overlap")
        if abs(logsumexp(self.log_masses())) > 1e-9:
            raise ValueError("the density must integrate to 1")

    def log_masses(self) -> np.ndarray:
        """log P(release in piece i) (widths beyond the largest float included)."""
        return log_widths(self.left, self.right) + self.log_density

    def logpdf(self, z: Any) -> np.ndarray:
        """log density at z (-inf off the pieces; at a shared end, the right piece's value)."""
        z = np.asarray(z, dtype=np.float64)
        i = np.searchsorted(self.left, z, side="right") - 1
        ok = (i >= 0) & (z < self.right[np.clip(i, 0, None)])
        return np.where(ok, self.log_density[np.clip(i, 0, None)], -INF)

    def cdf(self, z: Any) -> np.ndarray:
        """P(release <= z)."""
        z = np.asarray(z, dtype=np.float64)
        zc = z.reshape(-1, 1)
        with np.errstate(over="ignore", invalid="ignore"):
            frac = (zc - self.left) / (self.right - self.left)
            wide = ~np.isfinite(self.right - self.left)  # halve the ends: exact for such wide pieces
            if wide.any():
                halves = (0.5 * zc - 0.5 * self.left) / (0.5 * self.right - 0.5 * self.left)
                frac = np.where(wide, halves, frac)
        frac = np.clip(frac, 0.0, 1.0)
        with np.errstate(under="ignore"):
            return (frac @ np.exp(self.log_masses())).reshape(z.shape)


def _exact(v: Any) -> Fraction:
    return Fraction(v) if isinstance(v, (Fraction, int, float)) else Fraction(float(v))


def _float(q: Fraction) -> float:
    """The nearest float to q, or +-inf beyond the float range."""
    try:
        return float(q)
    except OverflowError:
        return INF if q > 0 else -INF


def log_real(v: Real) -> float:
    """log v for a positive float or Fraction (a Fraction outside the float range included)."""
    if not isinstance(v, Fraction):
        return math.log(v)
    k = v.numerator.bit_length() - v.denominator.bit_length()
    return math.log(float(v / Fraction(2) ** k)) + k * _LOG2  # v / 2^k lies in (1/2, 2)


def standardise(z: Any, loc: Real, scale: Real) -> np.ndarray:
    """(z - loc) / scale for a float array z without intermediate overflow.

    Floats: one rounding for the difference and one for the quotient (a difference beyond the
    largest float is formed from exact halves).  A Fraction ``loc`` or ``scale``: exact in
    rationals, rounded once.  Results beyond the largest float are +-inf.
    """
    z = np.asarray(z, dtype=np.float64)
    if not (isinstance(loc, Fraction) or isinstance(scale, Fraction)):
        return _scaled_difference(z, loc, scale)
    q_loc, q_scale = _exact(loc), _exact(scale)
    flat = [_float((Fraction(v) - q_loc) / q_scale) if math.isfinite(v) else v / 1.0
            for v in z.reshape(-1).tolist()]
    return np.array(flat, dtype=np.float64).reshape(z.shape)


def _finite_real(v: Any) -> bool:
    return isinstance(v, Fraction) or math.isfinite(float(v))


@attrs.frozen(eq=False)
class LocationScaleLaw:
    """loc + scale * Z, coordinatewise with independent Z from ``noise`` (an object of
    :mod:`opendp_duff.distributions` with ``logpdf``).  ``loc`` is a finite float or Fraction, or
    a tuple of finite floats; 0 < scale < inf, a float or a Fraction (exact, so that scales
    beyond the float range are represented as the samplers read them).

    >>> from opendp_duff.laws import LocationScaleLaw
    >>> from opendp_duff.distributions import Laplace
    >>> law = LocationScaleLaw(1.0, 2.0, Laplace(1.0))
    >>> round(float(law.logpdf(1.0)), 6) == round(-math.log(4.0), 6)
    True
    """

    loc: Real | tuple[float, ...]
    scale: Real
    noise: Noise

    def __attrs_post_init__(self) -> None:
        if not (0 < self.scale < INF):
            raise ValueError("scale must be positive and finite (use location_scale_law)")
        locs = self.loc if isinstance(self.loc, tuple) else (self.loc,)
        if not all(_finite_real(v) for v in locs):
            raise ValueError("loc must be finite (use location_scale_law)")

    @property
    def exact_locs(self) -> tuple[Fraction, ...]:
        """The locations as exact rationals."""
        locs = self.loc if isinstance(self.loc, tuple) else (self.loc,)
        return tuple(_exact(v) for v in locs)

    @property
    def locs(self) -> np.ndarray:
        """The locations as a 1-d float array (nearest floats, +-inf beyond the float range)."""
        return np.array([_float(v) for v in self.exact_locs], dtype=np.float64)

    def logpdf(self, z: Any) -> np.ndarray:
        """log density of one coordinate's release at z (scalar law)."""
        if isinstance(self.loc, tuple) and len(self.loc) != 1:
            raise ValueError("logpdf is defined here for scalar laws only")
        loc = self.loc[0] if isinstance(self.loc, tuple) else self.loc
        y = standardise(z, loc, self.scale)
        with np.errstate(all="ignore"):
            return np.asarray(self.noise.logpdf(y), dtype=np.float64) - log_real(self.scale)


# ----------------------------------------------------------------------------- builders

def discrete_law(support: Iterable[Hashable], log_weights: Any) -> DiscreteLaw:
    """The law P(support[i]) ∝ exp(log_weights[i]) (entries -inf have mass 0; +inf entries
    share all the mass).

    >>> from opendp_duff.laws import discrete_law
    >>> discrete_law(["a", "b"], [0.0, 0.0]).prob("a")
    0.5
    """
    w = _f64(log_weights)
    if np.isposinf(w).any():
        w = np.where(np.isposinf(w), 0.0, -INF)
    return DiscreteLaw(tuple(support), w - logsumexp(w))


def step_function_law(left: Any, right: Any, levels: Any,
                      scale: float) -> PiecewiseConstantLaw | DiscreteLaw:
    """The exponential-mechanism law with density ∝ exp(levels[i] / scale) on
    [left[i], right[i]], as :func:`opendp_duff.samplers.sample_step_function` draws it.

    A :class:`PiecewiseConstantLaw` over the pieces of positive width (every one of them,
    widths beyond the largest float and one subnormal wide included; scale 0: uniform on the
    top-level ones; scale inf: uniform), or a point mass at the left end of a highest-level
    piece when no piece has positive width.  Ends are finite floats with left <= right, levels
    finite, scale >= 0.

    >>> from opendp_duff.laws import step_function_law
    >>> law = step_function_law([0.0, 1.0], [1.0, 2.0], [0, -1], scale=1.0)
    >>> round(float(law.cdf(1.0)), 6) == round(1 / (1 + math.exp(-1)), 6)
    True
    """
    left, right, levels = _f64(left), _f64(right), _f64(levels)
    if not (left.size == right.size == levels.size) or left.size == 0:
        raise ValueError("left, right and levels must have the same, positive length")
    if not (np.all(np.isfinite(left)) and np.all(np.isfinite(right)) and np.all(np.isfinite(levels))):
        raise ValueError("the ends and levels of the pieces must be finite")
    scale = float(scale)
    if not scale >= 0:
        raise ValueError(f"scale ({scale!r}) must be non-negative")
    lw = log_widths(left, right)
    alive = lw > -INF
    if not alive.any():
        return DiscreteLaw((float(left[int(np.argmax(levels))]),), [0.0])
    rel = relative_log_weights(levels[alive], float(np.max(levels[alive])), scale)
    keep = rel > -INF
    lm = lw[alive][keep] + rel[keep]
    order = np.argsort(left[alive][keep], kind="stable")
    return PiecewiseConstantLaw(left[alive][keep][order], right[alive][keep][order],
                                (rel[keep] - logsumexp(lm))[order])


def location_scale_law(loc: Any, scale: Real, noise: Noise) -> LocationScaleLaw | DiscreteLaw:
    """The law of loc + scale * Z as released by the noise mechanisms, edge cases included.

    ``loc`` is a float, a Fraction or a float vector; ``scale`` a float or a Fraction >= 0.
    Scale 0 (or a non-finite loc) is a point mass at loc (its nearest float, the release);
    scale inf releases the noise alone, clipped to +-(largest float), so the law does not
    depend on loc.  A Fraction keeps a scale or location that is not a float exact.

    >>> from opendp_duff.laws import location_scale_law
    >>> from opendp_duff.distributions import Gaussian
    >>> location_scale_law(3.0, 0.0, Gaussian(1.0)).support
    (3.0,)
    """
    if not isinstance(scale, Fraction):
        scale = float(scale)
    exact = isinstance(loc, Fraction)
    locs = np.asarray(_float(loc) if exact else loc, dtype=np.float64)
    scalar = locs.ndim == 0
    if scale == INF:
        k = 1 if scalar else locs.size
        if k > 16:
            raise ValueError("the law of an infinite-scale release is only enumerated for <= 16 coordinates")
        sides = [(-MAX, MAX)] * k
        support: Sequence[Any] = (tuple(s[0] for s in itertools.product(*sides)) if scalar
                                  else tuple(itertools.product(*sides)))
        return discrete_law(support, np.zeros(len(support)))
    if scale == 0:
        return DiscreteLaw((float(np.clip(locs, -MAX, MAX)) if exact else
                            float(locs) if scalar else tuple(locs.tolist()),), [0.0])
    if exact:
        return LocationScaleLaw(loc, scale, noise)
    if not np.all(np.isfinite(locs)):  # an infinite input is released as is
        if not scalar:
            raise ValueError("vector releases with non-finite inputs are not supported")
        return DiscreteLaw((float(locs),), [0.0])
    return LocationScaleLaw(float(locs) if scalar else tuple(locs.tolist()), scale, noise)
