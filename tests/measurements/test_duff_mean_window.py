"""make_duff_mean's step function (computed in reused buffers) and its release from the
levels near the top (opendp_duff.measurements._mean_window), on sorted and unsorted input.

Deterministic tests: the step function equals a plain reference implementation of the same
algorithm (one new array per step, written from the proof's formulas) on random and
adversarial inputs, on the int64 and the Python-int paths; the ends of L_1..L_K computed from
the K - 1 largest and smallest records equal the first K of the whole computation; the near
pieces of a release plus the pieces of its two blocks are exactly the step function's pieces;
the sampler built from unsorted input has the same race inputs as from sorted input and, fed
the same bytes, the same releases, also when a block is forced open; the blocks are built
only when their bound could win; the input is not modified.

Statistical tests (slow, seeded with ``rerun_once``): Kolmogorov-Smirnov at level 1e-3 of the
releases (sorted and unsorted input, blocks forced open by a shrunk window) against the exact
CDF of the step function (itself checked against a brute force in test_duff_mean.py), and of
scale = inf against the uniform law.  A test making k comparisons has false-failure rate at
most (k 1e-3)^2 <= 1e-4 after the rerun.
"""
import math

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff._constants import MAX
from opendp_duff.measurements import _mean_window as mw
from opendp_duff import duff_mean_utility as dm
from opendp_duff.samplers import SeededRandomForTests, byte_source_for_tests, seeded_rng_for_tests

ALPHA = 1e-3
TINY = 5e-324
BOUNDS = [(0.0, 1.0), (-3.0, 7.0), (-MAX, MAX), (5.0, 5.0 + 2.0 ** -40), (0.0, TINY),
          (-1e-310, 1e-310), (0.0, MAX), (-2.0 ** 1000, 2.0 ** 1000)]


