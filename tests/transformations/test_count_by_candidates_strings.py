"""make_count_by_candidates on strings (counts against a direct count, stability by brute force
over small multisets, exact string equality), string candidates' validation, and the two
number paths of candidate_index (a table of a small int range, a hash table) against a
direct lookup."""
from itertools import combinations_with_replacement

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.candidates import candidate_index

from helpers import multiset_distance

WORDS = dp.vector_domain(dp.atom_domain(T=str))
SYM = dp.symmetric_distance()


def test_string_counts_match_a_direct_count():
    rng = np.random.default_rng(0)
    universe = ["N", "S", "E", "W", "n", "N ", "N\x00", "", "\u00e9", "e\u0301"]
    cands = ["N", "", "e\u0301", "Z"]
    t = (WORDS, SYM) >> dp.t.then_count_by_candidates(candidates=cands)
    for n in (0, 1, 7, 500):
        x = [universe[i] for i in rng.integers(0, len(universe), n)]
        assert t(x).tolist() == [sum(1 for e in x if e == c) for c in cands]
        assert t(np.array(x, dtype=object)).tolist() == t(x).tolist()


def test_string_stability_by_brute_force():
    universe = ("a", "b", "c")
    t = (WORDS, SYM) >> dp.t.then_count_by_candidates(candidates=["a", "b"])
    sets = [list(x) for n in range(4) for x in combinations_with_replacement(universe, n)]
    worst = 0
    for x in sets:
        for y in sets:
            d = multiset_distance(x, y, change_one=False)
            diff = t(x) - t(y)
            gap = int(diff.max() - diff.min())
            assert gap <= t.map(d)
            worst = max(worst, gap - d)
    assert worst == 0                       # the bound d_in is attained


def test_change_one_on_strings_doubles():
    dom = dp.vector_domain(dp.atom_domain(T=str), size=3)
    t = (dom, dp.change_one_distance()) >> dp.t.then_count_by_candidates(candidates=["a", "b"])
    assert t.map(1) == 2 and (t(["a", "a", "b"]) - t(["b", "a", "b"])).tolist() == [1, -1]


@pytest.mark.parametrize("cands,match", [(["a", "a"], "distinct"), (["a", 1], r"candidates\[1\]"),
                                         (["a", None], r"candidates\[1\]"), ([b"a"], r"candidates\[0\]"),
                                         ("ab", "candidates"), ([], "empty")])
def test_bad_string_candidates_name_themselves(cands, match):
    with pytest.raises((TypeError, ValueError), match=match):
        (WORDS, SYM) >> dp.t.then_count_by_candidates(candidates=cands)


def test_string_candidates_are_refused_for_numbers_and_numbers_for_strings():
    with pytest.raises(TypeError, match=r"candidates\[0\]"):
        (dp.vector_domain(dp.atom_domain(T=float)), SYM) >> dp.t.then_count_by_candidates(candidates=["1.0"])
    t = (WORDS, SYM) >> dp.t.then_count_by_candidates(candidates=[np.str_("a")])
    assert t(["a", "a"]).tolist() == [2]


@pytest.mark.parametrize("cands", [(3, -1, 7, 0), tuple(range(200)), (2 ** 62, -2 ** 63, 5), (0, 2 ** 16 + 5),
                                   (2 ** 63 - 1, 2 ** 63 - 2)])
def test_int_index_paths_match_a_direct_lookup(cands):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.integers(-300, 300, 2000), np.array(cands, dtype=np.int64),
                        np.array([2 ** 63 - 1, -2 ** 63, 2 ** 16 + 4], dtype=np.int64)])
    want = [cands.index(e) if e in cands else len(cands) for e in x.tolist()]
    assert candidate_index(cands, int)(x).tolist() == want
    assert candidate_index(cands, int)(x.astype(np.uint64) if (x >= 0).all() else x).tolist() == want


def test_float_index_matches_a_direct_lookup():
    cands = (0.0, 1.5, -2.0, 1e308)
    x = np.array([-0.0, 0.0, 1.5, np.nan, np.inf, -np.inf, 1e308, 5e-324, -2.0, 2.0])
    want = [next((j for j, c in enumerate(cands) if c == e), len(cands)) for e in x.tolist()]
    assert candidate_index(cands, float)(x).tolist() == want
