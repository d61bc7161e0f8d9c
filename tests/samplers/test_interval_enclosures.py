"""opendp_duff.samplers.interval: every enclosure contains the exact value.

The exact value is computed exactly (+, -, *) or at 120 digits (/, exp, ln, sqrt), far beyond
the arithmetic's precision, for exact arguments inside the argument enclosures, ends
included; the arithmetic runs at low precision (12 to 25 digits) so that its rounding
matters.  Also: the one-step widening of a correctly rounded function is necessary (the
rounded value alone is often on the wrong side), and the narrow-argument branches of exp
and ln are exercised.
"""
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings, strategies as st

from opendp_duff.samplers.interval import DecimalIA, Undecided, digits_for_bits

REF = 120      # digits of the reference value of a division or a transcendental function
EXACT = 2000   # digits at which +, -, * of the test's decimals (at most ~770 digits) are exact
PRECS = st.sampled_from([12, 19, 25])
WIDTHS = st.sampled_from([Decimal(0), Decimal("1e-30"), Decimal("1e-9"), Decimal("1e-3"), Decimal(3)])


def wide(x0, w):
    """The exact box [x0, x0 + w] and four exact points of it (ends, middle, a third)."""
    with localcontext() as ctx:
        ctx.prec = EXACT
        lo, hi = x0, x0 + w
        return (lo, hi), [lo, hi, (lo + hi) / 2, lo + (hi - lo) / 3]


def inside(v, enc):
    return enc[0] <= v <= enc[1]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.floats(-1e6, 1e6).map(Decimal), WIDTHS, st.floats(-1e6, 1e6).map(Decimal), WIDTHS, PRECS)
def test_arithmetic_encloses(a0, wa, b0, wb, prec):
    ia = DecimalIA(prec)
    (a, xs), (b, ys) = wide(a0, wa), wide(b0, wb)
    add, sub, mul, div, neg, sq = ia.add(a, b), ia.sub(a, b), ia.mul(a, b), None, ia.neg(a), ia.square(a)
    if b[0] > 0:
        div = ia.div(a, b)
    for x in xs:
        for y in ys:
            with localcontext() as ctx:
                ctx.prec = EXACT
                assert inside(x + y, add) and inside(x - y, sub) and inside(x * y, mul)
                assert inside(-x, neg) and inside(x * x, sq)
                ctx.prec = REF
                assert div is None or inside(x / y, div)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.floats(-700, 700).map(Decimal), WIDTHS, PRECS)
def test_exp_encloses(x0, w, prec):
    ia = DecimalIA(prec)
    a, xs = wide(x0, w)
    enc = ia.exp(a)
    with localcontext() as ctx:
        ctx.prec = REF
        assert all(inside(x.exp(), enc) for x in xs)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.floats(1e-300, 1e300).map(Decimal), WIDTHS, PRECS)
def test_ln_and_sqrt_enclose(x0, w, prec):
    ia = DecimalIA(prec)
    a, xs = wide(x0, w)
    ln, sq = ia.ln(a), ia.sqrt_nonneg(a)
    with localcontext() as ctx:
        ctx.prec = REF
        assert all(inside(x.ln(), ln) and inside(x.sqrt(), sq) for x in xs)


def test_point_bounds_need_their_one_step():
    # the correctly rounded value alone is on the wrong side of the exact value about half the
    # time; the bounds (one step outward) are always on the right side
    ia = DecimalIA(12)
    wrong = 0
    for k in range(1, 200):
        x = Decimal(k) / 7
        r_ln, r_exp = x.ln(ia.ne), x.exp(ia.ne)
        with localcontext() as ctx:
            ctx.prec = REF
            t_ln, t_exp = x.ln(), x.exp()
        wrong += (r_ln > t_ln) + (r_exp < t_exp)
        assert ia.ln_dn(x) <= t_ln <= ia.ln_up(x) and ia.exp_dn(x) <= t_exp <= ia.exp_up(x)
    assert wrong > 50


def test_narrow_branches_and_domains():
    ia = DecimalIA(20)
    for w in (Decimal("1e-7"), Decimal("1e-12")):      # below the 1e-6 threshold: one-ended bounds
        a, xs = wide(Decimal("0.7"), w)
        e, lg = ia.exp(a), ia.ln(a)
        with localcontext() as ctx:
            ctx.prec = REF
            assert all(inside(x.exp(), e) and inside(x.ln(), lg) for x in xs)
    with pytest.raises(Undecided):
        ia.ln((Decimal(0), Decimal(1)))
    with pytest.raises(Undecided):
        ia.div((Decimal(1), Decimal(2)), (Decimal(-1), Decimal(1)))
    with pytest.raises(Undecided):
        ia.sqrt_nonneg((Decimal(-2), Decimal(-1)))
    assert ia.sqrt_nonneg((Decimal(-1), Decimal(4)))[0] == 0 and ia.exp_dn(Decimal("-1e30")) == 0
    assert ia.ln_dn(Decimal(0)) == Decimal("-Infinity")


def test_precision_grows_with_the_bits():
    assert digits_for_bits(64) == 25 and digits_for_bits(128) == 45
    assert all(digits_for_bits(2 * b) > digits_for_bits(b) for b in (64, 128, 256, 512))
