"""The noise distributions used with smooth sensitivity (and the classical Laplace, Gaussian).

One small frozen class per law, with ``pdf``, ``logpdf``, ``cdf``, ``sf``, ``variance`` and
``sample``, in the style of scipy.stats: the density formula is in the class docstring, the
randomness comes from :mod:`opendp_duff.samplers` (:mod:`opendp_duff.samplers.noise`).  All are
symmetric about 0; ``pdf``/``cdf`` map a float to a float and an array to an ndarray.
``sample`` is the float path (a transform of 52-bit uniforms, resampled beyond a cutoff), for
simulation; the measurements release through the exact sampler
:func:`opendp_duff.samplers.exact_noise.exact_rounded_release` instead.  The classes only require
the law to exist and be sampleable (each refuses parameters for which more than half of the
candidate draws would be resampled, see ``resample_probability``); the privacy theorems' own
conditions (sigma >= sqrt 2 for ULN, d >= 1, ...) are those of the registry
:mod:`opendp_duff.smooth.noises`, which names each law's class.

Sources: [BS19] §3 (LLN §3.1, ULN §3.2, arsinh-normal §3.3, Student's T §3.4, Gaussian §3.5,
Laplace §3.6); [NRS07] and [GM-Duff] Prop. 3 (polynomial tail).

>>> import opendp_duff as dp
>>> from opendp_duff.distributions import StudentT
>>> StudentT(3).variance()
3.0
"""
from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np

from .symmetric_law import SIGMA_MAX, SymmetricLaw
from .symmetric_law import as_array as _as_array
from .symmetric_law import d_converter, exp_or_inf, gamma_converter, gaussian_sigma_converter
from .symmetric_law import result as _result
from .symmetric_law import scale_converter, sigma_converter
from .samplers import noise as _noise

__all__ = ["LaplaceLogNormal", "UniformLogNormal", "ArsinhNormal", "StudentT",
           "PolynomialTail", "Laplace", "Gaussian", "SIGMA_MAX"]

_LOG_2PI = math.log(2.0 * math.pi)
_Y_LIMIT = 39.0  # |Y| > 39 has probability below 1e-330: zero in double precision


# ---------------------------------------------------------------- [BS19]

@attrs.frozen
class LaplaceLogNormal(SymmetricLaw):
    """Laplace log-normal LLN(sigma): Z = X e^{sigma Y}, X ~ Laplace(0, 1), Y ~ N(0, 1).

    [BS19] Def. 17 (§3.1).  For z != 0, with phi the standard
    normal density,

        f(z) = integral phi(y) * (1/2) e^{-sigma y} exp(-|z| e^{-sigma y}) dy,
        P(Z > z) = (1/2) integral phi(y) exp(-z e^{-sigma y}) dy      (z >= 0),

    and f(0) = e^{sigma^2 / 2} / 2.  Neither integral has a closed form; both
    are computed by adaptive quadrature (scipy.integrate.quad) over y, with
    break points where exp(-|z| e^{-sigma y}) turns from 0 to 1.
    Variance 2 e^{2 sigma^2}.  0 < sigma <= SIGMA_MAX.
    """

    sigma: float = attrs.field(converter=sigma_converter)

    def __attrs_post_init__(self) -> None:
        self._check_resampling("sigma", self.sigma)

    def _points(self, x: float) -> list[float]:
        s = self.sigma
        y0 = math.log(x) / s
        pts = [y0 + k / s for k in (-8.0, -3.0, -1.0, 0.0, 1.0, 3.0)] + [-8.0, 0.0, 8.0]
        return sorted({p for p in pts if -_Y_LIMIT < p < _Y_LIMIT})

    def _integral(self, x: float, with_density: bool) -> float:
        from scipy import integrate  # imported when used: scipy is slow to load
        s = self.sigma

        def integrand(y: float) -> float:
            log_t = math.log(x) - s * y            # log(x e^{-sigma y})
            t = math.exp(log_t) if log_t < 700.0 else math.inf
            log_f = -0.5 * y * y - 0.5 * _LOG_2PI - t
            if with_density:
                log_f += log_t
            return math.exp(log_f) if log_f > -745.0 else 0.0
        val, _ = integrate.quad(integrand, -_Y_LIMIT, _Y_LIMIT, points=self._points(x),
                                limit=400, epsabs=0.0, epsrel=1e-11)
        return val

    def _sf_pos(self, x: Any) -> Any:
        x = _as_array(x)
        out = np.empty(x.shape)
        for i, xi in np.ndenumerate(x):
            out[i] = 0.5 if xi == 0 else xi if np.isnan(xi) else 0.5 * self._integral(float(xi), False)
        return out

    def logpdf(self, z: Any) -> Any:
        """log f(z)."""
        z = _as_array(z)
        out = np.empty(z.shape)
        for i, zi in np.ndenumerate(np.abs(z)):
            if zi == 0:
                out[i] = self.sigma ** 2 / 2 - math.log(2.0)
            elif np.isnan(zi):
                out[i] = zi
            else:
                val = self._integral(float(zi), True) / (2.0 * zi)   # E[t e^{-t}] / (2|z|)
                out[i] = math.log(val) if val > 0 else -math.inf
        return _result(z, out)

    def variance(self) -> float:
        """2 e^{2 sigma^2} ([BS19] §3.1)."""
        return 2.0 * exp_or_inf(2.0 * self.sigma ** 2)

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_laplace_log_normal(self.sigma, size)


