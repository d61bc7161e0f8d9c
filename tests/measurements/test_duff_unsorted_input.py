"""make_duff_median and make_duff_quantile on unsorted input: the rank windows of
opendp_duff.engines.rank_window and the law of the selected path.

Deterministic tests: the window selected from shuffled records equals the one sliced from
the sorted records (values, tail counts, ties, sorted tails) on random and adversarial data
(ties at the window's edges, all-equal records, records at the bounds, n = 0, 1, 2), by the
one-pass kernel itself (its small-input shortcut switched off) and as shipped; the sampler
built from either, or from the raw records with the clip left to the kernel, has
the same race inputs and, fed the same bytes, the same releases, also when a block is forced
open (a shrunk window, or bytes that make a block's Gumbel win); a tail is sorted only when
its block is opened; the input is not modified.  The kernel's own tests (any pivots, orders
that fool its sample) are in test_selection.py.

Statistical tests (slow, seeded with ``rerun_once``): Kolmogorov-Smirnov at level 1e-3 of
the unsorted path (the kernel's pass forced) against the exact CDF (gap levels from a search over the counts of
[GM-Duff] Definition 8 for small n, the step function of duff_utility otherwise) and against
draws of the sorted path (two-sample).  Each test makes several KS comparisons, k of them;
its false-failure rate is at most (k 1e-3)^2 <= 1e-4 after the rerun.
"""
import importlib
import math
from fractions import Fraction

import attrs
import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.duff_utility import WINDOW_TAIL, quantile_step_function
from opendp_duff.engines import selection as _selection
from opendp_duff.measurements import duff_sampler as duff_mod
from opendp_duff.engines import SelectedRecords, SortedRecords
from opendp_duff.samplers import SeededRandomForTests, byte_source_for_tests, seeded_rng_for_tests

# the module: the package exports a function of that name
DUFF_UTILITY = importlib.import_module("opendp_duff.duff_utility")

ALPHA = 1e-3


def datasets():
    """(name, records in [0, 1], in some order): random and adversarial."""
    rng = np.random.default_rng(40)
    yield "n=0", np.array([])
    yield "n=1", np.array([0.3])
    yield "n=2", np.array([0.8, 0.1])
    yield "n=2 tied", np.array([0.4, 0.4])
    yield "all equal", np.full(400, 0.25)
    yield "all at lo", np.zeros(101)
    yield "all at hi", np.ones(100)
    yield "uniform", rng.uniform(0, 1, 500)
    yield "few values", rng.choice([0.0, 0.2, 0.5, 0.55, 1.0], size=301, p=[0.1, 0.2, 0.4, 0.1, 0.2])
    # a block of ties straddling each edge of the median's window (about 75 ranks wide at scale 2)
    yield "ties at the edges", np.concatenate([np.full(180, 0.3), rng.uniform(0.3, 0.7, 140), np.full(180, 0.7)])
    yield "cauchy", np.clip(rng.standard_cauchy(300) * 0.05 + 0.5, 0.0, 1.0)


def shuffled(x, seed=0):
    return np.random.default_rng(seed).permutation(x)


@pytest.fixture(params=["pass", "shipped"])
def direct(request, monkeypatch):
    """The kernel's pass on every input ("pass": no small-input shortcut), or as shipped."""
    if request.param == "pass":
        monkeypatch.setattr(_selection, "_DIRECT", 0)
    return request.param


def same_window(w1, w2):
    assert (w1.n, w1.first) == (w2.n, w2.first)
    assert np.array_equal(w1.values, w2.values)
    for t1, t2 in ((w1.left, w2.left), (w1.right, w2.right)):
        assert (t1.count, t1.ties) == (t2.count, t2.ties)
        (v1, c1), (v2, c2) = t1.pairs(), t2.pairs()
        assert np.array_equal(v1, v2) and np.array_equal(c1, c2)
        assert int(c1.sum()) + t1.ties == t1.count and np.all(np.diff(v1) > 0)


