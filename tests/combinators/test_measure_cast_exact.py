"""The zCDP to (eps, delta) conversion against exact references.

Lemma 9 ([BS16] Prop. 1.3) and the [CKS20] bound are compared with their formulas evaluated in
100-digit decimal: each returned value is at least the exact one and within a few ulps of it;
the order alpha chosen by the search is within a hair of the exact minimiser; the edge cases
(rho = 0, rho = inf, delta = 0, huge alpha where alpha log(1 - 1/alpha) is replaced by -1) are
handled as the proof says.  Deterministic (fixed-seed arguments).
"""
import math
import random
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction

import pytest

import opendp_duff as dp
from opendp_duff import arithmetic as ar
from opendp_duff.combinators import measure_cast as mc

C = Context(prec=100, Emax=MAX_EMAX, Emin=MIN_EMIN)
RNG = random.Random(7)
ULPS = Fraction(1, 2 ** 48)          # "a few ulps": 16 ulps relative


def exact_lemma9(rho, delta):
    L = -C.ln(Decimal(delta))
    return Decimal(rho) + 2 * C.sqrt(Decimal(rho) * L)


def exact_cks(rho, delta, alpha):
    a, L = Decimal(alpha), -C.ln(Decimal(delta))
    inner = C.ln(C.subtract(1, C.divide(1, a)))
    return max(Decimal(0), a * Decimal(rho) + (L + a * inner - C.ln(a - 1)) / (a - 1))


def draws(n):
    return [(10.0 ** RNG.uniform(-12, 4), 10.0 ** RNG.uniform(-300, -0.01)) for _ in range(n)]


def test_lemma9_is_the_formula_rounded_up():
    for rho, delta in draws(200):
        got, exact = mc.zcdp_epsilon_lemma9(rho, delta), exact_lemma9(rho, delta)
        assert Decimal(got) >= exact and Fraction(got) <= Fraction(exact) * (1 + ULPS), (rho, delta)


def test_cks_is_the_formula_rounded_up():
    for rho, delta in draws(200):
        alpha = mc._best_alpha(rho, delta)
        got, exact = mc.zcdp_epsilon_cks(rho, delta, alpha), exact_cks(rho, delta, alpha)
        assert Decimal(got) >= exact, (rho, delta, alpha)
        assert Fraction(got) <= Fraction(exact) * (1 + ULPS) + Fraction(1, 10 ** 300), (rho, delta, alpha)


def test_chosen_alpha_is_nearly_optimal():
    for rho, delta in draws(40):
        alpha = mc._best_alpha(rho, delta)
        here = exact_cks(rho, delta, alpha)
        for factor in ("0.999", "1.001", "0.9", "1.1"):      # the exact curve is no lower nearby
            other = 1 + (Decimal(alpha) - 1) * Decimal(factor)
            if other > 1:
                assert exact_cks(rho, delta, other) >= here - abs(here) * Decimal("1e-12"), (rho, delta)


def test_huge_alpha_uses_minus_one():
    """For a huge alpha the rounded-up alpha log(1 - 1/alpha) is not below -1, its exact upper
    bound (here equal to it); the code uses -1, and the result is at least the exact bound."""
    rho, delta, alpha = 1e-30, 1e-3, 2.0 ** 60
    a = Fraction(alpha)
    assert a * Fraction(ar.log1p_up(-1 / a)) >= -1
    with_minus_one = ar.up(a * Fraction(rho) + (-Fraction(ar.log_down(delta)) - 1
                                                 - Fraction(ar.log_down(a - 1))) / (a - 1))
    got = mc.zcdp_epsilon_cks(rho, delta, alpha)
    assert got == max(0.0, with_minus_one)
    assert Decimal(got) >= exact_cks(rho, delta, alpha)


def test_edge_cases_of_the_conversion():
    assert mc.zcdp_to_epsilon(0.0, 1e-9) == 0.0 and mc.zcdp_to_epsilon(0.0, 0.0) == 0.0
    assert mc.zcdp_to_epsilon(math.inf, 0.1) == math.inf and mc.zcdp_to_epsilon(0.5, 0.0) == math.inf
    assert mc.zcdp_to_epsilon(5e-324, 0.5) >= 0.0
    assert mc.zcdp_to_epsilon(1e300, 1e-9) == mc.zcdp_epsilon_lemma9(1e300, 1e-9)
    g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    profile0 = dp.c.make_zCDP_to_approxDP(g).map(0.0)
    assert all(profile0(d) == 0.0 for d in (0.0, 1e-300, 0.5))
    assert dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), delta=1e-6).map(0.0) == (0.0, 1e-6)
    with pytest.raises(TypeError, match="measurement"):
        dp.c.make_zCDP_to_approxDP("not a measurement")