# ----------------------------------------------------------------------------- a plain reference
def ref_level_ends(z):
    """The prefix rule of the proof, one array per step: (A, F) for L_1..L_{n+1}."""
    n = z.size
    w = [int(v) for v in z[::-1]]                   # w[r]: the (r+1)-th largest
    p = [0] * (n + 1)                               # p[r]: all but the r largest
    for r in range(n - 1, -1, -1):
        p[r] = p[r + 1] + w[r]
    cmax, c = [], -math.inf                         # the running maximum of the thresholds
    for r in range(n):
        if w[r] == 0:
            break
        c = max(c, (2 * p[r]) // w[r] + 2 * r + 1 - n)
        cmax.append(c)
    a, f, run = [], [], 0
    for k in range(1, n + 2):
        while run < len(cmax) and cmax[run] <= k:  # cmax is non-decreasing
            run += 1
        rs = min(run, k - 1)
        num, den = p[rs], n + k - 2 * rs
        a.append(num // den)
        f.append(((num % den) << 32) // den)
    return np.array(a, dtype=np.float64), np.array(f, dtype=np.float64)


def ref_step_function(y, lo, hi):
    span = hi - lo
    if np.isfinite(span):
        t = (y - lo) / span
    else:
        t = (y * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5)
    z = np.rint(np.clip(t, 0.0, 1.0) * 2.0 ** 32).astype(np.int64)

    def ends(zz, from_lo):
        a, f = ref_level_ends(zz)
        frac = (a + f * 2.0 ** -32) * 2.0 ** -32
        if not np.isfinite(span):
            h = hi * 0.5 - lo * 0.5
            x = lo * 0.5 + frac * h if from_lo else hi * 0.5 - frac * h
            return 2.0 * np.clip(x, lo * 0.5, hi * 0.5)
        with np.errstate(over="ignore", under="ignore"):
            x = lo + frac * span if from_lo else hi - frac * span
        return np.clip(x, lo, hi)
    return dm.pieces(ends(z, True), ends(2 ** 32 - z[::-1], False))


def datasets(rng, lo, hi, count):
    for i in range(count):
        n = int(rng.integers(0, 40)) if i % 5 else int(rng.integers(0, 400))
        mid = lo * 0.5 + hi * 0.5
        kind = i % 4
        if kind == 0:
            x = mid + (rng.uniform(-1, 1, n) * (hi * 0.5 - lo * 0.5))
        elif kind == 1:
            x = rng.choice([lo, hi, mid], n)
        elif kind == 2:
            x = np.full(n, rng.choice([lo, hi, mid]))
        else:  # one outlier among ties
            x = np.append(np.full(n, lo), hi if n else [])
        yield np.sort(np.clip(x, lo, hi))


@pytest.mark.parametrize("bounds", BOUNDS, ids=repr)
def test_step_function_equals_reference(bounds):
    rng = np.random.default_rng(60)
    lo, hi = bounds
    for y in datasets(rng, lo, hi, 60):
        got = dm.duff_mean_step_function(y, bounds)
        want = ref_step_function(y, lo, hi)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True)), y.size


@pytest.mark.slow
def test_step_function_equals_reference_on_larger_data():
    rng = np.random.default_rng(61)
    for n in (3000, 20000):
        for y in (np.sort(rng.uniform(0, 1, n)), np.sort(rng.choice([0.0, 0.3, 1.0], n)),
                  np.sort(rng.beta(0.2, 5.0, n))):
            got = dm.duff_mean_step_function(y, (0.0, 1.0))
            want = ref_step_function(y, 0.0, 1.0)
            assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_python_int_path_and_windowed_ends(monkeypatch):
    rng = np.random.default_rng(62)
    for y in datasets(rng, 0.0, 1.0, 40):
        z = dm.grid_units(y, 0.0, 1.0)
        n, total = z.size, dm._int_total(z)
        full = dm._level_ends_top(z[::-1], total, n, n + 1)
        for K in sorted({1, 2, max(1, n // 2), n + 1}):
            top = dm._level_ends_top(z[::-1][:K - 1], total, n, K)
            assert all(np.array_equal(t, f[:K]) for t, f in zip(top, full, strict=True))
            lower, upper = dm.level_sets_top(z[::-1][:K - 1], z[:K - 1], total, n, K, 0.0, 1.0)
            lower_f, upper_f = dm.duff_mean_level_sets(y, (0.0, 1.0))
            assert np.array_equal(lower, lower_f[:K]) and np.array_equal(upper, upper_f[:K])
        monkeypatch.setattr(dm, "_INT64_MAX_N", 0)  # exact Python ints
        slow = dm._level_ends_top(z[::-1], total, n, n + 1)
        monkeypatch.undo()
        assert all(np.array_equal(np.asarray(s, dtype=float), np.asarray(f, dtype=float))
                   for s, f in zip(slow, full, strict=True))


# ----------------------------------------------------------------------------- the release
def all_pieces(s):
    """The near pieces and the positive-width pieces of both blocks, sorted by left end."""
    left, right, numer = [s.left], [s.right], [dm.pieces(*s._ends(s.K))[2].astype(float)]
    if s.K <= s.n:
        for side in (0, 1):
            nu, lft, rgt = s._far(side)
            keep = rgt > lft
            left.append(lft[keep])
            right.append(rgt[keep])
            numer.append(nu[keep])
    left, right, numer = (np.concatenate(a) for a in (left, right, numer))
    order = np.lexsort((right, left))
    return left[order], right[order], numer[order].astype(np.int64)


@pytest.mark.slow
@pytest.mark.parametrize("tail", [mw._TAIL, 0.0, -6.0])
def test_near_and_block_pieces_are_the_step_function(monkeypatch, tail):
    monkeypatch.setattr(mw, "_TAIL", tail)  # smaller: fewer near levels, more in the blocks
    rng = np.random.default_rng(63)
    for bounds in BOUNDS:
        for i, y in enumerate(datasets(rng, *bounds, 15)):
            scale = [0.0, 0.3, 1.0, 4.0][i % 4]
            s = mw.MeanSampler(y, *bounds, scale, True)
            u = mw.MeanSampler(np.random.default_rng(i).permutation(y), *bounds, scale, False)
            o = mw.MeanSampler(np.random.default_rng(i).permutation(y), *bounds, scale, False, owned=True)
            assert np.array_equal(o.left, u.left) and np.array_equal(o.numer, u.numer)
            assert all(np.array_equal(a, b) for a, b in zip(all_pieces(o), all_pieces(u), strict=True))
            assert np.array_equal(s.left, u.left) and np.array_equal(s.right, u.right)
            assert np.array_equal(s.numer, u.numer) and s.K == u.K
            assert [(b.numer_up, b.left_up, b.right_up) for b in s.blocks] == \
                [(b.numer_up, b.left_up, b.right_up) for b in u.blocks]
            for b in u.blocks:  # the obligation of a lazy block: levels <= its bound, inside its span
                nu, lft, rgt = b.members()
                assert np.all(nu <= b.numer_up) and np.all(lft >= b.left_up) and np.all(rgt <= b.right_up)
                order = np.lexsort((rgt, lft))
                assert np.all(rgt[order][:-1] <= lft[order][1:])  # disjoint
            full = dm.duff_mean_step_function(y, bounds)
            order = np.lexsort((full[1], full[0]))
            want = tuple(a[order] for a in full)
            got = all_pieces(u)
            assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True)), (bounds, y.size, scale)
            for seed in range(3):
                with seeded_rng_for_tests(seed):
                    a = s.sample()
                with seeded_rng_for_tests(seed):
                    b = u.sample()
                assert a == b


class BlocksFirst:
    """The race's first draw gives every item the bytes 0x01 (a low Gumbel) and every block
    0xff (a high one), so a block wins unless an item outweighs it by more than ~45 nats."""

    def __init__(self, n_items, n_blocks, seed):
        self.first = b"\x01" * (8 * n_items) + b"\xff" * (8 * n_blocks)
        self.inner = SeededRandomForTests(seed)

    def random_bytes(self, n):
        if self.first is not None:
            assert n == len(self.first)
            out, self.first = self.first, None
            return out
        return self.inner.random_bytes(n)


@pytest.mark.slow
def test_forced_block_wins_and_lazy_building(monkeypatch):
    monkeypatch.setattr(mw, "_TAIL", 0.0)  # blocks within about 40 nats of the top
    built = []
    real = dm.duff_mean_level_sets
    monkeypatch.setattr(dm, "duff_mean_level_sets", lambda *a: built.append(1) or real(*a))
    rng = np.random.default_rng(64)
    wins = 0
    for y in (np.sort(rng.uniform(0, 1, 500)), np.sort(rng.choice([0.1, 0.5, 0.9], 300))):
        for scale in (0.5, 2.0):
            s = mw.MeanSampler(y, 0.0, 1.0, scale, True)
            u = mw.MeanSampler(rng.permutation(y), 0.0, 1.0, scale, False)
            n_i, n_b = s.left.size, sum(b.right_up > b.left_up for b in s.blocks)
            assert n_b >= 1
            with byte_source_for_tests(BlocksFirst(n_i, n_b, 5)):
                a = s.sample()
            with byte_source_for_tests(BlocksFirst(n_i, n_b, 5)):
                b = u.sample()
            assert a == b
            wins += not (s.lower_K <= a <= s.upper_K)
    assert wins >= 3 and built  # blocks won, and were built for it
    built.clear()
    monkeypatch.undo()
    monkeypatch.setattr(dm, "duff_mean_level_sets", lambda *a: built.append(1) or real(*a))
    u = mw.MeanSampler(rng.uniform(0, 1, 20000), 0.0, 1.0, 2.0, False)
    with seeded_rng_for_tests(65):
        for _ in range(200):
            u.sample()
    assert not built  # on typical data a block's bound wins with probability about e^-30


def test_unsorted_domain_release_and_input_unchanged():
    raw = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    m = raw >> dp.t.then_clamp(bounds=(0.0, 10.0)) >> dp.m.then_duff_mean(scale=2.0)
    x = np.random.default_rng(66).uniform(-5, 15, 5000)
    before = x.copy()
    with seeded_rng_for_tests(67):
        assert 0.0 <= m(x) <= 10.0
    assert np.array_equal(x, before) and m.map(1) == 1.0
    y = np.random.default_rng(68).permutation(np.clip(x, 0, 10))
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 10.0)))
    mu = dp.m.make_duff_mean(dom, dp.symmetric_distance(), scale=2.0)
    with seeded_rng_for_tests(69):
        mu(y)
    assert np.array_equal(y, np.random.default_rng(68).permutation(np.clip(x, 0, 10)))
    # the law does not depend on the order of the records
    ms = dp.m.make_duff_mean(dom.with_(sorted=True), dp.symmetric_distance(), scale=2.0)
    t = np.linspace(0, 10, 51)
    assert ms.output_law(np.sort(y)).cdf(t).tolist() == mu.output_law(y).cdf(t).tolist()


