"""Samplers for the smooth-sensitivity noise distributions.

Every draw here is a transform of the primitives in :mod:`opendp_duff.samplers`
(``uniform_open``, ``standard_normal``, ``standard_laplace``); nothing else
supplies random bits.  The distributions themselves (densities, CDFs,
variances, parameter checks) live in :mod:`opendp_duff.distributions`, whose
classes are the supported entry point: call ``LaplaceLogNormal(sigma).sample()``
rather than these functions, which assume their parameters were validated there.

Never inf, never NaN
--------------------
Each sampler computes its value in log space where the textbook formula could
overflow (``e^{sigma Y}``, ``sinh``, quantiles of very heavy tails), and then
*resamples* every draw that is not a finite number of magnitude at most a
cutoff ``c`` (the largest float, or a smaller point past which the scipy
inverse used is no longer accurate).  So each returned value has the law of the
ideal variable ``Z`` conditioned on ``|Z| <= c``; its total-variation distance
from the ideal law is ``P(|Z| > c)``, which the distribution classes bound at
construction (they refuse parameters for which it exceeds 1/2, so the loop ends
after fewer than two rounds per draw on average).  For the parameters the
privacy theorems use it is far below 1e-100.

The decision to resample looks only at the noise draw, never at data: the
samplers are called with public parameters only, and the caller scales and
shifts the returned value afterwards.

These are float-path samplers (textbook transforms of 52-bit uniforms), like
the primitives they build on (:mod:`.float_path`): their output set is a sparse,
porous set of floats, fine for simulation and plots but not for releases.  The
smooth-sensitivity measurements do not use them: they release through
:mod:`opendp_duff.samplers.exact_noise` (exact noise, exact rounding to the
nearest float).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .float_path import Size, standard_laplace, standard_normal, uniform_open

Floats = npt.NDArray[np.float64]

__all__ = [
    "sample_laplace_log_normal", "sample_uniform_log_normal", "sample_arsinh_normal",
    "sample_student_t", "sample_polynomial_tail", "sample_laplace", "sample_gaussian",
    "FLOAT_MAX", "student_t_cutoff", "polynomial_tail_cutoff",
]

FLOAT_MAX = float(np.finfo(np.float64).max)
_TINY = float(np.finfo(np.float64).tiny)
# scipy's betaincinv/stdtrit clamp their beta-quantile at the smallest normal
# float; we trust their answers only while that quantile is at least 256x larger.
_BETA_FLOOR = 256.0 * _TINY


def student_t_cutoff(d: float) -> float:
    """Largest |z| the T(d) sampler returns: where stdtrit stops being accurate.

    stdtrit(d, u) = -sqrt(d (1 - w) / w) with w = I^{-1}_{2u}(d/2, 1/2); we
    accept w >= 256 * (smallest normal float), i.e. |z| <= sqrt(d / w_min).
    """
    return min(FLOAT_MAX, math.sqrt(d / _BETA_FLOOR))


def polynomial_tail_cutoff(gamma: float) -> float:
    """Largest |z| the polynomial-tail sampler returns (same reasoning, w = 1/(1+|z|^gamma))."""
    return min(FLOAT_MAX, math.exp(-math.log(_BETA_FLOOR) / gamma))


def _resampled(draw: Callable[[int], npt.ArrayLike], size: Size | None, cutoff: float = FLOAT_MAX
               ) -> float | Floats:
    """Call ``draw(n)`` (an ndarray of n candidates), redrawing every candidate
    that is NaN, infinite, or larger than ``cutoff`` in magnitude.

    The redraw decision depends on the candidate alone, so the output is an
    i.i.d. sample of the candidate law conditioned on ``|z| <= cutoff``.
    """
    n = 1 if size is None else int(np.prod(size))
    z = np.asarray(draw(n), dtype=np.float64).reshape(n)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(z) <= cutoff)
    while bad.any():
        idx = np.flatnonzero(bad)
        fresh = np.asarray(draw(idx.size), dtype=np.float64).reshape(idx.size)
        z[idx] = fresh
        with np.errstate(invalid="ignore"):
            bad[idx] = ~(np.abs(fresh) <= cutoff)
    return float(z[0]) if size is None else z.reshape(size)


def _signed_exp(sign: Floats, log_magnitude: Floats) -> Floats:
    """sign * exp(log_magnitude); overflow gives +-inf (then resampled), never NaN."""
    with np.errstate(over="ignore"):
        return sign * np.exp(log_magnitude)


def sample_laplace_log_normal(sigma: float, size: Size | None = None) -> float | Floats:
    """LLN(sigma): X * e^{sigma Y}, X ~ Laplace(0, 1), Y ~ N(0, 1) independent.

    Computed as sign(X) * exp(log|X| + sigma Y) so that e^{sigma Y} cannot
    overflow on its own; draws beyond the largest float are resampled (module
    docstring).  Bun & Steinke, *Average-Case Averages*, Definition 17 (§3.1).
    """
    def draw(n: int) -> Floats:
        x = standard_laplace(n)
        y = standard_normal(n)
        with np.errstate(over="ignore"):
            return _signed_exp(np.sign(x), np.log(np.abs(x)) + sigma * y)
    return _resampled(draw, size)


def sample_uniform_log_normal(sigma: float, size: Size | None = None) -> float | Floats:
    """ULN(sigma): U * e^{sigma Y}, U ~ Uniform[-1, 1], Y ~ N(0, 1) independent.

    U = 2u - 1 for u on the symmetric open grid of :func:`uniform_open` (exact,
    never 0).  Bun & Steinke, Definition 21 (§3.2).
    """
    def draw(n: int) -> Floats:
        u = 2.0 * uniform_open(n) - 1.0
        y = standard_normal(n)
        with np.errstate(over="ignore"):
            return _signed_exp(np.sign(u), np.log(np.abs(u)) + sigma * y)
    return _resampled(draw, size)


def _log_sinh_over(x: Floats) -> Floats:
    """log(sinh(x) / x) for x >= 0, without overflow (0 at x = 0)."""
    small = x <= 20.0
    xs = np.where(small, x, 1.0)
    safe = np.where(xs == 0.0, 1.0, xs)
    ratio = np.where(xs == 0.0, 1.0, np.sinh(xs) / safe)
    xl = np.where(small, 21.0, x)
    with np.errstate(divide="ignore"):
        large = xl - math.log(2.0) - np.log(xl) + np.log1p(-np.exp(-2.0 * xl))
    return np.where(small, np.log(ratio), large)


def sample_arsinh_normal(sigma: float, size: Size | None = None) -> float | Floats:
    """Arsinh-normal(sigma): sinh(sigma Y) / sigma, Y ~ N(0, 1).

    Written as Y * (sinh(x) / x) with x = sigma Y, evaluated in log space, so
    tiny sigma gives Y (the limit) and large |x| cannot overflow early.
    Bun & Steinke, Theorem 25 (§3.3).
    """
    def draw(n: int) -> Floats:
        y = standard_normal(n)
        with np.errstate(over="ignore", divide="ignore"):
            x = np.abs(sigma * y)
            return _signed_exp(np.sign(y), np.log(np.abs(y)) + _log_sinh_over(x))
    return _resampled(draw, size)


def sample_student_t(d: float, size: Size | None = None) -> float | Floats:
    """Student's T(d), d > 0, by inversion: scipy.special.stdtrit(d, u).

    Draws past :func:`student_t_cutoff` (where stdtrit clamps) are resampled.
    Bun & Steinke, Definition 30 (§3.4).
    """
    from scipy import special  # imported when used: scipy is slow to load
    return _resampled(lambda n: special.stdtrit(d, uniform_open(n)), size,
                      cutoff=student_t_cutoff(d))


def _polynomial_tail_quantile(gamma: float, u: Floats) -> Floats:
    """Inverse CDF of the density proportional to 1 / (1 + |z|^gamma).

    With a = 1/gamma, b = 1 - a and p = min(u, 1 - u):
      P(Z < -x) = I_{1/(1+x^gamma)}(b, a) / 2,   P(0 < Z < x) = I_{x^gamma/(1+x^gamma)}(a, b) / 2.
    Past |z| = 1 we invert the first, inside it the second (each where its beta
    argument is at most 1/2, so well conditioned).  Very near zero, where x^gamma underflows, the CDF is
    c x (1 - x^gamma/(gamma+1) + x^{2 gamma}/(2 gamma+1) - ...), c the density
    at 0, and a fixed-point iteration inverts it.
    """
    from scipy import special  # imported when used: scipy is slow to load

    a = 1.0 / gamma
    b = 1.0 - a
    p = np.minimum(u, 1.0 - u)           # exact on the symmetric grid
    sign = np.where(u < 0.5, -1.0, 1.0)
    # |z| > 1 exactly when 2p < P(|Z| > 1) = I_{1/2}(b, a); there w < 1/2, else v <= 1/2,
    # so each branch inverts a beta CDF away from the end where its argument rounds to 1.
    tail = 2.0 * p < special.betainc(b, a, 0.5)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        w = special.betaincinv(b, a, np.where(tail, 2.0 * p, 0.0))     # w = 1/(1+x^gamma)
        x_tail = np.exp((np.log1p(-w) - np.log(w)) / gamma)
        x_tail = np.where(w >= _BETA_FLOOR, x_tail, np.inf)         # clamped: resample
        q = np.where(tail, 0.0, 1.0 - 2.0 * p)                      # P(|Z| < x)
        v = special.betaincinv(a, b, q)                             # v = x^gamma/(1+x^gamma)
        x_core = np.exp((np.log(v) - np.log1p(-v)) / gamma)
        c = gamma * math.sin(math.pi / gamma) / (2.0 * math.pi)
        x_series = q / (2.0 * c)
        for _ in range(4):
            y = x_series ** gamma
            x_series = q / (2.0 * c) / (1.0 - y / (gamma + 1.0) + y * y / (2.0 * gamma + 1.0))
        x_core = np.where(x_series ** gamma < 1e-6, x_series, x_core)
    return sign * np.where(tail, x_tail, x_core)


def sample_polynomial_tail(gamma: float, size: Size | None = None) -> float | Floats:
    """NRS polynomial tail, density proportional to 1 / (1 + |z|^gamma), gamma > 1, by inversion.

    Nissim, Raskhodnikova & Smith (2007), Lemmas 2.6-2.7; Gillenwater & Munoz
    Medina, *Duff*, Proposition 3.  gamma = 2 is the standard Cauchy.
    """
    return _resampled(lambda n: _polynomial_tail_quantile(gamma, uniform_open(n)), size,
                      cutoff=polynomial_tail_cutoff(gamma))


def sample_laplace(scale: float = 1.0, size: Size | None = None) -> float | Floats:
    """Laplace(0, scale) = scale * standard Laplace; an overflowing product is resampled."""
    with np.errstate(over="ignore"):
        return _resampled(lambda n: scale * standard_laplace(n), size)


def sample_gaussian(sigma: float = 1.0, size: Size | None = None) -> float | Floats:
    """N(0, sigma^2) = sigma * standard normal; an overflowing product is resampled."""
    with np.errstate(over="ignore"):
        return _resampled(lambda n: sigma * standard_normal(n), size)
