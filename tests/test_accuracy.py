"""opendp_duff.accuracy: every figure checked exactly, without sampling.

* the noise half-widths against mpmath (never below the exact quantile, within a few floats);
* the Duff quantile's level bounds (the lemma the rank error rests on) against the library's exact
  levels for many n, q and gaps; the rank error k against an independent recomputation of the
  theorem's bound; and the exact probability of missing, summed in mpmath over the law's pieces, on
  continuous, tie-heavy and clustered data that meet the spread condition: at most alpha;
* the counterexample: all records equal puts the release outside every window short of [a, b];
* the Duff mode and mean: the exact probability of the stated event, from the exact laws, at most alpha;
* refusals of bad parameters.
Nothing here is statistical (the sampled coverage is in test_accuracy_coverage.py)."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import accuracy as acc
from opendp_duff.duff_utility import quantile_gap_levels, quantile_rational
from opendp_duff.duff_mean_utility import duff_mean_step_function

mpmath = pytest.importorskip("mpmath")  # an independent high-precision reference (the test extra)

mpmath.mp.dps = 50
BOUNDS = (0.0, 100.0)


# --------------------------------------------------------------------------- noise
@pytest.mark.parametrize("scale,alpha", [(1.0, 0.05), (2.5, 1e-6), (1e-3, 0.5), (7.0, 0.999)])
def test_laplace_half_width_is_the_exact_quantile_rounded_up(scale, alpha):
    h = acc.laplace_accuracy(scale, alpha).accuracy
    exact = mpmath.mpf(scale) * mpmath.log(1 / mpmath.mpf(alpha))
    assert exact <= h < exact * (1 + 4 * 2.0 ** -52)


@pytest.mark.parametrize("scale,alpha", [(1.0, 0.05), (2.5, 1e-6), (0.3, 0.5), (7.0, 0.999)])
def test_gaussian_half_width_is_the_exact_quantile_rounded_up(scale, alpha):
    h = acc.gaussian_accuracy(scale, alpha).accuracy
    assert 2 * mpmath.ncdf(-mpmath.mpf(h) / scale) <= alpha                     # never too small
    assert 2 * mpmath.ncdf(-mpmath.mpf(h) / scale * (1 - 1e-12)) > alpha        # and tight


def test_noise_edges_and_record():
    assert acc.laplace_accuracy(0.0, 0.05).accuracy == 0.0
    assert acc.gaussian_accuracy(math.inf, 0.05).accuracy == math.inf
    rec = acc.laplace_accuracy(2.0, 0.05)
    assert (rec.mechanism, rec.scale, rec.unit) == ("laplace", 2.0, "value")
    assert "0.05" in rec.statement and str(rec.accuracy) in rec.statement


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, math.nan, "0.1", None, True])
def test_bad_alpha_is_refused(alpha):
    with pytest.raises((TypeError, ValueError), match="alpha"):
        acc.laplace_accuracy(1.0, alpha)


# --------------------------------------------------------------------------- the quantile's levels
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(1, 10), Fraction(9, 10), Fraction(1, 3), Fraction(77, 100)])
def test_level_bounds_of_the_lemma_hold_for_every_gap(q):
    m = max(q, 1 - q)
    for n in list(range(0, 40)) + [101, 1000, 1001]:
        P, Q = quantile_rational(q, n)
        r = math.ceil(q * (n + 1)) - 1
        levels = quantile_gap_levels(np.arange(n + 1), n, P, Q)
        assert levels[r] == -1
        for j, level in enumerate(levels.tolist()):
            d = abs(j - r)
            if j > r:
                assert -(1 + math.ceil(d / q)) <= level <= -(math.floor((d - 1 + q) / m) + 1), (n, j)
            elif j < r:
                assert -(1 + math.ceil(d / (1 - q))) <= level <= -(math.floor((d - q) / m) + 1), (n, j)
            if d >= 1:
                assert level <= -math.floor(d / m)


# --------------------------------------------------------------------------- the rank error
def independent_k(scale, alpha, q, width, w, k0):
    """The theorem's k, recomputed in mpmath by search (not by the library's closed form)."""
    q, alpha = Fraction(repr(q)), mpmath.mpf(alpha)   # the decimal the float prints as, as the mechanism reads it
    m, nu = max(q, 1 - q), min(q, 1 - q)
    for k in range(k0 + 1, 100_000):
        delta = math.floor(k / m) - 1 - math.ceil(k0 / nu)
        bound = 1 / (1 + mpmath.mpf(w) / (mpmath.mpf(width) - w) * mpmath.exp(delta / mpmath.mpf(scale)))
        if bound <= alpha:
            return k
    raise AssertionError("no k")


@pytest.mark.parametrize("scale,alpha,q,w,k0", [(2.0, 0.05, 0.5, 1.0, 1), (2.0, 0.05, 0.5, 0.2, 1),
                                                (0.5, 0.01, 0.9, 0.05, 2), (10.0, 0.2, 0.1, 3.0, 3),
                                                (1.0, 1e-6, 0.25, 1e-3, 1), (4.0, 0.05, 0.77, 12.5, 5)])
def test_rank_error_is_the_theorems_smallest_k(scale, alpha, q, w, k0):
    got = acc.duff_quantile_accuracy(scale, alpha, quantile=q, bounds=BOUNDS, spread=w, within=k0).accuracy
    want = independent_k(scale, alpha, q, 100.0, w, k0)
    assert want <= got <= want + 1     # outward rounding may cost one rank, never gain one


def test_rank_error_edges():
    kw = dict(quantile=0.5, bounds=BOUNDS)
    assert acc.duff_quantile_accuracy(2.0, 0.05, spread=100.0, within=3, **kw).accuracy == 4.0
    assert acc.duff_quantile_accuracy(0.0, 0.05, spread=1.0, **kw).accuracy == 2.0   # floor(2k) >= 1 + 3
    assert acc.duff_quantile_accuracy(math.inf, 0.05, spread=1.0, **kw).accuracy == math.inf
    assert acc.duff_quantile_accuracy(math.inf, 0.5, spread=60.0, **kw).accuracy == 2.0
    assert acc.duff_quantile_accuracy(2.0, 0.05, quantile=0.5, bounds=(3.0, 3.0), spread=1.0).accuracy == 0.0
    assert acc.duff_quantile_accuracy(2.0, 1e-300, spread=5e-324, **kw).accuracy == math.inf  # the ratio overflows
    median = acc.duff_median_accuracy(2.0, 0.05, bounds=BOUNDS, spread=0.2)
    assert median.mechanism == "duff_median" and median.unit == "rank"
    assert "no rank bound holds for all data" in median.statement


@pytest.mark.parametrize("kw,match", [(dict(spread=0.0), "spread"), (dict(spread=101.0), "spread"),
                                      (dict(spread=1.0, within=0), "within"),
                                      (dict(spread=1.0, quantile=1.0), "quantile")])
def test_rank_error_bad_parameters(kw, match):
    args = dict(quantile=0.5, bounds=BOUNDS, spread=1.0)
    args.update(kw)
    with pytest.raises((TypeError, ValueError), match=match):
        acc.duff_quantile_accuracy(2.0, 0.05, **args)


def order_stat(y, i, bounds):
    return bounds[0] if i <= 0 else bounds[1] if i >= len(y) + 1 else float(y[i - 1])


def p_outside(y, bounds, q, scale, k):
    """The exact probability that the release leaves [y_(R-k), y_(R+k)], summed over the law's pieces."""
    R = math.ceil(Fraction(q) * len(y))
    lo_end, hi_end = order_stat(y, R - k, bounds), order_stat(y, R + k, bounds)
    u = dp.duff_utility(y, "quantile", bounds=bounds, alpha=q)
    total = out = mpmath.mpf(0)
    for left, right, level in zip(u.left, u.right, u.levels, strict=True):
        if right > left:
            mass = (mpmath.mpf(float(right)) - mpmath.mpf(float(left))) * mpmath.exp(int(level) / mpmath.mpf(scale))
            total += mass
            out += mass if (right <= lo_end or left >= hi_end) else 0
    return out / total