# ----------------------------------------------------------------------------- the windows
def test_selected_window_equals_sorted_window(direct):
    rng = np.random.default_rng(41)
    for name, x in datasets():
        n = x.size
        y, z = np.sort(x), shuffled(x)
        pairs = {(1, 1), (1, n), (n, n), (max(1, n // 2 - 3), min(n, n // 2 + 3))} if n else set()
        for _ in range(10 if n else 0):
            a, b = sorted(int(v) for v in rng.integers(1, n + 1, size=2))
            pairs.add((a, b))
        for a, b in pairs:
            same_window(SelectedRecords(z).window(a, b), SortedRecords(y).window(a, b))
            # the raw records spread beyond [0, 1], clipped back by the kernel: the same window
            raw = np.where(z == 0.0, -3.0, np.where(z == 1.0, np.inf, z))
            same_window(SelectedRecords(raw, clip=(0.0, 1.0)).window(a, b), SortedRecords(y).window(a, b))
            w = SortedRecords(y).window(a, b)
            # the definitions, directly: counts of tail records equal to the window's ends
            assert w.left.ties == int(np.sum(y[:a - 1] == y[a - 1])), name
            assert w.right.ties == int(np.sum(y[b:] == y[b - 1])), name


def test_selection_does_not_modify_the_input():
    x = shuffled(np.linspace(0.0, 1.0, 1001))
    before = x.copy()
    m = dp.m.make_duff_median(dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0))),
                              dp.symmetric_distance(), scale=2.0)
    with seeded_rng_for_tests(42):
        m(x)
    w = SelectedRecords(x).window(10, 990)
    w.left.pairs(), w.right.pairs()
    assert np.array_equal(x, before)


# ----------------------------------------------------------------------------- the sampler
CONFIGS = [(Fraction(1, 2), 2.0), (0.1, 0.5), (0.9, 1.0), (Fraction(1, 3), 0.0), (0.5, math.inf)]


def samplers_for(x, alpha, scale, clip=False):
    """Sorted path; selected path (on the raw records spread beyond [0, 1] when ``clip``)."""
    sampler_s = duff_mod._QuantileSampler(np.sort(x), 0.0, 1.0, alpha, scale)
    z = shuffled(x)
    src = SelectedRecords(np.where(z == 1.0, 4.0, z), clip=(0.0, 1.0)) if clip else SelectedRecords(z)
    sampler_u = duff_mod._QuantileSampler(src, 0.0, 1.0, alpha, scale)
    return sampler_s, sampler_u


def same_inputs(s, u):
    assert np.array_equal(s.near_left, u.near_left) and np.array_equal(s.near_right, u.near_right)
    assert np.array_equal(s.near_numer, u.near_numer) and s.denom == u.denom and s.top == u.top
    assert [(b.numer_up, b.left_up, b.right_up) for b in s.blocks] == \
        [(b.numer_up, b.left_up, b.right_up) for b in u.blocks]


@pytest.mark.parametrize("tail", [WINDOW_TAIL, -9.0])
def test_sampler_inputs_and_releases_equal_sorted_path(monkeypatch, tail):
    # -9 shrinks the window to a few gaps, so the blocks are opened often
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", tail)
    monkeypatch.setattr(_selection, "_DIRECT", 0)  # the kernel's pass, not its small-input sort
    for k, (name, x) in enumerate(datasets()):
        for alpha, scale in CONFIGS:
            s, u = samplers_for(x, alpha, scale, clip=k % 2 == 1)
            same_inputs(s, u)
            for blk in u.blocks:  # a lazy block's obligation: live levels <= its bound, inside its span
                nu, lft, rgt = blk.members()
                assert np.all(nu[rgt > lft] <= blk.numer_up)
                assert np.all(lft >= blk.left_up) and np.all(rgt <= blk.right_up)
                order = np.lexsort((rgt, lft))
                assert np.all(rgt[order][:-1] <= lft[order][1:])  # disjoint
            for seed in range(4):
                with seeded_rng_for_tests(seed):
                    a = s.sample()
                with seeded_rng_for_tests(seed):
                    b = u.sample()
                assert a == b, (name, alpha, scale)


