"""Exact smooth-sensitivity releases: the real number c + sigma * Z, Z drawn *exactly* from a
noise law, rounded to the nearest float.

Why.  The float path (``opendp_duff.samplers.noise``) returns ``fl(c + fl(sigma * z))`` with ``z``
a transform of a 52-bit uniform.  The set of floats it can return, and their probabilities,
depend on ``c`` and ``sigma`` (Mironov 2012's porosity; Haney et al. 2022's precision attacks
on "add noise, then round"), so one release can tell neighbouring datasets apart.  Here the
release is ``round(c + sigma * Z)`` for the *exact real* ``Z``, where ``round`` is the nearest
float (ties to even) saturated to the finite floats.  ``round`` is a fixed function that does
not look at the data, so the release is post-processing of the idealised real-valued
mechanism and every divergence bound proved for that mechanism holds for the release.

How.  ``Z = phi(U_1, ..., U_k)`` is a closed-form transform of independent uniforms on (0, 1)
(with a rejection step for the polar constructions).  Each ``U_i`` is a partially sampled
random number: an integer ``m`` and a bit count ``b`` with ``U_i in [m 2^-b, (m+1) 2^-b]``;
more bits are appended, from :func:`opendp_duff.samplers.current_rng`, only when needed.
Every quantity is evaluated in ``decimal`` interval arithmetic: + - * / with the directed
rounding modes ROUND_FLOOR / ROUND_CEILING, and ``exp``, ``ln``, ``sqrt`` (correctly
rounded by Python's ``decimal``, per its documentation) widened two units in the last place
outward.  The result is an interval that provably contains the exact value.  A decision
(accept / reject, or the rounded release) is taken only when the whole interval gives the
same answer -- for the release, when ``round(lo) == round(hi)``, which suffices because
``round`` is monotone.  Otherwise every uniform gets more bits and the precision grows; the
exact point is almost surely interior to the decision regions, so this ends with probability
one (and after one pass in the overwhelming majority of draws).

Constructions (all exact in law; U, U' uniform on (0, 1), V = 2U - 1, signs from fresh bits):

* ``laplace``: ``Z = +-(-ln U)``.
* ``gaussian``: Marsaglia's polar method: accept ``S = V_1^2 + V_2^2 < 1``,
  ``Y = V_1 sqrt(-2 ln S / S)`` (standard normal).
* ``student_t`` (any real d > 0): Bailey's polar method (Math. Comp. 62, 1994): accept
  ``W = V_1^2 + V_2^2 < 1``, ``T = V_1 sqrt(d (W^{-2/d} - 1) / W)``.
* ``polynomial_tail`` (gamma > 1): Johnk's beta construction: accept
  ``U^gamma + U'^{gamma/(gamma-1)} <= 1``, ``Z = +- U U'^{-1/(gamma-1)}`` (then
  ``|Z|^gamma = X/Y`` with ``X/(X+Y) ~ Beta(1/gamma, 1 - 1/gamma)``, density prop. to
  ``1/(1+|z|^gamma)``; gamma = 2 is the Cauchy law as the ratio of a point uniform in the disc).
* ``lln``: ``Z = +-(-ln U) e^{sigma Y}``; ``uln``: ``Z = V e^{sigma Y}``;
  ``arsinh_normal``: ``Z = (e^{sigma Y} - e^{-sigma Y}) / (2 sigma)``, Y polar-normal.

The proof (law of each construction, rigour of the enclosures, termination) is in
``proofs/measurements/smooth_sensitivity/smooth_common.inc``, section "Floating point".
"""
import decimal
import math
import sys
from decimal import Decimal
from fractions import Fraction

from . import current_rng

__all__ = ["exact_rounded_release", "EXACT_NOISES", "exact_mean"]

EXACT_NOISES = ("laplace", "gaussian", "student_t", "polynomial_tail", "lln", "uln", "arsinh_normal")

_MAX = sys.float_info.max
_START_BITS = 64
_ONE = Decimal(1)
_NARROW = Decimal("1e-6")
_TWO = Decimal(2)


class _Undecided(Exception):
    """An enclosure is too wide to decide (or to stay inside a function's domain): refine."""


