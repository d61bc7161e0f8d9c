"""The Duff releases (median, quantile, mean, and every sample_step_function draw) come
from the exact samplers of opendp_duff.samplers (gumbel_race, uniform), and their law is exact.

Statistical tests are chi-square / Kolmogorov-Smirnov at level 1e-3 under ``rerun_once``
(a second seed on failure): false-failure rate about 1e-6 each.  References are closed
forms: the exact step-function CDF (duff_utility), the uniform CDF, and exact masses of
float rounding cells.
"""
import importlib
import math

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff import samplers
from opendp_duff.duff_utility import quantile_step_function
from opendp_duff.measurements import duff_sampler as duff_mod
from opendp_duff.measurements.duff import duff_quantile_sample
from opendp_duff.samplers import byte_source_for_tests, seeded_rng_for_tests
from opendp_duff.samplers import lazy_race as E
from opendp_duff.samplers import race as R

# the module: the package exports a function of that name
DUFF_UTILITY = importlib.import_module("opendp_duff.duff_utility")

ALPHA = 1e-3


class Rigged:
    """Counts bytes; when ``rig`` is set, the next multi-competitor draw (n > 8 bytes, a
    multiple of 8) gives every competitor the SAME first 64 bits, so no float comparison
    can decide the race and the decimal refinement (fresh bits) must."""

    def __init__(self, inner):
        self.inner, self.count, self.rig, self.rigged = inner, 0, False, 0

    def random_bytes(self, n):
        self.count += n
        if self.rig and n % 8 == 0 and n > 8:
            self.rig = False
            self.rigged += 1
            return self.inner.random_bytes(8) * (n // 8)
        return self.inner.random_bytes(n)


def chi2_ok(counts, probs):
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    assert np.all(counts[probs == 0] == 0)
    return stats.chisquare(counts[probs > 0], probs[probs > 0] * counts.sum()).pvalue > ALPHA


def _no_float_path(monkeypatch):
    """Make the float-path samplers fail loudly: the releases must not use them."""
    import opendp_duff.samplers as S

    def boom(*a, **k):
        raise AssertionError("float path used")
    for name in ("standard_gumbel", "uniform_open", "gumbel_argmax"):
        monkeypatch.setattr(S, name, boom)


def test_duff_releases_use_the_exact_samplers(monkeypatch):
    _no_float_path(monkeypatch)
    calls = {"race": 0, "uniform": 0}
    real_race, real_uni = duff_mod.exact_race_with_lazy_blocks, duff_mod.exact_uniform_float

    def race(*a, **k):
        calls["race"] += 1
        return real_race(*a, **k)

    def uni(*a, **k):
        calls["uniform"] += 1
        return real_uni(*a, **k)

    monkeypatch.setattr(duff_mod, "exact_race_with_lazy_blocks", race)
    monkeypatch.setattr(duff_mod, "exact_uniform_float", uni)
    x = np.sort(np.random.default_rng(0).normal(size=500))
    with seeded_rng_for_tests(1):
        out = duff_quantile_sample(x, (-5.0, 5.0), 0.5, 2.0, size=7)
        m = dp.m.make_duff_mean(dp.vector_domain(dp.atom_domain(T=float, bounds=(-5.0, 5.0)),
                                                 sorted=True), dp.symmetric_distance(), scale=2.0)
        mean = m(np.clip(x, -5, 5))
    assert calls == {"race": 7, "uniform": 7}
    assert np.all((out >= -5) & (out <= 5)) and -5 <= mean <= 5


@pytest.mark.statistical  # seeded; its false-failure rate is stated below
def test_common_case_bytes_are_the_float_paths():
    # one 8-byte draw per live competitor (window gaps + live far blocks) and one for the
    # uniform, unless the (rare) decimal refinement ran
    x = np.sort(np.random.default_rng(2).uniform(size=2000))
    sampler = duff_mod._QuantileSampler(x, 0.0, 1.0, 0.5, 2.0)
    n_c = int(np.count_nonzero(sampler.near_right > sampler.near_left)) + len(sampler.blocks)
    with seeded_rng_for_tests(3):
        src = Rigged(samplers.current_rng())
        with byte_source_for_tests(src):
            sizes = []
            for _ in range(200):
                before = src.count
                sampler.sample()
                sizes.append(src.count - before)
    # the uniform needs a second 8 bytes only when a rounding cell boundary is within
    # 2^-64 (relative) of the draw; decimal refinement ~1e-9
    assert sum(s == 8 * (n_c + 1) for s in sizes) >= 198


@pytest.mark.slow
@rerun_once(seed=801)
def test_forced_refinement_duff_quantile_is_uniform_at_scale_inf():
    # scale inf: the law is uniform on [0, 8]; gaps of equal integer width have exactly
    # equal weights, and every race gets identical first bits, so only the decimal
    # refinement with fresh bits can (and must) settle it without bias.  KS vs uniform.
    x = np.arange(1.0, 8.0)
    src = Rigged(samplers.current_rng())
    out = []
    with byte_source_for_tests(src):
        for _ in range(600):
            src.rig = True
            out.append(duff_quantile_sample(x, (0.0, 8.0), 0.5, math.inf))
    assert src.rigged == 600
    assert src.count > 600 * 8 * 9  # fresh bits were drawn beyond the first 8 bytes each
    assert stats.kstest(out, stats.uniform(0, 8).cdf).pvalue > ALPHA
    gaps = np.floor(np.array(out)).astype(int)
    assert chi2_ok(np.bincount(gaps, minlength=8), np.full(8, 1 / 8))


@pytest.mark.slow
@rerun_once(seed=802)
def test_forced_refinement_step_function_equal_weights():
    left = np.array([0.0, 1.0, 2.0, 3.0])
    right = left + 1.0
    levels = np.full(4, -0.5)  # equal weights: identical first bits make a fair tie
    src = Rigged(samplers.current_rng())
    out = []
    with byte_source_for_tests(src):
        for _ in range(1500):
            src.rig = True
            out.append(R.sample_step_function(left, right, levels, 1.0))
    assert src.count > 1500 * 8 * 5  # fresh bits were drawn beyond the first 8 bytes each
    assert chi2_ok(np.bincount(np.floor(out).astype(int), minlength=4), np.full(4, 0.25))


@pytest.mark.slow
@rerun_once(seed=803)
def test_ks_duff_median_exact_path_against_exact_cdf():
    rng = np.random.default_rng(5)
    for n, scale in [(0, 1.0), (1, 0.5), (25, 1.0), (400, 2.0)]:
        x = np.sort(rng.normal(size=n).clip(-3, 3))
        sf = quantile_step_function(x, (-3.0, 3.0), 0.5)
        draws = duff_quantile_sample(x, (-3.0, 3.0), 0.5, scale, size=1500)
        assert stats.kstest(draws, lambda t, sf=sf, scale=scale: sf.cdf(t, scale)).pvalue > ALPHA, (n, scale)


@pytest.mark.slow
@rerun_once(seed=804)
def test_ks_far_blocks_materialised(monkeypatch):
    # a negative tail shrinks the window so the lazy far blocks are materialised often
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", -9.0)
    x = np.sort(np.random.default_rng(6).standard_cauchy(size=300).clip(-20, 20))
    sampler = duff_mod._QuantileSampler(x, -20.0, 20.0, 0.3, 2.0)
    assert len(sampler.blocks) == 2
    calls = []
    for blk in sampler.blocks:
        inner = blk.members
        blk.members = lambda inner=inner: calls.append(1) or inner()
    draws = [sampler.sample() for _ in range(1500)]
    assert 0 < len(calls)
    sf = quantile_step_function(x, (-20.0, 20.0), 0.3)
    assert stats.kstest(draws, lambda t: sf.cdf(t, 2.0)).pvalue > ALPHA


@pytest.mark.slow
@rerun_once(seed=805)
def test_subnormal_bounds_give_the_exact_rounded_law():
    # uniform on [0, 5e-324] rounded to the nearest float: 0 or 5e-324, each w.p. 1/2
    # (whatever the data and scale: every gap is a sub-interval of one rounding cell pair)
    for x in (np.array([]), np.zeros(5), np.full(3, 5e-324)):
        out = duff_quantile_sample(x, (0.0, 5e-324), 0.5, 2.0, size=400)
        assert set(out) <= {0.0, 5e-324}
        assert chi2_ok([np.sum(out == 0.0), np.sum(out == 5e-324)], [0.5, 0.5])


SUB = 5e-324
ROBUST = [
    (np.array([]), 0.0, SUB), (np.array([SUB]), 0.0, SUB), (np.full(3000, SUB), 0.0, SUB),
    (np.full(50, 0.0), 0.0, 1e-320), (np.array([SUB, 2 * SUB]), SUB, 1e-322),
    (np.full(3000, 3.0), 0.0, 10.0), (np.zeros(40), 0.0, 10.0), (np.full(41, 10.0), 0.0, 10.0),
    (np.array([4.0]), 0.0, 10.0), (np.linspace(0, 1, 2000), 0.0, 1.0),
    (np.array([1.0, 2.0]), -1.7e308, 1.7e308), (np.full(10, 1.0), 1.0, 1.0),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(ROBUST)))
