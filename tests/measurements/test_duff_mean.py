"""make_duff_mean and its step function ([GM-Duff] Definition 8, §4.1 "Means").

The reference is a brute force that knows nothing of the closed form: it
enumerates every sub-multiset K of the data that is kept (the rest removed)
and every number a >= 1 of added records, and uses only the fact that a
records in [lo, hi] can have any sum in [a lo, a hi]; the reachable means are
then [(sum K + a lo)/(|K| + a), (sum K + a hi)/(|K| + a)] at cost
(n - |K|) + a, computed with Fractions.

The release-law tests are seeded (``rerun_once``): KS at level 1e-3, false-failure rate about 1e-6.
"""
import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff import duff_mean_utility as dm
from opendp_duff.duff_mean_utility import duff_mean_level_sets, duff_mean_step_function
from opendp_duff.measurements.duff_mean import make_duff_mean


def space(bounds, T=float, sorted_=True, metric=None):
    dom = dp.vector_domain(dp.atom_domain(T=T, bounds=bounds), sorted=sorted_)
    return dom, metric or dp.symmetric_distance()


# ---------------------------------------------------------------- brute force

def brute_intervals(data, lo, hi):
    """(lower, upper, cost) for every kept sub-multiset and every a in 1..n+1."""
    n, out, seen = len(data), [], set()
    lo, hi = Fraction(lo), Fraction(hi)
    for m in range(n + 1):
        for idx in itertools.combinations(range(n), m):
            kept = tuple(sorted(data[i] for i in idx))
            if kept in seen:
                continue
            seen.add(kept)
            s = sum((Fraction(v) for v in kept), Fraction(0))
            for a in range(1, n + 2):  # cost n - m + a <= 2n + 1 covers everything needed
                out.append(((s + a * lo) / (m + a), (s + a * hi) / (m + a), n - m + a))
    return out


def brute_u(x, intervals):
    return -min(c for a, b, c in intervals if a <= x <= b)


def brute_level_set(k, intervals):
    """{x : brute_u(x) >= -k} as (lower, upper), checking that it is one interval."""
    ivs = sorted((a, b) for a, b, c in intervals if c <= k)
    reach = ivs[0][1]
    for a, b in ivs[1:]:
        assert a <= reach, "brute-force level set is not an interval"
        reach = max(reach, b)
    return ivs[0][0], reach


def u_of(pieces, x):
    """Evaluate the step function at x (inside a piece, away from its ends)."""
    left, right, levels = pieces
    i = int(np.searchsorted(right, x, side="left"))
    return int(levels[min(i, len(levels) - 1)])


def random_dataset(rng, lo, hi, n_max, grid):
    n = rng.randint(0, n_max)
    return sorted(rng.choice(grid) for _ in range(n))


# Spans that are powers of two put integer (and dyadic) data exactly on the 2^-32 grid.
EXACT_CASES = [((0, 8), list(range(0, 9))), ((-3, 5), list(range(-3, 6))),
               ((0, 1), [0, 0.25, 0.5, 0.75, 1]), ((2, 3), [2, 2.5, 3])]


@pytest.mark.slow
@pytest.mark.parametrize("bounds,grid", EXACT_CASES)
def test_step_function_equals_brute_force(bounds, grid):
    rng = random.Random(f"values {bounds}")
    lo, hi = bounds
    for _ in range(60):
        data = random_dataset(rng, lo, hi, 6, grid)
        ivs = brute_intervals(data, lo, hi)
        pieces = duff_mean_step_function(np.array(data, dtype=float), (float(lo), float(hi)))
        ends = sorted({e for a, b, _ in ivs for e in (a, b)})
        for _ in range(60):
            x = Fraction(rng.random()) * (hi - lo) + lo
            if min(abs(x - e) for e in ends) < Fraction(1, 10 ** 9):
                continue  # the closed form is exact; float evaluation at an end is not
            assert u_of(pieces, float(x)) == brute_u(x, ivs), (data, float(x))


