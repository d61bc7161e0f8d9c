"""The tied race (opendp_duff.samplers.gumbel_race.exact_race_with_ties): equal numerators race
as one block whose member is then uniform; the law must be softmax exactly, as for the plain race.

Deterministic tests: the blocks (values and sizes) against np.unique, and the refusals that keep
them exact (non-integers, an integer-looking difference of a non-integer, a wide range, NaN);
the uniform integer of a block against rigged bytes (the rejection step); below the size
threshold the plain race runs on the same bytes.

Statistical tests (seeded with ``rerun_once``, chi-square at level 1e-3): the block path (its
size threshold switched off) against the exact softmax on small vectors with ties, -inf and
+inf entries, at scales 0, inf and in between; the uniform integer against the uniform law; the
noisy max and the Duff mode on more candidates than the threshold (the shipped path) against
softmax, grouped by score.  Their false-failure rate is about 1e-6 per test after the rerun.
"""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.samplers import byte_source_for_tests, seeded_rng_for_tests
from opendp_duff.samplers import gumbel_race as G

ALPHA = 1e-3


def softmax(numer, denom=1.0):
    """Exact-enough reference: the ratios numer / denom are small integers or +-inf here."""
    w = np.array([float(Fraction(v) / Fraction(denom)) if math.isfinite(v) else v for v in numer])
    if np.isposinf(w).any():
        w = np.where(np.isposinf(w), 0.0, -np.inf)
    p = np.exp(w - w[np.isfinite(w)].max())
    return p / p.sum()


def chi2_ok(counts, probs):
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    assert np.all(counts[probs == 0] == 0)     # impossible outcomes never happen
    keep = probs > 0
    return stats.chisquare(counts[keep], probs[keep] * counts.sum()).pvalue > ALPHA


# ---------------------------------------------------------------- the blocks
@pytest.mark.parametrize("N", [
    np.zeros(50), np.r_[np.zeros(40), [3.0, 3.0, -2.0, 7.0]], np.r_[np.full(30, -0.0), np.ones(9)],
    np.r_[np.arange(10.0), np.full(50, 4.0), [-np.inf, -np.inf, np.inf]], np.r_[np.zeros(30), [-np.inf]],
    np.r_[np.full(300, 2.0 ** 60), [2.0 ** 60 + 256]],   # the next float: 256 apart
])
def test_blocks_are_the_distinct_values_and_their_counts(N):
    values, sizes = G._tie_blocks(N)
    order = np.argsort(values)                            # the blocks come in any order
    values, sizes = values[order], sizes[order]
    want_v, want_s = np.unique(N, return_counts=True)
    assert np.array_equal(values, want_v) and np.array_equal(sizes, want_s)
    assert sizes.dtype == np.float64 and sizes.sum() == N.size


@pytest.mark.parametrize("N", [
    np.r_[np.zeros(40), [0.5]],                          # not an integer
    np.r_[np.zeros(40), [2.0 ** -40, -1e6]],             # 2^-40 - (-1e6) rounds to an integer
    np.r_[np.zeros(40), [2.0 ** -60]],                   # the least entry is not an integer
    np.r_[np.zeros(40), [1e6]],                          # a range wider than the vector
    np.r_[np.zeros(40), [np.nan]],                       # refused by the race itself
    np.arange(41.0),                                     # all distinct: no gain
])
def test_no_blocks_unless_exact_and_worth_it(N):
    assert G._tie_blocks(N) is None


class Rigged:
    """A byte source returning the given bytes, then failing."""

    def __init__(self, data):
        self.data = bytearray(data)

    def random_bytes(self, n):
        assert len(self.data) >= n
        out, self.data[:] = bytes(self.data[:n]), self.data[n:]
        return out


def test_uniform_integer_rejects_and_redraws():
    # s = 3: 2 bits, the top two of one byte; 0b11 is rejected, 0b10 accepted
    with byte_source_for_tests(Rigged([0b1100_0000, 0b1011_1111])):
        assert G._uniform_below(3) == 2
    # s = 300: 9 bits of two bytes, big-endian, the low 7 bits dropped
    with byte_source_for_tests(Rigged([0xff, 0xff, 0b1001_0110, 0, 0b1001_0101, 0b1000_0000])):
        assert G._uniform_below(300) == 0b1_0010_1011      # 511 and 300 rejected, 299 kept
    with byte_source_for_tests(Rigged([])):
        assert G._uniform_below(1) == 0                  # no bytes needed


