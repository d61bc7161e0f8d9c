"""Many candidates: the vectorised validation and index of make_count_by_candidates
(opendp_duff.engines.candidates.Candidates) against the element-by-element path.

Deterministic tests: the vectorised checks accept exactly what the element-by-element path
accepts, convert it to the same values, and leave every refusal (with its message) to that
path; the index and the counts equal a brute force on both index kinds (a table of a small
int range; the hash table, inserted and looked up whole or in chunks of 5);
a Candidates object is accepted as already validated.  Nothing here is statistical.
"""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.engines import candidates as counting


def one_by_one(candidates, T):
    """The element-by-element path: what validate_candidates returned before vectorising."""
    return tuple(counting._candidate(f"candidates[{i}]", c, T) for i, c in enumerate(candidates))


GOOD = [
    (list(range(-5, 300)), int), (np.arange(1000, dtype=np.int64), int), (np.arange(50, dtype=np.uint32), int),
    (np.arange(50, dtype=np.uint64), int), ([-(2 ** 63), 2 ** 63 - 1, 0], int), ([0.5, -0.0, 3.0, 1e300], float),
    (np.array([-0.0, 1.5, -7.25]), float), (list(range(40)), float), ([2 ** 53, -(2 ** 53)], float),
    (np.array([2 ** 53, 5], dtype=np.int64), float), (np.array([1.0, 2.0]), int), (np.float32([0.1, 2.0]), float),
    (tuple(range(10)), int), (range(7), float),
]


@pytest.mark.parametrize("candidates,T", GOOD)
def test_vectorised_validation_gives_the_same_values(candidates, T):
    got = counting.validate_candidates(candidates, T)
    want = one_by_one(candidates, T)
    assert got == want and [type(c) for c in got] == [type(c) for c in want]
    assert not any(isinstance(c, float) and np.signbit(c) and c == 0 for c in got)   # -0.0 is 0.0
    cands = counting.candidate_values(candidates, T)
    assert isinstance(cands, counting.Candidates) and len(cands) == len(want)
    assert [cands[j] for j in range(len(cands))] == list(want)
    assert counting.candidate_values(cands, T) is cands


BAD = [
    ([1, True, 2], int, MakeTypeError, r"candidates\[1\] \(True\)"),
    (np.array([1.0, np.nan]), float, MakeError, r"candidates\[1\] \(nan\) must not be NaN"),
    (np.array([1.0, np.inf]), float, MakeError, r"candidates\[1\] \(inf\) must be finite"),
    ([0, 2 ** 63], int, MakeError, r"candidates\[1\] .* must fit in a 64-bit integer"),
    (np.array([0, 2 ** 63], dtype=np.uint64), int, MakeError, r"candidates\[1\] .* must fit in a 64-bit integer"),
    ([1, 2 ** 53 + 1], float, MakeError, r"candidates\[1\] .* not exactly representable"),
    (np.array([1, 2 ** 53 + 1], dtype=np.int64), float, MakeError, r"candidates\[1\] .* not exactly representable"),
    ([1.5, 2.0], int, MakeTypeError, r"candidates\[0\] \(1.5\) must be an integer"),
    ([3, 1, 4, 1, 5, 3], int, MakeError, r"distinct, but 1 appears more than once"),
    (np.array([0.0, 2.0, -0.0]), float, MakeError, r"distinct, but 0.0 appears more than once"),
    (np.r_[np.arange(10 ** 5), [7, 99]], int, MakeError, r"distinct, but 7 appears more than once"),
    (np.r_[np.arange(10 ** 5) / 4.0, [0.5, 0.25]], float, MakeError, r"distinct, but 0.5 appears more than once"),
    (np.array([True, False]), int, MakeTypeError, r"candidates\[0\]"),
]


@pytest.mark.parametrize("candidates,T,error,match", BAD)
def test_refusals_name_the_first_bad_candidate(candidates, T, error, match):
    with pytest.raises(error, match=match):
        counting.validate_candidates(candidates, T)


def brute_codes(cands, x):
    pos = {c: j for j, c in enumerate(cands)}
    return [pos.get(float(e) + 0.0 if isinstance(cands[0], float) else int(e), len(cands)) for e in x]


@pytest.mark.parametrize("chunk", [counting._CHUNK, 5])
def test_index_and_counts_equal_a_brute_force(monkeypatch, chunk):
    monkeypatch.setattr(counting, "_CHUNK", chunk)
    rng = np.random.default_rng(70)
    cases = [
        (rng.permutation(200), rng.integers(-20, 240, 500), int),                      # a table
        (rng.permutation(np.arange(0, 10 ** 12, 10 ** 9))[:300], rng.integers(0, 3, 400) * 10 ** 9, int),  # hashed
        (rng.permutation(np.r_[np.linspace(-1, 1, 101), [5.0]]),
         np.r_[np.linspace(-1, 1, 101)[::3], -0.0, 7.0, 5.0], float),
    ]
    for values, x, T in cases:
        cands = counting.candidate_values(values, T)
        want = brute_codes([cands[j] for j in range(len(cands))], x)
        assert cands.index(x).tolist() == want
        assert cands.counts(x).tolist() == np.bincount(want, minlength=len(cands) + 1)[:-1].tolist()
        assert cands.counts(np.array([], dtype=x.dtype)).tolist() == [0] * len(cands)


def test_counting_transformation_over_many_candidates():
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    cands = np.linspace(0.0, 1.0, 70_001)
    t = dp.t.make_count_by_candidates(*space, candidates=cands)
    x = np.r_[cands[::7000], cands[::7000], 0.33333, -0.0]
    got = t(x)
    assert got.dtype == np.int64 and got.size == cands.size and got.sum() == 2 * 11 + 1
    assert got[0] == 3 and got[7000] == 2 and t.map(1) == 1
