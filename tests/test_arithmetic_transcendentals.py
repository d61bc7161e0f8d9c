"""The transcendental bounds of opendp_duff.arithmetic against exact references.

exp, log, log1p, expm1 (both directions), pow_up and sqrt_up/sqrt_down are compared with values
computed in ``decimal`` at 60 digits or more (more for arguments near 0, so that the reference
resolves the float grid), on random and edge-case arguments: each result must lie on the safe
side of the exact value, and be the tightest such float.  mpmath, when installed, is a second,
independent reference.  The functions must not call libm: with math's transcendental functions
replaced by wrong ones, every result is unchanged.  Nothing here is statistical: the random
arguments come from a fixed seed and every assertion holds for every argument.
"""
from __future__ import annotations

import math
import random
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import pytest

from opendp_duff import estimates as est
from opendp_duff import arithmetic as ar
from opendp_duff.arithmetic import MAX

TINY = 5e-324
RNG = random.Random(20240601)  # test arguments only


def _ctx(prec: int) -> Context:
    return Context(prec=prec, Emax=MAX_EMAX, Emin=MIN_EMIN)


def reference(name: str, x: float | Decimal) -> tuple[Decimal, Decimal]:
    """An enclosure lo <= f(x) <= hi from decimal at >= 60 digits (relative to f(x) - f(0) near 0)."""
    arg = Decimal(x)
    prec = 60 + 2 * max(0, -arg.adjusted())
    ctx = _ctx(prec)
    if name == "exp":
        r = ctx.exp(arg)
    elif name == "expm1":
        r = _ctx(prec + 5).subtract(ctx.exp(arg), 1)
    elif name == "log":
        r = _ctx(60).ln(arg)
        ctx = _ctx(60)
    else:
        r = ctx.ln(_ctx(2000).add(1, arg))
    return r.next_minus(ctx), r.next_plus(ctx)


def assert_tight(name: str, x: float) -> None:
    lo, hi = reference(name, x)
    u, d = getattr(ar, f"{name}_up")(x), getattr(ar, f"{name}_down")(x)
    assert Decimal(u) >= hi, (name, x, u)                                    # safe
    assert Decimal(d) <= lo, (name, x, d)
    if math.isfinite(u):
        assert Decimal(math.nextafter(u, -math.inf)) < lo, (name, x, u)      # tight
    if math.isfinite(d) and d < MAX:
        assert Decimal(math.nextafter(d, math.inf)) > hi, (name, x, d)


def _magnitudes(n: int, lo: float, hi: float) -> list[float]:
    return [RNG.choice((-1.0, 1.0)) * 10.0 ** RNG.uniform(lo, hi) for _ in range(n)]


EXP_ARGS = ([RNG.uniform(-745.0, 709.7) for _ in range(150)] + _magnitudes(60, -320, 0)
            + [1e-300, -1e-300, 2.0 ** -53, -(2.0 ** -53), 2.0 ** -52, 1e-16, 0.5, -0.5, 1.0, 709.78,
               -745.1, -744.0, 709.0, TINY, -TINY])
LOG_ARGS = ([10.0 ** RNG.uniform(-323, 308) for _ in range(150)]
            + [TINY, 2.2250738585072014e-308, 0.5, 2.0, math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0),
               MAX, 1e-300, 10.0])
LOG1P_ARGS = ([10.0 ** RNG.uniform(-320, 308) for _ in range(100)]
              + [-(10.0 ** RNG.uniform(-320, 0)) for _ in range(60)]
              + [TINY, -TINY, 2.0 ** -53, -(2.0 ** -53), 2.0 ** -52, -0.5, -0.999999, MAX, 1.0,
                 math.nextafter(-1.0, 0.0)])
EXPM1_ARGS = ([RNG.uniform(-60.0, 709.7) for _ in range(150)] + _magnitudes(60, -320, 0)
              + [TINY, -TINY, 2.0 ** -53, -(2.0 ** -53), -40.0, -39.9, 709.78, 1e-10, -1e-10])


@pytest.mark.parametrize("name,args", [("exp", EXP_ARGS), ("log", LOG_ARGS), ("log1p", LOG1P_ARGS),
                                       ("expm1", EXPM1_ARGS)])
def test_results_are_the_tightest_floats_on_the_safe_side(name, args):
    for x in args:
        assert_tight(name, x)


