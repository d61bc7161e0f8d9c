"""smooth_parameters meets its budget exactly: map(1) <= the budget (never over by an ulp, in
exact rationals and against the float ``epsilon**2 / 2`` a caller would write), s is the largest
float that does so, and the answer does not depend on the float guess that starts the search."""
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import opendp_duff as dp
from opendp_duff import arithmetic as ar
from opendp_duff.smooth import noises as sn
from opendp_duff.smooth import parameters as sp


def _median(n, p):
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=n, sorted=True)
    return dp.m.make_smooth_median(dom, dp.change_one_distance(), **p)


def test_zcdp_epsilon_budget_is_met_exactly_regression():
    # this budget used to give map(1) one ulp above eps^2/2, so check(1, eps**2/2) was False
    eps = 2.4785423613083895
    p = dp.smooth.smooth_parameters("arsinh_normal", size=11, t=0.018236496968993918, epsilon=eps)
    meas = _median(11, p)
    assert meas.check(1, eps ** 2 / 2)
    assert Fraction(meas.map(1)) <= Fraction(eps) ** 2 / 2


@settings(max_examples=120, deadline=None)
@given(noise=st.sampled_from(sn.ZCDP_NOISES), eps=st.floats(0.05, 20.0), u=st.floats(0.001, 0.3),
       n=st.integers(1, 10 ** 6))
def test_zcdp_epsilon_budget_never_exceeded(noise, eps, u, n):
    t = u * min(eps, eps ** 2) / 4   # small enough for every noise to have a positive s (arsinh: sqrt(2t) < eps)
    p = dp.smooth.smooth_parameters(noise, size=n, t=t, epsilon=eps)
    rho = dp.smooth.maps.group_map(sn.NOISES[noise], ar.add_up(t, dp.smooth.smooth_sensitivity_rounding_slack(n)),
                                   p["s"], p["sigma"])(1)
    assert rho <= eps ** 2 / 2 and Fraction(rho) <= Fraction(eps) ** 2 / 2


@pytest.mark.parametrize("noise,budget", [("lln", dict(epsilon=1.0)), ("lln", dict(rho=0.02)),
                                          ("uln", dict(epsilon=1.3)), ("arsinh_normal", dict(epsilon=0.7)),
                                          ("student_t", dict(epsilon=1.0)), ("polynomial_tail", dict(epsilon=2.0)),
                                          ("laplace", dict(epsilon=1.0, delta=1e-6))])
def test_s_is_the_largest_float_meeting_the_budget(noise, budget):
    n, t = 1001, 0.02
    p = dp.smooth.smooth_parameters(noise, size=n, t=t, **budget)
    if noise not in sn.ZCDP_NOISES:
        target = floor = budget["epsilon"]
    elif "rho" in budget:
        target = floor = budget["rho"]
    else:  # epsilon read as rho: at most the float eps**2/2, and down(eps^2/2) is reached
        target, floor = budget["epsilon"] ** 2 / 2, ar.down(Fraction(budget["epsilon"]) ** 2 / 2)

    def map1(s):
        got = _median(n, dict(p, s=s)).map(1)
        return got[0] if noise == "laplace" else got
    assert map1(p["s"]) <= target
    assert map1(math.nextafter(p["s"], math.inf)) > floor


@pytest.mark.parametrize("noise", list(sn.NOISES))
@pytest.mark.parametrize("factor", [1e-9, 0.5, 1.0, 1 + 1e-12, 3.0, 1e6])
def test_the_answer_does_not_depend_on_the_guess(noise, factor):
    record = sn.NOISES[noise]
    eps, t = 1.0, 0.01
    shape = record.shape_default if record.shape_default is not None else (0.5 if noise == "lln" else 1e-6)
    best = sp.fit_scale(record, eps, t, shape)
    again = sp.largest_float(lambda x: record.one_step(t, x, shape) <= eps,
                             record.scale_guess(eps, t, shape) * factor)
    assert again == best
    assert record.one_step(t, best, shape) <= eps < record.one_step(t, math.nextafter(best, math.inf), shape)


def test_largest_float_edge_cases():
    assert sp.largest_float(lambda x: False, 1.0) is None
    assert sp.largest_float(lambda x: True, 1.0) == 1.7976931348623157e308
    assert sp.largest_float(lambda x: x <= 5e-324, 1.0) == 5e-324
    assert sp.largest_float(lambda x: x <= 0.3, float("nan")) == 0.3
    assert sp.largest_float(lambda x: x <= 0.3, -1.0) == 0.3