@pytest.mark.slow
@pytest.mark.parametrize("bounds,grid", EXACT_CASES)
def test_level_set_ends_equal_brute_force(bounds, grid):
    rng = random.Random(f"ends {bounds}")
    lo, hi = bounds
    for _ in range(40):
        data = random_dataset(rng, lo, hi, 6, grid)
        ivs = brute_intervals(data, lo, hi)
        lower, upper = duff_mean_level_sets(np.array(data, dtype=float), (float(lo), float(hi)))
        assert lower.size == len(data) + 1 and lower[-1] == lo and upper[-1] == hi
        for k in range(1, len(data) + 2):
            bl, bu = brute_level_set(k, ivs)
            # exact up to the final float rounding of each end (a few ulps of the span)
            tol = 4 * math.ulp(max(abs(lo), abs(hi), 1))
            assert abs(Fraction(float(lower[k - 1])) - bl) <= tol, (data, k)
            assert abs(Fraction(float(upper[k - 1])) - bu) <= tol, (data, k)


@pytest.mark.slow
@pytest.mark.parametrize("bounds", [(0.0, 6.0), (0.1, 0.7), (-2.5, 1e3)])
def test_off_grid_data_within_grid_rounding(bounds):
    # Off the dyadic grid the records are first rounded to lo + j (hi - lo) 2^-32, which moves
    # every level-set end by at most (hi - lo) 2^-33: compare away from the ends.
    rng = random.Random(11)
    lo, hi = bounds
    for _ in range(40):
        data = sorted(rng.uniform(lo, hi) for _ in range(rng.randint(0, 5)))
        ivs = brute_intervals(data, lo, hi)
        pieces = duff_mean_step_function(np.array(data), bounds)
        ends = sorted({e for a, b, _ in ivs for e in (a, b)})
        margin = Fraction(hi - lo) * Fraction(1, 2 ** 28)
        for _ in range(60):
            x = Fraction(rng.uniform(lo, hi))
            if min(abs(x - e) for e in ends) < margin:
                continue
            assert u_of(pieces, float(x)) == brute_u(x, ivs), (data, float(x))


def test_examples_by_hand():
    # n = 0: any mean needs one added record.
    left, right, levels = duff_mean_step_function([], (0.0, 4.0))
    assert (left.tolist(), right.tolist(), levels.tolist()) == ([0.0], [4.0], [-1])
    # n = 1, y = 1: adding one record reaches [1/2, 5/2]; removing it and adding one, everything.
    left, right, levels = duff_mean_step_function([1.0], (0.0, 4.0))
    assert (left.tolist(), right.tolist(), levels.tolist()) == ([0.0, 0.5, 2.5], [0.5, 2.5, 4.0], [-2, -1, -2])
    # lo == hi: the one point.
    assert [a.tolist() for a in duff_mean_step_function([3.0, 3.0], (3.0, 3.0))] == [[3.0], [3.0], [0]]


# ---------------------------------------------------------------- structure

DATASETS = [
    ([], (0.0, 1.0)), ([0.5], (0.0, 1.0)), ([0.0] * 50, (0.0, 1.0)), ([1.0] * 50, (0.0, 1.0)),
    ([2.0] * 3000, (-1.0, 5.0)), (list(np.linspace(-1, 1, 101)), (-1.0, 1.0)),
    ([0.0, 0.0, 1.0, 1.0], (0.0, 1.0)), (list(np.sort(np.random.default_rng(1).normal(0, 1, 500))), (-10.0, 10.0)),
    ([-1e308, 0.0, 1e308], (-1.7e308, 1.7e308)), ([0.0, 5e-324], (0.0, 5e-324)),
    ([1e6, 1e6 + 1e-7], (1e6, 1e6 + 1e-6)),
]


