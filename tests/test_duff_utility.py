"""duff_utility and the quantile costs behind it: the closed forms against a breadth-first search
over edits (the Duff utility of [GM-Duff] Definition 8, taken literally), the rank rational of alpha,
and the mode and mean utilities.  Nothing here is random beyond fixed test data."""
import math
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.duff_utility import (duff_utility, quantile_costs, quantile_gap_levels,
                                      quantile_rational)


ALPHAS = [Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 3), Fraction(2, 3),
          Fraction(1, 10), Fraction(9, 10), Fraction(3, 5)]


def _stat(ms, alpha):
    return ms[math.ceil(alpha * len(ms)) - 1] if ms else None


def _bfs_utility(data, universe, alpha):
    """-u(x) for x in universe: breadth-first search over add/remove edits with values
    from the universe (Definition 8 directly; d is the edit distance)."""
    start = tuple(sorted(data))
    need, found = set(universe), {}
    frontier, seen, depth = [start], {start}, 0
    while need:
        for s in frontier:
            t = _stat(s, alpha)
            if t in need:
                found[t] = -depth
                need.discard(t)
        nxt = []
        for s in frontier:
            for i in range(len(s)):
                r = s[:i] + s[i + 1:]
                if r not in seen:
                    seen.add(r)
                    nxt.append(r)
            for u in universe:
                a = tuple(sorted(s + (u,)))
                if a not in seen:
                    seen.add(a)
                    nxt.append(a)
        frontier, depth = nxt, depth + 1
    return np.array([found[x] for x in universe])


@pytest.mark.slow
def test_closed_form_matches_brute_force():
    # universe: the bounds 0 and 3, every record value and every gap midpoint
    universe = [Fraction(k, 2) for k in range(7)]
    rng = np.random.default_rng(2024)
    for _ in range(120):
        n = int(rng.integers(0, 5))
        data = sorted(Fraction(int(v)) for v in rng.integers(0, 4, size=n))
        alpha = ALPHAS[int(rng.integers(len(ALPHAS)))]
        expected = _bfs_utility(data, universe, alpha)
        if alpha == Fraction(1, 2):
            u = duff_utility([float(d) for d in data], "median", bounds=(0.0, 3.0))
        else:
            u = duff_utility([float(d) for d in data], "quantile", bounds=(0.0, 3.0), alpha=alpha)
        got = u([float(x) for x in universe])
        assert np.array_equal(got, expected), (data, alpha, got, expected)


def test_median_gap_levels_closed_form():
    # the docstring's form: u = -max(n - 2j, 2j + 1 - n) on gap j (lower median)
    for n in range(0, 40):
        j = np.arange(n + 1)
        assert quantile_gap_levels(j, n, 1, 2).tolist() == [-max(n - 2 * k, 2 * k + 1 - n) for k in j]


def test_float_alpha_is_read_as_its_decimal():
    # 0.1 means 1/10: the 0.1-quantile of 10 records is the first one
    u = duff_utility([float(i) for i in range(10)], "quantile", bounds=(0.0, 9.0), alpha=0.1)
    assert u(0.0) == 0.0 and u(1.0) < 0


def test_quantile_rational_is_exact_and_minimal():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(0, 30))
        alpha = float(rng.uniform(0.001, 0.999))
        P, Q = quantile_rational(alpha, n)
        a = Fraction(repr(alpha))
        assert Fraction(P, Q) >= a and Q <= 2 * n + 2
        for m in range(1, 2 * n + 3):
            assert math.ceil(a * m) == -((-P * m) // Q)
        # minimal: no fraction with denominator <= 2n + 2 lies in [alpha, P/Q)
        for q in range(1, 2 * n + 3):
            p = math.ceil(a * q)
            assert Fraction(p, q) >= Fraction(P, Q)


def _search_cost(p, e, q, P, Q, R):
    """Fewest edits (|dL| + |dE| + |dG|, each within R) after which a point with p records
    below, e equal, q above is the rank-ceil(P m / Q) record: Q L' < P m <= Q (L' + E')."""
    d = np.arange(-R, R + 1).astype(object)  # exact integers, whatever P and Q
    dl, de, dg = np.meshgrid(d, d, d, indexing="ij")
    L, E, G = p + dl, e + de, q + dg
    m = L + E + G
    ok = (L >= 0) & (E >= 1) & (G >= 0) & (Q * L < P * m) & (P * m <= Q * (L + E))
    ok = ok.astype(bool)
    cost = np.abs(dl) + np.abs(de) + np.abs(dg)
    return int(cost[ok].min()) if ok.any() else None


@pytest.mark.slow
def test_costs_against_exhaustive_search():
    rng = np.random.default_rng(12)
    odd = [Fraction(1, 3) + Fraction(1, 2 ** 40), Fraction(2, 3) - Fraction(7, 2 ** 45)]
    # the last case overflows int64 and takes the Python-int path
    for n, R, alphas in [(25, 27, ALPHAS), (10 ** 9, 6, ALPHAS), (10 ** 9, 6, odd)]:
        for _ in range(40):
            frac = alphas[int(rng.integers(len(alphas)))]
            P, Q = frac.numerator, frac.denominator
            e = int(rng.integers(1, 4))
            if n < 100:
                p = int(rng.integers(0, n - e + 1))
            else:  # near the statistic, where the cost is small enough to search
                p = max(0, min(n - e, math.ceil(P * n / Q) + int(rng.integers(-4, 4))))
            q = n - e - p
            want = _search_cost(p, e, q, P, Q, R)
            got = int(quantile_costs(np.array([p]), np.array([e]), np.array([q]), P, Q)[0])
            if want is not None and want < R:
                assert got == want, (n, p, e, q, frac)


def test_duff_utility_other_statistics():
    mode = duff_utility([1, 1, 2], "mode", candidates=[1, 2, 3])
    assert mode([1, 2, 3]).tolist() == [0.0, -1.0, -2.0]
    mean = duff_utility([0.0, 4.0], "mean", bounds=(0.0, 4.0))
    assert mean(2.0) >= -1 and mean(0.5) == -2
    empty = duff_utility([], "median", bounds=(0.0, 1.0))
    assert empty([0.0, 0.5, 1.0]).tolist() == [-1.0, -1.0, -1.0]
