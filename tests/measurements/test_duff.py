"""make_duff_median and make_duff_quantile: the release law against the exact CDF (including the
lazy far blocks), privacy between neighbouring datasets, the rounded-up map, robustness, bad input.

Statistical tests (KS, chi-square) use level 1e-3 and run under ``rerun_once``:
false-failure rate about 1e-6 per test.
"""
import importlib
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.duff_utility import duff_utility, quantile_step_function
from opendp_duff.measurements import duff_sampler as duff_mod
from opendp_duff.measurements.duff import duff_quantile_sample
from opendp_duff.samplers import seeded_rng_for_tests

# the module: the package exports a function of that name
DUFF_UTILITY = importlib.import_module("opendp_duff.duff_utility")


def space():
    return dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def chain(lo, hi, scale, alpha=None):
    c = space() >> dp.t.then_clamp(bounds=(lo, hi)) >> dp.t.then_sort()
    if alpha is None:
        return c >> dp.m.then_duff_median(scale=scale)
    return c >> dp.m.then_duff_quantile(alpha=alpha, scale=scale)


# ----------------------------------------------------------------------------- the law
def _ks(samples, sf, scale):
    return stats.kstest(samples, lambda t: sf.cdf(t, scale)).pvalue


@pytest.mark.slow
@rerun_once(seed=301)
def test_ks_median_against_exact_cdf():
    rng = np.random.default_rng(7)
    for n, scale in [(0, 1.0), (1, 1.0), (7, 1.0), (50, 2.0), (301, 0.7)]:
        x = np.sort(rng.normal(size=n).clip(-3, 3))
        sf = duff_utility(x, "median", bounds=(-3.0, 3.0))
        m = chain(-3.0, 3.0, scale)
        draws = [m(x) for _ in range(1500)]
        assert _ks(draws, sf, scale) > 1e-3, (n, scale)


@pytest.mark.slow
@rerun_once(seed=302)
def test_ks_quantile_against_exact_cdf():
    rng = np.random.default_rng(8)
    for alpha in [0.1, 0.25, 0.9, Fraction(1, 3)]:
        x = np.sort(rng.uniform(0, 1, size=40))
        sf = duff_utility(x, "quantile", bounds=(0.0, 1.0), alpha=alpha)
        draws = duff_quantile_sample(x, (0.0, 1.0), alpha, 1.5, size=1500)
        assert _ks(draws, sf, 1.5) > 1e-3, alpha


@pytest.mark.slow
@rerun_once(seed=303)
def test_ks_lazy_blocks_opened(monkeypatch):
    # a negative tail makes the explicit window tiny, so the far blocks win often:
    # this exercises the lazy bound, the exact block mass and the block opening
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", -9.0)
    rng = np.random.default_rng(9)
    x = np.sort(rng.standard_cauchy(size=400).clip(-20, 20))
    for alpha, scale in [(0.5, 3.0), (0.2, 1.0)]:
        sampler = duff_mod._QuantileSampler(x, -20.0, 20.0, alpha, scale)
        assert sampler.blocks, "the test needs far blocks"
        sf = quantile_step_function(x, (-20.0, 20.0), alpha)
        draws = [sampler.sample() for _ in range(2000)]
        assert _ks(draws, sf, scale) > 1e-3


@pytest.mark.slow
@rerun_once(seed=305)
def test_ks_lazy_blocks_with_ties(monkeypatch):
    # ties make the window's gaps empty or low, so the top live level sits in a block
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", -9.0)
    rng = np.random.default_rng(10)
    for alpha, scale in [(0.5, 0.7), (0.3, 2.0), (0.5, 4.0)]:
        x = np.sort(rng.choice([0.2, 0.5, 0.55, 0.9], size=61, p=[0.2, 0.5, 0.1, 0.2]))
        sampler = duff_mod._QuantileSampler(x, 0.0, 1.0, alpha, scale)
        sf = quantile_step_function(x, (0.0, 1.0), alpha)
        draws = [sampler.sample() for _ in range(1500)]
        assert _ks(draws, sf, scale) > 1e-3, (alpha, scale)


