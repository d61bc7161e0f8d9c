"""binary_search_param over the floats in their own order: the answer is next to a failing float
whatever the target, a guess changes the number of checks but never the answer, the default
bounds cope with a parameter refused at 0, and integer parameters take a guess too."""
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opendp_duff as dp

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)


class Counting:
    """make_chain for a Laplace scale, counting the chains built."""

    def __init__(self):
        self.calls = 0

    def __call__(self, scale):
        self.calls += 1
        return dp.m.make_laplace(*ATOM, scale=scale)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=1e-300, max_value=1e300), st.floats(min_value=1e-6, max_value=1e6))
def test_the_smallest_passing_scale_is_next_to_a_failing_one(d_out, d_in):
    make = Counting()
    scale = dp.binary_search_param(make, d_in=d_in, d_out=d_out)
    assert make(scale).check(d_in, d_out)
    assert not make(math.nextafter(scale, 0)).check(d_in, d_out)
    assert make.calls <= 70   # two ends and at most 64 halvings


@pytest.mark.parametrize("guess", [None, 3.0, 2.9999999999999996, 1e-300, 1e300, -5.0, math.nan, math.inf, "x"])
def test_a_guess_never_changes_the_answer(guess):
    # 1/3 rounds below one third, so the scale 3.0 costs just over it: the answer is the next float
    answer = dp.binary_search_param(Counting(), d_in=1.0, d_out=1 / 3, guess=guess)
    assert answer == math.nextafter(3.0, 4.0)


def test_a_close_guess_needs_a_handful_of_checks():
    for d_out in (0.1, 1 / 3, 0.7, 3.3, 1e-5):
        blind, guided = Counting(), Counting()
        answer = dp.binary_search_param(blind, d_in=1.0, d_out=d_out)
        assert dp.binary_search_param(guided, d_in=1.0, d_out=d_out, guess=1.0 / d_out) == answer
        assert guided.calls <= 8 < blind.calls


def test_the_map_at_the_answer_meets_the_budget_within_an_ulp():
    for d_out in (0.1, 1 / 3, 0.7, 3.3, 1e-5):
        scale = dp.binary_search_param(Counting(), d_in=1.0, d_out=d_out, guess=1.0 / d_out)
        got = Fraction(Counting()(scale).map(1.0))
        assert got <= Fraction(d_out) and (Fraction(d_out) - got) / Fraction(d_out) < Fraction(1, 10 ** 12)


def test_default_bounds_skip_zero_when_zero_is_refused_like_the_top():
    # an epsilon-like parameter: 0 is refused (not positive) and huge values fail, small ones pass
    def make(eps):
        if not eps > 0:
            raise dp.MakeError("eps must be positive")
        return dp.m.make_laplace(*ATOM, scale=1.0 / eps)

    eps = dp.binary_search_param(make, d_in=1.0, d_out=0.5)
    assert make(eps).check(1.0, 0.5) and not make(math.nextafter(eps, 1.0)).check(1.0, 0.5)


def test_integer_parameters_take_a_guess():
    def make(k):
        return dp.c.make_composition([dp.m.make_laplace(*ATOM, scale=1.0)] * k)

    for guess in (None, 1, 5, 6, 90, 2.5):
        assert dp.binary_search_param(make, d_in=1.0, d_out=5.0, bounds=(1, 100), T=int, guess=guess) == 5


def test_no_straddle_is_an_error_naming_the_bounds():
    with pytest.raises(dp.MakeError, match="straddle"):
        dp.binary_search_param(Counting(), 1.0, 0.5, bounds=(10.0, 20.0), guess=15.0)