def test_below_the_threshold_the_plain_race_runs_on_the_same_bytes():
    numer = [0.0, 0.0, 1.0, 1.0, -np.inf]
    for seed in range(20):
        with seeded_rng_for_tests(seed):
            a = G.exact_race_with_ties(numer, 0.7)
        with seeded_rng_for_tests(seed):
            b = G.exact_gumbel_race(numer, 0.7)
        assert a == b


# ---------------------------------------------------------------- the law
CASES = [
    ([0.0, 0.0, 1.0, 1.0, 1.0, 2.0, -np.inf], 1.0),
    ([3.0, 3.0, 3.0, 3.0], 0.5),
    ([0.0, 5.0, 5.0, -1.0, -1.0, -1.0], 2.0),
    ([0.0, -np.inf, np.inf, np.inf, 1.0], 1.0),           # +inf entries share the mass
    ([-2.0, 7.0, 7.0, 0.0], 1e-300),                      # the ties of the top win, uniformly
]


@pytest.mark.slow
@rerun_once(seed=5101)
@pytest.mark.parametrize("numer,denom", CASES)
def test_block_path_is_softmax(monkeypatch, numer, denom):
    monkeypatch.setattr(G, "_TIES", 0)
    n = 12_000
    got = np.bincount([G.exact_race_with_ties(numer, denom) for _ in range(n)], minlength=len(numer))
    assert chi2_ok(got, softmax(numer, denom))


@pytest.mark.slow
@rerun_once(seed=5102)
def test_uniform_integer_is_uniform():
    for s in (3, 5, 256, 257):
        n = 40 * s
        got = np.bincount([G._uniform_below(s) for _ in range(n)], minlength=s)
        assert got.size == s and chi2_ok(got, np.full(s, 1.0 / s))


@pytest.mark.slow
@rerun_once(seed=5103)
def test_noisy_max_over_many_tied_scores_is_softmax_by_score():
    """5000 scores (above the threshold): 4000 zeros, 990 ones, 10 threes; the release's
    score is softmax-distributed and, within a score, its index is uniform."""
    scores = np.r_[np.zeros(4000), np.ones(990), np.full(10, 3.0)]
    perm = np.random.default_rng(0).permutation(scores.size)
    scores = scores[perm]
    m = dp.m.make_report_noisy_max_gumbel(dp.vector_domain(dp.atom_domain(T=float)),
                                          dp.inf_difference_distance(), scale=1.0)
    idx = np.array([m(scores) for _ in range(6000)])
    levels = np.array([0.0, 1.0, 3.0])
    mass = np.array([4000, 990, 10]) * np.exp(levels)
    got = np.array([np.count_nonzero(scores[idx] == v) for v in levels])
    assert chi2_ok(got, mass / mass.sum())
    tops = np.flatnonzero(scores == 3.0)
    assert chi2_ok([np.count_nonzero(idx == i) for i in tops], np.full(10, 0.1))


@pytest.mark.slow
@rerun_once(seed=5104)
def test_duff_mode_over_many_candidates_is_softmax_by_count():
    """5000 int candidates, records on a few of them: P(count c) = (#candidates with count c)
    e^(c / scale) / Z, the Duff mode's law grouped by count."""
    cands = np.arange(5000)
    x = np.r_[np.full(4, 7), np.full(2, 11), [12, 4999, 6000]]
    m = dp.m.make_duff_mode(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance(),
                            candidates=cands, scale=0.8)
    counts = np.bincount(x[x < 5000], minlength=5000)
    out = np.array([m(x) for _ in range(6000)])
    assert all(type(c) is int for c in out[:10].tolist())
    levels = np.array([0, 1, 2, 4])
    mass = np.array([np.count_nonzero(counts == c) for c in levels]) * np.exp(levels / 0.8)
    got = [np.count_nonzero(counts[out] == c) for c in levels]
    assert chi2_ok(got, mass / mass.sum())