@pytest.mark.slow
@rerun_once(seed=304)
def test_ks_heavy_ties_and_empty_window():
    # 300 equal records: every gap near the median is empty, the mass is on [a, c] and [c, b]
    x = np.full(300, 0.25)
    sf = duff_utility(x, "median", bounds=(0.0, 1.0))
    draws = duff_quantile_sample(x, (0.0, 1.0), 0.5, 2.0, size=1500)
    assert _ks(draws, sf, 2.0) > 1e-3


# ----------------------------------------------------------------------------- privacy
def _log_density(sf, scale, points):
    """Exact log density of the EM at points (not on piece ends), in float."""
    lw = sf.log_masses(scale)
    top = lw.max()
    logz = top + np.log(np.sum(np.exp(lw - top)))
    return sf(points) / scale - logz


@pytest.mark.slow
def test_privacy_neighbouring_pairs():
    rng = np.random.default_rng(11)
    lo, hi = 0.0, 10.0
    for trial in range(300):
        n = int(rng.integers(0, 12))
        x = np.sort(rng.choice(np.arange(11.0), size=n))
        if n and rng.random() < 0.5:
            x2 = np.delete(x, int(rng.integers(n)))
        else:
            x2 = np.sort(np.append(x, float(rng.integers(11))))
        alpha = [0.5, 0.25, 0.8, Fraction(1, 3)][trial % 4]
        scale = float(rng.choice([0.3, 1.0, 2.0, 5.0]))
        m = dp.m.make_duff_quantile(dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi)),
                                                     sorted=True),
                                    dp.symmetric_distance(), alpha=alpha, scale=scale)
        bound = m.map(1)
        s1 = quantile_step_function(x, (lo, hi), alpha)
        s2 = quantile_step_function(x2, (lo, hi), alpha)
        ends = np.unique(np.concatenate([s1.left, s1.right, s2.left, s2.right, [lo, hi]]))
        mids = (ends[:-1] + ends[1:]) / 2
        ratio = np.abs(_log_density(s1, scale, mids) - _log_density(s2, scale, mids))
        assert ratio.max() <= bound * (1 + 1e-12), (x, x2, alpha, scale)
        # sensitivity 1 of u itself, everywhere including record values
        pts = np.concatenate([mids, ends])
        assert np.max(np.abs(s1(pts) - s2(pts))) <= 1


def test_map_is_exact_and_rounded_up():
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True)
    for scale in [0.3, 1.0, 2.0 / 0.7, 1e-300, 7.0]:
        m = dp.m.make_duff_median(dom, dp.symmetric_distance(), scale=scale)
        for d in [1, 2, 3, 1000]:
            out = m.map(d)
            exact = Fraction(2 * d) / Fraction(scale)
            assert Fraction(out) >= exact or out == math.inf
            if out != math.inf:
                assert Fraction(math.nextafter(out, 0)) < exact
        assert m.map(0) == 0
    assert dp.m.make_duff_median(dom, dp.symmetric_distance(), scale=0.0).map(1) == math.inf
    assert dp.m.make_duff_median(dom, dp.symmetric_distance(), scale=math.inf).map(1) == 0


