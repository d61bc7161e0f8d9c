"""The smooth-sensitivity releases never depend on the sign of a zero in the data.

With bounds (0, 0) the smooth sensitivity is exactly 0 and the release is the statistic itself;
it used to be 0.0 on [0.0] and -0.0 on [-0.0] (a deterministic difference: infinite privacy loss).
"""
import math

import pytest

import opendp_duff as dp
from opendp_duff.experiments._batch import smooth_release_sample

NOISES = [("student_t", {}), ("laplace", dict(delta=1e-6)), ("lln", dict(sigma=0.5)), ("uln", {}),
          ("arsinh_normal", {}), ("polynomial_tail", {})]


def _bits(x):
    return (x, math.copysign(1.0, x))


def _space(n, bounds):
    return (dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=n, sorted=True),
            dp.change_one_distance())


@pytest.mark.parametrize("noise,kw", NOISES)
@pytest.mark.parametrize("bounds", [(0.0, 0.0), (-0.0, 0.0), (-1.0, 1.0)])
@pytest.mark.parametrize("n", [1, 4])
def test_release_is_the_same_on_plus_and_minus_zero(noise, kw, bounds, n):
    for make, extra in ((dp.m.make_smooth_median, {}), (dp.m.make_smooth_trimmed_mean, dict(m=(n - 1) // 2))):
        meas = make(*_space(n, bounds), t=0.1, s=1.0, noise=noise, **extra, **kw)
        out = []
        for x in ([0.0] * n, [-0.0] * n):
            with dp.samplers.seeded_rng_for_tests(17):
                out.append([_bits(meas(x)) for _ in range(3)])
        assert out[0] == out[1]
        if bounds[0] == bounds[1]:
            assert out[0] == [(0.0, 1.0)] * 3   # S = 0: the release is +0.0


@pytest.mark.parametrize("statistic", ["median", "trimmed_mean"])
def test_batched_release_is_the_same_on_plus_and_minus_zero(statistic):
    out = []
    for x in ([0.0] * 3, [-0.0] * 3):
        with dp.samplers.seeded_rng_for_tests(5):
            out.append([_bits(v) for v in smooth_release_sample(x, bounds=(0.0, 0.0), t=0.1, s=1.0, noise="student_t",
                                                                draws=3, statistic=statistic)])
    assert out[0] == out[1] == [(0.0, 1.0)] * 3
