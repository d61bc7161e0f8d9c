"""What the noise laws of :mod:`opendp_duff.distributions` share: the base class
:class:`SymmetricLaw` (``pdf``, ``sf``, ``cdf`` and the resampling check, derived from a law's
``logpdf`` and its positive tail) and the converters of their shape parameters.

A module of its own so that :mod:`opendp_duff.distributions` reads as the laws' formulas.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _validate as v
from .errors import MakeError
from .samplers import noise as _noise

# [proof:sigma_cap]
SIGMA_MAX = 100.0
"""Largest sigma of LLN, ULN and arsinh-normal: beyond it they are of no use (e^{2 sigma^2} and
e^{3 sigma^2 / 2} are infinite in floats for sigma > 22), and the cap keeps the quadratures, the
resampling (below 1e-11 at sigma = 100) and the exact sampler's e^{sigma Y} well conditioned."""


def sigma_converter(value: Any) -> float:
    """sigma in (0, SIGMA_MAX]."""
    sigma = v.number("sigma", value, positive=True)
    if sigma > SIGMA_MAX:
        raise MakeError(f"sigma ({sigma!r}) must be at most {SIGMA_MAX}")
    return sigma
# [end:sigma_cap]


def gamma_converter(value: Any) -> float:
    """gamma > 1."""
    gamma = v.number("gamma", value)
    if not gamma > 1:
        raise MakeError(f"gamma ({gamma!r}) must be greater than 1")
    return gamma


def d_converter(value: Any) -> float:
    """d > 0."""
    return v.number("d", value, positive=True)


def scale_converter(value: Any) -> float:
    """scale > 0."""
    return v.number("scale", value, positive=True)


def gaussian_sigma_converter(value: Any) -> float:
    """sigma > 0 (no cap: the Gaussian's tails are light)."""
    return v.number("sigma", value, positive=True)


# [proof:as_array]
def as_array(z: Any) -> np.ndarray:
    return np.asarray(z, dtype=np.float64)
# [end:as_array]


def result(z: Any, out: Any) -> Any:
    """A float for a scalar z, the array otherwise."""
    return float(out) if np.ndim(z) == 0 else out


def exp_or_inf(x: float) -> float:
    """float exp that returns inf instead of raising OverflowError (variances, not privacy)."""
    with np.errstate(over="ignore"):
        return float(np.exp(x))


class SymmetricLaw:
    """Shared methods of a law symmetric about 0; subclasses define ``logpdf(z)`` and
    ``_sf_pos(x)`` (P(Z > x) for an array x >= 0)."""

    def logpdf(self, z: Any) -> Any:
        raise NotImplementedError

    def _sf_pos(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def pdf(self, z: Any) -> Any:
        """Density at z."""
        with np.errstate(under="ignore"):
            return result(z, np.exp(as_array(self.logpdf(z))))

    def sf(self, z: Any) -> Any:
        """Survival function P(Z > z); accurate in the upper tail."""
        z = as_array(z)
        tail = self._sf_pos(np.abs(z))
        return result(z, np.where(z >= 0, tail, 1.0 - tail))

    def cdf(self, z: Any) -> Any:
        """P(Z <= z) = sf(-z) by symmetry; accurate in the lower tail."""
        return self.sf(-as_array(z)) if np.ndim(z) else float(self.sf(-float(z)))

    def resample_probability(self) -> float:
        """P(|Z| > cutoff): the chance that the float sampler redraws a candidate.

        It is also the total-variation distance between the sampler's law
        (Z conditioned on |Z| <= cutoff) and the ideal law.
        """
        return float(min(1.0, 2.0 * self._sf_pos(np.array([self._cutoff()]))[0]))

    def _cutoff(self) -> float:
        return _noise.FLOAT_MAX

    def _check_resampling(self, name: str, value: float) -> None:
        if not self.resample_probability() <= 0.5:
            raise MakeError(
                f"{name} ({value!r}) puts more than half of the mass beyond "
                f"{self._cutoff():.3g}, past which the sampler cannot represent draws")