def test_agrees_with_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 400
    funcs = {"exp": mpmath.exp, "log": mpmath.log, "log1p": mpmath.log1p, "expm1": mpmath.expm1}
    for name, args in (("exp", EXP_ARGS), ("log", LOG_ARGS), ("log1p", LOG1P_ARGS), ("expm1", EXPM1_ARGS)):
        for x in args[:80]:
            if abs(x) < 1e-100:          # 400 bits do not resolve the float grid there
                continue
            exact = funcs[name](mpmath.mpf(x))
            assert mpmath.mpf(getattr(ar, f"{name}_down")(x)) <= exact <= mpmath.mpf(getattr(ar, f"{name}_up")(x))


def test_edge_cases():
    inf = math.inf
    assert (ar.exp_up(0.0), ar.exp_down(0.0)) == (1.0, 1.0)
    assert (ar.exp_up(inf), ar.exp_down(inf), ar.exp_up(-inf), ar.exp_down(-inf)) == (inf, inf, 0.0, 0.0)
    assert (ar.exp_up(710.0), ar.exp_down(710.0)) == (inf, MAX)           # overflow
    assert (ar.exp_up(-800.0), ar.exp_down(-800.0)) == (TINY, 0.0)        # underflow, still > 0
    assert (ar.exp_up(TINY), ar.exp_down(TINY)) == (math.nextafter(1.0, 2.0), 1.0)
    assert (ar.exp_up(-TINY), ar.exp_down(-TINY)) == (1.0, math.nextafter(1.0, 0.0))
    assert (ar.log_up(1.0), ar.log_down(1.0)) == (0.0, 0.0)
    assert (ar.log_up(0.0), ar.log_down(0.0)) == (-inf, -inf)
    assert (ar.log_up(inf), ar.log_down(inf)) == (inf, inf)
    assert (ar.log1p_up(0.0), ar.log1p_down(-1.0), ar.log1p_up(inf)) == (0.0, -inf, inf)
    assert (ar.log1p_up(TINY), ar.log1p_down(TINY)) == (TINY, 0.0)
    assert (ar.expm1_up(0.0), ar.expm1_down(0.0)) == (0.0, 0.0)
    assert (ar.expm1_down(-inf), ar.expm1_up(-inf)) == (-1.0, -1.0)
    assert (ar.expm1_down(-1000.0), ar.expm1_up(-1000.0)) == (-1.0, math.nextafter(-1.0, 0.0))
    assert (ar.expm1_up(1000.0), ar.expm1_down(1000.0), ar.expm1_up(inf)) == (inf, MAX, inf)
    assert (ar.expm1_up(TINY), ar.expm1_down(TINY)) == (2 * TINY, TINY)
    for bad in (lambda: ar.log_up(-1.0), lambda: ar.log_down(math.nan), lambda: ar.log1p_up(-1.5),
                lambda: ar.exp_up(math.nan), lambda: ar.expm1_down(math.nan), lambda: ar.sqrt_up(-2.0),
                lambda: ar.pow_up(math.nan, 2.0)):
        with pytest.raises(ValueError):
            bad()


def test_rational_arguments_are_rounded_on_the_safe_side():
    """An exact rational argument: the bound holds for the rational itself, not its nearest float."""
    for q in (Fraction(1, 3), Fraction(-7, 3), Fraction(10 ** 30 + 1, 10 ** 30), Fraction(1, 10 ** 40),
              Fraction(-1, 3), Fraction(7 * 10 ** 300 + 1, 10 ** 300)):
        num, den = Decimal(q.numerator), Decimal(q.denominator)
        q_hi = Context(prec=80, rounding=ROUND_CEILING).divide(num, den)     # q_lo <= q <= q_hi
        q_lo = Context(prec=80, rounding=ROUND_FLOOR).divide(num, den)
        for name in ("exp", "expm1") + (("log", "log1p") if q > 0 else ()):
            # f increasing: f(q) <= f(q_hi) <= reference hi, and f(q) >= f(q_lo) >= reference lo
            assert Decimal(getattr(ar, f"{name}_up")(q)) >= reference(name, q_hi)[1], (name, q)
            assert Decimal(getattr(ar, f"{name}_down")(q)) <= reference(name, q_lo)[0], (name, q)
    assert ar.exp_up(10 ** 400) == math.inf and ar.log_up(10 ** 400) == math.inf
    assert ar.exp_down(-(10 ** 400)) == 0.0 and ar.log_down(Fraction(1, 10 ** 400)) == -math.inf