@pytest.mark.parametrize("scale", [0.0, 1e-300, 2e-6, 2.0, math.inf])
def test_robust_exact_releases(case, scale):
    x, lo, hi = ROBUST[case]
    with seeded_rng_for_tests(900 + case):
        for alpha in (0.5, 0.05, 0.95):
            out = duff_quantile_sample(x, (lo, hi), alpha, scale, size=4)
            assert np.all(np.isfinite(out)) and np.all((out >= lo) & (out <= hi))
        if scale > 0 and lo <= hi:
            m = dp.m.make_duff_mean(dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi)),
                                                     sorted=True), dp.symmetric_distance(),
                                    scale=scale)
            for _ in range(3):
                y = m(x)
                assert math.isfinite(y) and lo <= y <= hi


def test_step_function_robust_edge_cases():
    with seeded_rng_for_tests(7):
        for scale in (0.0, 1e-300, 1.0, math.inf):
            out = R.sample_step_function([0.0, SUB], [SUB, 2 * SUB], [0.0, -1.0], scale, size=20)
            assert np.all((out >= 0) & (out <= 2 * SUB))
            # levels 1e9 apart: only the top interval can win
            out = R.sample_step_function([0.0, 1.0], [1.0, 2.0], [0.0, -1e9], scale, size=20)
            assert np.all((out >= 0) & (out <= 1)) or math.isinf(scale)


def test_exact_race_is_called_by_step_function(monkeypatch):
    _no_float_path(monkeypatch)
    calls = []
    real = E.exact_race_with_lazy_blocks
    monkeypatch.setattr(R, "exact_race_with_lazy_blocks",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(R, "_NEAR", 1.0)  # force a far block
    with seeded_rng_for_tests(8):
        out = R.sample_step_function([0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [0.0, -3.0, -5.0], 1.0, size=5)
    assert len(calls) == 5 and np.all((out >= 0) & (out <= 3))
