"""Parameters for the smooth-sensitivity measurements, chosen from a budget without the data.

Named ``parameters`` because it holds parameter tuning only, apart from the measurements
(``dp.m`` holds constructors only): :func:`smooth_parameters` turns a budget into the
``t, s, noise, shape`` keyword arguments of ``make_smooth_median`` / ``make_smooth_trimmed_mean``;
:func:`choose_smoothing` picks t on a public reference dataset; :func:`smooth_variance_lower_bound`
is [BS19] Prop. 36, a plotting aid.  Re-exported as ``dp.smooth``.

**Choosing t.**  [BS19] §7 and [GM-Duff] §6 pick t by minimising the noise variance *on the
data being released*.  That choice is a function of the private data which no privacy theorem
covers, so we never do it: :func:`choose_smoothing` minimises the same objective on a reference
dataset that carries no private information.
"""
from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

from .. import _validate as v
from .. import arithmetic as ar
from ..arithmetic import Q
from ..errors import MakeError
from ..measures import ZeroConcentratedDivergence
from .noises import SmoothNoise, lookup, resolve
from .sensitivity import (smooth_sensitivity_median, smooth_sensitivity_rounding_slack,
                          smooth_sensitivity_trimmed_mean)

__all__ = ["smooth_parameters", "choose_smoothing", "smooth_variance_lower_bound"]


# ---- solvers --------------------------------------------------------------------------

def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def largest_float(ok: Callable[[float], bool], guess: float) -> Optional[float]:
    """The largest positive float x with ok(x), for a predicate ok that holds on an initial
    segment of the positive floats (ok(x) and 0 < y < x imply ok(y)); None if it holds nowhere.
    Found by a galloping search from ``guess`` over the bit patterns (ordered as the floats),
    then bisection: the answer does not depend on the guess."""
    top = _bits(math.inf)                          # ok(inf) is taken as False
    g = _bits(guess) if guess > 0 and not math.isnan(guess) else 1
    g = min(max(g, 1), top - 1)
    if ok(_float(g)):
        lo, step = g, 1
        while lo + step < top and ok(_float(lo + step)):
            lo, step = lo + step, 2 * step
        hi = min(lo + step, top)
    else:
        hi, step = g, 1
        while hi - step >= 1 and not ok(_float(hi - step)):
            hi, step = hi - step, 2 * step
        if hi - step < 1:
            if not ok(_float(1)):
                return None
            lo = 1
        else:
            lo = hi - step
    while hi - lo > 1:                             # ok(lo), not ok(hi)
        mid = (lo + hi) // 2
        if ok(_float(mid)):
            lo = mid
        else:
            hi = mid
    return _float(lo)


def fit_scale(noise: SmoothNoise, epsilon: float, t: float, shape: float) -> float:
    """The largest float s with noise.one_step(t, s, shape) <= epsilon (the bound is
    non-decreasing in s); MakeError if no s > 0 qualifies."""
    s = largest_float(lambda x: noise.one_step(t, x, shape) <= epsilon, noise.scale_guess(epsilon, t, shape))
    if s is None:
        raise MakeError(f"t ({t!r}) is too large for the budget epsilon={epsilon!r} with noise {noise.name!r}: "
                        "no positive s meets it; choose a smaller t")
    return s


def zcdp_epsilon_from_rho(rho: float) -> float:
    """The largest float eps with eps^2/2 <= rho (so a map of up(eps^2/2) never exceeds rho)."""
    eps = ar.sqrt_down(Fraction(2) * Q(rho))
    while ar.up(Q(eps) ** 2 / 2) > rho:
        eps = ar.next_down(eps)
    return eps