@pytest.mark.parametrize("data,bounds", DATASETS)
def test_pieces_partition_the_range(data, bounds):
    lo, hi = bounds
    left, right, levels = duff_mean_step_function(np.array(data, dtype=float), bounds)
    assert left[0] == lo and right[-1] == hi
    assert np.all(right > left) and np.all(left[1:] == right[:-1])  # contiguous, no overlaps
    assert levels.dtype == np.int64 and np.all(levels <= -1) and np.all(levels >= -(len(data) + 1))
    top = int(np.argmax(levels))  # levels rise to the single top piece and fall after it
    assert np.all(np.diff(levels[:top + 1]) > 0) and np.all(np.diff(levels[top:]) < 0)
    lower, upper = duff_mean_level_sets(np.array(data, dtype=float), bounds)
    assert np.all(np.diff(lower) <= 0) and np.all(np.diff(upper) >= 0)
    if data:
        mean = math.fsum(data) / len(data)
        if hi - lo > 1e-300 and np.isfinite(mean):
            # the mean lies in the top piece (up to the 2^-33 grid rounding)
            slack = 2.0 ** -30 * (hi * 0.5 - lo * 0.5)
            assert left[top] - slack <= mean <= right[top] + slack


def test_int64_and_exact_python_int_paths_agree(monkeypatch):
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 7, 300):
        y = np.sort(rng.uniform(-3.0, 9.5, n))
        fast = duff_mean_step_function(y, (-3.0, 9.5))
        monkeypatch.setattr(dm, "_INT64_MAX_N", 0)  # force dtype=object
        slow = duff_mean_step_function(y, (-3.0, 9.5))
        monkeypatch.undo()
        assert all(np.array_equal(a, b) for a, b in zip(fast, slow, strict=True))


def test_prefix_rule_equals_minimum_over_all_removals():
    # The optimal number of removals r*(k) found by the threshold rule is the argmin of
    # p(r)/(n+k-2r) over every admissible r (checked exactly with Fractions).
    rng = np.random.default_rng(9)
    for _ in range(30):
        z = np.sort(rng.integers(0, 2 ** 32 + 1, rng.integers(0, 12)))
        if rng.random() < 0.3:
            z = np.sort(rng.choice([0, 2 ** 31, 2 ** 32], z.size))
        a, f = dm._level_ends(z)
        n, w = z.size, [int(v) for v in z[::-1]]
        for k in range(1, n + 2):
            best = min(Fraction(sum(w[r:]), n + k - 2 * r) for r in range(min(k - 1, n) + 1))
            assert int(a[k - 1]) * 2 ** 32 + int(f[k - 1]) == math.floor(best * 2 ** 32)


# ---------------------------------------------------------------- privacy

def neighbour_pairs(rng, count):
    for i in range(count):
        lo, hi = [(0.0, 1.0), (-3.0, 7.0), (0.1, 0.7), (-1e300, 1e300), (5.0, 5.0 + 2 ** -40)][i % 5]
        n = int(rng.integers(0, 25))
        kind = rng.integers(0, 3)
        if kind == 0:
            x = rng.uniform(lo, hi, n)
        elif kind == 1:
            x = rng.choice([lo, hi, lo * 0.5 + hi * 0.5], n)
        else:
            x = np.full(n, rng.uniform(lo, hi))
        extra = float(rng.choice([lo, hi, rng.uniform(lo, hi)]))
        yield np.sort(x), np.sort(np.append(x, extra)), (lo, hi)


def merged_midpoints(p, q):
    ends = np.unique(np.concatenate([p[0], p[1], q[0], q[1]]))
    return ends[:-1] * 0.5 + ends[1:] * 0.5, np.diff(ends) > 0


@pytest.mark.slow
def test_utility_has_sensitivity_one_on_neighbours():
    rng = np.random.default_rng(21)
    for x, x2, bounds in neighbour_pairs(rng, 400):
        p, q = duff_mean_step_function(x, bounds), duff_mean_step_function(x2, bounds)
        mids, ok = merged_midpoints(p, q)
        for t in mids[ok]:
            assert abs(u_of(p, t) - u_of(q, t)) <= 1, (x, x2, bounds, t)


