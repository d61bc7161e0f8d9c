"""Tail probabilities of the standard Laplace and Gaussian laws, rounded outward.

An accuracy figure must never be smaller than the truth, and a threshold's delta never smaller
than the probability it bounds, so every tail here comes with a direction:

* ``laplace_sf_up(t)`` / ``laplace_sf_down(t)``: floats above / below P(Z > t) for Z of density
  e^{-|z|}/2, from ``arithmetic``'s outward-rounded exp.
* ``normal_sf_up(t)`` / ``normal_sf_down(t)``: floats above / below P(N > t) for N standard normal.
  For 0 <= t < 40 the value 1/2 - phi(t) S(t), S(t) = sum_k t^(2k+1)/(2k+1)!!, is enclosed in the
  directed-rounding decimal arithmetic of :mod:`opendp_duff.samplers.interval` (the series has
  positive terms whose ratios fall below 1/2, so its tail is at most twice the next term; pi is
  enclosed by Machin's formula, whose arctan series alternate).  The working precision grows with
  t^2 because 1/2 and phi(t) S(t) agree on about t^2/4.6 leading digits.  For t >= 40,
  0 < P(N > t) <= phi(t)/t < e^{-800} < 2^-1074, so the bounds are the smallest positive float
  and 0.
* ``normal_isf_up(p)``: the smallest float t found by bisection with ``normal_sf_up(t) <= p``, so
  that P(N > t) <= p: an upper bound on the exact quantile.

The argument t may be a float, an int or a Fraction, read exactly.  Nothing here reads libm's
exp or log: ``decimal``'s exp, ln and sqrt are correctly rounded (Python documentation) and are
widened by one step.  Proof: ``proofs/accuracy/accuracy.tex`` (section "Tails").
"""
from __future__ import annotations

import math
import struct
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Union

from . import arithmetic as ar
from .samplers.interval import DecimalIA, Interval

__all__ = ["laplace_sf_up", "laplace_sf_down", "normal_sf_up", "normal_sf_down", "normal_isf_up",
           "smallest_float_where"]

Real = Union[int, float, Fraction]
_TINY = 2.0 ** -1074          # the smallest positive float
_FAR = 40                     # beyond this, P(N > t) < 2^-1074 (module docstring)


def _exact(t: Real) -> Fraction:
    if isinstance(t, float) and math.isinf(t):
        raise ValueError("the argument of a tail must be finite")
    return ar.Q(t)


# [proof:laplace_tails]
def laplace_sf_up(t: Real) -> float:
    """A float >= P(Z > t), Z standard Laplace: e^{-t}/2 for t >= 0, 1 - e^{t}/2 below."""
    q = _exact(t)
    if q >= 0:
        return ar.up(ar.Q(ar.exp_up(-q)) / 2)
    return ar.up(1 - ar.Q(ar.exp_down(q)) / 2)


def laplace_sf_down(t: Real) -> float:
    """A float <= P(Z > t), Z standard Laplace."""
    q = _exact(t)
    if q >= 0:
        return ar.down(ar.Q(ar.exp_down(-q)) / 2)
    return ar.down(1 - ar.Q(ar.exp_up(q)) / 2)
# [end:laplace_tails]


# [proof:normal_tails]
def _pi(ia: DecimalIA) -> Interval:
    """pi = 16 arctan(1/5) - 4 arctan(1/239) (Machin), enclosed."""
    return ia.sub(ia.mul(ia.const(16), _arctan_inv(ia, 5)), ia.mul(ia.const(4), _arctan_inv(ia, 239)))


def _arctan_inv(ia: DecimalIA, m: int) -> Interval:
    """arctan(1/m) = sum_k (-1)^k / ((2k+1) m^(2k+1)), m >= 2: the terms fall, so the limit lies
    between two consecutive partial sums."""
    total, k = ia.const(0), 0
    eps = Decimal(10) ** -(ia.prec + 2)
    while True:
        term = ia.ratio(1, (2 * k + 1) * m ** (2 * k + 1))
        after = ia.add(total, term) if k % 2 == 0 else ia.sub(total, term)
        if term[1] < eps:                       # the limit lies between total and after
            return min(total[0], after[0]), max(total[1], after[1])
        total, k = after, k + 1


