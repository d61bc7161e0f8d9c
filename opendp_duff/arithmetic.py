"""Outward-rounded arithmetic for privacy and stability maps.

A map must never return a number below the exact bound, so every map does its arithmetic
here, and nothing here relies on the accuracy of the platform's libm:

* ``+ - * /``: finite floats are exact rationals; the result is computed exactly in
  :class:`fractions.Fraction` and converted to the float above (``up``) or below (``down``) it,
  the direction settled by an exact comparison.  These are the tightest floats on the safe side.
* ``sqrt_up`` / ``sqrt_down``: ``math.sqrt`` is only a first guess; exact comparisons of squares
  move it to the smallest float whose square is >= x (the largest whose square is <= x).
* ``exp``, ``log``, ``log1p``, ``expm1``: evaluated with :mod:`decimal`, whose ``exp`` and ``ln``
  are correctly rounded (Python documentation).  The two decimal neighbours of the result then
  enclose the exact value, and an exact comparison rounds the enclosure outward to a float.  The
  working precision (40 significant digits, more for arguments near 0) is raised until the
  enclosure decides the float, so the result is the tightest float on the safe side.
* ``pow_up``: exact for integer exponents, otherwise ``exp_up`` of an upper bound on y log x.

The transcendental functions take a float, an int or a Fraction.  All four are increasing, so a
rational argument is first rounded in the safe direction (up for ``*_up``, down for ``*_down``).
Infinities follow the functions' limits; ``up`` of an unbounded positive quantity is ``inf``
and ``down`` of one is ``MAX``.  A NaN argument, or one outside the domain, raises ValueError.

Proof: ``proofs/arithmetic.tex``.  Platform assumptions: ``proofs/platform.tex``.
"""
from __future__ import annotations

import math
from decimal import (MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal,
                     Inexact)
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Tuple, Union

from ._constants import INF, MAX

Real = Union[int, float, Fraction]
Enclosure = Callable[[float, int], Tuple[Decimal, Decimal]]

__all__ = [
    "Q", "up", "down", "add_up", "sub_up", "mul_up", "div_up", "div_down",
    "sqrt_up", "sqrt_down", "exp_up", "exp_down", "log_up", "log_down",
    "log1p_up", "log1p_down", "expm1_up", "expm1_down", "pow_up", "next_up", "next_down", "INF", "MAX",
]


def next_up(x: float, steps: int = 1) -> float:
    """The float ``steps`` places above x (IEEE 754 nextUp, exact)."""
    for _ in range(steps):
        x = math.nextafter(x, INF)
    return x


def next_down(x: float, steps: int = 1) -> float:
    """The float ``steps`` places below x (IEEE 754 nextDown, exact)."""
    for _ in range(steps):
        x = math.nextafter(x, -INF)
    return x