class _PSRN:
    """A uniform on (0, 1) known to its first ``b`` bits: U in [m 2^-b, (m+1) 2^-b]."""

    __slots__ = ("m", "b")

    def __init__(self, m):
        self.m = m
        self.b = _START_BITS

    def refine_to(self, bits):
        extra = bits - self.b
        if extra > 0:
            nbytes = (extra + 7) // 8
            self.m = (self.m << (8 * nbytes)) | int.from_bytes(current_rng().random_bytes(nbytes), "big")
            self.b += 8 * nbytes


class _IA:
    """Interval arithmetic on Decimal pairs (lo, hi) at ``prec`` significant digits.

    Every operation returns an interval containing every exact result for exact arguments
    in the argument intervals: + - * / round lo down and hi up; exp/ln/sqrt are correctly
    rounded (error <= 1/2 ulp) and then moved two ulps outward.
    """

    def __init__(self, prec):
        kw = dict(prec=prec, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                  traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])
        self.dn = decimal.Context(rounding=decimal.ROUND_FLOOR, **kw)
        self.up = decimal.Context(rounding=decimal.ROUND_CEILING, **kw)
        self.ne = decimal.Context(rounding=decimal.ROUND_HALF_EVEN, **kw)

    # -- constants and uniforms
    def const(self, x):
        """A float or int read exactly, then enclosed at this precision."""
        d = Decimal(x)
        return self.dn.plus(d), self.up.plus(d)

    def uniform(self, u):
        """[m 2^-b, (m+1) 2^-b]."""
        p = Decimal(1 << u.b)
        return self.dn.divide(Decimal(u.m), p), self.up.divide(Decimal(u.m + 1), p)

    def centred(self, u):
        """V = 2U - 1 on (-1, 1)."""
        lo, hi = self.uniform(u)
        return self.dn.subtract(self.dn.multiply(_TWO, lo), _ONE), self.up.subtract(self.up.multiply(_TWO, hi), _ONE)

    # -- arithmetic
    def add(self, a, b):
        return self.dn.add(a[0], b[0]), self.up.add(a[1], b[1])

    def sub(self, a, b):
        return self.dn.subtract(a[0], b[1]), self.up.subtract(a[1], b[0])

    def neg(self, a):
        # context methods only: Python's unary minus would round in the thread's default context
        return self.dn.minus(a[1]), self.up.minus(a[0])

    def mul(self, a, b):
        lo = min(self.dn.multiply(x, y) for x in a for y in b)
        hi = max(self.up.multiply(x, y) for x in a for y in b)
        return lo, hi

    def div(self, a, b):
        if not b[0] > 0:
            raise _Undecided
        lo = min(self.dn.divide(x, y) for x in a for y in b)
        hi = max(self.up.divide(x, y) for x in a for y in b)
        return lo, hi

    def square(self, a):
        lo, hi = a
        if lo >= 0:
            return self.dn.multiply(lo, lo), self.up.multiply(hi, hi)
        if hi <= 0:
            return self.dn.multiply(hi, hi), self.up.multiply(lo, lo)
        return Decimal(0), max(self.up.multiply(lo, lo), self.up.multiply(hi, hi))

    # -- correctly rounded functions, widened outward
    def _out(self, lo, hi):
        ne = self.ne
        return ne.next_minus(ne.next_minus(lo)), ne.next_plus(ne.next_plus(hi))

    # For a narrow interval one correctly rounded call suffices: with delta = hi - lo,
    # e^hi <= e^lo (1 + delta + delta^2) (0 <= delta <= 1) and ln hi <= ln lo + delta / lo.
    def exp(self, a):
        lo, hi = a
        up = self.up
        delta = up.subtract(hi, lo)
        if delta > _NARROW:
            return self._out(lo.exp(self.ne), hi.exp(self.ne))
        e_lo, e_hi = self._out(*(lo.exp(self.ne),) * 2)
        return e_lo, up.multiply(e_hi, up.add(_ONE, up.add(delta, up.multiply(delta, delta))))

    def ln(self, a):
        lo, hi = a
        if not lo > 0:
            raise _Undecided
        up = self.up
        if up.subtract(hi, lo) > up.multiply(lo, _NARROW):
            return self._out(lo.ln(self.ne), hi.ln(self.ne))
        l_lo, l_hi = self._out(*(lo.ln(self.ne),) * 2)
        return l_lo, up.add(l_hi, up.divide(up.subtract(hi, lo), lo))

    def sqrt_nonneg(self, a):
        """sqrt of a quantity known to be >= 0 (a negative lower end is raised to 0)."""
        lo = max(a[0], Decimal(0))
        if a[1] < 0:
            raise _Undecided
        slo, shi = self._out(lo.sqrt(self.ne), a[1].sqrt(self.ne))
        return max(slo, Decimal(0)), shi