@attrs.frozen
class UniformLogNormal(SymmetricLaw):
    """Uniform log-normal ULN(sigma): Z = U e^{sigma Y}, U ~ Uniform[-1, 1], Y ~ N(0, 1).

    [BS19] Def. 21 (§3.2).  Closed forms (derived by integrating
    over Y; Phibar is the standard normal survival function, y0 = log|z| / sigma):

        f(z) = (1/2) e^{sigma^2/2} Phibar(y0 + sigma),
        P(Z > z) = (1/2) [Phibar(y0) - z e^{sigma^2/2} Phibar(y0 + sigma)]   (z > 0).

    Variance e^{2 sigma^2} / 3.  0 < sigma <= SIGMA_MAX (Theorem 22 needs
    sigma >= sqrt(2); the measurement enforces that).
    """

    sigma: float = attrs.field(converter=sigma_converter)

    def __attrs_post_init__(self) -> None:
        self._check_resampling("sigma", self.sigma)

    def _log_y0(self, x: Any) -> tuple[Any, Any]:
        with np.errstate(divide="ignore"):
            return np.log(x), np.log(x) / self.sigma

    def logpdf(self, z: Any) -> Any:
        """log f(z) = sigma^2/2 - log 2 + log Phibar(log|z|/sigma + sigma)."""
        from scipy import special  # imported when used: scipy is slow to load
        z = _as_array(z)
        _, y0 = self._log_y0(np.abs(z))
        return _result(z, self.sigma ** 2 / 2 - math.log(2.0) + special.log_ndtr(-(y0 + self.sigma)))

    def _sf_pos(self, x: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        s = self.sigma
        log_x, y0 = self._log_y0(_as_array(x))
        a = special.log_ndtr(-y0)                                   # log Phibar(y0)
        with np.errstate(invalid="ignore", under="ignore"):         # x = inf gives inf - inf
            b = log_x + s * s / 2 + special.log_ndtr(-(y0 + s))     # log of the subtracted term
            out = 0.5 * np.exp(a) * -np.expm1(b - a)
        return np.where(log_x == -np.inf, 0.5, np.where(a == -np.inf, 0.0, out))

    def variance(self) -> float:
        """e^{2 sigma^2} / 3 ([BS19] §3.2)."""
        return exp_or_inf(2.0 * self.sigma ** 2) / 3.0

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_uniform_log_normal(self.sigma, size)


@attrs.frozen
class ArsinhNormal(SymmetricLaw):
    """Arsinh-normal(sigma): Z = sinh(sigma Y) / sigma, Y ~ N(0, 1).

    [BS19] §3.3 (Thm 25, Lemma 26):

        f(z) = exp(-arsinh(sigma z)^2 / (2 sigma^2)) / sqrt(2 pi (1 + sigma^2 z^2)),
        P(Z <= z) = Phi(arsinh(sigma z) / sigma).

    Variance (e^{2 sigma^2} - 1) / (2 sigma^2).  0 < sigma <= SIGMA_MAX.
    """

    sigma: float = attrs.field(converter=sigma_converter)

    def __attrs_post_init__(self) -> None:
        self._check_resampling("sigma", self.sigma)

    def _y_and_log_jacobian(self, z: Any) -> tuple[Any, Any]:
        """y = arsinh(sigma z) / sigma and log sqrt(1 + (sigma z)^2), even when sigma z overflows."""
        s = self.sigma
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            w = s * z
            big = ~np.isfinite(w)
            log_w = math.log(s) + np.log(np.abs(z))      # log|sigma z|, used only where w overflows
            y = np.where(big, np.sign(z) * (math.log(2.0) + log_w), np.arcsinh(np.where(big, 0.0, w))) / s
            jac = np.where(big, log_w, np.log(np.hypot(1.0, np.where(big, 0.0, w))))
        return y, jac

    def logpdf(self, z: Any) -> Any:
        z = _as_array(z)
        y, jac = self._y_and_log_jacobian(z)
        return _result(z, -0.5 * _LOG_2PI - 0.5 * y * y - jac)

    def _sf_pos(self, x: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        return special.ndtr(-self._y_and_log_jacobian(_as_array(x))[0])

    def variance(self) -> float:
        """(e^{2 sigma^2} - 1) / (2 sigma^2) ([BS19] §3.3)."""
        s2 = self.sigma ** 2
        with np.errstate(over="ignore"):
            return float(np.expm1(2.0 * s2) / (2.0 * s2))

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_arsinh_normal(self.sigma, size)


@attrs.frozen
class StudentT(SymmetricLaw):
    """Student's T(d), d > 0 degrees of freedom (need not be an integer).

    [BS19] Def. 30 (§3.4):

        f(z) = Gamma((d+1)/2) / (sqrt(pi d) Gamma(d/2)) * (1 + z^2/d)^{-(d+1)/2},
        P(Z <= -x) = I_{d/(d+x^2)}(d/2, 1/2) / 2   (x >= 0, I the regularized incomplete beta).

    Variance d/(d-2) for d > 2; E[Z^2] is infinite for d <= 2 and variance()
    returns inf.  d = 1 is the Cauchy distribution.  The measurements need d >= 1.
    """

    d: float = attrs.field(converter=d_converter)

    def __attrs_post_init__(self) -> None:
        self._check_resampling("d", self.d)

    def _cutoff(self) -> float:
        return _noise.student_t_cutoff(self.d)

    def logpdf(self, z: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        d = self.d
        z = _as_array(z)
        const = special.gammaln((d + 1) / 2) - special.gammaln(d / 2) - 0.5 * math.log(math.pi * d)
        with np.errstate(over="ignore", divide="ignore"):
            r = (z / math.sqrt(d)) ** 2
            # (d+1)/2 * log(1 + r), written to stay finite when r overflows
            log1p_r = np.where(r < 1e300, np.log1p(np.minimum(r, 1e300)),
                               2.0 * (np.log(np.abs(z)) - 0.5 * math.log(d)))
        return _result(z, const - (d + 1) / 2 * log1p_r)

    def _sf_pos(self, x: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        d = self.d
        with np.errstate(over="ignore"):
            r = (_as_array(x) / math.sqrt(d)) ** 2
        # P(Z > x) = I_{1/(1+r)}(d/2, 1/2) / 2 = 1/2 - I_{r/(1+r)}(1/2, d/2) / 2, r = x^2/d.
        # The first is accurate when it is small or when r >= 1; otherwise (near x = 0) its
        # argument rounds towards 1, and the second, 1/2 minus a small number, is accurate.
        with np.errstate(invalid="ignore"):
            tail = 0.5 * special.betainc(d / 2, 0.5, 1.0 / (1.0 + r))
            near = 0.5 - 0.5 * special.betainc(0.5, d / 2, r / (1.0 + r))
        return np.where((tail < 0.25) | (r >= 1.0), tail, near)

    def variance(self) -> float:
        """d / (d - 2) for d > 2, else inf."""
        return self.d / (self.d - 2.0) if self.d > 2 else math.inf

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_student_t(self.d, size)


@attrs.frozen
class PolynomialTail(SymmetricLaw):
    """The NRS polynomial-tail distribution, density proportional to 1 / (1 + |z|^gamma), gamma > 1.

    [NRS07] Lemmas 2.6-2.7; [GM-Duff] Prop. 3.  With a = 1/gamma:

        f(z) = c / (1 + |z|^gamma),   c = gamma sin(pi/gamma) / (2 pi),
        P(Z > x) = I_{1/(1+x^gamma)}(1 - a, a) / 2     (x >= 0),

    the second by substituting v = u^gamma / (1 + u^gamma) in the integral of f
    over [0, x], which turns it into an incomplete beta integral
    (B(a, 1 - a) = pi / sin(pi a)).  gamma = 2 is the standard Cauchy.
    Variance sin(pi/gamma) / sin(3 pi/gamma) for gamma > 3, inf otherwise.
    """

    gamma: float = attrs.field(converter=gamma_converter)

    def __attrs_post_init__(self) -> None:
        self._check_resampling("gamma", self.gamma)

    @property
    def normalizer(self) -> float:
        """c = gamma sin(pi/gamma) / (2 pi), the density at 0."""
        return self.gamma * math.sin(math.pi / self.gamma) / (2.0 * math.pi)

    def _cutoff(self) -> float:
        return _noise.polynomial_tail_cutoff(self.gamma)

    def logpdf(self, z: Any) -> Any:
        g = self.gamma
        az = np.abs(_as_array(z))
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            lz = np.log(az)
            # log(1 + |z|^g), stable for large and small |z|
            log_den = np.where(lz > 0, g * lz + np.log1p(np.exp(-g * lz)), np.log1p(np.exp(g * lz)))
        return _result(z, math.log(self.normalizer) - log_den)

    def _sf_pos(self, x: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        g = self.gamma
        a = 1.0 / g
        x = _as_array(x)
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            lx = np.log(x)
            y = np.exp(g * lx)                                     # x^gamma (may be inf or 0)
            w = np.where(lx > 0, np.exp(-g * lx - np.log1p(np.exp(-g * lx))), 1.0 / (1.0 + y))
            tail = 0.5 * special.betainc(1.0 - a, a, w)
            # near 0, x^gamma underflows; P(0 < Z < x) = c x (1 - y/(g+1) + y^2/(2g+1) - ...)
            core = 0.5 - self.normalizer * x * (1.0 - y / (g + 1.0) + y * y / (2.0 * g + 1.0))
        return np.where(y < 1e-6, core, tail)

    def variance(self) -> float:
        """sin(pi/gamma) / sin(3 pi/gamma) for gamma > 3, inf otherwise."""
        g = self.gamma
        return math.sin(math.pi / g) / math.sin(3.0 * math.pi / g) if g > 3 else math.inf

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_polynomial_tail(self.gamma, size)


# ---------------------------------------------------------------- classical

@attrs.frozen
class Laplace(SymmetricLaw):
    """Laplace(0, scale): f(z) = e^{-|z|/scale} / (2 scale).  Variance 2 scale^2.

    Used with smooth sensitivity by [NRS07] and [BS19] §3.6 (Thm 34).
    """

    scale: float = attrs.field(default=1.0, converter=scale_converter)

    def logpdf(self, z: Any) -> Any:
        z = _as_array(z)
        return _result(z, -np.abs(z) / self.scale - math.log(2.0 * self.scale))

    def _sf_pos(self, x: Any) -> Any:
        return 0.5 * np.exp(-_as_array(x) / self.scale)

    def variance(self) -> float:
        return 2.0 * self.scale ** 2 if self.scale < 1e154 else math.inf

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_laplace(self.scale, size)


@attrs.frozen
class Gaussian(SymmetricLaw):
    """Gaussian N(0, sigma^2): f(z) = e^{-z^2/(2 sigma^2)} / sqrt(2 pi sigma^2).  Variance sigma^2.

    [BS19] §3.5 (Lemma 33, truncated CDP).
    """

    sigma: float = attrs.field(default=1.0, converter=gaussian_sigma_converter)

    def logpdf(self, z: Any) -> Any:
        z = _as_array(z) / self.sigma
        return _result(z, -0.5 * z * z - 0.5 * _LOG_2PI - math.log(self.sigma))

    def _sf_pos(self, x: Any) -> Any:
        from scipy import special  # imported when used: scipy is slow to load
        return special.ndtr(-_as_array(x) / self.sigma)

    def variance(self) -> float:
        return self.sigma ** 2 if self.sigma < 1e154 else math.inf

    def sample(self, size: Any = None) -> Any:
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_gaussian(self.sigma, size)