# ----------------------------------------------------------------------------- the law
def exact_cdf(pieces, scale):
    left, right, levels = pieces
    lw = np.log(right - left) + levels / scale
    mass = np.exp(lw - lw.max())
    mass /= mass.sum()

    def cdf(t):
        t = np.asarray(t, dtype=float)[..., None]
        return (np.clip((t - left) / (right - left), 0.0, 1.0) * mass).sum(axis=-1)
    return cdf


@pytest.mark.slow
@pytest.mark.parametrize("tail", [mw._TAIL, -6.0])
@rerun_once(seed=6901)
def test_ks_releases_against_exact_cdf(monkeypatch, tail):
    monkeypatch.setattr(mw, "_TAIL", tail)  # -6: the blocks are opened often
    rng = np.random.default_rng(70)
    cases = [(np.array([]), 1.0), (np.array([0.4]), 0.5), (rng.uniform(0, 1, 200), 2.0),
             (rng.choice([0.0, 0.2, 1.0], 150), 1.0), (np.full(100, 0.7), 3.0)]
    for x, scale in cases:
        cdf = exact_cdf(dm.duff_mean_step_function(np.sort(x), (0.0, 1.0)), scale)
        for presorted in (True, False):
            y = np.sort(x) if presorted else rng.permutation(x)
            draws = [mw.MeanSampler(y, 0.0, 1.0, scale, presorted).sample() for _ in range(1200)]
            assert stats.kstest(draws, cdf).pvalue > ALPHA, (x.size, scale, presorted)


@pytest.mark.slow
@rerun_once(seed=6902)
def test_ks_scale_inf_is_uniform_whatever_the_data():
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(-1.0, 3.0)))
    m = dp.m.make_duff_mean(dom, dp.symmetric_distance(), scale=math.inf)
    draws = [m([3.0, 3.0, -1.0]) for _ in range(1500)]
    assert stats.kstest(draws, stats.uniform(-1.0, 4.0).cdf).pvalue > ALPHA