# [proof:Q]
def Q(x: Real) -> Fraction:
    """The exact rational value of a finite float, int or Fraction."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"Q: {x!r} is not finite")
    return Fraction(x)
# [end:Q]


# [proof:rational_rounding]
def up(q: Real) -> float:
    """The smallest float >= the exact rational ``q`` (inf above MAX; -MAX below -MAX)."""
    if isinstance(q, float):
        return q
    try:
        f = float(q)
    except OverflowError:
        return INF if q > 0 else -MAX
    if math.isinf(f):
        return f if f > 0 else -MAX
    while f != INF and Fraction(f) < q:
        f = math.nextafter(f, INF)
    return f


def down(q: Real) -> float:
    """The largest float <= the exact rational ``q`` (MAX above MAX; -inf below -MAX)."""
    if isinstance(q, float):
        return q
    try:
        f = float(q)
    except OverflowError:
        return -INF if q < 0 else MAX
    if math.isinf(f):
        return f if f < 0 else MAX
    while f != -INF and Fraction(f) > q:
        f = math.nextafter(f, -INF)
    return f
# [end:rational_rounding]


def _is_nan(x: Real) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _has_inf(*xs: Real) -> bool:
    return any(isinstance(x, float) and math.isinf(x) for x in xs)


# [proof:add_up]
def add_up(a: Real, b: Real) -> float:
    """a + b rounded up (float arithmetic when an argument is infinite)."""
    if _has_inf(a, b):
        return float(a) + float(b)
    return up(Q(a) + Q(b))
# [end:add_up]


# [proof:sub_up]
def sub_up(a: Real, b: Real) -> float:
    """a - b rounded up (float arithmetic when an argument is infinite)."""
    if _has_inf(a, b):
        return float(a) - float(b)
    return up(Q(a) - Q(b))
# [end:sub_up]


# [proof:mul_up]
def mul_up(a: Real, b: Real) -> float:
    """a * b rounded up; 0 * inf is taken as 0 (a zero distance costs nothing)."""
    if _has_inf(a, b):
        if a == 0 or b == 0:
            return 0.0
        return float(a) * float(b)
    return up(Q(a) * Q(b))
# [end:mul_up]


def _div(a: Real, b: Real, rounded: Callable[[Fraction], float]) -> float:
    """a / b for a >= 0, b >= 0, the exact quotient rounded by ``rounded``; x/0 = inf for x > 0,
    0/0 = 0, inf/b = inf, a/inf = 0."""
    if a == 0:
        return 0.0
    if b == 0 or (isinstance(a, float) and math.isinf(a)):
        return INF
    if isinstance(b, float) and math.isinf(b):
        return 0.0
    return rounded(Q(a) / Q(b))


# [proof:div_up]
def div_up(a: Real, b: Real) -> float:
    """a / b rounded up for a >= 0, b >= 0; x/0 = inf for x > 0 and 0/0 = 0."""
    return _div(a, b, up)
# [end:div_up]


def div_down(a: Real, b: Real) -> float:
    """a / b rounded down for a >= 0, b >= 0 (same special cases as ``div_up``)."""
    return _div(a, b, down)


# [proof:sqrt]
def _sqrt_arg(x: Real, upward: bool) -> float:
    """x as a float rounded in the safe direction (sqrt is increasing); inf stays inf."""
    f = float(x) if isinstance(x, float) else (up(Q(x)) if upward else down(Q(x)))
    if math.isnan(f) or f < 0:
        raise ValueError(f"sqrt: argument ({f!r}) must be >= 0")
    return f


def sqrt_up(x: Real) -> float:
    """The smallest float r with r * r >= x (exactly), for x >= 0."""
    f = _sqrt_arg(x, True)
    if f == INF:
        return INF
    exact = Fraction(f)
    r = math.sqrt(f)                                     # a guess; the loops decide
    while Fraction(r) ** 2 < exact:
        r = math.nextafter(r, INF)
    while r > 0 and Fraction(math.nextafter(r, 0.0)) ** 2 >= exact:
        r = math.nextafter(r, 0.0)
    return r


def sqrt_down(x: Real) -> float:
    """The largest float r with r * r <= x (exactly), for x >= 0."""
    f = _sqrt_arg(x, False)
    if f == INF:
        return INF
    exact = Fraction(f)
    r = math.sqrt(f)
    while Fraction(r) ** 2 > exact:
        r = math.nextafter(r, 0.0)
    while Fraction(math.nextafter(r, INF)) ** 2 <= exact:
        r = math.nextafter(r, INF)
    return r
# [end:sqrt]


# ---- transcendental functions, enclosed in decimal ----------------------------------------

# [proof:_DIGITS]
_DIGITS = (40, 160, 640)        # working precisions (significant digits), tried in turn
# [end:_DIGITS]
_CONTEXTS: dict[tuple[int, str], Context] = {}
# Exact addition 1 + x for a float x: its digits span at most 10^308 .. 10^-1074 (< 1400 digits);
# Inexact is trapped, so a wrong count would raise rather than round.
# [proof:_EXACT]
_EXACT = Context(prec=1400, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact])
# [end:_EXACT]
_ONE = Decimal(1)


def _ctx(prec: int, rounding: str = ROUND_HALF_EVEN) -> Context:
    """A context with ``prec`` digits and exponents far beyond any float's; ``rounding`` applies
    to + - * / (exp and ln are correctly rounded half-even, as documented)."""
    key = (prec, rounding)
    if key not in _CONTEXTS:
        _CONTEXTS[key] = Context(prec=prec, rounding=rounding, Emax=MAX_EMAX, Emin=MIN_EMIN)
    return _CONTEXTS[key]


# [proof:decimal_core]
def _float_ceil(d: Decimal) -> float:
    """The smallest float >= d (inf above MAX)."""
    f = float(d)
    while Decimal(f) < d:
        f = math.nextafter(f, INF)
    return f


def _float_floor(d: Decimal) -> float:
    """The largest float <= d (-inf below -MAX)."""
    f = float(d)
    while Decimal(f) > d:
        f = math.nextafter(f, -INF)
    return f


def _around(r: Decimal, ctx: Context) -> Tuple[Decimal, Decimal]:
    """The decimal neighbours of a correctly rounded result r: they enclose the exact value."""
    return r.next_minus(ctx), r.next_plus(ctx)


def _exp_enclosure(x: float, digits: int) -> Tuple[Decimal, Decimal]:
    arg = Decimal(x)
    ctx = _ctx(digits + max(0, -arg.adjusted()))  # near 0, e^x - 1 ~ x keeps `digits` digits
    return _around(ctx.exp(arg), ctx)


def _expm1_enclosure(x: float, digits: int) -> Tuple[Decimal, Decimal]:
    arg = Decimal(x)
    prec = digits + max(0, -arg.adjusted())
    lo, hi = _around(_ctx(prec).exp(arg), _ctx(prec))
    return _ctx(prec, ROUND_FLOOR).subtract(lo, _ONE), _ctx(prec, ROUND_CEILING).subtract(hi, _ONE)


def _log_enclosure(x: float, digits: int) -> Tuple[Decimal, Decimal]:
    return _around(_ctx(digits).ln(Decimal(x)), _ctx(digits))


def _log1p_enclosure(x: float, digits: int) -> Tuple[Decimal, Decimal]:
    return _around(_ctx(digits).ln(_EXACT.add(_ONE, Decimal(x))), _ctx(digits))


def _outward(enclosure: Enclosure, x: float, upward: bool) -> float:
    """The float on the safe side of f(x), from enclosures lo <= f(x) <= hi: ceil(hi) or
    floor(lo).  Once the enclosure leaves no float strictly between it and f(x), that float is
    the tightest; otherwise retry with more digits, and after the last return the safe float."""
    result = 0.0
    for digits in _DIGITS:
        lo, hi = enclosure(x, digits)
        if upward:
            result = _float_ceil(hi)
            if Decimal(math.nextafter(result, -INF)) < lo:
                return result
        else:
            result = _float_floor(lo)
            if Decimal(math.nextafter(result, INF)) > hi:
                return result
    return result
# [end:decimal_core]


# [proof:_arg]
def _arg(x: Real, upward: bool) -> float:
    """x as a float, rounded in the safe direction for an increasing function."""
    if isinstance(x, float):
        f = float(x)
        if math.isnan(f):
            raise ValueError("the argument of a transcendental bound must not be NaN")
        return f
    return up(Q(x)) if upward else down(Q(x))
# [end:_arg]


# [proof:transcendentals]
_E_TINY = 2.0 ** -1074            # the smallest positive float
_ONE_MINUS = 1.0 - 2.0 ** -53     # the float below 1
_ONE_PLUS = 1.0 + 2.0 ** -52      # the float above 1
_SMALL = 2.0 ** -53               # below this, the first Taylor term decides the float


@lru_cache(maxsize=4096)
def _exp(x: float, upward: bool) -> float:
    if x == -INF:
        return 0.0
    if x == INF:
        return INF
    if x == 0:
        return 1.0
    if abs(x) <= _SMALL:          # 1 - 2^-53 <= 1 + x < e^x < 1 + 2x <= 1 + 2^-52
        return (_ONE_PLUS if x > 0 else 1.0) if upward else (1.0 if x > 0 else _ONE_MINUS)
    if x > 710:                   # e^x > 2^1024 > MAX
        return INF if upward else MAX
    if x < -746:                  # 0 < e^x < 2^-1075
        return _E_TINY if upward else 0.0
    return _outward(_exp_enclosure, x, upward)


@lru_cache(maxsize=4096)
def _expm1(x: float, upward: bool) -> float:
    if x == -INF:
        return -1.0
    if x == INF:
        return INF
    if x == 0:
        return 0.0
    if abs(x) <= _SMALL:          # x < e^x - 1 < x + x^2 < next_up(x)
        return next_up(x) if upward else x
    if x > 710:                   # e^x - 1 > 2^1024 - 1 > MAX
        return INF if upward else MAX
    if x < -40:                   # -1 < e^x - 1 < -1 + e^-40 < -1 + 2^-53
        return next_up(-1.0) if upward else -1.0
    return _outward(_expm1_enclosure, x, upward)


@lru_cache(maxsize=4096)
def _log(x: float, upward: bool) -> float:
    if x < 0:
        raise ValueError(f"log: argument ({x!r}) must be >= 0")
    if x == 0:
        return -INF
    if x == INF:
        return INF
    if x == 1:
        return 0.0
    return _outward(_log_enclosure, x, upward)


@lru_cache(maxsize=4096)
def _log1p(x: float, upward: bool) -> float:
    if x < -1:
        raise ValueError(f"log1p: argument ({x!r}) must be >= -1")
    if x == -1:
        return -INF
    if x == INF:
        return INF
    if x == 0:
        return 0.0
    if abs(x) <= _SMALL:          # next_down(x) < x - x^2 < log(1 + x) < x
        return x if upward else next_down(x)
    return _outward(_log1p_enclosure, x, upward)
# [end:transcendentals]


def _directed(core: Callable[[float, bool], float], upward: bool, name: str, doc: str) -> Callable[[Real], float]:
    """The public bound ``name``: ``core`` on the argument rounded in the safe direction (:func:`_arg`)."""
    def bound(x: Real) -> float:
        return core(_arg(x, upward), upward)
    bound.__name__ = bound.__qualname__ = name
    bound.__doc__ = doc
    return bound


# [proof:exp_up]
exp_up = _directed(_exp, True, "exp_up", "The smallest float >= e^x (inf when e^x > MAX).")
# [end:exp_up]
# [proof:exp_down]
exp_down = _directed(_exp, False, "exp_down", "The largest float <= e^x (MAX when e^x > MAX; 0 when e^x < 2^-1074).")
# [end:exp_down]
# [proof:expm1_up]
expm1_up = _directed(_expm1, True, "expm1_up", "The smallest float >= e^x - 1.")
# [end:expm1_up]
# [proof:expm1_down]
expm1_down = _directed(_expm1, False, "expm1_down", "The largest float <= e^x - 1 (never below -1; exactly 0 at 0).")
# [end:expm1_down]
# [proof:log_up]
log_up = _directed(_log, True, "log_up", "The smallest float >= log x, for x >= 0 (log 0 = -inf).")
# [end:log_up]
# [proof:log_down]
log_down = _directed(_log, False, "log_down", "The largest float <= log x, for x >= 0 (log 0 = -inf).")
# [end:log_down]
# [proof:log1p_up]
log1p_up = _directed(_log1p, True, "log1p_up", "The smallest float >= log(1 + x), for x >= -1.")
# [end:log1p_up]
# [proof:log1p_down]
log1p_down = _directed(_log1p, False, "log1p_down", "The largest float <= log(1 + x), for x >= -1.")
# [end:log1p_down]


# [proof:pow_up]
def pow_up(x: Real, y: Real) -> float:
    """A float >= x ** y for x >= 0 (0 ** 0 = 1): exact rounding for an integer y, otherwise
    exp_up of an upper bound on y log x."""
    if _is_nan(x) or _is_nan(y):
        raise ValueError("pow_up: arguments must not be NaN")
    if y == 0:
        return 1.0
    if isinstance(y, int) and not _has_inf(x) and (y > 0 or x != 0):
        return up(Q(x) ** y)
    if x == 0:
        return 0.0 if y > 0 else INF
    # exp is increasing, so bound y log x above: log x up when y > 0, down when y < 0
    return exp_up(mul_up(y, log_up(x) if y > 0 else log_down(x)))
# [end:pow_up]
