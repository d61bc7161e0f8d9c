"""The privacy maps of the smooth-sensitivity measurements, rounded up.

Named ``maps`` because that is all it holds: for each noise law, the one-step bound of the
mechanism ``T(x) + S(x)/s * Z`` (the privacy loss when the data move by one neighbour, i.e.
when the release moves by an additive shift ``|w| <= s`` and a dilation ``e^u``, ``|u| <= t``,
[BS19] §3), its float inverse in ``s`` (a starting guess for the parameter solver, checked
against the bound), and :func:`group_map`, the map for ``k`` neighbours.  The registry of
noises (:mod:`opendp_duff.smooth.noises`) ties each bound to its law.

* LLN, ULN, arsinh-normal: ``eps^2/2``-zCDP ([BS19] Thms 18, 22, 25);
* Student's T and the polynomial tail: ``eps``-DP ([BS19] Thm 31; [GM-Duff] Prop. 3);
* Laplace: ``(eps, delta)``-DP ([BS19] Thm 34).

Each bound is non-decreasing in ``t`` and ``s``.  Exact rationals (``fractions.Fraction``)
are used wherever possible; every transcendental goes through the outward-rounded functions
of :mod:`opendp_duff.arithmetic`, never ``math`` or numpy directly, so the maps do not depend
on the platform's libm.  An infinite argument or an overflow gives ``inf``, a valid bound.
Proof: ``proofs/measurements/smooth_sensitivity/smooth_common.inc``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Callable

from .. import arithmetic as ar
from ..arithmetic import Q
from ..measures import ApproximateDivergence, ZeroConcentratedDivergence

if TYPE_CHECKING:
    from .noises import SmoothNoise

__all__ = ["lln_epsilon", "uln_epsilon", "arsinh_epsilon", "student_t_epsilon",
           "polynomial_tail_epsilon", "laplace_epsilon", "laplace_group_epsilon", "group_map"]

INF = math.inf


# [proof:one_step]
PI_LOW = Fraction(math.pi)  # the float pi is below the real pi (3.14159265358979311... < pi)


def _finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)


def _sqrt_up(q: Fraction) -> float:
    """sqrt(q) rounded up for an exact q >= 0 of any size: when q overflows a float, use
    sqrt(q) = 2^k sqrt(q / 4^k), the scalings by powers of two being exact."""
    root = ar.sqrt_up(q)
    if root != INF:
        return root
    k = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
    return ar.up(Q(ar.sqrt_up(q / Fraction(4) ** k)) * Fraction(2) ** k)


def _dilation_plus_shift(t: float, s: float, sigma: float, lipschitz: float) -> float:
    """t/sigma + e^{3 sigma^2/2} lipschitz s, rounded up (inf for a non-finite input or when
    e^{3 sigma^2/2} overflows): the LLN and ULN bounds, lipschitz >= 0 an upper bound."""
    if not _finite(t, s, sigma, lipschitz):
        return INF
    e = ar.exp_up(ar.up(Fraction(3, 2) * Q(sigma) ** 2))
    if e == INF:
        return INF
    return ar.up(Q(t) / Q(sigma) + Q(e) * Q(lipschitz) * Q(s))


def lln_epsilon(t: float, s: float, sigma: float) -> float:
    """[BS19] Thm 18: eps = t/sigma + e^{3 sigma^2 / 2} s."""
    return _dilation_plus_shift(t, s, sigma, 1.0)


def uln_epsilon(t: float, s: float, sigma: float) -> float:
    """[BS19] Thm 22 (sigma >= sqrt 2): eps = t/sigma + e^{3 sigma^2/2} sqrt(2/(pi sigma^2)) s."""
    if not _finite(sigma):
        return INF
    root = ar.sqrt_up(Fraction(2) / (PI_LOW * Q(sigma) ** 2))  # pi >= PI_LOW makes this an upper bound
    return _dilation_plus_shift(t, s, sigma, root)


def arsinh_epsilon(t: float, s: float, sigma: float) -> float:
    """[BS19] Thm 25: eps = sqrt(t (t/sigma^2 + 1/sigma + 2)) + s (2/(3 sigma) + sigma/2)."""
    if not _finite(t, s, sigma):
        return INF
    t_, s_, g = Q(t), Q(s), Q(sigma)
    root = _sqrt_up(t_ * (t_ / g ** 2 + 1 / g + 2))
    if root == INF:
        return INF
    return ar.up(Q(root) + s_ * (Fraction(2, 3) / g + g / 2))


def student_t_epsilon(t: float, s: float, d: float) -> float:
    """[BS19] Thm 31: eps = t (d+1) + s (d+1) / (2 sqrt d)."""
    if not _finite(t, s, d):
        return INF
    d_ = Q(d)
    return ar.up(Q(t) * (d_ + 1) + Q(s) * (d_ + 1) / (2 * Q(ar.sqrt_down(d))))


def polynomial_tail_epsilon(t: float, s: float, gamma: float) -> float:
    """[GM-Duff] Prop. 3 ([NRS07] Lemmas 2.6-2.7) in (t, s) form: eps = (gamma+1)(t + s).
    With t = s = eps/(2(gamma+1)) this is the proposition's alpha = beta."""
    if not _finite(t, s, gamma):
        return INF
    return ar.up((Q(gamma) + 1) * (Q(t) + Q(s)))


