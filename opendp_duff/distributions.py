"""The noise distributions used with smooth sensitivity.

One small frozen class per distribution, each with ``pdf``, ``logpdf``,
``cdf``, ``sf``, ``variance`` and ``sample``, in the style of scipy.stats:
the density formula is in the class docstring, the randomness comes from
:mod:`opendp_duff.samplers` (see :mod:`opendp_duff.samplers.noise`).  All are
symmetric about 0.  ``pdf``/``cdf`` accept a float (and return a float) or an
array (and return an ndarray).  ``sample`` is the float path (a transform of
52-bit uniforms, resampled beyond a cutoff): an approximation of the law, used
for simulation; the measurements release through the exact sampler
:func:`opendp_duff.samplers.exact_noise.exact_rounded_release` instead.

Sources: Bun & Steinke, *Average-Case Averages: Private Algorithms for Smooth
Sensitivity and Mean Estimation*, §3 (LLN §3.1, ULN §3.2, arsinh-normal §3.3,
Student's T §3.4, Gaussian §3.5, Laplace §3.6); Nissim, Raskhodnikova & Smith
(2007) and Gillenwater & Munoz Medina, *Duff*, Proposition 3 (polynomial tail).

The privacy theorems add conditions of their own (for instance sigma >= sqrt(2)
for ULN, d >= 1 in the measurements); the measurement constructors enforce
those.  The classes here only require the distribution to exist and be
sampleable: every class refuses parameters for which the sampler would have to
resample more than half of its candidate draws (see ``resample_probability``).

>>> import opendp_duff as dp
>>> from opendp_duff.distributions import StudentT
>>> StudentT(3).variance()
3.0
"""
import math
from typing import ClassVar

import attrs
import numpy as np
from scipy import integrate, special

from . import _validate as v
from .errors import MakeError
from .samplers import noise as _noise

__all__ = ["LaplaceLogNormal", "UniformLogNormal", "ArsinhNormal", "StudentT",
           "PolynomialTail", "Laplace", "Gaussian", "SIGMA_MAX"]

SIGMA_MAX = 100.0
"""Largest shape sigma accepted for LLN, ULN and arsinh-normal.

Beyond it the distributions are of no use (their variances e^{2 sigma^2} and
the privacy terms e^{3 sigma^2 / 2} are already infinite in floating point for
sigma > 22), and capping keeps the quadratures and the resampling well
conditioned: at sigma = 100 a draw is resampled with probability below 1e-11.
"""

_LOG_2PI = math.log(2.0 * math.pi)
_Y_LIMIT = 39.0  # |Y| > 39 has probability below 1e-330: zero in double precision


# ---------------------------------------------------------------- helpers

def _sigma(name):
    def convert(value):
        value = v.number(name, value, positive=True)
        if value > SIGMA_MAX:
            raise MakeError(f"{name} ({value!r}) must be at most {SIGMA_MAX}")
        return value
    return convert


def _positive(name):
    return lambda value: v.number(name, value, positive=True)


def _gamma(value):
    value = v.number("gamma", value)
    if not value > 1:
        raise MakeError(f"gamma ({value!r}) must be greater than 1")
    return value


def _as_array(z):
    return np.asarray(z, dtype=np.float64)


def _result(z, out):
    return float(out) if np.ndim(z) == 0 else out


def _exp(x):
    """float exp that returns inf instead of raising OverflowError."""
    with np.errstate(over="ignore"):
        return float(np.exp(x))


class _Symmetric:
    """Shared methods; subclasses define ``_sf_pos(x)`` (P(Z > x), x >= 0, array)
    and ``logpdf``."""

    def pdf(self, z):
        """Density at z."""
        with np.errstate(under="ignore"):
            return _result(z, np.exp(_as_array(self.logpdf(z))))

    def sf(self, z):
        """Survival function P(Z > z); accurate in the upper tail."""
        z = _as_array(z)
        pos = np.abs(z)
        tail = self._sf_pos(pos)
        return _result(z, np.where(z >= 0, tail, 1.0 - tail))

    def cdf(self, z):
        """P(Z <= z) = sf(-z) by symmetry; accurate in the lower tail."""
        return self.sf(-_as_array(z)) if np.ndim(z) else float(self.sf(-float(z)))

    def resample_probability(self):
        """P(|Z| > cutoff): the chance that the sampler redraws a candidate.

        It is also the total-variation distance between the sampler's law
        (Z conditioned on |Z| <= cutoff) and the ideal law.
        """
        return float(min(1.0, 2.0 * self._sf_pos(np.array([self._cutoff()]))[0]))

    def _cutoff(self):
        return _noise.FLOAT_MAX

    def _check_resampling(self, name, value):
        if not self.resample_probability() <= 0.5:
            raise MakeError(
                f"{name} ({value!r}) puts more than half of the mass beyond "
                f"{self._cutoff():.3g}, past which the sampler cannot represent draws")


