"""opendp_duff.exact_sum.exact_mean: exact for any length, summed in blocks of bounded length.

The int64 partial sums of a run of equal exponents stay exact while the run has at most
RUN_LIMIT = 2^35 terms (checked here in Python integers); the data is summed in blocks of at
most ``block`` <= RUN_LIMIT terms, so no run is longer.  Arrays of 2^35 floats do not fit in a
test, so the cutting is exercised with small artificial blocks, against the exact rational
mean computed with fractions.
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import opendp_duff.exact_sum as S
from opendp_duff.errors import MakeError
from opendp_duff.exact_sum import BLOCK, RUN_LIMIT, exact_mean

INT64_MAX = 2 ** 63 - 1


def rational_mean(x):
    return sum(map(Fraction, x.tolist())) / x.size


def test_run_limit_keeps_int64_sums_exact():
    # |hi| <= 2^26 and 0 <= lo < 2^27 for every term, so a run of RUN_LIMIT terms sums below 2^63
    hi_max, lo_max = 2 ** (53 - S._SPLIT), 2 ** S._SPLIT - 1
    assert RUN_LIMIT * hi_max <= INT64_MAX and RUN_LIMIT * lo_max <= INT64_MAX
    # ... while 2^37 terms of the largest lo would overflow: the limit is needed
    assert (4 * RUN_LIMIT) * lo_max > INT64_MAX
    assert 1 <= BLOCK <= RUN_LIMIT


@pytest.mark.parametrize("block", [1, 2, 3, 7])
@pytest.mark.parametrize("extra", [-1, 0, 1, 2])
def test_blocks_at_the_limit_boundary(block, extra, monkeypatch):
    # one long run of equal exponents (every value in [1, 2)) of length 3 block + extra, then a
    # second exponent: every int64 sum covers at most `block` consecutive terms, all of them once
    n = max(1, 3 * block + extra)
    x = np.r_[1.0 + np.arange(n) * 2.0 ** -40, 4.0, 4.0]
    seen = []
    real = S.block_sum
    monkeypatch.setattr(S, "block_sum", lambda part: seen.append(part.copy()) or real(part))
    num, den = exact_mean(x, block=block)
    assert Fraction(num, den) == rational_mean(x)
    assert all(1 <= part.size <= block for part in seen)
    assert np.array_equal(np.concatenate(seen), x)


def test_cut_runs_with_the_largest_mantissas():
    # the worst case for the lo sums: every mantissa has all 27 low bits set
    m = (1 << 53) - 1                          # all 53 bits set
    x = np.full(50, m * 2.0 ** -52)            # the largest float below 2, repeated
    for block in (1, 4, 49, 50, 51):
        num, den = exact_mean(x, block=block)
        assert Fraction(num, den) == Fraction(m, 1 << 52)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40),
       st.integers(1, 9), st.booleans())
def test_any_order_any_block_is_exact(xs, block, sort):
    x = np.array(sorted(xs) if sort else xs, dtype=np.float64)
    num, den = exact_mean(x, block=block)
    assert Fraction(num, den) == rational_mean(x)


def test_bad_parameters_are_refused_with_the_library_error():
    with pytest.raises(MakeError):
        exact_mean(np.array([]))
    with pytest.raises(MakeError):
        exact_mean(np.array([1.0]), block=0)
    with pytest.raises(MakeError):
        exact_mean(np.array([1.0]), block=2 * RUN_LIMIT)