def laplace_epsilon(t: float, s: float, delta: float) -> float:
    """[BS19] Thm 34 (delta < e^-2): eps = s + (e^t - 1) log(1/delta) - t."""
    if not _finite(t, s):
        return INF
    log_inv = -ar.log_down(delta)             # >= log(1/delta)
    em1 = ar.expm1_up(t)                      # >= e^t - 1
    if em1 == INF:
        return INF
    return max(0.0, ar.up(Q(s) + Q(em1) * Q(log_inv) - Q(t)))


def laplace_group_epsilon(t: float, s: float, delta: float, k: int) -> float:
    """[BS19] Thm 34 at group size k via the scaling of the smooth sensitivity:
    t_k = k t and s_k = s (e^{kt} - 1)/(e^t - 1); eps = s_k + (e^{t_k} - 1) log(1/delta) - t_k."""
    if k == 1:
        return laplace_epsilon(t, s, delta)
    if not _finite(t, s):
        return INF
    tk = Q(k) * Q(t)
    em1_k = ar.expm1_up(ar.up(tk))
    if em1_k == INF:
        return INF
    ratio = Q(em1_k) / Q(ar.expm1_down(t))      # >= (e^{kt} - 1)/(e^t - 1)
    log_inv = -ar.log_down(delta)
    return max(0.0, ar.up(Q(s) * ratio + Q(em1_k) * Q(log_inv) - tk))
# [end:one_step]


# [proof:group_map]
def group_map(noise: SmoothNoise, t: float, s: float, shape: float) -> Callable[[int], object]:
    """The privacy map k -> bound for change-one distance k (k = 0 gives 0).

    zCDP noises: rho(k) = k^2 eps^2 / 2 (group privacy of zCDP, [BS19] Lemma 11 applied k-1
    times); pure noises: eps(k) = k eps (triangle inequality of the max divergence); an
    approximate-DP noise (Laplace, whose shape is delta): (noise.group_epsilon(t, s, delta, k),
    delta) ([BS19] Thm 34 at the scaled t, s).
    """
    if noise.measure is ApproximateDivergence:
        group_epsilon = noise.group_epsilon
        assert group_epsilon is not None

        def approx_map(k: int) -> tuple[float, float]:
            if k == 0:
                return (0.0, 0.0)
            return (group_epsilon(t, s, shape, k), shape)
        return approx_map
    eps1 = noise.one_step(t, s, shape)
    if noise.measure is ZeroConcentratedDivergence:
        def zcdp_map(k: int) -> float:
            if k == 0:
                return 0.0
            if eps1 == INF:
                return INF
            return ar.up(Q(k) ** 2 * Q(eps1) ** 2 / 2)
        return zcdp_map

    def pure_map(k: int) -> float:
        if k == 0:
            return 0.0
        return ar.mul_up(k, eps1)
    return pure_map
# [end:group_map]


# ---- float inverses: the s at which a bound equals epsilon (guesses for the solver) ------

def lln_scale(epsilon: float, t: float, sigma: float) -> float:
    """s with t/sigma + e^{3 sigma^2/2} s = epsilon (<= 0 when t is too large)."""
    return ar.exp_down(-1.5 * sigma ** 2) * (epsilon - t / sigma)


def uln_scale(epsilon: float, t: float, sigma: float) -> float:
    """s with t/sigma + e^{3 sigma^2/2} sqrt(2/(pi sigma^2)) s = epsilon."""
    return (epsilon - t / sigma) / (ar.exp_up(1.5 * sigma ** 2) * math.sqrt(2 / (math.pi * sigma ** 2)))


def arsinh_scale(epsilon: float, t: float, sigma: float) -> float:
    """s with sqrt(t (t/sigma^2 + 1/sigma + 2)) + s (2/(3 sigma) + sigma/2) = epsilon."""
    return (epsilon - math.sqrt(t * (t / sigma ** 2 + 1 / sigma + 2))) / (2 / (3 * sigma) + sigma / 2)


def student_t_scale(epsilon: float, t: float, d: float) -> float:
    """s with t (d+1) + s (d+1)/(2 sqrt d) = epsilon."""
    return (epsilon - t * (d + 1)) * 2 * math.sqrt(d) / (d + 1)


def polynomial_tail_scale(epsilon: float, t: float, gamma: float) -> float:
    """s with (gamma+1)(t + s) = epsilon."""
    return epsilon / (gamma + 1) - t


def laplace_scale(epsilon: float, t: float, delta: float) -> float:
    """s with s + (e^t - 1) log(1/delta) - t = epsilon."""
    return epsilon - ar.expm1_up(t) * -ar.log_down(delta) + t