# ---------------------------------------------------------------- Bun & Steinke

@attrs.frozen
class LaplaceLogNormal(_Symmetric):
    """Laplace log-normal LLN(sigma): Z = X e^{sigma Y}, X ~ Laplace(0, 1), Y ~ N(0, 1).

    Bun & Steinke, Definition 17 (§3.1).  For z != 0, with phi the standard
    normal density,

        f(z) = integral phi(y) * (1/2) e^{-sigma y} exp(-|z| e^{-sigma y}) dy,
        P(Z > z) = (1/2) integral phi(y) exp(-z e^{-sigma y}) dy      (z >= 0),

    and f(0) = e^{sigma^2 / 2} / 2.  Neither integral has a closed form; both
    are computed by adaptive quadrature (scipy.integrate.quad) over y, with
    break points where exp(-|z| e^{-sigma y}) turns from 0 to 1.
    Variance 2 e^{2 sigma^2}.  0 < sigma <= SIGMA_MAX.
    """

    sigma: float = attrs.field(converter=_sigma("sigma"))
    name: ClassVar[str] = "laplace_log_normal"

    def __attrs_post_init__(self):
        self._check_resampling("sigma", self.sigma)

    def _points(self, x):
        s = self.sigma
        y0 = math.log(x) / s
        pts = [y0 + k / s for k in (-8.0, -3.0, -1.0, 0.0, 1.0, 3.0)] + [-8.0, 0.0, 8.0]
        return sorted({p for p in pts if -_Y_LIMIT < p < _Y_LIMIT})

    def _integral(self, x, with_density):
        s = self.sigma

        def integrand(y):
            log_t = math.log(x) - s * y            # log(x e^{-sigma y})
            t = math.exp(log_t) if log_t < 700.0 else math.inf
            log_f = -0.5 * y * y - 0.5 * _LOG_2PI - t
            if with_density:
                log_f += log_t
            return math.exp(log_f) if log_f > -745.0 else 0.0
        val, _ = integrate.quad(integrand, -_Y_LIMIT, _Y_LIMIT, points=self._points(x),
                                limit=400, epsabs=0.0, epsrel=1e-11)
        return val

    def _sf_pos(self, x):
        x = _as_array(x)
        out = np.empty(x.shape)
        for i, xi in np.ndenumerate(x):
            out[i] = 0.5 if xi == 0 else xi if np.isnan(xi) else 0.5 * self._integral(float(xi), False)
        return out

    def logpdf(self, z):
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

    def variance(self):
        """2 e^{2 sigma^2} (Bun & Steinke §3.1)."""
        return 2.0 * _exp(2.0 * self.sigma ** 2)

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_laplace_log_normal(self.sigma, size)


@attrs.frozen
class UniformLogNormal(_Symmetric):
    """Uniform log-normal ULN(sigma): Z = U e^{sigma Y}, U ~ Uniform[-1, 1], Y ~ N(0, 1).

    Bun & Steinke, Definition 21 (§3.2).  Closed forms (derived by integrating
    over Y; Phibar is the standard normal survival function, y0 = log|z| / sigma):

        f(z) = (1/2) e^{sigma^2/2} Phibar(y0 + sigma),
        P(Z > z) = (1/2) [Phibar(y0) - z e^{sigma^2/2} Phibar(y0 + sigma)]   (z > 0).

    Variance e^{2 sigma^2} / 3.  0 < sigma <= SIGMA_MAX (Theorem 22 needs
    sigma >= sqrt(2); the measurement enforces that).
    """

    sigma: float = attrs.field(converter=_sigma("sigma"))
    name: ClassVar[str] = "uniform_log_normal"

    def __attrs_post_init__(self):
        self._check_resampling("sigma", self.sigma)

    def _log_y0(self, x):
        with np.errstate(divide="ignore"):
            return np.log(x), np.log(x) / self.sigma

    def logpdf(self, z):
        """log f(z) = sigma^2/2 - log 2 + log Phibar(log|z|/sigma + sigma)."""
        z = _as_array(z)
        _, y0 = self._log_y0(np.abs(z))
        return _result(z, self.sigma ** 2 / 2 - math.log(2.0) + special.log_ndtr(-(y0 + self.sigma)))

    def _sf_pos(self, x):
        s = self.sigma
        log_x, y0 = self._log_y0(_as_array(x))
        a = special.log_ndtr(-y0)                                   # log Phibar(y0)
        with np.errstate(invalid="ignore", under="ignore"):         # x = inf gives inf - inf
            b = log_x + s * s / 2 + special.log_ndtr(-(y0 + s))     # log of the subtracted term
            out = 0.5 * np.exp(a) * -np.expm1(b - a)
        return np.where(log_x == -np.inf, 0.5, np.where(a == -np.inf, 0.0, out))

    def variance(self):
        """e^{2 sigma^2} / 3 (Bun & Steinke §3.2)."""
        return _exp(2.0 * self.sigma ** 2) / 3.0

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_uniform_log_normal(self.sigma, size)


