"""Outward-rounded arithmetic for privacy and stability maps.

A map must never return a number below the exact bound, so every map does its
arithmetic here.  The rules:

* Finite floats are exact rationals.  ``+ - * /`` are carried out exactly in
  :class:`fractions.Fraction` and the result is converted to the float
  *above* (``up``) or *below* (``down``) it.  Results are therefore the tightest
  floats on the safe side.
* ``sqrt`` is correctly rounded by IEEE 754; we check the rounding direction
  exactly and step once if needed.
* ``exp``, ``log``, ``log1p``, ``expm1`` come from the platform libm, which
  is accurate to within one unit in the last place (ulp) on the platforms we
  support (glibc documents at most 1 ulp for these functions on x86-64).  We
  step the libm result two floats outward, which covers any error under one
  ulp even across a binade boundary.

Infinity is handled explicitly: ``up`` of an unbounded quantity is ``inf``.
"""
import math
from fractions import Fraction

INF = math.inf
MAX = 1.7976931348623157e308  # the largest finite float

__all__ = [
    "Q", "up", "down", "add_up", "sub_up", "mul_up", "div_up", "div_down",
    "sqrt_up", "sqrt_down", "exp_up", "exp_down", "log_up", "log_down",
    "log1p_up", "log1p_down", "expm1_up", "expm1_down", "pow_up", "next_up", "next_down",
]


def next_up(x, steps=1):
    for _ in range(steps):
        x = math.nextafter(x, INF)
    return x


def next_down(x, steps=1):
    for _ in range(steps):
        x = math.nextafter(x, -INF)
    return x


def Q(x):
    """The exact rational value of a finite float/int/Fraction."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"Q: {x!r} is not finite")
    return Fraction(x)


def up(q):
    """The smallest float >= the exact rational ``q`` (inf when it overflows)."""
    if isinstance(q, float):
        return q
    try:
        f = float(q)
    except OverflowError:
        return INF if q > 0 else -MAX
    if math.isinf(f):
        return f if f > 0 else -MAX
    if Fraction(f) < q:
        f = math.nextafter(f, INF)
    return f


def down(q):
    """The largest float <= the exact rational ``q``."""
    if isinstance(q, float):
        return q
    try:
        f = float(q)
    except OverflowError:
        return -INF if q < 0 else MAX
    if math.isinf(f):
        return f if f < 0 else MAX
    if Fraction(f) > q:
        f = math.nextafter(f, -INF)
    return f


def _has_inf(*xs):
    return any(isinstance(x, float) and math.isinf(x) for x in xs)


def add_up(a, b):
    if _has_inf(a, b):
        return float(a) + float(b)
    return up(Q(a) + Q(b))


def sub_up(a, b):
    if _has_inf(a, b):
        return float(a) - float(b)
    return up(Q(a) - Q(b))


def mul_up(a, b):
    """a * b rounded up; 0 * inf is taken as 0 (a zero distance costs nothing)."""
    if _has_inf(a, b):
        if a == 0 or b == 0:
            return 0.0
        return float(a) * float(b)
    return up(Q(a) * Q(b))


def div_up(a, b):
    """a / b rounded up for a >= 0, b >= 0; x/0 = inf for x > 0 and 0/0 = 0."""
    if a == 0:
        return 0.0
    if b == 0 or (isinstance(a, float) and math.isinf(a)):
        return INF
    if isinstance(b, float) and math.isinf(b):
        return 0.0
    return up(Q(a) / Q(b))


def div_down(a, b):
    if a == 0:
        return 0.0
    if b == 0 or (isinstance(a, float) and math.isinf(a)):
        return INF
    if isinstance(b, float) and math.isinf(b):
        return 0.0
    return down(Q(a) / Q(b))


def sqrt_up(x):
    x = up(x) if isinstance(x, Fraction) else float(x)
    if math.isinf(x):
        return INF
    r = math.sqrt(x)
    if Fraction(r) ** 2 < Fraction(x):
        r = math.nextafter(r, INF)
    return r


def sqrt_down(x):
    x = down(x) if isinstance(x, Fraction) else float(x)
    if math.isinf(x):
        return INF
    r = math.sqrt(x)
    if Fraction(r) ** 2 > Fraction(x):
        r = math.nextafter(r, -INF)
    return r


def _libm_up(f, x):
    x = float(up(x)) if isinstance(x, Fraction) else float(x)
    try:
        return next_up(f(x), 2)
    except OverflowError:
        return INF


def _libm_down(f, x):
    x = float(down(x)) if isinstance(x, Fraction) else float(x)
    try:
        return next_down(f(x), 2)
    except OverflowError:
        return MAX


def exp_up(x):
    """exp(x) rounded up (the argument must already be an upper bound)."""
    return _libm_up(math.exp, x)


def exp_down(x):
    return max(0.0, _libm_down(math.exp, x))


def expm1_up(x):
    return _libm_up(math.expm1, x)


def expm1_down(x):
    """e^x - 1 rounded down (never below -1; exactly 0 at 0)."""
    if x == 0:
        return 0.0
    return max(-1.0, _libm_down(math.expm1, x))


def log_up(x):
    """log(x) rounded up, for x > 0 (the argument must already be an upper bound)."""
    if x == INF:
        return INF
    return _libm_up(math.log, x)


def log_down(x):
    if x == 0:
        return -INF
    return _libm_down(math.log, x)


def log1p_up(x):
    if x == INF:
        return INF
    return _libm_up(math.log1p, x)


def log1p_down(x):
    return _libm_down(math.log1p, x)


def pow_up(x, y):
    """x ** y rounded up for x >= 0; exact for a non-negative integer y."""
    if isinstance(y, int) and y >= 0 and not _has_inf(x):
        return up(Q(x) ** y)
    if x == 0:
        return 0.0 if y > 0 else INF
    # exp is increasing, so bound y*log(x) above: log up when y >= 0, down when y < 0.
    return exp_up(mul_up(y, log_up(x) if y >= 0 else log_down(x)))
