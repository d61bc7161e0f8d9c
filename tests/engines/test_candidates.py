"""opendp_duff.engines.candidates: the hash table of numeric candidates against a brute force.

Property tests (hypothesis, deterministic: nothing here draws private randomness): on random
candidates and records with ties, -0.0 and 0.0, subnormals, infinities (members of an unbounded
float domain), integers near 2^53 and at the ends of int64, the codes and the counts of
:class:`Candidates` equal a brute force that compares every record with every candidate in
Python (``==`` on floats, exact ints); so does ``make_count_by_candidates`` on members.  The
hash only decides where a walk starts: with every key sent home to slot 0 (the longest walks)
and with chunks of 3 (several walkers racing for one slot), the results are the same, and a
repeated candidate is still found.
"""
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import opendp_duff as dp
from opendp_duff.engines import candidates as counting

TINY = 5e-324                         # the least subnormal
SPECIAL_FLOATS = [0.0, -0.0, TINY, -TINY, 2 * TINY, 1e-310, 2.2250738585072014e-308, 1.0, -1.0, 1.5,
                  2.0 ** 53, 2.0 ** 53 - 1, -(2.0 ** 53), 2.0 ** 52 + 0.5, sys.float_info.max, -sys.float_info.max]
NOT_CANDIDATES = [np.inf, -np.inf]    # members of the domain, never candidates (not finite)
NEAR_2_53 = [2 ** 53 + d for d in range(-3, 4)] + [-(2 ** 53) + d for d in range(-3, 4)]
INT64_ENDS = [-(2 ** 63), -(2 ** 63) + 1, 2 ** 63 - 2, 2 ** 63 - 1, 0, 1, -1]

finite_floats = st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats(allow_nan=False, allow_infinity=False))
record_floats = st.one_of(finite_floats, st.sampled_from(NOT_CANDIDATES))
ints = st.one_of(st.sampled_from(NEAR_2_53 + INT64_ENDS), st.integers(-(2 ** 63), 2 ** 63 - 1),
                 st.integers(-40, 40))


def distinct(values):
    """The values without repeats, compared as the candidates are (-0.0 is 0.0), first kept."""
    out = []
    for c in values:
        if not any(c == d for d in out):
            out.append(c)
    return out


def brute_codes(cands, records):
    return [next((j for j, c in enumerate(cands) if r == c), len(cands)) for r in records]


def brute_counts(cands, records):
    return [sum(1 for r in records if r == c) for c in cands]


@st.composite
def case(draw, values, records_from):
    cands = distinct(draw(st.lists(values, min_size=1, max_size=40)))
    # records: candidates (with ties), values drawn anew, and the special ones
    pool = st.one_of(st.sampled_from(cands), records_from)
    return cands, draw(st.lists(pool, max_size=120))


def check(cands, records, T):
    index = counting.candidate_values(np.array(cands, dtype=np.float64 if T is float else np.int64), T)
    assert isinstance(index, counting.Candidates) and not index.repeated
    x = np.array(records, dtype=np.float64 if T is float else np.int64)
    assert index.index(x).tolist() == brute_codes(cands, records)
    assert index.counts(x).tolist() == brute_counts(cands, records)
    assert counting.candidate_counter(index, T)(x).tolist() == brute_counts(cands, records)


@pytest.fixture(params=["mixed", "every key at slot 0"])
def home(request, monkeypatch):
    if request.param != "mixed":
        monkeypatch.setattr(counting.Candidates, "_home", lambda self, keys: np.zeros(keys.size, dtype=np.intp))
    return request.param


@pytest.fixture(params=[counting._CHUNK, 3])
def chunk(request, monkeypatch):
    monkeypatch.setattr(counting, "_CHUNK", request.param)
    return request.param


# the fixtures only patch constants, the same for every example
patched = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@patched
@given(case(finite_floats, record_floats))
def test_float_codes_and_counts_equal_a_brute_force(home, chunk, drawn):
    check(*drawn, float)


@patched
@given(case(ints, ints))
def test_int_codes_and_counts_equal_a_brute_force(home, chunk, drawn):
    check(*drawn, int)        # a wide range: the hash table; a narrow one: the table of the range


@settings(max_examples=40, deadline=None)
@given(case(st.sampled_from(sorted({float(k) for k in NEAR_2_53})), st.sampled_from(NEAR_2_53)))
def test_integer_records_near_2_53_are_read_as_floats(drawn):
    # float candidates, int64 records: a record is its float64 value (2^53 + 1 reads as 2^53),
    # as float(r) reads it; the admitted members of a float domain are within 2^53 and exact
    cands, records = drawn
    index = counting.candidate_values(cands, float)
    as_float = [float(r) for r in records]
    assert index.counts(np.array(records, dtype=np.int64)).tolist() == brute_counts(cands, as_float)


@patched
@given(st.lists(st.one_of(finite_floats, st.sampled_from([0.0, -0.0, TINY])), min_size=1, max_size=30))
def test_a_repeated_candidate_is_found_whatever_the_walks(home, chunk, values):
    index = counting.Candidates(np.array(values, dtype=np.float64) + 0.0, float)
    assert index.repeated == (len(distinct(values)) != len(values))


@settings(max_examples=25, deadline=None)
@given(case(finite_floats, record_floats))
def test_count_by_candidates_equals_a_brute_force_on_members(drawn):
    cands, records = drawn
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    t = dp.t.make_count_by_candidates(*space, candidates=cands)
    assert t(np.array(records, dtype=np.float64)).tolist() == brute_counts(cands, records)


def test_the_table_is_at_most_half_full_and_walks_end():
    for k in (1, 2, 3, 5, 1000, 4097):
        index = counting.Candidates(np.arange(k, dtype=np.float64) * 0.5, float)
        assert index.slots.size >= 2 * k and np.count_nonzero(index.slots >= 0) == k
        assert sorted(index.slots[index.slots >= 0].tolist()) == list(range(k))