class BlocksFirst:
    """The race's first draw gives every item the bytes 0x01 (a low Gumbel, about -1.7) and
    every block 0xff (a high one, about 44): a block then holds the largest key unless an
    item outweighs it by more than 45 nats.  Later draws are seeded."""

    def __init__(self, n_items, n_blocks, seed):
        self.first = b"\x01" * (8 * n_items) + b"\xff" * (8 * n_blocks)
        self.inner = SeededRandomForTests(seed)

    def random_bytes(self, n):
        if self.first is not None:
            assert n == len(self.first)
            out, self.first = self.first, None
            return out
        return self.inner.random_bytes(n)


class CountingSource(SelectedRecords):
    """SelectedRecords that counts how often a tail is asked for its records beyond the window."""

    opened = 0

    def window(self, first, last):
        w = super().window(first, last)
        return attrs.evolve(w, left=self._counted(w.left), right=self._counted(w.right))

    @staticmethod
    def _counted(tail):
        def rest(inner=tail.rest):
            CountingSource.opened += 1
            return inner()
        return attrs.evolve(tail, rest=rest)


def test_forced_block_wins_give_the_sorted_paths_release(monkeypatch):
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", 0.0)  # blocks within about 40 nats of the items
    monkeypatch.setattr(_selection, "_DIRECT", 0)  # the kernel's pass, not its small-input sort
    rng = np.random.default_rng(43)
    wins = 0
    for x in (rng.uniform(0, 1, 300), rng.choice([0.2, 0.5, 0.7], size=250)):
        for alpha, scale in [(0.5, 2.0), (0.25, 1.0), (0.8, 3.0)]:
            s = duff_mod._QuantileSampler(np.sort(x), 0.0, 1.0, alpha, scale)
            CountingSource.opened = 0
            u = duff_mod._QuantileSampler(CountingSource(shuffled(x)), 0.0, 1.0, alpha, scale)
            n_i = int(np.count_nonzero((s.near_right > s.near_left) & (s.near_numer > -np.inf)))
            n_b = sum(b.right_up > b.left_up for b in s.blocks)
            assert n_b >= 1
            with byte_source_for_tests(BlocksFirst(n_i, n_b, 7)):
                a = s.sample()
            with byte_source_for_tests(BlocksFirst(n_i, n_b, 7)):
                b = u.sample()
            assert a == b and CountingSource.opened >= 1
            outside = not (s.near_left[0] <= a <= s.near_right[-1])
            wins += outside
    assert wins >= 3  # the forced bytes did make blocks win (the release lies outside the window)


def test_tails_are_not_sorted_on_typical_data():
    x = np.random.default_rng(44).uniform(0, 1, 20000)
    CountingSource.opened = 0
    u = duff_mod._QuantileSampler(CountingSource(x), 0.0, 1.0, 0.5, 2.0)
    with seeded_rng_for_tests(45):
        for _ in range(200):
            u.sample()
    assert CountingSource.opened == 0  # a block's bound wins with probability about e^-30


# ----------------------------------------------------------------------------- the measurement
def unsorted_space(lo=0.0, hi=1.0):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi))), dp.symmetric_distance()


def test_constructors_accept_unsorted_domains_and_chain_after_clamp():
    raw = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    m = raw >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.m.then_duff_quantile(alpha=0.3, scale=2.0)
    assert m.map(1) == 1.0 and m.map(0) == 0
    with seeded_rng_for_tests(46):
        assert 0.0 <= m([0.9, -3.0, 0.2, 7.0]) <= 1.0
    # lo == hi: the one point, whatever the data
    one = dp.m.make_duff_median(*unsorted_space(0.5, 0.5), scale=2.0)
    assert one([0.5, 0.5, 0.5]) == 0.5 and one([]) == 0.5


def test_output_law_does_not_depend_on_the_order():
    x = np.random.default_rng(47).choice([0.1, 0.4, 0.6], size=41)
    sorted_space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True), dp.symmetric_distance()
    law_s = dp.m.make_duff_quantile(*sorted_space, alpha=0.3, scale=1.0).output_law(np.sort(x))
    law_u = dp.m.make_duff_quantile(*unsorted_space(), alpha=0.3, scale=1.0).output_law(shuffled(x))
    assert law_s.cdf(np.linspace(0, 1, 101)).tolist() == law_u.cdf(np.linspace(0, 1, 101)).tolist()


