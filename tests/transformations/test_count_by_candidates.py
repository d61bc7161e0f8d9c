"""make_count_by_candidates: counts, stability by brute force, awkward records, bad candidates."""
import math
from itertools import product

import numpy as np
import pytest

import opendp_duff as dp

INTS = dp.vector_domain(dp.atom_domain(T=int))
FLOATS = dp.vector_domain(dp.atom_domain(T=float))
SYM = dp.symmetric_distance()


def counts(t, x):
    return t(x).tolist()


def reference_counts(x, cands):
    return [sum(1 for e in x if e == c) for c in cands]


def inf_difference(a, b):
    d = np.asarray(a) - np.asarray(b)
    return int(d.max() - d.min())


def test_counts_match_a_direct_count():
    rng = np.random.default_rng(0)
    cands = [3, -1, 7, 0]
    t = make_int(cands)
    for _ in range(200):
        x = rng.integers(-2, 9, size=int(rng.integers(0, 30))).tolist()
        assert counts(t, x) == reference_counts(x, cands)
        assert counts(t, np.asarray(x, dtype=np.int64)) == reference_counts(x, cands)
        assert counts(t, tuple(x)) == reference_counts(x, cands)


def make_int(cands):
    return dp.t.make_count_by_candidates(INTS, SYM, cands)


def test_stability_by_brute_force_over_edits():
    # every dataset of size <= 3 over {0..3}, every edit of up to 3 adds/removes:
    # the inf-difference of the count vectors never exceeds the number of edits, and reaches it.
    universe, cands = range(4), [0, 1, 2]
    t = make_int(cands)
    reached = set()
    for n in range(4):
        for x in product(universe, repeat=n):
            for adds in range(3):
                for added in product(universe, repeat=adds):
                    for r in range(min(n, 3 - adds) + 1):
                        y = list(x[r:]) + list(added)     # remove r records, add `adds`
                        d = inf_difference(t(list(x)), t(y))
                        assert d <= t.map(adds + r)
                        reached.add((adds + r, d))
    assert all((k, k) in reached for k in range(4))       # the map is attained


def test_maps():
    assert make_int([1]).map(0) == 0 and make_int([1]).map(5) == 5
    t1 = dp.t.make_count_by_candidates(INTS.with_(size=4), dp.change_one_distance(), [1, 2])
    assert t1.map(3) == 6
    assert t1([1, 1, 2, 9]).tolist() == [2, 1] and inf_difference(t1([1, 1, 2, 9]), t1([2, 1, 2, 9])) == 2
    assert isinstance(make_int([1]).output_metric, type(dp.inf_difference_distance()))
    assert make_int([1, 2, 3]).output_domain.size == 3
    assert make_int([1, 2, 3]).output_domain.element_domain.bounds == (0, 2 ** 53)
    assert make_int([1, 2, 3]).output_domain.member(np.array([0, 5, 2 ** 53]))


def test_awkward_records_never_raise():
    # 2^64, 10^30, 10^400, uint64 above int64 and (for floats) 10^400 are not members: __call__
    # refuses them; the counting function itself (also used on raw data by duff_mode_utility)
    # still does not crash on them
    t = make_int([5, -3, 2 ** 62])
    for x in ([5, 5, -3, 2 ** 62, 2 ** 64, 10 ** 30, -(10 ** 30)],
              np.array([5, 2 ** 63 + 5, 2 ** 64 - 1], dtype=np.uint64)):
        with pytest.raises(dp.errors.NotAMemberValueError):
            t(x)
    assert t._function([5, 5, -3, 2 ** 62, 2 ** 64, 10 ** 30, -(10 ** 30)]).tolist() == [2, 1, 1]
    assert t._function(np.array([5, 2 ** 63 + 5, 2 ** 64 - 1], dtype=np.uint64)).tolist() == [1, 0, 0]
    assert counts(t, np.array([5, 6], dtype=np.uint8)) == [1, 0, 0]
    assert counts(t, []) == [0, 0, 0]
    f = dp.t.make_count_by_candidates(FLOATS, SYM, [0.0, 1.5, 1e300, -2])
    with pytest.raises(dp.errors.NotAMemberValueError):
        f([-0.0, 0.0, 1.5, math.inf, -math.inf, 10 ** 400, 1e300, -2])
    raw = [-0.0, 0.0, 1.5, math.inf, -math.inf, 10 ** 400, -(10 ** 400), 1e300, -2]
    assert f._function(raw).tolist() == [2, 1, 1, 1]
    assert counts(f, [-0.0, 0.0, 1.5, math.inf, -math.inf, 1e300, -2]) == [2, 1, 1, 1]
    assert counts(f, np.array([0, 1, 2, -2])) == [1, 0, 0, 1]
    assert counts(f, np.array([1.5, 0.0], dtype=np.float32)) == [1, 1, 0, 0]
    assert counts(f, []) == [0, 0, 0, 0]


def test_chains_after_clamp():
    space = FLOATS, SYM
    t = space >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_count_by_candidates([0.0, 1.0])
    assert counts(t, [-5.0, 0.5, 3.0, 1.0]) == [1, 2] and t.map(2) == 2


@pytest.mark.parametrize("domain,cands,name", [
    (INTS, [], "candidates"),
    (INTS, [1, 2, 1], "candidates"),
    (FLOATS, [1, 1.0], "candidates"),
    (FLOATS, [0.0, -0.0], "candidates"),
    (FLOATS, [1.0, float("nan")], r"candidates\[1\]"),
    (FLOATS, [math.inf], r"candidates\[0\]"),
    (FLOATS, [True, 2.0], r"candidates\[0\]"),
    (FLOATS, ["a"], r"candidates\[0\]"),
    (FLOATS, "ab", "candidates"),
    (FLOATS, 3.0, "candidates"),
    (FLOATS, {1.0, 2.0}, "candidates"),
    (FLOATS, None, "candidates"),
    (FLOATS, np.zeros((2, 2)), "candidates"),
    (FLOATS, [10 ** 400], r"candidates\[0\]"),
    (FLOATS, [2 ** 53 + 1], r"candidates\[0\]"),
    (INTS, [1.5], r"candidates\[0\]"),
    (INTS, [2 ** 63], r"candidates\[0\]"),
    (INTS, [np.bool_(True)], r"candidates\[0\]"),
])
def test_bad_candidates_name_themselves(domain, cands, name):
    with pytest.raises((TypeError, ValueError), match=name):
        dp.t.make_count_by_candidates(domain, SYM, cands)


@pytest.mark.parametrize("domain,metric,name", [
    (FLOATS, dp.inf_difference_distance(), "input_metric"),
    (dp.atom_domain(T=float), SYM, "input_domain"),
    (dp.vector_domain(dp.atom_domain(T=float, nan=True)), SYM, "input_domain"),
])
def test_bad_spaces_name_themselves(domain, metric, name):
    with pytest.raises((TypeError, ValueError), match=name):
        dp.t.make_count_by_candidates(domain, metric, [1.0])


def test_numpy_candidates_accepted():
    t = dp.t.make_count_by_candidates(FLOATS, SYM, np.array([1.0, 2.0]))
    assert counts(t, [2.0, 2.0]) == [0, 2]
    t = dp.t.make_count_by_candidates(INTS, SYM, np.array([4, 2], dtype=np.int32))
    assert counts(t, [2, 4, 4]) == [2, 1]
