"""Exact noisy releases: the real number c + sigma Z, Z drawn *exactly* from a noise law,
rounded once to the nearest float.

The float path returns ``fl(c + fl(sigma z))`` with ``z`` a transform of a 52-bit uniform; the
set of floats it can return, and their probabilities, depend on ``c`` and ``sigma`` [Mir12],
[Haney22], so one release can tell neighbouring datasets apart.  Here the release is
``R(c + sigma Z)`` for the *exact real* ``Z``, where ``R`` is the nearest float (ties to even)
saturated to the finite floats: a fixed map that does not look at the data, so the release
is a post-processing of the idealised real-valued mechanism.

``Z = phi(U_1, ..., U_k)`` is a closed-form transform of independent uniforms (with a
rejection step for the polar constructions), each a :class:`~opendp_duff.samplers.psrn.PSRN`;
every quantity is evaluated in the interval arithmetic of :mod:`.interval`, and a decision
(accept / reject, or the rounded release) is taken only when the whole enclosure gives the
same answer (:func:`~opendp_duff.samplers.psrn.refine_until`).  The noise laws are the
constants of this module (``U``, ``U'`` uniform on (0, 1), ``V = 2U - 1``, signs from a fresh
bit):

* :data:`LAPLACE`: ``+-(-ln U)``.
* :data:`GAUSSIAN`: the polar method [MB64]: accept ``S = V_1^2 + V_2^2 < 1``,
  ``Y = V_1 sqrt(-2 ln S / S)``.
* :data:`STUDENT_T` (shape d > 0): Bailey's polar method [Bai94]: accept ``W = V_1^2 + V_2^2 < 1``,
  ``T = V_1 sqrt(d (W^{-2/d} - 1) / W)``.
* :data:`POLYNOMIAL_TAIL` (shape gamma > 1), density prop. to ``1 / (1 + |z|^gamma)``: Johnk's
  construction [Joh64]: accept ``U^gamma + U'^{gamma/(gamma-1)} <= 1``, ``Z = +-U U'^{-1/(gamma-1)}``.
* :data:`LLN`, :data:`ULN`, :data:`ARSINH_NORMAL` (shape sigma > 0) [BS19] §3:
  ``+-(-ln U'') e^{sigma Y}``, ``V'' e^{sigma Y}``, ``(e^{sigma Y} - e^{-sigma Y}) / (2 sigma)``,
  Y polar-normal.

Proof: ``proofs/samplers/exact_rounded_release.tex``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Optional

import attrs

from .._constants import MAX as _MAX
from ..errors import MakeError, MakeTypeError
from .byte_sources import current_rng
from .interval import DecimalIA, Interval, Undecided
from .psrn import MAX_ATTEMPTS, PSRN, refine_until, rejected_too_often, same_float, saturated_float

__all__ = ["ExactNoise", "exact_rounded_release", "LAPLACE", "GAUSSIAN", "STUDENT_T", "POLYNOMIAL_TAIL",
           "LLN", "ULN", "ARSINH_NORMAL", "EXACT_NOISES"]

Exact = float | tuple[float | int, float | int]   # a float, or an exact ratio (numerator, denominator)
Accept = Callable[[DecimalIA, Sequence[PSRN], Optional[float]], bool]
Value = Callable[[DecimalIA, Sequence[PSRN], Optional[float]], Interval]


# [proof:ExactNoise]
@attrs.frozen(repr=False)
class ExactNoise:
    """A noise law sampled exactly as ``Z = phi(U_1, ..., U_k)`` (see the module docstring).

    Attributes:
        name: the law's name.
        uniforms: k, the number of uniforms one attempt uses.
        accept: the acceptance test of a rejection step (None: every attempt is accepted).
        value: an enclosure of ``|Z|`` (``symmetric``) or of ``Z``, at the arithmetic's precision.
        symmetric: a fresh sign bit multiplies ``value``.
        shape: the name of the shape parameter (None: the law has none).
        shape_ok: the range of the shape parameter.
    """

    name: str
    uniforms: int
    accept: Accept | None
    value: Value
    symmetric: bool
    shape: str | None = None
    shape_ok: Callable[[float], bool] = attrs.field(default=lambda s: True, eq=False)

    def __repr__(self) -> str:
        return f"ExactNoise({self.name})"
# [end:ExactNoise]


# [proof:constructions]
def _less_than_one(s: Interval, allow_equal: bool = False) -> bool:
    """Decide the exact s < 1 (or s <= 1) from its enclosure."""
    if s[1] < 1 or (allow_equal and s[1] == 1):
        return True
    if s[0] > 1:
        return False
    raise Undecided


def _polar_s(ia: DecimalIA, us: Sequence[PSRN]) -> Interval:
    return ia.add(ia.square(us[0].centred(ia)), ia.square(us[1].centred(ia)))


def _accept_polar(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> bool:
    return _less_than_one(_polar_s(ia, us))


def _normal(ia: DecimalIA, us: Sequence[PSRN]) -> Interval:
    """Y = V_1 sqrt(-2 ln S / S), from an accepted pair (us[0], us[1])."""
    s = _polar_s(ia, us)
    r = ia.sqrt_nonneg(ia.div(ia.mul(ia.const(-2), ia.ln(s)), s))
    return ia.mul(us[0].centred(ia), r)


def _laplace(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    return ia.neg(ia.ln(us[0].enclosure(ia)))


def _gaussian(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    return _normal(ia, us)


def _student_t(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    w = _polar_s(ia, us)
    d = ia.const(_shape(shape))
    power = ia.exp(ia.mul(ia.div(ia.const(-2), d), ia.ln(w)))          # W^{-2/d}
    r = ia.sqrt_nonneg(ia.div(ia.mul(d, ia.sub(power, ia.const(1))), w))
    return ia.mul(us[0].centred(ia), r)


def _accept_poly(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> bool:
    g = ia.const(_shape(shape))
    x = ia.exp(ia.mul(g, ia.ln(us[0].enclosure(ia))))                               # U^gamma
    y = ia.exp(ia.mul(ia.div(g, ia.sub(g, ia.const(1))), ia.ln(us[1].enclosure(ia))))  # U'^{gamma/(gamma-1)}
    return _less_than_one(ia.add(x, y), allow_equal=True)


def _poly(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    gm1 = ia.sub(ia.const(_shape(shape)), ia.const(1))
    # U U'^{-1/(gamma-1)} = exp(ln U - ln U' / (gamma - 1))
    return ia.exp(ia.sub(ia.ln(us[0].enclosure(ia)), ia.div(ia.ln(us[1].enclosure(ia)), gm1)))


def _lln(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    y = _normal(ia, us)
    e = ia.neg(ia.ln(us[2].enclosure(ia)))
    return ia.mul(e, ia.exp(ia.mul(ia.const(_shape(shape)), y)))


def _uln(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    y = _normal(ia, us)
    return ia.mul(us[2].centred(ia), ia.exp(ia.mul(ia.const(_shape(shape)), y)))


def _arsinh(ia: DecimalIA, us: Sequence[PSRN], shape: float | None) -> Interval:
    sigma = ia.const(_shape(shape))
    sy = ia.mul(sigma, _normal(ia, us))
    diff = ia.sub(ia.exp(sy), ia.exp(ia.neg(sy)))
    return ia.div(diff, ia.mul(ia.const(2), sigma))


def _positive(s: float) -> bool:
    return s > 0 and s != float("inf")


LAPLACE = ExactNoise("laplace", 1, None, _laplace, True)
GAUSSIAN = ExactNoise("gaussian", 2, _accept_polar, _gaussian, False)
STUDENT_T = ExactNoise("student_t", 2, _accept_polar, _student_t, False, "d", _positive)
POLYNOMIAL_TAIL = ExactNoise("polynomial_tail", 2, _accept_poly, _poly, True, "gamma",
                             lambda g: 1 < g < float("inf"))
LLN = ExactNoise("lln", 3, _accept_polar, _lln, True, "sigma", _positive)
ULN = ExactNoise("uln", 3, _accept_polar, _uln, False, "sigma", _positive)
ARSINH_NORMAL = ExactNoise("arsinh_normal", 2, _accept_polar, _arsinh, False, "sigma", _positive)
# [end:constructions]
EXACT_NOISES = (LAPLACE, GAUSSIAN, STUDENT_T, POLYNOMIAL_TAIL, LLN, ULN, ARSINH_NORMAL)


# [proof:exact_rounded_release]
def _shape(shape: float | None) -> float:
    assert shape is not None  # checked by exact_rounded_release for the laws that have one
    return shape


def _check_noise(noise: ExactNoise, shape: float | None) -> None:
    if not isinstance(noise, ExactNoise):
        raise MakeTypeError(f"noise ({noise!r}) must be one of {EXACT_NOISES}")
    if noise.shape is None:
        if shape is not None:
            raise MakeError(f"{noise!r} takes no shape parameter, got {shape!r}")
    elif not (isinstance(shape, (int, float)) and noise.shape_ok(float(shape))):
        raise MakeError(f"{noise!r} needs its shape parameter {noise.shape} in range, got {shape!r}")


def _enclose(ia: DecimalIA, c: Exact) -> Interval:
    return ia.ratio(c[0], c[1]) if isinstance(c, tuple) else ia.const(c)


def exact_rounded_release(center: Exact, scale: Exact, noise: ExactNoise, shape: float | None = None) -> float:
    """R(c + sigma Z) for the exact real Z of law ``noise``: the nearest float, ties to even, saturated.

    Args:
        center: c, a finite float or an exact ratio ``(numerator, denominator)`` of finite floats
            or ints with denominator > 0, read exactly.
        scale: sigma >= 0, in the same form.
        noise: the law of Z, one of :data:`EXACT_NOISES` (:data:`LAPLACE`, :data:`GAUSSIAN`, ...).
        shape: the law's shape parameter (d, gamma or sigma), None for LAPLACE and GAUSSIAN.

    Returns:
        A finite float, never NaN: ``R(c + sigma Z)``, ``R`` the nearest float (ties to even)
        saturated to [-MAX, MAX].  sigma = 0 gives ``R(c)`` without randomness.

    Raises:
        MakeTypeError: if ``noise`` is not an :class:`ExactNoise`.
        MakeError: if ``shape`` is missing, out of range, or given to a law without one.
        ``center`` and ``scale`` may depend on data: they are not checked (the caller validates
        them), so nothing here raises because of them.

    Example:
        >>> from opendp_duff.samplers.exact_noise import LAPLACE, STUDENT_T, exact_rounded_release
        >>> exact_rounded_release((1, 3), 0.0, LAPLACE) == 1 / 3     # sigma = 0: the nearest float to 1/3
        True
        >>> abs(exact_rounded_release(0.0, (1.0, 1e300), STUDENT_T, 3.0)) < 1e-250
        True
    """
    _check_noise(noise, shape)
    if scale == 0 or (isinstance(scale, tuple) and scale[0] == 0):  # no randomness
        return _rounded_exact(center)
    k = noise.uniforms
    for _ in range(MAX_ATTEMPTS):  # rejection loop: each attempt uses fresh uniforms
        raw = current_rng().random_bytes(8 * k + 1)   # k uniforms of 64 bits, then a sign byte
        us = [PSRN(int.from_bytes(raw[8 * i:8 * i + 8], "big"), 64) for i in range(k)]
        negate = noise.symmetric and bool(raw[8 * k] & 1)
        if _accepted(noise, us, shape):
            return refine_until(us, _release_decider(noise, us, shape, negate, center, scale))
    raise rejected_too_often()   # a uniform source: probability < 2^-2200 (psrn.MAX_ATTEMPTS)


def _accepted(noise: ExactNoise, us: Sequence[PSRN], shape: float | None) -> bool:
    accept = noise.accept
    return accept is None or refine_until(us, lambda ia: accept(ia, us, shape))


def _release_decider(noise: ExactNoise, us: Sequence[PSRN], shape: float | None, negate: bool,
                     center: Exact, scale: Exact) -> Callable[[DecimalIA], float | None]:
    def decided(ia: DecimalIA) -> float | None:
        z = noise.value(ia, us, shape)
        if negate:
            z = ia.neg(z)
        y = ia.add(_enclose(ia, center), ia.mul(_enclose(ia, scale), z))
        lo, hi = saturated_float(y[0]), saturated_float(y[1])
        return lo if same_float(lo, hi) else None   # R is non-decreasing with -0.0 < +0.0
    return decided


def _rounded_exact(c: Exact) -> float:
    """R(c) for sigma = 0 (a float centre is returned as is, its sign of zero included)."""
    if not isinstance(c, tuple):
        return saturated_float(Decimal(c))
    q = Fraction(c[0]) / Fraction(c[1])
    return _MAX if q > _MAX else -_MAX if q < -_MAX else float(q)
# [end:exact_rounded_release]