def _less_than_one(ia, s):
    """Decide exact s < 1 from its enclosure."""
    if s[1] < 1:
        return True
    if s[0] > 1:
        return False
    raise _Undecided


# ---- the constructions: (number of uniforms, accept(ia, us) -> bool, value(ia, us, sign) -> interval)

def _polar_s(ia, v1, v2):
    return ia.add(ia.square(ia.centred(v1)), ia.square(ia.centred(v2)))


def _normal(ia, us):
    """Marsaglia polar normal from us[0], us[1] (already accepted)."""
    s = _polar_s(ia, us[0], us[1])
    r = ia.sqrt_nonneg(ia.div(ia.mul(ia.const(-2), ia.ln(s)), s))
    return ia.mul(ia.centred(us[0]), r)


def _accept_polar(ia, us, shape):
    return _less_than_one(ia, _polar_s(ia, us[0], us[1]))


def _laplace(ia, us, shape):
    return ia.neg(ia.ln(ia.uniform(us[0])))


def _gaussian(ia, us, shape):
    return _normal(ia, us)


def _student_t(ia, us, shape):
    w = _polar_s(ia, us[0], us[1])
    d = ia.const(shape)
    power = ia.exp(ia.mul(ia.div(ia.const(-2), d), ia.ln(w)))          # W^{-2/d}
    r = ia.sqrt_nonneg(ia.div(ia.mul(d, ia.sub(power, ia.const(1))), w))
    return ia.mul(ia.centred(us[0]), r)


def _poly_exponents(ia, shape):
    g = ia.const(shape)
    gm1 = ia.sub(g, ia.const(1))
    return g, gm1


def _accept_poly(ia, us, shape):
    g, gm1 = _poly_exponents(ia, shape)
    x = ia.exp(ia.mul(g, ia.ln(ia.uniform(us[0]))))                     # U^gamma
    y = ia.exp(ia.mul(ia.div(g, gm1), ia.ln(ia.uniform(us[1]))))        # U'^{gamma/(gamma-1)}
    s = ia.add(x, y)
    if s[1] <= 1:
        return True
    if s[0] > 1:
        return False
    raise _Undecided


def _poly(ia, us, shape):
    g, gm1 = _poly_exponents(ia, shape)
    # U U'^{-1/(gamma-1)} = exp(ln U - ln U' / (gamma - 1))
    return ia.exp(ia.sub(ia.ln(ia.uniform(us[0])), ia.div(ia.ln(ia.uniform(us[1])), gm1)))


def _lln(ia, us, shape):
    y = _normal(ia, us)
    e = ia.neg(ia.ln(ia.uniform(us[2])))
    return ia.mul(e, ia.exp(ia.mul(ia.const(shape), y)))


def _uln(ia, us, shape):
    y = _normal(ia, us)
    return ia.mul(ia.centred(us[2]), ia.exp(ia.mul(ia.const(shape), y)))


def _arsinh(ia, us, shape):
    sy = ia.mul(ia.const(shape), _normal(ia, us))
    diff = ia.sub(ia.exp(sy), ia.exp(ia.neg(sy)))
    return ia.div(diff, ia.mul(ia.const(2), ia.const(shape)))


# name: (uniforms, accept or None, value, symmetric: a fresh sign bit multiplies the value)
_LAWS = {
    "laplace": (1, None, _laplace, True),
    "gaussian": (2, _accept_polar, _gaussian, False),
    "student_t": (2, _accept_polar, _student_t, False),
    "polynomial_tail": (2, _accept_poly, _poly, True),
    "lln": (3, _accept_polar, _lln, True),
    "uln": (3, _accept_polar, _uln, False),
    "arsinh_normal": (2, _accept_polar, _arsinh, False),
}


def _digits(bits):
    """Decimal precision used with uniforms known to ``bits`` bits (a bit is 0.302 digits)."""
    return 6 + (bits * 31) // 100