@attrs.frozen
class ArsinhNormal(_Symmetric):
    """Arsinh-normal(sigma): Z = sinh(sigma Y) / sigma, Y ~ N(0, 1).

    Bun & Steinke §3.3 (Theorem 25, Lemma 26):

        f(z) = exp(-arsinh(sigma z)^2 / (2 sigma^2)) / sqrt(2 pi (1 + sigma^2 z^2)),
        P(Z <= z) = Phi(arsinh(sigma z) / sigma).

    Variance (e^{2 sigma^2} - 1) / (2 sigma^2).  0 < sigma <= SIGMA_MAX.
    """

    sigma: float = attrs.field(converter=_sigma("sigma"))
    name: ClassVar[str] = "arsinh_normal"

    def __attrs_post_init__(self):
        self._check_resampling("sigma", self.sigma)

    def _y_and_log_jacobian(self, z):
        """y = arsinh(sigma z) / sigma and log sqrt(1 + (sigma z)^2), even when sigma z overflows."""
        s = self.sigma
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            w = s * z
            big = ~np.isfinite(w)
            log_w = math.log(s) + np.log(np.abs(z))      # log|sigma z|, used only where w overflows
            y = np.where(big, np.sign(z) * (math.log(2.0) + log_w), np.arcsinh(np.where(big, 0.0, w))) / s
            jac = np.where(big, log_w, np.log(np.hypot(1.0, np.where(big, 0.0, w))))
        return y, jac

    def logpdf(self, z):
        z = _as_array(z)
        y, jac = self._y_and_log_jacobian(z)
        return _result(z, -0.5 * _LOG_2PI - 0.5 * y * y - jac)

    def _sf_pos(self, x):
        return special.ndtr(-self._y_and_log_jacobian(_as_array(x))[0])

    def variance(self):
        """(e^{2 sigma^2} - 1) / (2 sigma^2) (Bun & Steinke §3.3)."""
        s2 = self.sigma ** 2
        with np.errstate(over="ignore"):
            return float(np.expm1(2.0 * s2) / (2.0 * s2))

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_arsinh_normal(self.sigma, size)


@attrs.frozen
class StudentT(_Symmetric):
    """Student's T(d), d > 0 degrees of freedom (need not be an integer).

    Bun & Steinke, Definition 30 (§3.4):

        f(z) = Gamma((d+1)/2) / (sqrt(pi d) Gamma(d/2)) * (1 + z^2/d)^{-(d+1)/2},
        P(Z <= -x) = I_{d/(d+x^2)}(d/2, 1/2) / 2   (x >= 0, I the regularized incomplete beta).

    Variance d/(d-2) for d > 2; E[Z^2] is infinite for d <= 2 and variance()
    returns inf.  d = 1 is the Cauchy distribution.  The measurements need d >= 1.
    """

    d: float = attrs.field(converter=_positive("d"))
    name: ClassVar[str] = "student_t"

    def __attrs_post_init__(self):
        self._check_resampling("d", self.d)

    def _cutoff(self):
        return _noise.student_t_cutoff(self.d)

    def logpdf(self, z):
        d = self.d
        z = _as_array(z)
        const = special.gammaln((d + 1) / 2) - special.gammaln(d / 2) - 0.5 * math.log(math.pi * d)
        with np.errstate(over="ignore", divide="ignore"):
            r = (z / math.sqrt(d)) ** 2
            # (d+1)/2 * log(1 + r), written to stay finite when r overflows
            log1p_r = np.where(r < 1e300, np.log1p(np.minimum(r, 1e300)),
                               2.0 * (np.log(np.abs(z)) - 0.5 * math.log(d)))
        return _result(z, const - (d + 1) / 2 * log1p_r)

    def _sf_pos(self, x):
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

    def variance(self):
        """d / (d - 2) for d > 2, else inf."""
        return self.d / (self.d - 2.0) if self.d > 2 else math.inf

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_student_t(self.d, size)