def shapes(rng):
    """(name, sorted records in BOUNDS): continuous, tie-heavy integers, clustered, spread two-point."""
    return [("uniform", np.sort(rng.uniform(0, 100, 1000))),
            ("normal", np.sort(np.clip(rng.normal(50, 10, 501), 0, 100))),
            ("integers", np.sort(rng.integers(0, 10, 800).astype(float) * 10)),
            ("clustered", np.sort(np.concatenate([rng.normal(20, 0.01, 300), rng.normal(80, 0.5, 300),
                                                  rng.uniform(0, 100, 20)]).clip(0, 100))),
            ("small", np.sort(rng.uniform(0, 100, 7)))]


@pytest.mark.slow
@pytest.mark.parametrize("q", [0.5, 0.1, 0.9, 0.37])
def test_the_exact_probability_of_missing_is_at_most_alpha_when_the_spread_holds(q):
    rng = np.random.default_rng(11)
    for name, y in shapes(rng):
        R = math.ceil(Fraction(q) * len(y))
        for k0 in (1, 3, 60):
            spread = order_stat(y, R + k0, BOUNDS) - order_stat(y, R - k0, BOUNDS)
            if spread <= 0:
                continue                  # the condition cannot hold: Theorem "no rank bound" applies
            for scale, alpha in ((2.0, 0.05), (0.5, 0.01), (20.0, 0.2)):
                k = acc.duff_quantile_accuracy(scale, alpha, quantile=q, bounds=BOUNDS, spread=spread,
                                               within=k0).accuracy
                if k < math.inf:
                    assert p_outside(y, BOUNDS, q, scale, int(k)) <= alpha, (name, k0, scale, alpha)