def exact_density_ratio_bound(p, q):
    """max over x of dens_p(x)/dens_q(x), exactly, for the base-2 mechanism exp(u ln2)
    (scale = 1/ln 2), i.e. density 2^u / sum(width 2^u)."""
    def z(pieces):
        return sum((Fraction(float(b)) - Fraction(float(a))) * Fraction(2) ** int(k)
                   for a, b, k in zip(*pieces, strict=True))
    zp, zq = z(p), z(q)
    mids, ok = merged_midpoints(p, q)
    return max(Fraction(2) ** u_of(p, t) / zp / (Fraction(2) ** u_of(q, t) / zq)
               for t in mids[ok])


@pytest.mark.slow
def test_exact_density_ratio_within_privacy_map():
    # scale = 1/ln 2 makes exp(u/scale) = 2^u, so densities are exact rationals; the map
    # promises exp(map(1)) = exp(2 ln 2) = 4.
    rng = np.random.default_rng(22)
    for x, x2, bounds in neighbour_pairs(rng, 150):
        if not bounds[1] > bounds[0] or not np.isfinite(bounds[1] - bounds[0]):
            continue
        p, q = duff_mean_step_function(x, bounds), duff_mean_step_function(x2, bounds)
        assert exact_density_ratio_bound(p, q) <= 4
        assert exact_density_ratio_bound(q, p) <= 4


@pytest.mark.slow
def test_float_density_log_ratio_within_map():
    rng = np.random.default_rng(23)
    for scale in (0.05, 1.0, 30.0):
        meas = make_duff_mean(*space((0.0, 1.0)), scale=scale)
        for x, x2, _ in neighbour_pairs(rng, 100):
            x, x2 = np.clip(x, 0.0, 1.0), np.clip(x2, 0.0, 1.0)
            p, q = duff_mean_step_function(x, (0.0, 1.0)), duff_mean_step_function(x2, (0.0, 1.0))
            mids, ok = merged_midpoints(p, q)

            def logdens(pc, t, scale=scale):
                lw = np.log(pc[1] - pc[0]) + pc[2] / scale
                m = lw.max()
                return u_of(pc, t) / scale - (m + math.log(np.exp(lw - m).sum()))

            worst = max(abs(logdens(p, t) - logdens(q, t)) for t in mids[ok])
            assert worst <= meas.map(1) * (1 + 1e-12)


def test_privacy_map_rounds_up():
    for scale in (3.0, 0.1, 1e-300, 7.0):
        m = make_duff_mean(*space((0.0, 1.0)), scale=scale)
        for d in (1, 2, 5):
            got = m.map(d)
            exact = Fraction(2 * d) / Fraction(scale)
            assert Fraction(got) >= exact if math.isfinite(got) else True
            if math.isfinite(got):
                assert Fraction(math.nextafter(got, 0)) < exact
        assert m.map(0) == 0
    assert make_duff_mean(*space((0.0, 1.0)), scale=math.inf).map(3) == 0


# ---------------------------------------------------------------- distribution

def exact_cdf(pieces, scale):
    left, right, levels = pieces
    lw = np.log(right - left) + levels / scale
    mass = np.exp(lw - lw.max())
    mass /= mass.sum()

    def cdf(t):
        t = np.asarray(t, dtype=float)[..., None]
        frac = np.clip((t - left) / (right - left), 0.0, 1.0)
        return (frac * mass).sum(axis=-1)
    return cdf


KS_CASES = [([1.0, 3.0], (0.0, 4.0), 1.0), ([0.0] * 4, (0.0, 1.0), 0.7),
            (list(np.linspace(0.0, 10.0, 40)), (0.0, 10.0), 4.0), ([], (-2.0, 2.0), 1.0)]