def _round_float(d):
    """The nearest float to the Decimal d (ties to even), saturated to [-MAX, MAX]: monotone."""
    x = float(d)
    return min(max(x, -_MAX), _MAX)


def _is_zero(c):
    return (c[0] == 0) if isinstance(c, tuple) else (c == 0)


def exact_rounded_release(center, scale, noise, shape=None):
    """round(c + sigma Z) for the exact real Z of law ``noise`` (shape parameter ``shape``).

    ``center`` and ``scale`` (= sigma >= 0) are each a finite float or an exact ratio
    ``(numerator, denominator)`` of finite floats or ints with denominator > 0, read exactly.  ``round`` is the
    nearest float, ties to even, saturated to +-MAX; the result is never NaN or infinite.
    Parameters are trusted (validated by the caller); nothing here depends on them
    except through the exact arithmetic.

    >>> from opendp_duff.samplers.exact_noise import exact_rounded_release
    >>> exact_rounded_release((1, 3), 0.0, "laplace") == 1 / 3     # sigma = 0: the nearest float to 1/3
    True
    >>> abs(exact_rounded_release(0.0, (1.0, 1e300), "student_t", 3.0)) < 1e-250
    True
    """
    k, accept, value, symmetric = _LAWS[noise]
    if _is_zero(scale):  # sigma = 0: the release is R(c), no randomness (an enclosure could not split +-0)
        return _round_float(Decimal(center)) if not isinstance(center, tuple) else \
            min(max(float(Fraction(center[0]) / Fraction(center[1])), -_MAX), _MAX)

    def enclose_const(ia, c):
        return ia.div(ia.const(c[0]), ia.const(c[1])) if isinstance(c, tuple) else ia.const(c)

    while True:  # rejection loop: each pass uses fresh uniforms
        raw = current_rng().random_bytes(8 * k + 1)   # k uniforms of 64 bits, then a sign byte
        us = [_PSRN(int.from_bytes(raw[8 * i:8 * i + 8], "big")) for i in range(k)]
        sign = (raw[8 * k] & 1) if symmetric else 0
        bits = _START_BITS
        decided = None
        while True:  # refinement loop: same uniforms, more bits and digits
            ia = _IA(_digits(bits))
            try:
                if decided is None and accept is not None:
                    decided = accept(ia, us, shape)
                    if not decided:
                        break
                decided = True
                z = value(ia, us, shape)
                if sign:
                    z = ia.neg(z)
                y = ia.add(enclose_const(ia, center), ia.mul(enclose_const(ia, scale), z))
                lo, hi = _round_float(y[0]), _round_float(y[1])
                if lo == hi and math.copysign(1.0, lo) == math.copysign(1.0, hi):  # -0.0 < +0.0 for R
                    return lo
            except _Undecided:
                pass
            bits *= 2
            for u in us:
                u.refine_to(bits)
        # rejected: draw again


def exact_mean(values):
    """The exact mean of a non-empty float64 array as a rational ``(numerator, denominator)``.

    Each float is M 2^(e - 53) with M = frexp mantissa * 2^53 an integer (|M| < 2^53); M is split
    exactly as hi 2^27 + lo with 0 <= lo < 2^27, |hi| <= 2^26, whose int64 sums over runs of
    consecutive equal exponents cannot overflow (fewer than 2^36 terms); the run sums are
    combined in Python integers.  Exact for any order; fast for sorted input (the exponent is
    monotone on each sign, so there are at most about 4200 runs).
    """
    import numpy as np
    x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    n = x.size
    mant, exp = np.frexp(x)
    mant *= 2.0 ** 53                                        # exact: a power-of-two scaling
    hi = mant.astype(np.int64)                               # exact: an integer below 2^53
    lo = hi & ((1 << 27) - 1)                                # two's complement: hi = (hi >> 27) 2^27 + lo
    hi >>= 27
    starts = np.flatnonzero(np.concatenate(([True], exp[1:] != exp[:-1])))
    his = np.add.reduceat(hi, starts)
    los = np.add.reduceat(lo, starts)
    es = exp[starts].astype(np.int64) - 53
    base = int(es.min())
    total = 0
    for h, l_, e in zip(his.tolist(), los.tolist(), es.tolist()):
        total += ((h << 27) + l_) << (e - base)
    if base >= 0:
        return total << base, n
    return total, n << (-base)