@lru_cache(maxsize=32)
def _sqrt_two_pi(prec: int) -> Interval:
    ia = DecimalIA.at(prec)
    return ia.sqrt_nonneg(ia.mul(ia.const(2), _pi(ia)))


def _normal_sf_enclosure(t: Fraction) -> Interval:
    """An enclosure of P(N > t) for 0 <= t < 40: 1/2 - phi(t) S(t)."""
    prec = 40 + int(t * t / 4)                  # 1/2 and phi S share about t^2/4.6 digits
    ia = DecimalIA.at(prec)
    x = ia.ratio(t.numerator, t.denominator)
    x2 = ia.square(x)
    term, total, k = x, x, 0                    # term_k = t^(2k+1) / (2k+1)!!
    eps = Decimal(10) ** -(prec + 2)
    while True:
        term = ia.div(ia.mul(term, x2), ia.const(2 * k + 3))    # term_{k+1}
        # the later terms fall by ratios t^2/(2j+3) <= 1/2 once 2k+5 >= 2 t^2: tail <= 2 term_{k+1}
        if 2 * k + 5 >= 2 * t * t and term[1] <= eps * total[0]:
            series = total[0], ia.up.add(total[1], ia.up.multiply(2, term[1]))
            break
        total, k = ia.add(total, term), k + 1
    phi = ia.div(ia.exp(ia.neg(ia.div(x2, ia.const(2)))), _sqrt_two_pi(prec))
    return ia.sub(ia.ratio(1, 2), ia.mul(phi, series))


def _normal_sf(t: Real, upward: bool) -> float:
    q = _exact(t)
    if q < 0:   # P(N > t) = 1 - P(N > -t)
        other = _normal_sf(-q, not upward)
        return ar.up(1 - ar.Q(other)) if upward else ar.down(1 - ar.Q(other))
    if q >= _FAR:
        return _TINY if upward else 0.0
    lo, hi = _normal_sf_enclosure(q)
    return ar.up(Fraction(hi)) if upward else ar.down(max(Fraction(lo), Fraction(0)))


def normal_sf_up(t: Real) -> float:
    """A float >= P(N > t), N standard normal."""
    return _normal_sf(t, True)


def normal_sf_down(t: Real) -> float:
    """A float <= P(N > t), N standard normal."""
    return _normal_sf(t, False)
# [end:normal_tails]


# [proof:normal_isf]
def smallest_float_where(holds: Callable[[float], bool], lo: float, hi: float,
                         guess: float | None = None) -> float:
    """A float t in (lo, hi] with ``holds(t)``, by bisection over the floats between lo and hi
    (0 <= lo < hi finite, ``holds(hi)`` true); a ``guess`` first narrows the bracket.  The result
    is verified (``holds`` returned True on it); it is the smallest such float when ``holds`` is
    monotone."""
    if guess is not None and math.isfinite(guess) and lo < guess < hi:
        above, below = min(hi, guess * (1 + 2.0 ** -30)), max(lo, guess * (1 - 2.0 ** -30))
        if holds(above):
            hi = above
            if not holds(below):
                lo = below
    a, b = _bits(lo), _bits(hi)
    while b - a > 1:
        mid = (a + b) // 2
        if holds(_float(mid)):
            b = mid
        else:
            a = mid
    return _float(b)


def _bits(x: float) -> int:
    """The position of a non-negative float among the floats (increasing, consecutive)."""
    return int(struct.unpack(">q", struct.pack(">d", x))[0])


def _float(i: int) -> float:
    return float(struct.unpack(">d", struct.pack(">q", i))[0])


def normal_isf_up(p: Real) -> float:
    """A float t with P(N > t) <= p (verified by ``normal_sf_up``), the smallest such up to the
    enclosures' width; ``inf`` when p < 2^-1074, 0 when p >= 1/2.  For 0 < p."""
    q = ar.Q(p)
    if q >= Fraction(1, 2):
        return 0.0
    if q < Fraction(_TINY):
        return ar.INF
    from scipy import special   # a first guess only: the bisection verifies every answer
    return smallest_float_where(lambda t: ar.Q(normal_sf_up(t)) <= q, 0.0, float(_FAR),
                                -float(special.ndtri(float(q))))
# [end:normal_isf]