@pytest.mark.slow
@pytest.mark.parametrize("data,bounds,scale", KS_CASES)
@rerun_once(seed=3301)
def test_releases_follow_exact_cdf(data, bounds, scale):
    # KS at level 1e-3: false-failure rate 1e-3 per attempt, 1e-6 with the rerun.
    meas = make_duff_mean(*space(bounds), scale=scale)
    draws = np.array([meas(np.array(data)) for _ in range(2000)])
    cdf = exact_cdf(duff_mean_step_function(np.array(data), bounds), scale)
    assert stats.kstest(draws, cdf).pvalue > 1e-3


# ---------------------------------------------------------------- robustness

ROBUST = [
    ([2.0] * 3000, (0.0, 10.0), 1.0), ([0.0] * 500 + [10.0] * 500, (0.0, 10.0), 1.0),
    ([10.0] * 100, (0.0, 10.0), 0.5), ([], (0.0, 10.0), 1.0), ([3.0], (0.0, 10.0), 1.0),
    ([3.0, 4.0], (0.0, 10.0), 1e-300),  # every weight but the top one underflows
    (list(np.linspace(0, 1, 100_000)), (0.0, 1.0), 2e-4),  # epsilon * n = 1e9
    ([5.0] * 10, (5.0, 5.0), 1.0), ([], (5.0, 5.0), 1.0),  # zero-width output range
    ([-1e308, 1e308], (-1.7e308, 1.7e308), 1.0), ([0.0, 5e-324], (0.0, 5e-324), 1.0),
    ([1.0, 2.0], (0.0, 10.0), math.inf),
]


@pytest.mark.parametrize("data,bounds,scale", ROBUST)
def test_releases_on_hard_members(data, bounds, scale):
    meas = make_duff_mean(*space(bounds), scale=scale)
    for _ in range(3):
        out = meas(np.array(data, dtype=float))
        assert isinstance(out, float) and bounds[0] <= out <= bounds[1]


def test_concentrates_at_the_mean_for_tiny_scale():
    # With scale 1e-300 only the top piece has weight: the release is in L_1.
    data = np.array([3.0, 4.0])
    out = make_duff_mean(*space((0.0, 10.0)), scale=1e-300)(data)
    left, right, levels = duff_mean_step_function(data, (0.0, 10.0))
    top = int(np.argmax(levels))
    assert left[top] <= out <= right[top]


def test_chains_with_clamp_and_sort_and_int_domains():
    s = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    m = s >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_duff_mean(scale=2.0)
    assert m.map(1) == 1.0 and 0.0 <= m([0.3, 5.0, -2.0]) <= 1.0
    mi = make_duff_mean(*space((0, 10), T=int), scale=1.0)
    assert 0.0 <= mi([1, 2, 3]) <= 10.0


def test_bad_inputs_are_refused_at_construction():
    with pytest.raises(dp.MakeError, match="bounded"):
        make_duff_mean(dp.vector_domain(dp.atom_domain(T=float), sorted=True), dp.symmetric_distance(), 1.0)
    assert 0.0 <= make_duff_mean(*space((0.0, 1.0), sorted_=False), scale=1.0)([0.7, 0.2]) <= 1.0  # accepted
    with pytest.raises(dp.MakeError, match="symmetric_distance"):
        dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=5, sorted=True)
        make_duff_mean(dom, dp.change_one_distance(), 1.0)
    for bad in (-1.0, math.nan, -math.inf):
        with pytest.raises(dp.MakeError, match="scale"):
            make_duff_mean(*space((0.0, 1.0)), scale=bad)
    for bad in ("1", None, True):
        with pytest.raises(dp.MakeTypeError, match="scale"):
            make_duff_mean(*space((0.0, 1.0)), scale=bad)
    with pytest.raises(TypeError):
        make_duff_mean(dp.atom_domain(T=float, bounds=(0.0, 1.0)), dp.symmetric_distance(), 1.0)