def _target_epsilon(noise: SmoothNoise, epsilon: Any, rho: Any, delta: Any) -> tuple[float, float]:
    """``(eps, eps_fit)``: the one-step eps the budget names (for the shape), and the largest
    float the one-step bound may reach so that map(1) meets the budget exactly.  For a zCDP
    noise the budget is rho, or epsilon read as rho = down(epsilon^2/2) (at most the float
    epsilon**2/2, so ``check(1, epsilon**2/2)`` holds), and eps_fit = the largest float with
    up(eps_fit^2/2) <= rho."""
    if delta is not None and noise.shape_name != "delta":
        raise MakeError(f"delta ({delta!r}) only applies to noise 'laplace'")
    if noise.measure is ZeroConcentratedDivergence:
        if (epsilon is None) == (rho is None):
            raise MakeError(f"give exactly one of epsilon ({epsilon!r}) and rho ({rho!r}) for noise {noise.name!r}")
        if rho is not None:
            eps = zcdp_epsilon_from_rho(v.number("rho", rho, positive=True))
            return eps, eps
        eps = v.number("epsilon", epsilon, positive=True)
        return eps, zcdp_epsilon_from_rho(ar.down(Q(eps) ** 2 / 2))
    if rho is not None:
        raise MakeError(f"rho ({rho!r}) only applies to the zCDP noises ('lln', 'uln', 'arsinh_normal')")
    if epsilon is None:
        raise MakeError(f"epsilon is required for noise {noise.name!r}")
    eps = v.number("epsilon", epsilon, positive=True)
    return eps, eps


def _shape(noise: SmoothNoise, eps: float, t: float, shapes: dict[str, Any]) -> float:
    """The shape given (validated); else the variance-minimising one; else the default."""
    if noise.tuned_shape is not None and all(x is None for x in shapes.values()):
        return noise.check_shape(noise.tuned_shape(eps, t))
    shape = resolve(noise, **shapes)[1]   # raises when a required shape is missing
    assert shape is not None
    return shape


# ---- public ------------------------------------------------------------------------------

# [proof:smooth_parameters]
def smooth_parameters(noise: str, *, size: int, t: float, epsilon: Optional[float] = None,
                      rho: Optional[float] = None, delta: Optional[float] = None, sigma: Optional[float] = None,
                      d: Optional[float] = None, gamma: Optional[float] = None) -> dict[str, Any]:
    """Keyword arguments ``dict(t=, s=, noise=, <shape>=)`` for make_smooth_* meeting a budget at d_in = 1.

    s is the largest float whose rounded-up map meets the budget exactly (map(1) <= the budget,
    never above it by an ulp).  Shapes minimise the variance as in [BS19] §7: LLN solves the
    cubic 5 (eps/t) sigma^3 - 5 sigma^2 - 1 = 0 ([BS19] §3.1.1), ULN sigma = sqrt 2,
    arsinh-normal sigma = 2/sqrt 3, Student's T d = 3, polynomial tail gamma = 2; pass a shape
    to override.  ``t`` must not depend on the private data: pass your own, or one from
    :func:`choose_smoothing`.

    Args:
        noise: a name of :data:`opendp_duff.smooth.noises.NOISES`.
        size: the public dataset size n >= 1 (the maps use t + smooth_sensitivity_rounding_slack(n)).
        t: the smoothing, t > 0.
        epsilon: pure noises: epsilon; Laplace: epsilon with ``delta``; zCDP noises: rho = epsilon^2/2
            (rounded down).
        rho: zCDP noises only, instead of epsilon.
        delta: Laplace only, in (0, e^-2).
        sigma: LLN, ULN or arsinh-normal shape (optional).
        d: Student's T degrees of freedom, >= 1 (optional).
        gamma: polynomial-tail exponent, > 1 (optional).

    Returns:
        ``{"t": t, "s": s, "noise": noise, <shape name>: shape}``.

    References: [BS19] §3, §7; [GM-Duff] Prop. 3.

    Example:
        >>> import opendp_duff as dp
        >>> p = dp.smooth.smooth_parameters("student_t", size=1001, epsilon=1.0, t=0.05)
        >>> p["d"], round(p["s"], 6)
        (3.0, 0.69282)
    """
    record = lookup(noise)
    n = v.number("size", size, integer=True, positive=True)
    t = v.number("t", t, positive=True)
    t_map = ar.add_up(t, smooth_sensitivity_rounding_slack(n))  # as the measurements' maps
    eps, eps_fit = _target_epsilon(record, epsilon, rho, delta)
    shape = _shape(record, eps, t, dict(sigma=sigma, d=d, gamma=gamma, delta=delta))
    s = fit_scale(record, eps_fit, t_map, shape)
    return {"t": t, "s": s, "noise": record.name, record.shape_name: shape}