@attrs.frozen
class PolynomialTail(_Symmetric):
    """The NRS polynomial-tail distribution, density proportional to 1 / (1 + |z|^gamma), gamma > 1.

    Nissim, Raskhodnikova & Smith (2007), Lemmas 2.6-2.7; Gillenwater & Munoz
    Medina, *Duff*, §2 Proposition 3.  With a = 1/gamma:

        f(z) = c / (1 + |z|^gamma),   c = gamma sin(pi/gamma) / (2 pi),
        P(Z > x) = I_{1/(1+x^gamma)}(1 - a, a) / 2     (x >= 0),

    the second by substituting v = u^gamma / (1 + u^gamma) in the integral of f
    over [0, x], which turns it into an incomplete beta integral
    (B(a, 1 - a) = pi / sin(pi a)).  gamma = 2 is the standard Cauchy.
    Variance sin(pi/gamma) / sin(3 pi/gamma) for gamma > 3, inf otherwise.
    """

    gamma: float = attrs.field(converter=_gamma)
    name: ClassVar[str] = "polynomial_tail"

    def __attrs_post_init__(self):
        self._check_resampling("gamma", self.gamma)

    @property
    def normalizer(self):
        """c = gamma sin(pi/gamma) / (2 pi), the density at 0."""
        return self.gamma * math.sin(math.pi / self.gamma) / (2.0 * math.pi)

    def _cutoff(self):
        return _noise.polynomial_tail_cutoff(self.gamma)

    def logpdf(self, z):
        g = self.gamma
        az = np.abs(_as_array(z))
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            lz = np.log(az)
            # log(1 + |z|^g), stable for large and small |z|
            log_den = np.where(lz > 0, g * lz + np.log1p(np.exp(-g * lz)), np.log1p(np.exp(g * lz)))
        return _result(z, math.log(self.normalizer) - log_den)

    def _sf_pos(self, x):
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

    def variance(self):
        """sin(pi/gamma) / sin(3 pi/gamma) for gamma > 3, inf otherwise."""
        g = self.gamma
        return math.sin(math.pi / g) / math.sin(3.0 * math.pi / g) if g > 3 else math.inf

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_polynomial_tail(self.gamma, size)


# ---------------------------------------------------------------- classical

@attrs.frozen
class Laplace(_Symmetric):
    """Laplace(0, scale): f(z) = e^{-|z|/scale} / (2 scale).  Variance 2 scale^2.

    Used with smooth sensitivity by Nissim, Raskhodnikova & Smith (2007) and
    Bun & Steinke §3.6 (Theorem 34).
    """

    scale: float = attrs.field(default=1.0, converter=_positive("scale"))
    name: ClassVar[str] = "laplace"

    def logpdf(self, z):
        z = _as_array(z)
        return _result(z, -np.abs(z) / self.scale - math.log(2.0 * self.scale))

    def _sf_pos(self, x):
        return 0.5 * np.exp(-_as_array(x) / self.scale)

    def variance(self):
        return 2.0 * self.scale ** 2 if self.scale < 1e154 else math.inf

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_laplace(self.scale, size)


@attrs.frozen
class Gaussian(_Symmetric):
    """Gaussian N(0, sigma^2): f(z) = e^{-z^2/(2 sigma^2)} / sqrt(2 pi sigma^2).  Variance sigma^2.

    Bun & Steinke §3.5 (Lemma 33, truncated CDP).
    """

    sigma: float = attrs.field(default=1.0, converter=_positive("sigma"))
    name: ClassVar[str] = "gaussian"

    def logpdf(self, z):
        z = _as_array(z) / self.sigma
        return _result(z, -0.5 * z * z - 0.5 * _LOG_2PI - math.log(self.sigma))

    def _sf_pos(self, x):
        return special.ndtr(-_as_array(x) / self.sigma)

    def variance(self):
        return self.sigma ** 2 if self.sigma < 1e154 else math.inf

    def sample(self, size=None):
        """Draws from the secure source: a float if size is None, else an ndarray of shape size."""
        return _noise.sample_gaussian(self.sigma, size)
