"""Shape parameters of make_smooth_median / make_smooth_trimmed_mean are refused at construction
when outside the range the proofs cover, with a message naming the parameter; at the ends of the
range the releases are finite (the function never raises on a member)."""
import math

import numpy as np
import pytest

import opendp_duff as dp


def _space(n=7):
    return (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=n, sorted=True),
            dp.change_one_distance())


@pytest.mark.parametrize("noise,kw,name", [("lln", dict(sigma=100.5), "sigma"), ("uln", dict(sigma=1e3), "sigma"),
                                           ("arsinh_normal", dict(sigma=101.0), "sigma"),
                                           ("uln", dict(sigma=1.414), "sigma"), ("student_t", dict(d=0.99), "d"),
                                           ("polynomial_tail", dict(gamma=1.0), "gamma"),
                                           ("laplace", dict(delta=0.1354), "delta"), ("lln", {}, "sigma"),
                                           ("student_t", dict(sigma=1.0), "sigma")])
def test_out_of_range_shapes_are_refused_at_construction(noise, kw, name):
    for make, extra in ((dp.m.make_smooth_median, {}), (dp.m.make_smooth_trimmed_mean, dict(m=1))):
        with pytest.raises(dp.MakeError, match=name):
            make(*_space(), t=0.1, s=1.0, noise=noise, **extra, **kw)


@pytest.mark.parametrize("noise,kw", [("lln", dict(sigma=100.0)), ("uln", dict(sigma=100.0)),
                                      ("arsinh_normal", dict(sigma=100.0)), ("uln", dict(sigma=math.sqrt(2))),
                                      ("student_t", dict(d=1.0)), ("laplace", dict(delta=0.1353))])
def test_releases_at_the_ends_of_the_range_are_finite(noise, kw):
    meas = dp.m.make_smooth_median(*_space(), t=0.1, s=1.0, noise=noise, **kw)
    with dp.samplers.seeded_rng_for_tests(9):
        assert all(math.isfinite(meas(np.linspace(0.0, 1.0, 7))) for _ in range(10))