# [end:smooth_parameters]


def _reference(n: int, bounds: tuple[float, float], reference: Optional[npt.ArrayLike]) -> np.ndarray:
    a, b = bounds
    if reference is None:
        return a + (b - a) * (np.arange(1, n + 1) / (n + 1))
    ref = np.asarray(reference, dtype=np.float64).reshape(-1)
    if ref.size == 0 or not np.all(np.isfinite(ref)):
        raise MakeError("reference must be a non-empty array of finite numbers")
    ref = np.clip(np.sort(ref), a, b)
    if ref.size == n:
        return ref
    return np.quantile(ref, np.arange(1, n + 1) / (n + 1))


# [proof:choose_smoothing]
def choose_smoothing(noise: str, size: int, bounds: tuple[float, float], *, epsilon: Optional[float] = None,
                     rho: Optional[float] = None, delta: Optional[float] = None, statistic: str = "median",
                     m: int = 0, reference: Optional[npt.ArrayLike] = None,
                     grid: Optional[npt.ArrayLike] = None) -> float:
    """A smoothing t chosen WITHOUT the private data: the t minimising the noise variance
    (S^t(ref)/s(t))^2 Var(Z) on a reference dataset of the same public size and bounds.

    The papers tune t on the private data itself ([BS19] §7; [GM-Duff] §6); that makes t a
    function of the data outside any privacy proof, so we don't.  The default reference is only
    a good stand-in when the data spread over much of [a, b].  With loose bounds around
    concentrated data (say [-50, 1050] for data near N(0, 1)) its gaps ~ (b - a)/n are far wider
    than the data's, and the t that suits it can give the real data a much larger noise S^t/s
    (about 8 times larger in the example below).  Then pass ``reference=``: a PUBLIC sample (or
    synthetic data from a public model) that resembles the data, never the private data.

    Args:
        noise: a name of :data:`opendp_duff.smooth.noises.NOISES`.
        size: the public dataset size n >= 1.
        bounds: the public (a, b).
        epsilon: the budget, as for :func:`smooth_parameters`.
        rho: zCDP noises only, instead of epsilon.
        delta: Laplace only, in (0, e^-2).
        statistic: ``"median"`` or ``"trimmed_mean"``.
        m: the trimming of the trimmed mean, 0 <= m < n/2.
        reference: None (the evenly spaced points a + (b - a) i/(n + 1)) or a public sample,
            clipped to the bounds and re-quantiled to ``size`` points.
        grid: the candidate t (default: 48 log-spaced values from 1e-4 eps up to the largest
            feasible t).

    Returns:
        The chosen t (a float of the grid).

    References: [BS19] §7; [GM-Duff] §6.

    Example:
        >>> import numpy as np
        >>> import opendp_duff as dp
        >>> t = dp.smooth.choose_smoothing("lln", 101, (0.0, 1.0), epsilon=1.0)
        >>> 0 < t < 1
        True
        >>> n, bounds, budget = 201, (-50.0, 1050.0), dict(epsilon=1.0, delta=1e-3)  # loose bounds
        >>> public = np.random.default_rng(0).standard_normal(n)   # public data resembling the private
        >>> t_default = dp.smooth.choose_smoothing("laplace", n, bounds, **budget)
        >>> t_public = dp.smooth.choose_smoothing("laplace", n, bounds, reference=public, **budget)
        >>> x = np.sort(np.random.default_rng(7).standard_normal(n))   # stands in for private N(0, 1) data
        >>> def noise_scale(t):  # S^t(x) / s: the scale of the noise the release would add
        ...     p = dp.smooth.smooth_parameters("laplace", size=n, t=t, **budget)
        ...     return dp.smooth.smooth_sensitivity_median(x, t, bounds) / p["s"]
        >>> bool(noise_scale(t_public) < noise_scale(t_default) / 5)
        True
    """
    record = lookup(noise)
    n = v.number("size", size, integer=True, positive=True)
    bounds = v.bounds("bounds", bounds)
    statistic = v.choice("statistic", statistic, ("median", "trimmed_mean"))
    m = v.number("m", m, integer=True, nonneg=True)
    if statistic == "trimmed_mean" and not 2 * m < n:
        raise MakeError(f"m ({m!r}) must be less than n/2 (n = {n})")
    eps, _ = _target_epsilon(record, epsilon, rho, delta)
    # a fixed shape (the default, or Laplace's delta, required) unless the shape is tuned with t
    fixed = None if record.tuned_shape is not None else resolve(record, delta=delta)[1]
    ref = _reference(n, bounds, reference)

    def feasible_scale(t: float) -> tuple[float, float]:
        shape = fixed if fixed is not None else record.tuned_shape(eps, t)  # type: ignore[misc]
        return shape, record.scale_guess(eps, t, shape)

    if grid is None:
        hi = eps
        while feasible_scale(hi)[1] <= 0 and hi > 1e-12:
            hi /= 1.25
        grid = np.geomspace(max(hi * 1e-4, 1e-12), hi, 48)
    best_t, best_val = None, math.inf
    for t in np.asarray(grid, dtype=np.float64).reshape(-1).tolist():
        shape, s = feasible_scale(t)
        if not (t > 0 and s > 0):
            continue
        if statistic == "median":
            S = smooth_sensitivity_median(ref, t, bounds)
        else:
            S = smooth_sensitivity_trimmed_mean(ref, t, bounds, m=m)
        # Var(Z) matters only where the tuned shape moves it with t (a constant factor does not)
        factor = record.variance(shape) if fixed is None and record.variance is not None else 1.0
        val = (float(S) / s) ** 2 * factor
        if val < best_val:
            best_t, best_val = t, val
    if best_t is None:
        raise MakeError(f"no t in the grid is feasible for the budget epsilon={eps!r}")
    return best_t
