"""make_duff_mode and duff_mode_utility with string records and candidates: Definition 8 by
breadth-first search, the exact release law against softmax of the counts (the audit's
exact loss between neighbours within the map), and a seeded chi-square test of the releases.

The chi-square test is seeded (``rerun_once``), at level 1e-3: false-failure rate about 1e-6."""
from collections import deque
from itertools import combinations_with_replacement

import numpy as np
import pytest
from scipy import special, stats

import opendp_duff as dp
from opendp_duff.audit import exact_privacy_loss
from opendp_duff.duff_utility import duff_mode_utility

from helpers import rerun_once

WORDS = dp.vector_domain(dp.atom_domain(T=str))
SYM = dp.symmetric_distance()


def bfs_utility(x, candidate, universe):
    """-min |x triangle x'| over multisets x' over `universe` in which `candidate` is a mode
    (no value more frequent), by breadth-first search over single additions and removals."""
    start = tuple(sum(1 for e in x if e == u) for u in universe)
    ci = universe.index(candidate)
    seen, queue = {start}, deque([(start, 0)])
    while queue:
        counts, d = queue.popleft()
        if counts[ci] == max(counts):
            return -d
        for i in range(len(universe)):
            for step in (1, -1):
                nxt = counts[:i] + (counts[i] + step,) + counts[i + 1:]
                if nxt[i] >= 0 and nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, d + 1))
    raise AssertionError("unreachable")


def test_string_utility_matches_a_search():
    universe = ("N", "S", "E")                # "E" is not a candidate
    cands = ["N", "S"]
    for n in range(6):
        for x in combinations_with_replacement(universe, n):
            assert duff_mode_utility(list(x), cands).tolist() == [bfs_utility(x, c, universe) for c in cands]


def test_utility_reads_strings_exactly():
    assert duff_mode_utility(["a", "a\x00", "a\x00"], ["a", "b"]).tolist() == [-1, -2]
    assert duff_mode_utility([], ["a"]).tolist() == [0]
    assert duff_mode_utility(np.array(["x", "x", "y"], dtype=object), ["y"], T=str).tolist() == [-1]


def test_release_law_is_softmax_of_the_counts_and_the_loss_is_within_the_map():
    cands, scale = ["N", "S", "W"], 0.8
    m = (WORDS, SYM) >> dp.m.then_duff_mode(candidates=cands, scale=scale)
    x = ["N", "N", "S", "E", "E", "E"]
    law = m.output_law(x)
    counts = np.array([2.0, 1.0, 0.0])
    assert law.support == tuple(cands)
    assert np.allclose(law.log_pmf, counts / scale - special.logsumexp(counts / scale))
    worst = 0.0
    for y in (x + ["N"], x + ["W"], x + ["E"], x[1:], x[:2] + x[3:]):
        audit = exact_privacy_loss(m, x, y)
        assert audit.within(m.map(1))
        worst = max(worst, audit.value)
    assert worst > 0.8 * m.map(1)           # adding "W" moves one count: nearly the whole 1/scale


@pytest.mark.slow
@rerun_once(seed=433)
def test_string_releases_follow_the_law():
    x = ["a"] * 5 + ["b"] * 3 + ["z"] * 9
    cands, scale, n = ["a", "b", "c"], 1.5, 9000
    m = (WORDS, SYM) >> dp.m.then_duff_mode(candidates=cands, scale=scale)
    got = [m(x) for _ in range(n)]
    assert {type(g) for g in got} == {str}
    obs = np.array([got.count(c) for c in cands])
    want = np.exp(m.output_law(x).log_pmf) * n
    assert stats.chisquare(obs, want).pvalue > 1e-3