def test_pow_up():
    assert ar.pow_up(2.0, 3) == 8.0 and ar.pow_up(0.0, 0) == 1.0 and ar.pow_up(0.0, 0.0) == 1.0
    assert ar.pow_up(3.0, -1) == ar.up(Fraction(1, 3))
    assert ar.pow_up(0.0, 2.5) == 0.0 and ar.pow_up(0.0, -1.5) == math.inf
    assert ar.pow_up(math.inf, 0.5) == math.inf and ar.pow_up(math.inf, -0.5) == 0.0
    for _ in range(200):
        x, y = 10.0 ** RNG.uniform(-5, 5), RNG.uniform(-20, 20)
        exact = _ctx(80).power(Decimal(x), Decimal(y))            # only a reference here
        got = ar.pow_up(x, y)
        assert Decimal(got) >= exact.next_plus(_ctx(80)), (x, y)
        assert Fraction(got) <= Fraction(exact) * (1 + Fraction(1, 2 ** 40)), (x, y)


def test_sqrt_is_exact_whatever_math_sqrt_returns(monkeypatch):
    xs = [10.0 ** RNG.uniform(-320, 308) for _ in range(200)] + [TINY, 2.0, 4.0, MAX]
    real = [(ar.sqrt_up(x), ar.sqrt_down(x)) for x in xs]
    for x, (u, d) in zip(xs, real, strict=True):
        assert Fraction(u) ** 2 >= Fraction(x) > Fraction(math.nextafter(u, 0.0)) ** 2
        assert Fraction(d) ** 2 <= Fraction(x) < Fraction(math.nextafter(d, math.inf)) ** 2
    monkeypatch.setattr(math, "sqrt", lambda v: (v ** 0.5) * (1 + 2e-15))   # about 9 ulps too high
    assert [(ar.sqrt_up(x), ar.sqrt_down(x)) for x in xs] == real
    assert ar.sqrt_up(2 ** 60 + 1) == ar.sqrt_up(Fraction(2 ** 60 + 1))
    assert Fraction(ar.sqrt_up(2 ** 60 + 1)) ** 2 >= 2 ** 60 + 1                # an int above 2^53


def test_results_do_not_call_libm(monkeypatch):
    names = ("exp", "log", "log1p", "expm1")
    args = [0.3, 7.0, 1e-20, 123.456, 0.75]
    for name in names:
        getattr(ar, f"_{name}").cache_clear()
    real = {(n, x): (getattr(ar, f"{n}_up")(x), getattr(ar, f"{n}_down")(x)) for n in names for x in args}
    for name in names:
        getattr(ar, f"_{name}").cache_clear()
        monkeypatch.setattr(math, name, lambda *a: 42.0)
    assert {(n, x): (getattr(ar, f"{n}_up")(x), getattr(ar, f"{n}_down")(x)) for n in names for x in args} == real


def test_monotone_in_the_argument():
    xs = sorted(RNG.uniform(-30, 30) for _ in range(150))
    for name in ("exp", "expm1"):
        for f in (getattr(ar, f"{name}_up"), getattr(ar, f"{name}_down")):
            ys = [f(x) for x in xs]
            assert ys == sorted(ys)
    xs = sorted(10.0 ** RNG.uniform(-30, 30) for _ in range(150))
    for f in (ar.log_up, ar.log_down, ar.log1p_up, ar.log1p_down):
        ys = [f(x) for x in xs]
        assert ys == sorted(ys)


def test_estimates_are_close_but_are_not_bounds():
    ctx = _ctx(40)
    for _ in range(300):
        x = 10.0 ** RNG.uniform(-300, 300)
        assert abs(Fraction(est.log_estimate(x)) - Fraction(ctx.ln(Decimal(x)))) <= \
            abs(Fraction(ctx.ln(Decimal(x)))) * Fraction(1, 10 ** 14) + Fraction(1, 10 ** 300)
        u = RNG.uniform(-0.999, 3.0)
        exact = ctx.ln(_ctx(2000).add(1, Decimal(u)))
        assert abs(Fraction(est.log1p_estimate(u)) - Fraction(exact)) <= abs(Fraction(exact)) * Fraction(1, 10 ** 14)
        y = RNG.uniform(-700.0, 700.0)
        assert abs(Fraction(est.exp_estimate(y)) - Fraction(ctx.exp(Decimal(y)))) <= \
            Fraction(ctx.exp(Decimal(y))) * Fraction(1, 10 ** 14)
    assert est.exp_estimate(800.0) == math.inf and est.exp_estimate(-800.0) == 0.0
    assert est.log_estimate(0.0) == -math.inf