# ----------------------------------------------------------------------------- robustness
ROBUST = {
    "3000 identical": (np.full(3000, 3.0), 0.0, 10.0, 2.0),
    "all at lower bound": (np.zeros(50), 0.0, 10.0, 2.0),
    "all at upper bound": (np.full(51, 10.0), 0.0, 10.0, 2.0),
    "n = 0": (np.array([]), 0.0, 10.0, 2.0),
    "n = 1": (np.array([4.0]), 0.0, 10.0, 2.0),
    "underflow": (np.linspace(0, 1, 1000), 0.0, 1.0, 1e-300),
    "underflow with ties": (np.full(3000, 3.0), 0.0, 10.0, 1e-300),
    "eps n = 1e9": (np.linspace(0, 1, 1000), 0.0, 1.0, 2e-6),
    "zero-width gaps": (np.repeat([1.0, 2.0, 3.0], 20), 0.0, 5.0, 1.0),
    "a == b": (np.full(10, 1.0), 1.0, 1.0, 2.0),
    "scale 0": (np.array([1.0, 2.0, 3.0]), 0.0, 5.0, 0.0),
    "scale inf": (np.array([1.0, 2.0, 3.0]), 0.0, 5.0, math.inf),
    "huge bounds": (np.array([1.0, 2.0]), -1.7e308, 1.7e308, 2.0),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ROBUST))
@pytest.mark.parametrize("alpha", [None, 0.1, 0.95])
def test_robust_releases(name, alpha):
    x, lo, hi, scale = ROBUST[name]
    m = chain(lo, hi, scale, alpha)
    with seeded_rng_for_tests(17):
        out = np.array([m(x) for _ in range(30)])
    assert np.all(np.isfinite(out)) and np.all(out >= lo) and np.all(out <= hi)


def test_eps_n_1e9_concentrates():
    x = np.linspace(0, 1, 1001)
    with seeded_rng_for_tests(3):
        out = duff_quantile_sample(x, (0.0, 1.0), 0.5, 2e-6, size=20)
    # median 0.5: the gap of level -1 is [0.499, 0.5]; the next ones weigh e^-5e5
    assert np.all((out >= 0.499) & (out <= 0.5))


# ----------------------------------------------------------------------------- bad input
def test_bad_input_errors_name_the_parameter():
    sorted_dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True)
    sym = dp.symmetric_distance()
    for alpha in [0.0, 1.0, -0.5, 1.5, float("nan"), Fraction(3, 2)]:
        with pytest.raises(ValueError, match="alpha"):
            dp.m.make_duff_quantile(sorted_dom, sym, alpha=alpha, scale=1.0)
    with pytest.raises(TypeError, match="alpha"):
        dp.m.make_duff_quantile(sorted_dom, sym, alpha="half", scale=1.0)
    for scale in [-1.0, float("nan")]:
        with pytest.raises(ValueError, match="scale"):
            dp.m.make_duff_median(sorted_dom, sym, scale=scale)
    with pytest.raises(TypeError, match="scale"):
        dp.m.make_duff_median(sorted_dom, sym, scale="1")
    unsorted = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)))  # accepted: selected, not sorted
    assert 0.0 <= dp.m.make_duff_median(unsorted, sym, scale=1.0)([0.7, 0.2]) <= 1.0
    unbounded = dp.vector_domain(dp.atom_domain(T=float), sorted=True)
    with pytest.raises(ValueError, match="bounded"):
        dp.m.make_duff_median(unbounded, sym, scale=1.0)
    ints = dp.vector_domain(dp.atom_domain(T=int, bounds=(0, 1)), sorted=True)
    with pytest.raises(ValueError, match="float"):
        dp.m.make_duff_median(ints, sym, scale=1.0)
    sized = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=3, sorted=True)
    with pytest.raises(ValueError, match="symmetric_distance"):
        dp.m.make_duff_median(sized, dp.change_one_distance(), scale=1.0)
    with pytest.raises(ValueError, match="statistic"):
        duff_utility([1.0], "variance", bounds=(0.0, 1.0))
    with pytest.raises(ValueError, match="alpha"):
        duff_utility([1.0], "quantile", bounds=(0.0, 1.0), alpha=1.0)


def test_then_forms_and_doc_chain():
    m = chain(0.0, 1.0, 2.0)
    assert m.map(1) == 1.0 and m.map(3) == 3.0
    assert 0.0 <= m([0.3, 0.1, 5.0]) <= 1.0
