"""Coverage of the accuracy statements, by sampling the mechanisms: on continuous, tie-heavy integer
and clustered data, the releases of the Duff median and quantiles fall outside the stated rank window,
those of the Duff mean outside the stated half-width, those of the Duff mode beyond the stated count
gap, and Laplace/Gaussian noise beyond its half-width, no more often than alpha allows.

Each check draws N releases and fails when more than c miss, with c the least count such that
P(Binomial(N, alpha) > c) <= 1e-6: the statements say the miss probability is at most alpha, so the
false-failure rate is at most 1e-6 per check and attempt, and with ``rerun_once`` about 1e-12 per
test.  The exact probabilities are checked without sampling in test_accuracy.py; here the releases
come from the mechanisms themselves.  The last test shows the counterexample: with all records tied
the median's release misses the tie every time (its probability of hitting it is below 1e-13)."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff import accuracy as acc

BOUNDS = (0.0, 100.0)
N = 300
ALPHA = 0.05


def allowed(n, alpha, rate=1e-6):
    """The least c with P(Binomial(n, alpha) > c) <= rate."""
    return int(stats.binom.isf(rate, n, alpha)) + 1


def order_stat(y, i):
    return BOUNDS[0] if i <= 0 else BOUNDS[1] if i >= len(y) + 1 else float(y[i - 1])


def data(rng):
    return {"continuous": rng.normal(50, 15, 1001).clip(*BOUNDS),
            "integers": (rng.integers(0, 21, 1000) * 5).astype(float),
            "clustered": np.concatenate([rng.normal(30, 0.05, 500), rng.normal(70, 0.05, 500),
                                         rng.uniform(*BOUNDS, 20)]).clip(*BOUNDS)}


@pytest.mark.slow
@pytest.mark.parametrize("q", [0.5, 0.25, 0.9])
@pytest.mark.parametrize("shape", ["continuous", "integers", "clustered"])
@rerun_once(20)
def test_quantile_releases_stay_within_the_stated_ranks(q, shape):
    x = data(np.random.default_rng(3))[shape]
    y = np.sort(x)
    R = math.ceil(Fraction(repr(q)) * len(y))
    # the smallest number of ranks each side that spans a positive distance: the condition then holds
    k0 = next(k for k in range(1, len(y)) if order_stat(y, R + k) > order_stat(y, R - k))
    spread = order_stat(y, R + k0) - order_stat(y, R - k0)
    k = int(acc.duff_quantile_accuracy(2.0, ALPHA, quantile=q, bounds=BOUNDS, spread=spread, within=k0).accuracy)
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    meas = space >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_quantile(alpha=q, scale=2.0)
    lo, hi = order_stat(y, R - k), order_stat(y, R + k)
    misses = sum(not lo <= meas(x) <= hi for _ in range(N))
    assert misses <= allowed(N, ALPHA), (shape, k0, k, misses)


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["continuous", "integers", "clustered"])
@rerun_once(30)
def test_mean_releases_stay_within_the_stated_half_width(shape):
    x = data(np.random.default_rng(4))[shape]
    h = acc.duff_mean_accuracy(2.0, ALPHA, bounds=BOUNDS, n=len(x)).accuracy
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    meas = space >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_mean(scale=2.0)
    mean = math.fsum(x) / len(x)
    misses = sum(abs(meas(x) - mean) > h for _ in range(N))
    assert misses <= allowed(N, ALPHA)


@pytest.mark.slow
@rerun_once(40)
def test_mode_releases_stay_within_the_stated_count_gap():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 30, 3000)
    counts = np.bincount(x, minlength=30)
    gap = acc.duff_mode_accuracy(1.0, ALPHA, candidates=30).accuracy
    meas = (dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()) >> dp.m.then_duff_mode(
        candidates=list(range(30)), scale=1.0)
    misses = sum(counts.max() - counts[meas(x)] > gap for _ in range(N))
    assert misses <= allowed(N, ALPHA)


@rerun_once(50)
def test_noise_stays_within_the_stated_half_width():
    atom = dp.atom_domain(T=float), dp.absolute_distance(T=float)
    for make, accuracy in ((dp.m.make_laplace, acc.laplace_accuracy), (dp.m.make_gaussian, acc.gaussian_accuracy)):
        meas, h = make(*atom, scale=3.0), accuracy(3.0, ALPHA).accuracy
        misses = sum(abs(meas(12.5) - 12.5) > h for _ in range(N))
        assert misses <= allowed(N, ALPHA)


def test_tied_records_defeat_the_rank_window():
    x = [37.5] * 201
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    meas = space >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(scale=2.0)
    # every window [y_(R-k), y_(R+k)] with k <= 100 is the single point 37.5
    assert all(meas(x) != 37.5 for _ in range(100))