def test_at_scale_zero_the_top_level_lies_inside_the_window():
    rng = np.random.default_rng(12)
    for q in (0.5, 0.2):
        for name, y in shapes(rng):
            R = math.ceil(Fraction(q) * len(y))
            spread = order_stat(y, R + 1, BOUNDS) - order_stat(y, R - 1, BOUNDS)
            if spread <= 0:
                continue
            k = int(acc.duff_quantile_accuracy(0.0, 0.05, quantile=q, bounds=BOUNDS,
                                               spread=spread).accuracy)
            u = dp.duff_utility(y, "quantile", bounds=BOUNDS, alpha=q)
            live = u.right > u.left
            on_top = u.levels[live] == u.levels[live].max()
            for left, right in zip(u.left[live][on_top], u.right[live][on_top], strict=True):
                assert order_stat(y, R - k, BOUNDS) <= left and right <= order_stat(y, R + k, BOUNDS), name


@pytest.mark.parametrize("value", [0.0, 37.5, 100.0])
def test_all_records_equal_defeat_every_window_short_of_the_bounds(value):
    y = np.full(101, value)
    for k in (1, 10, 50):                          # 50 < max(R, n + 1 - R) = 51
        assert p_outside(y, BOUNDS, 0.5, 2.0, k) == 1   # the law puts no mass on the tied value
    assert p_outside(y, BOUNDS, 0.5, 2.0, 51) == 0     # k = max(R, n + 1 - R): the window is [a, b]


# --------------------------------------------------------------------------- the mode
@pytest.mark.parametrize("scale,alpha,m", [(1.0, 0.05, 10), (0.5, 0.01, 2), (3.0, 0.2, 1000), (2.0, 0.5, 3)])
def test_mode_gap_holds_on_the_exact_law(scale, alpha, m):
    gap = acc.duff_mode_accuracy(scale, alpha, candidates=m).accuracy
    rng = np.random.default_rng(m)
    for counts in (np.zeros(m, dtype=int), rng.integers(0, 50, m), np.r_[100, np.full(m - 1, 100 - gap - 1)]):
        weights = [mpmath.exp(mpmath.mpf(int(c) - int(counts.max())) / scale) for c in counts]
        bad = sum(w for w, c in zip(weights, counts, strict=True) if counts.max() - c > gap)
        assert bad / sum(weights) <= alpha
    # tight: one more count of slack would exceed alpha for the worst data (all others just behind)
    if gap >= 1:
        worst = 1 / (1 + 1 / ((m - 1) * mpmath.exp(-mpmath.mpf(gap) / scale)))
        assert worst > alpha


def test_mode_edges():
    assert acc.duff_mode_accuracy(1.0, 0.05, candidates=["a"]).accuracy == 0.0
    assert acc.duff_mode_accuracy(0.0, 0.05, candidates=5).accuracy == 0.0
    assert acc.duff_mode_accuracy(math.inf, 0.05, candidates=5).accuracy == math.inf
    assert acc.duff_mode_accuracy(math.inf, 0.8, candidates=5).accuracy == 0.0
    assert acc.duff_mode_accuracy(1.0, 0.05, candidates=[1, 2, 3]).unit == "count"


