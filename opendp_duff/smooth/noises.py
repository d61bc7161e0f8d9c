"""The registry of smooth-sensitivity noises: one frozen record per noise law.

Named ``noises`` because it is the one place that knows the noises: a :class:`SmoothNoise`
record holds everything the library needs about one law -- its name, its one shape parameter
(name, default, admissible range), the output measure, the one-step privacy bound, the
distribution class, the exact sampler and the helpers the parameter solver uses.  The
measurements, the privacy maps and the parameter tuning all read these records; none of them
tests a noise's name, so adding a noise is adding one entry to :data:`NOISES`.

>>> from opendp_duff.smooth.noises import NOISES
>>> NOISES["student_t"].shape_name, NOISES["student_t"].shape_default
('d', 3.0)
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import attrs

from .. import _validate as v
from .. import arithmetic as ar
from .. import distributions as dist
from ..symmetric_law import SymmetricLaw, d_converter, gamma_converter, sigma_converter
from ..errors import MakeError, MakeTypeError
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..samplers import exact_noise as xn
from . import maps

__all__ = ["SmoothNoise", "NOISES", "ZCDP_NOISES", "PURE_NOISES", "ULN_SIGMA", "ARSINH_SIGMA",
           "lookup", "resolve", "lln_optimal_sigma"]

ARSINH_SIGMA = 2 / math.sqrt(3)   # minimises 2/(3 sigma) + sigma/2 ([BS19] §3.3)
ULN_SIGMA = math.sqrt(2)          # the float sqrt(2) is above the real sqrt(2)


@attrs.frozen
class SmoothNoise:
    """One noise law Z of the smooth-sensitivity release ``T(x) + S^t(x)/s * Z``.

    Attributes:
        name: the public name (``noise="..."`` in the constructors).
        shape_name: the name of its one shape parameter (``sigma``, ``d``, ``gamma``, ``delta``).
        shape_default: the default shape, or None when the caller must give it.
        check_shape: validates a shape value (MakeError naming the parameter), returns a float.
        measure: the output measure class (ZeroConcentratedDivergence, MaxDivergence or
            ApproximateDivergence; for the last the shape is delta).
        one_step: ``(t, s, shape) -> eps``, the one-step bound of :mod:`opendp_duff.smooth.maps`.
        law: a function ``shape -> Z``, the standard law of Z (a class of :mod:`opendp_duff.distributions`).
        exact: the exact sampler of this law (an :class:`~opendp_duff.samplers.exact_noise.ExactNoise`,
            the ``noise`` argument of :func:`opendp_duff.samplers.exact_noise.exact_rounded_release`).
        law_shape: whether the shape is a parameter of the law (False for Laplace's delta).
        scale_guess: ``(eps, t, shape) -> s`` solving ``one_step = eps`` in floats (a guess).
        tuned_shape: ``(eps, t) -> shape`` minimising the variance, or None (fixed default).
        variance: ``shape -> Var(Z)`` where the tuned shape moves it with t, else None.
        group_epsilon: ``(t, s, shape, k) -> eps`` for an approximate-DP noise, else None.
        hint: what to say when a required shape is missing.
    """

    name: str
    shape_name: str
    shape_default: Optional[float]
    check_shape: Callable[[object], float]
    measure: type
    one_step: Callable[[float, float, float], float]
    law: Callable[[float], SymmetricLaw]
    exact: xn.ExactNoise
    law_shape: bool
    scale_guess: Callable[[float, float, float], float]
    tuned_shape: Optional[Callable[[float, float], float]] = None
    variance: Optional[Callable[[float], float]] = None
    group_epsilon: Optional[Callable[[float, float, float, int], float]] = None
    hint: str = ""

    # [proof:SmoothNoise.release]
    def release(self, center: xn.Exact, smooth_value: float, s: float, shape: float) -> float:
        """round(center + smooth_value / s * Z) for the exact real Z of this law: the nearest
        float, saturated (``center`` a float or an exact ratio, see exact_rounded_release)."""
        return xn.exact_rounded_release(center, (float(smooth_value), s), self.exact,
                                        shape if self.law_shape else None)
    # [end:SmoothNoise.release]


# [proof:shapes]
def _uln_sigma(value: object) -> float:
    sigma = sigma_converter(value)
    if ar.Q(sigma) ** 2 < 2:  # exact: sigma^2 >= 2, as [BS19] Thm 22 needs
        raise MakeError(f"sigma ({sigma!r}) must be at least sqrt(2) for noise 'uln' ([BS19] Thm 22)")
    return sigma


def _d(value: object) -> float:
    d = d_converter(value)
    if d < 1:
        raise MakeError(f"d ({d!r}) must be at least 1")
    return d


def _delta(value: object) -> float:
    delta = v.number("delta", value)
    e_minus_2 = ar.exp_down(-2)  # <= e^-2, so delta < e_minus_2 implies delta < e^-2
    if not 0 < delta < e_minus_2:
        raise MakeError(f"delta ({delta!r}) must lie in (0, e^-2) = (0, {e_minus_2:.6g}) for noise 'laplace'")
    return delta
# [end:shapes]


def lln_optimal_sigma(epsilon: float, t: float) -> float:
    """The real root of 5 (eps/t) sigma^3 - 5 sigma^2 - 1 = 0 ([BS19] §3.1.1), by bisection on
    [t/eps, max(2t/eps, 1/2)]; it minimises the variance 2 e^{2 sigma^2} / s^2 at fixed eps, t."""
    def cubic_over_x3(x: float) -> float:  # the cubic divided by 5 x^3 > 0: same sign, no overflow
        return epsilon / t - 1 / x - 0.2 / x / x / x
    lo, hi = t / epsilon, max(2 * t / epsilon, 0.5)
    if not math.isfinite(hi):
        raise MakeError(f"t ({t!r}) is too large for epsilon ({epsilon!r}): no LLN sigma meets the budget")
    for _ in range(200):
        mid = (lo + hi) / 2
        if cubic_over_x3(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# [proof:registry]
NOISES: dict[str, SmoothNoise] = {r.name: r for r in (
    SmoothNoise("lln", "sigma", None, sigma_converter, ZeroConcentratedDivergence, maps.lln_epsilon,
                dist.LaplaceLogNormal, xn.LLN, True, maps.lln_scale, tuned_shape=lln_optimal_sigma,
                variance=lambda sigma: 2 * ar.exp_up(2 * sigma ** 2), hint="see smooth_parameters()"),
    SmoothNoise("uln", "sigma", ULN_SIGMA, _uln_sigma, ZeroConcentratedDivergence, maps.uln_epsilon,
                dist.UniformLogNormal, xn.ULN, True, maps.uln_scale),
    SmoothNoise("arsinh_normal", "sigma", ARSINH_SIGMA, sigma_converter, ZeroConcentratedDivergence,
                maps.arsinh_epsilon, dist.ArsinhNormal, xn.ARSINH_NORMAL, True, maps.arsinh_scale),
    SmoothNoise("student_t", "d", 3.0, _d, MaxDivergence, maps.student_t_epsilon, dist.StudentT,
                xn.STUDENT_T, True, maps.student_t_scale),
    SmoothNoise("polynomial_tail", "gamma", 2.0, gamma_converter, MaxDivergence, maps.polynomial_tail_epsilon,
                dist.PolynomialTail, xn.POLYNOMIAL_TAIL, True, maps.polynomial_tail_scale),
    SmoothNoise("laplace", "delta", None, _delta, ApproximateDivergence, maps.laplace_epsilon,
                lambda delta: dist.Laplace(1.0), xn.LAPLACE, False, maps.laplace_scale,
                group_epsilon=maps.laplace_group_epsilon, hint="it must lie in (0, e^-2)"),
)}
# [end:registry]
ZCDP_NOISES = tuple(n for n, r in NOISES.items() if r.measure is ZeroConcentratedDivergence)
PURE_NOISES = tuple(n for n, r in NOISES.items() if r.measure is MaxDivergence)


def lookup(noise: str | SmoothNoise) -> SmoothNoise:
    """The record of ``noise`` (a name of :data:`NOISES`, or one of its records, returned as is).
    Another record is refused: its maps would be the caller's, not the library's."""
    if isinstance(noise, SmoothNoise):
        if any(noise is record for record in NOISES.values()):
            return noise
        raise MakeTypeError(f"noise ({noise!r}) must be the name of a noise of the registry, {sorted(NOISES)}")
    return NOISES[v.choice("noise", noise, NOISES)]


# [proof:resolve]
def resolve(noise: str | SmoothNoise, *, sigma: object = None, d: object = None, gamma: object = None,
            delta: object = None, required: bool = True) -> tuple[SmoothNoise, Optional[float]]:
    """``(record, shape)`` for ``noise`` and the shape parameters given: the one that applies
    is validated (its default when absent); any other one given is an error.  A missing shape
    without default is an error, or None when ``required`` is False."""
    record = lookup(noise)
    given = {"sigma": sigma, "d": d, "gamma": gamma, "delta": delta}
    for name, value in given.items():
        if name != record.shape_name and value is not None:
            raise MakeError(f"{name} ({value!r}) does not apply to noise {record.name!r} "
                            f"(it takes {record.shape_name})")
    value = given[record.shape_name]
    if value is None:
        value = record.shape_default
    if value is None:
        if required:
            raise MakeError(f"{record.shape_name} is required for noise {record.name!r}: {record.hint}")
        return record, None
    return record, record.check_shape(value)
# [end:resolve]
