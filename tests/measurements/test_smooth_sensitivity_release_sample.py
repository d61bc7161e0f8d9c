"""smooth_release_sample (the batched release path of the smooth-sensitivity measurements) and
smooth_median_baseline_parameters (the public parameters of make_smooth_median_baseline).

The KS tests are seeded (``rerun_once``), at level 1e-3: false-failure rate about 1e-6 each."""
import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from opendp_duff.experiments import _baselines, _batch
from opendp_duff.samplers import seeded_rng_for_tests

from helpers import rerun_once

BOUNDS = (-10.0, 10.0)
# a distinctive data value: no error message may contain it
SECRET = 3.14159271828


def _space(n, bounds=BOUNDS):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=n), dp.change_one_distance()


def _data(n, seed=1):
    x = np.sort(np.random.default_rng(seed).standard_normal(n))
    x[n // 3] = SECRET
    return np.sort(x)


CASES = [
    ("median", 0, dict(t=0.1, s=0.2, noise="student_t", d=3)),
    ("median", 0, dict(t=0.05, s=0.3, noise="laplace", delta=1e-3)),
    ("median", 0, dict(t=0.1, s=0.2, noise="lln", sigma=0.5)),
    ("trimmed_mean", 5, dict(t=0.1, s=0.2, noise="polynomial_tail", gamma=2.0)),
    ("trimmed_mean", 3, dict(t=0.1, s=0.2, noise="arsinh_normal")),
]


def _measurement(statistic, m, n, params):
    chain = _space(n) >> dp.t.then_sort()
    if statistic == "median":
        return chain >> dp.m.then_smooth_median(**params)
    return chain >> dp.m.then_smooth_trimmed_mean(m=m, **params)


@pytest.mark.parametrize("statistic, m, params", CASES)
def test_same_seed_gives_the_measurements_releases(statistic, m, params):
    """One sampler, two entry points: under the same seed the batched draws ARE the releases."""
    n, k = 41, 25
    x = _data(n)
    meas = _measurement(statistic, m, n, params)
    with seeded_rng_for_tests(11):
        # meas(x) first draws the entropy check's bytes, as the batched path does once
        first = meas(x)
        one_by_one = np.array([first] + [meas._function(x) for _ in range(k - 1)])
    with seeded_rng_for_tests(11):
        batched = _batch.smooth_release_sample(x, bounds=BOUNDS, draws=k, statistic=statistic, m=m, **params)
    assert batched.dtype == np.float64 and batched.shape == (k,)
    assert np.array_equal(one_by_one, batched)
    assert np.unique(batched).size > 1   # they are random draws, not one value repeated
    with seeded_rng_for_tests(12):
        single = meas(x)
    with seeded_rng_for_tests(12):
        assert _batch.smooth_release_sample(x, bounds=BOUNDS, draws=1, statistic=statistic, m=m,
                                          **params).tolist() == [single]


# KS tests at level 1e-3 (false-failure rate 1e-3 per test, 1e-6 after the rerun).
@pytest.mark.slow
@rerun_once(505)
@pytest.mark.parametrize("statistic, m, params", [CASES[0], CASES[3]])
def test_batched_draws_follow_the_release_law(statistic, m, params):
    n = 101
    x = _data(n, seed=2)
    meas = _measurement(statistic, m, n, params)
    batched = _batch.smooth_release_sample(x, bounds=BOUNDS, draws=3000, statistic=statistic, m=m, **params)
    # against T(x) + S^t(x)/s Z with T, S^t and Z's cdf computed independently of the sampler
    if statistic == "median":
        center, S = x[(n + 1) // 2 - 1], dp.smooth_sensitivity_median(x, params["t"], BOUNDS)
    else:
        center, S = np.mean(x[m:n - m]), dp.smooth_sensitivity_trimmed_mean(x, params["t"], BOUNDS, m=m)
    z = (batched - center) / (S / params["s"])
    assert stats.kstest(z, _batch.noise_law(params).cdf).pvalue > 1e-3
    # and against fresh releases of the measurement itself (two-sample)
    from_measurement = np.array([meas(x) for _ in range(400)])
    assert stats.ks_2samp(from_measurement, batched).pvalue > 1e-3


@pytest.mark.slow
@rerun_once(606)
def test_experiments_batch_uses_the_same_law():
    """_batch.smooth_median_releases, including the non-private delta = 0.9 row (law
    independent of delta), follows the release law of make_smooth_median."""
    n = 101
    x = _data(n, seed=3)
    center, S = x[(n + 1) // 2 - 1], dp.smooth_sensitivity_median(x, 0.05, BOUNDS)
    for delta in (1e-3, 0.9):
        params = dict(t=0.05, s=0.3, noise="laplace", delta=delta)
        z = (_batch.smooth_median_releases(x, BOUNDS, params, 2000) - center) / (S / 0.3)
        assert stats.kstest(z, stats.laplace.cdf).pvalue > 1e-3


def _bad_calls():
    x = _data(21)
    good = dict(bounds=BOUNDS, t=0.1, s=0.2, noise="student_t", draws=3)
    yield "t", (x,), dict(good, t=0.0)
    yield "s", (x,), dict(good, s=-1.0)
    yield "s", (x,), dict(good, s=float("nan"))
    yield "noise", (x,), dict(good, noise="gauss")
    yield "draws", (x,), dict(good, draws=0)
    yield "draws", (x,), dict(good, draws=2.5)
    yield "bounds", (x,), dict(good, bounds=(1.0, 0.0))
    yield "bounds", (x,), dict(good, bounds=(-float("inf"), 1.0))
    yield "statistic", (x,), dict(good, statistic="mean")
    yield "m", (x,), dict(good, statistic="trimmed_mean", m=-1)
    yield "m", (x,), dict(good, statistic="trimmed_mean", m=11)
    yield "delta", (x,), dict(good, noise="laplace", delta=0.5)
    yield "sigma", (x,), dict(good, sigma=1.0)          # student_t takes d, not sigma
    yield "x_sorted", (x[::-1],), good                  # not sorted
    yield "x_sorted", (x * 10,), good                   # outside the bounds
    yield "x_sorted", (np.append(x, np.nan),), good
    yield "x_sorted", (np.array([]),), good
    yield "x_sorted", (x.reshape(3, 7),), good
    yield "x_sorted", (["a", "b"],), good


@pytest.mark.parametrize("name, args, kwargs", list(_bad_calls()))
def test_release_sample_validates_its_parameters(name, args, kwargs):
    with pytest.raises((dp.MakeError, dp.MakeTypeError), match=name) as info:
        _batch.smooth_release_sample(*args, **kwargs)
    assert "3.14159" not in str(info.value)
    assert isinstance(info.value, (TypeError, ValueError))


def test_release_sample_lives_with_the_experiments():
    # dp.m holds constructors only: the batch sampler and the baselines are experiment helpers
    assert not hasattr(dp.m, "smooth_release_sample") and not hasattr(dp.m, "smooth_median_baseline_parameters")
    assert _batch.smooth_release_sample.__module__ == "opendp_duff.experiments._batch"
    assert _baselines.smooth_median_baseline_parameters.__module__ == "opendp_duff.experiments._baselines"


@pytest.mark.slow
@pytest.mark.parametrize("name, delta", [("SMOOTHSENS_eps", None), ("SMOOTHSENS_eps_delta", 1e-3),
                                         ("LAPLACELN", 1e-3), ("laplaceln", 0.01)])
@pytest.mark.parametrize("n, bounds, eps", [(101, (0.0, 1.0), 1.0), (501, (-50.0, 1050.0), 0.3)])
def test_baseline_map_equals_map_from_public_parameters(name, delta, n, bounds, eps):
    space = _space(n, bounds)
    base = space >> dp.t.then_sort() >> _baselines.then_smooth_median_baseline(name, epsilon=eps, delta=delta)
    p = _baselines.smooth_median_baseline_parameters(name, eps, delta, size=n, bounds=bounds)
    rho = p.pop("rho", None)
    mine = space >> dp.t.then_sort() >> dp.m.then_smooth_median(**p)
    if name.lower() == "laplaceln":
        assert rho is not None and mine.map(1) <= rho
        mine = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(mine), delta)
    else:
        assert rho is None
    for k in (0, 1, 2, 5):
        assert base.map(k) == mine.map(k)


def test_baseline_parameters_follow_t_and_reference():
    n, bounds, eps, delta = 201, (-50.0, 1050.0), 1.0, 1e-3
    ref = np.random.default_rng(0).standard_normal(n)
    p = _baselines.smooth_median_baseline_parameters("SMOOTHSENS_eps_delta", eps, delta, size=n, bounds=bounds,
                                               reference=ref)
    assert p["t"] == dp.smooth.choose_smoothing("laplace", n, bounds, epsilon=eps, delta=delta, reference=ref)
    assert p == dp.smooth.smooth_parameters("laplace", size=n, epsilon=eps, delta=delta, t=p["t"])
    q = _baselines.smooth_median_baseline_parameters("LAPLACELN", eps, delta, size=n, bounds=bounds, t=0.05)
    assert q["t"] == 0.05
    space = _space(n, bounds)
    a = space >> dp.t.then_sort() >> _baselines.then_smooth_median_baseline("LAPLACELN", eps, delta, reference=ref)
    b = _baselines.smooth_median_baseline_parameters("LAPLACELN", eps, delta, size=n, bounds=bounds, reference=ref)
    b.pop("rho")
    inner = space >> dp.t.then_sort() >> dp.m.then_smooth_median(**b)
    assert a.map(1) == dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(inner), delta).map(1)


@pytest.mark.parametrize("name, args, kwargs", [
    ("name", ("SMOOTHSENS", 1.0), dict(size=11, bounds=BOUNDS)),
    ("name", (3, 1.0), dict(size=11, bounds=BOUNDS)),
    ("epsilon", ("SMOOTHSENS_eps", 0.0), dict(size=11, bounds=BOUNDS)),
    ("delta", ("LAPLACELN", 1.0), dict(size=11, bounds=BOUNDS)),
    ("delta", ("LAPLACELN", 1.0, 1.5), dict(size=11, bounds=BOUNDS)),
    ("delta", ("SMOOTHSENS_eps_delta", 1.0, 0.5), dict(size=11, bounds=BOUNDS)),
    ("delta", ("SMOOTHSENS_eps", 1.0, 0.01), dict(size=11, bounds=BOUNDS)),
    ("t", ("SMOOTHSENS_eps", 1.0), dict(size=11, bounds=BOUNDS, t=0.1)),
    ("t", ("LAPLACELN", 1.0, 0.01), dict(size=11, bounds=BOUNDS, t=-0.1)),
    ("size", ("SMOOTHSENS_eps", 1.0), dict(size=0, bounds=BOUNDS)),
    ("bounds", ("SMOOTHSENS_eps", 1.0), dict(size=11, bounds=(2.0, 1.0))),
    ("bounds", ("SMOOTHSENS_eps", 1.0), dict(size=11, bounds=(0.0, float("inf")))),
    ("reference", ("LAPLACELN", 1.0, 0.01), dict(size=11, bounds=BOUNDS, reference=[np.nan])),
])
def test_baseline_parameters_validate(name, args, kwargs):
    with pytest.raises((dp.MakeError, dp.MakeTypeError), match=name):
        _baselines.smooth_median_baseline_parameters(*args, **kwargs)
