"""How a context shows its budget: ``ctx.spent`` and ``ctx.remaining`` keep their values (the
safe-direction floats) and print briefly, never below what was spent nor above what remains.

Checked with exact rational arithmetic: the exact sums of the charged floats are the reference,
and the printed text is read back the way Python reads a number.
"""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.context._budget import shown

DATA = np.arange(50.0)
CHARGES = [0.1, 0.2, 0.3, 0.7, 0.05, 1 / 3, 0.125, 1e-3]


def _context(total, measure="epsilon"):
    return dp.Context.compositor(data=DATA, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(**{measure: total}))


def _spend(ctx, charges, measure="epsilon"):
    for c in charges:
        ctx.query(**{measure: c}).count().release()


@pytest.mark.parametrize("charges", [list(p) for p in itertools.permutations(CHARGES[:5], 2)]
                         + [[0.1, 0.2, 0.3], [1 / 3, 1 / 3], [0.05] * 7, [0.125, 1e-3, 0.7]])
def test_printed_budgets_stay_on_the_safe_side_of_the_exact_ones(charges):
    ctx = _context(2.0)
    _spend(ctx, charges)
    spent = sum((Fraction(c) for c in charges), Fraction(0))
    remaining = 2 - spent
    for value, exact, upward in ((ctx.spent, spent, True), (ctx.remaining, remaining, False)):
        printed = float(repr(value))
        assert repr(value) == str(value) == f"{value}"
        step = math.nextafter(float(value), math.inf if upward else -math.inf)
        assert printed in (float(value), step)                        # the value, or one step safer
        assert (Fraction(printed) >= exact) if upward else (Fraction(printed) <= exact)
        assert (Fraction(float(value)) >= exact) if upward else (Fraction(float(value)) <= exact)
        assert len(repr(value)) <= len(float.__repr__(float(value)))


def test_a_remainder_of_0_3_prints_as_0_3_and_can_be_spent():
    ctx = _context(1.0)
    _spend(ctx, [0.7])
    assert float(ctx.remaining) == 0.30000000000000004 == 1 - 0.7      # exact: 1 - Fraction(0.7)
    assert repr(ctx.remaining) == "0.3" and "remaining=0.3)" in repr(ctx)
    assert repr(ctx.spent) == "0.7"
    _spend(ctx, [float(repr(ctx.remaining))])                           # what is printed is spendable
    assert Fraction(float(ctx.remaining)) == 1 - Fraction(0.7) - Fraction(0.3)


def test_a_spent_sum_above_0_3_is_never_printed_as_0_3():
    ctx = _context(0.5, measure="rho")
    _spend(ctx, [0.1, 0.2], measure="rho")
    exact = Fraction(0.1) + Fraction(0.2)
    assert exact > Fraction(3, 10)                    # the binary 0.1 and 0.2 add to more than 3/10
    assert repr(ctx.spent) == "0.3000000000000001" and Fraction(float(repr(ctx.spent))) >= exact
    assert repr(ctx.remaining) == "0.19999999999999998"     # 0.2 would be more than remains
    with pytest.raises(dp.BudgetExceeded):
        ctx.query(rho=0.2)


def test_pairs_and_special_values():
    assert repr(shown((0.30000000000000004, 1e-07), upward=False)) == "(0.3, 1e-07)"
    assert repr(shown(math.inf, upward=True)) == "inf" and repr(shown(0.0, upward=False)) == "0.0"
    assert repr(shown(0.0, upward=True)) == "0.0" and repr(shown(1.0, upward=True)) == "1.0"
    value = shown(0.30000000000000004, upward=False)
    assert value == 0.30000000000000004 and type(value + 0.0) is float   # arithmetic gives plain floats
    ctx = dp.Context.compositor(data=DATA, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    ctx.query(epsilon=0.7, delta=1e-7).count().release()
    eps, delta = ctx.remaining
    assert repr(eps) == "0.3" and Fraction(float(repr(delta))) <= Fraction(1e-6) - Fraction(1e-7)