# [end:choose_smoothing]


def smooth_variance_lower_bound(epsilon: float, t: float) -> float:
    """[BS19] Prop. 36: L(eps, t) with Var(S/s Z) >= S^2 L(eps, t) for ANY noise Z that gives
    eps^2/2-zCDP when scaled to t-smooth sensitivity (max over k, l).  For plots.

    Args:
        epsilon: eps > 0 (the release is eps^2/2-zCDP).
        t: the smoothing, t > 0.

    Returns:
        L(eps, t) >= 0, a float (not a privacy quantity).

    References: [BS19] Prop. 36.

    Example:
        >>> import opendp_duff as dp
        >>> dp.smooth.smooth_variance_lower_bound(1.0, 0.1) > 0
        True
    """
    return variance_lower_bound(v.number("epsilon", epsilon, positive=True), v.number("t", t, positive=True))


_MAX_K = 400


def variance_lower_bound(epsilon: float, t: float, max_k: Optional[int] = None) -> float:
    """[BS19] Prop. 36 with s = 1, maximised over k, l >= 0, k + l > 0 (up to ``max_k``, by
    default enough for e^{eps^2 k^2} to dominate).  A float plotting aid."""
    if not (epsilon > 0 and t > 0 and math.isfinite(epsilon) and math.isfinite(t)):
        raise MakeError(f"epsilon ({epsilon!r}) and t ({t!r}) must be positive and finite")
    if max_k is None:
        # The max over a subset of (k, l) is still a valid lower bound, so the cap (which keeps
        # the O(max_k^2) loop cheap for tiny epsilon) costs tightness only, never validity.
        max_k = max(2, min(_MAX_K, int(math.ceil(6 / epsilon)) + 2))
    best = 0.0
    one_minus_et = -math.expm1(-t)  # 1 - e^{-t}, > 0 even for a subnormal t
    for k in range(0, max_k + 1):
        for ell in range(0, max_k + 1 - k):
            if k + ell == 0:
                continue
            try:
                denom = math.expm1(epsilon ** 2 * (k + ell) ** 2)
                num = (math.exp((k + ell - 1) * t) - math.exp((ell - 1) * t) + math.expm1(ell * t)) ** 2
                val = (num / denom - math.expm1(ell * t) ** 2) / one_minus_et ** 2
            except (OverflowError, ZeroDivisionError):
                continue  # this (k, l) gives no finite bound; the others still do
            if math.isfinite(val):
                best = max(best, val)
    return best
