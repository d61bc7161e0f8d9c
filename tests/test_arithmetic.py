"""Outward rounding: every result is on the safe side of the exact value, and tight."""
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff import arithmetic as ar


@pytest.fixture(autouse=True)
def _decimal_precision():
    """The exact references below compute with 60-digit decimals: a local context, so that the
    setting neither leaks into other test modules nor is overwritten by them."""
    with localcontext() as ctx:
        ctx.prec = 60
        yield


RNG = np.random.default_rng(12345)  # test data only, not a privacy sampler


def floats(n):
    mags = 10.0 ** RNG.uniform(-300, 300, n)
    return [float(m) for m in mags] + [0.5, 1.0, 3.0, 0.1, 1e-320, 1.7e308]


@pytest.mark.parametrize("op,exact", [
    (ar.add_up, lambda a, b: Fraction(a) + Fraction(b)),
    (ar.mul_up, lambda a, b: Fraction(a) * Fraction(b)),
    (ar.div_up, lambda a, b: Fraction(a) / Fraction(b)),
    (ar.sub_up, lambda a, b: Fraction(a) - Fraction(b)),
])
def test_basic_ops_round_up_tightly(op, exact):
    xs, ys = floats(300), floats(300)
    for a, b in zip(xs, ys, strict=True):
        got, q = op(a, b), exact(a, b)
        if math.isinf(got):
            assert q > Fraction(ar.MAX)
            continue
        assert Fraction(got) >= q
        assert Fraction(math.nextafter(got, -math.inf)) < q  # tight: the float below is unsafe


def test_down_is_mirror():
    for a, b in zip(floats(200), floats(200), strict=True):
        q = Fraction(a) / Fraction(b)
        got = ar.div_down(a, b)
        if not math.isinf(got) and got != ar.MAX:
            assert Fraction(got) <= q < Fraction(math.nextafter(got, math.inf))


def test_up_of_huge_and_tiny_rationals():
    assert ar.up(Fraction(10) ** 400) == math.inf
    assert ar.up(-Fraction(10) ** 400) == -ar.MAX
    assert ar.up(Fraction(1, 10 ** 400)) == 5e-324
    assert ar.down(Fraction(1, 10 ** 400)) == 0.0


def test_sqrt_is_exactly_directed():
    for x in floats(300):
        r_up, r_dn = ar.sqrt_up(x), ar.sqrt_down(x)
        assert Fraction(r_up) ** 2 >= Fraction(x) >= Fraction(r_dn) ** 2
        assert r_up in (r_dn, math.nextafter(r_dn, math.inf))


@pytest.mark.parametrize("x", [1e-10, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 700.0, -3.0, -700.0])
def test_exp_log_bracket_high_precision_values(x):
    e = Decimal(x).exp()
    assert Decimal(ar.exp_down(x)) <= e <= Decimal(ar.exp_up(x))
    if x > 0:
        lg = Decimal(x).ln()
        assert Decimal(ar.log_down(x)) <= lg <= Decimal(ar.log_up(x))


def test_special_values():
    assert ar.div_up(0.0, 0.0) == 0.0
    assert ar.div_up(1.0, 0.0) == math.inf
    assert ar.div_up(1.0, math.inf) == 0.0
    assert ar.mul_up(0, math.inf) == 0.0
    assert ar.exp_up(1000.0) == math.inf
    assert ar.log_down(0.0) == -math.inf
    assert ar.pow_up(2.0, 3) == 8.0
    assert Decimal(ar.pow_up(2.0, 0.5)) >= Decimal(2).sqrt()
    assert Decimal(ar.pow_up(0.5, -0.5)) >= Decimal(2).sqrt()


@pytest.mark.parametrize("x", [1e-12, 1e-3, 0.5, 1.0, 30.0, -0.25])
def test_expm1_brackets_high_precision_value(x):
    e = Decimal(x).exp() - 1
    assert Decimal(ar.expm1_down(x)) <= e <= Decimal(ar.expm1_up(x))
    assert ar.expm1_down(0.0) == 0.0