# --------------------------------------------------------------------------- the mean
def p_far_from_mean(y, bounds, scale, h):
    """The exact probability that the release is farther than h from the mean."""
    mu = mpmath.fsum(mpmath.mpf(float(v)) for v in y) / len(y)
    left, right, levels = duff_mean_step_function(np.sort(y), bounds)
    total = out = mpmath.mpf(0)
    for lo, hi, level in zip(left, right, levels, strict=True):
        if hi > lo:
            lo, hi = mpmath.mpf(float(lo)), mpmath.mpf(float(hi))
            mass = (hi - lo) * mpmath.exp(int(level) / mpmath.mpf(scale))
            total += mass
            inside = max(mpmath.mpf(0), min(hi, mu + h) - max(lo, mu - h))
            out += mass * (1 - inside / (hi - lo))
    return out / total


@pytest.mark.slow
@pytest.mark.parametrize("bounds", [(0.0, 10.0), (-5.0, 5.0), (1e6, 1e6 + 1.0)])
def test_mean_half_width_holds_on_the_exact_law(bounds):
    rng = np.random.default_rng(5)
    lo, hi = bounds
    for n in (1, 7, 300):
        for y in (rng.uniform(lo, hi, n), np.full(n, lo), np.where(rng.random(n) < 0.5, lo, hi)):
            for scale, alpha in ((2.0, 0.05), (0.3, 0.01), (40.0, 0.2)):
                h = acc.duff_mean_accuracy(scale, alpha, bounds=bounds, n=n).accuracy
                assert p_far_from_mean(y, bounds, scale, h) <= alpha


def test_mean_edges():
    assert acc.duff_mean_accuracy(2.0, 0.05, bounds=(1.0, 1.0), n=5).accuracy == 0.0
    assert acc.duff_mean_accuracy(math.inf, 0.05, bounds=(0.0, 10.0), n=5).accuracy == 9.5
    small = acc.duff_mean_accuracy(0.0, 0.05, bounds=(0.0, 10.0), n=99).accuracy
    assert small == pytest.approx(10 / 100, rel=1e-7) and small >= 0.1 + 10 * 2.0 ** -32   # k = 1 and the grid
    assert acc.duff_mean_accuracy(1e-3, 0.05, bounds=(0.0, 10.0), n=1).accuracy <= 10.0
    with pytest.raises(ValueError, match="n"):
        acc.duff_mean_accuracy(1.0, 0.05, bounds=(0.0, 1.0), n=0)
    with pytest.raises(ValueError, match="bounds"):
        acc.duff_mean_accuracy(1.0, 0.05, bounds=(-1e308, 1e308), n=10)


# --------------------------------------------------------------------------- key discovery, smooth
@pytest.mark.parametrize("scale,alpha,threshold,noise", [(1.0, 0.05, 15.0, "laplace"), (3.0, 1e-6, 40.5, "laplace"),
                                                         (1.0, 0.05, 5.75, "gaussian"), (2.0, 0.3, 0.0, "gaussian")])
def test_threshold_count_is_released_with_probability_one_minus_alpha(scale, alpha, threshold, noise):
    c = acc.threshold_keys_accuracy(scale, alpha, threshold=threshold, noise=noise).accuracy
    u = (mpmath.mpf(threshold) - c) / scale            # missed iff Z < u (for the exact real count)
    miss = mpmath.exp(u) / 2 if noise == "laplace" and u <= 0 else (
        1 - mpmath.exp(-u) / 2 if noise == "laplace" else mpmath.ncdf(u))
    assert miss <= alpha


def test_threshold_accuracy_edges():
    assert acc.threshold_keys_accuracy(0.0, 0.05, threshold=10.5).accuracy == 11.0
    assert acc.threshold_keys_accuracy(math.inf, 0.05, threshold=10.0).accuracy == math.inf
    assert acc.threshold_keys_accuracy(math.inf, 0.5, threshold=10.0).accuracy == 1.0
    assert acc.threshold_keys_accuracy(1.0, 0.05, threshold=-50.0).accuracy == 1.0


def test_smooth_sensitivity_has_no_data_independent_statement():
    rec = acc.smooth_sensitivity_accuracy(0.2, 0.05, statistic="trimmed_mean")
    assert rec.accuracy == math.inf and rec.mechanism == "smooth_trimmed_mean"
    assert rec.statement.startswith("no data-independent statement")