# ----------------------------------------------------------------------------- the law
def brute_gap_levels(n, alpha):
    """Gap levels by [GM-Duff] Definition 8 over counts: on gap j (j records below, n - j
    above, x not a record) -u is the least |p - j| + e + |q - (n - j)| over datasets with p
    records below x, e >= 1 copies of x and q above, in which x has rank ceil(alpha m)."""
    out = []
    for j in range(n + 1):
        best = n + 1  # remove everything, add x
        for p in range(0, 2 * n + 2):
            for e in range(1, n + 2):
                for q in range(0, 2 * n + 2):
                    m = p + e + q
                    cost = abs(p - j) + e + abs(q - (n - j))
                    if cost < best and p < math.ceil(Fraction(alpha) * m) <= p + e:
                        best = cost
        out.append(-best)
    return np.array(out, dtype=float)


def gap_cdf(y, lo, hi, levels, scale):
    """The CDF of density exp(level_j / scale) on the gaps [e_j, e_{j+1}] of e = (lo, y, hi)."""
    e = np.concatenate([[lo], y, [hi]])
    w = np.diff(e)
    live = w > 0
    lw = np.full(w.shape, -np.inf)
    lw[live] = np.log(w[live]) + levels[live] / scale
    mass = np.exp(lw - lw[live].max())
    cum = np.concatenate([[0.0], np.cumsum(mass)]) / mass.sum()

    def cdf(t):
        t = np.asarray(t, dtype=float)
        j = np.clip(np.searchsorted(e, t, side="right") - 1, 0, w.size - 1)
        frac = np.where(w[j] > 0, np.clip((t - e[j]) / np.where(w[j] > 0, w[j], 1.0), 0.0, 1.0), 1.0)
        return cum[j] + frac * (cum[j + 1] - cum[j])
    return cdf


@pytest.mark.slow
@rerun_once(seed=4801)
def test_ks_unsorted_against_brute_force_levels(monkeypatch):
    monkeypatch.setattr(_selection, "_DIRECT", 0)  # the kernel's pass, not its small-input sort
    rng = np.random.default_rng(48)
    for x, alpha, scale in [(np.array([]), 0.5, 1.0), (np.array([0.6]), 0.5, 0.5),
                            (np.array([0.9, 0.2]), Fraction(1, 3), 1.0),
                            (rng.uniform(0, 1, 7), 0.25, 0.7), (rng.choice([0.3, 0.6], 9), 0.5, 2.0)]:
        n = x.size
        m = dp.m.make_duff_quantile(*unsorted_space(), alpha=alpha, scale=scale)
        draws = [m(shuffled(x, k)) for k in range(1500)]
        cdf = gap_cdf(np.sort(x), 0.0, 1.0, brute_gap_levels(n, alpha), scale)
        assert stats.kstest(draws, cdf).pvalue > ALPHA, (n, alpha, scale)


@pytest.mark.slow
@pytest.mark.parametrize("tail", [WINDOW_TAIL, -9.0])
@rerun_once(seed=4802)
def test_ks_unsorted_against_exact_cdf_and_sorted_path(monkeypatch, tail):
    monkeypatch.setattr(DUFF_UTILITY, "WINDOW_TAIL", tail)  # -9: the blocks are opened often
    monkeypatch.setattr(_selection, "_DIRECT", 0)  # the kernel's pass, not its small-input sort
    cases = {"ties at the edges": (0.5, 2.0), "few values": (0.3, 1.0), "all equal": (0.5, 2.0),
             "cauchy": (0.7, 0.5), "n=2 tied": (0.5, 1.0)}
    for name, x in datasets():
        if name not in cases:
            continue
        alpha, scale = cases[name]
        sf = quantile_step_function(np.sort(x), (0.0, 1.0), alpha)
        u = duff_mod._QuantileSampler(SelectedRecords(shuffled(x)), 0.0, 1.0, alpha, scale)
        s = duff_mod._QuantileSampler(np.sort(x), 0.0, 1.0, alpha, scale)
        du = [u.sample() for _ in range(1500)]
        ds = [s.sample() for _ in range(1500)]
        assert stats.kstest(du, lambda t, sf=sf, scale=scale: sf.cdf(t, scale)).pvalue > ALPHA, name
        assert stats.ks_2samp(du, ds).pvalue > ALPHA, name
