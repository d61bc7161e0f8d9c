"""The privacy maps at extreme parameters: finite where the exact bound is finite, inf (a valid
bound) where it overflows, never an exception -- and always at least the exact bound (Decimal)."""
import math
from decimal import Decimal, localcontext

import pytest

import opendp_duff as dp
from opendp_duff.smooth import maps


def exact_arsinh(t, s, sigma):
    with localcontext() as ctx:
        ctx.prec = 80
        t, s, g = Decimal(t), Decimal(s), Decimal(sigma)
        return (t * (t / (g * g) + 1 / g + 2)).sqrt() + s * (Decimal(2) / (3 * g) + g / 2)


@pytest.mark.parametrize("t,s,sigma", [(1e155, 1.0, 2 / math.sqrt(3)), (1e300, 1e-300, 1.0), (1.7e308, 1.0, 0.5),
                                       (0.1, 1.0, 1e-160), (0.1, 1e-300, 5e-324), (1e-300, 1e-300, 1e-200),
                                       (0.1, 0.2, 2 / math.sqrt(3))])
def test_arsinh_bound_is_an_upper_bound_at_any_size(t, s, sigma):
    got = maps.arsinh_epsilon(t, s, sigma)
    exact = exact_arsinh(t, s, sigma)
    if exact < Decimal(1.7976931348623157e308):
        assert math.isfinite(got) and Decimal(got) >= exact and Decimal(got) <= exact * (1 + Decimal("1e-12"))
    else:
        assert got == math.inf


def _space(n=11):
    return (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=n, sorted=True),
            dp.change_one_distance())


@pytest.mark.parametrize("kw", [dict(t=1e155, s=1.0), dict(t=1e300, s=1.0), dict(t=0.1, s=1.0, sigma=1e-155),
                                dict(t=0.1, s=1.0, sigma=1e-300), dict(t=0.1, s=1.0, sigma=5e-324)])
def test_arsinh_normal_constructs_at_huge_t_or_tiny_sigma_regression(kw):
    # these used to fail at construction with "Q: inf is not finite"
    meas = dp.m.make_smooth_median(*_space(), noise="arsinh_normal", **kw)
    rho = meas.map(1)
    assert rho == math.inf or rho >= 0.5 * float(exact_arsinh(kw["t"], kw["s"], kw.get("sigma", 2 / 3 ** 0.5))) ** 2
    with dp.samplers.seeded_rng_for_tests(1):
        assert math.isfinite(meas([0.1 * i for i in range(11)]))


@pytest.mark.parametrize("noise,kw", [("student_t", {}), ("polynomial_tail", {}), ("laplace", dict(delta=1e-6)),
                                      ("lln", dict(sigma=0.5)), ("uln", {}), ("arsinh_normal", {})])
def test_the_largest_t_gives_an_infinite_map_not_an_error(noise, kw):
    # t + slack rounds up to inf: every bound returns inf
    meas = dp.m.make_smooth_median(*_space(), t=1.7976931348623157e308, s=1.0, noise=noise, **kw)
    got = meas.map(1)
    assert (got[0] if noise == "laplace" else got) == math.inf
