"""opendp_duff.exact_sum.exact_mean: exact for any length, runs of equal exponents cut short.

The int64 partial sums of a run stay exact while the run has at most RUN_LIMIT = 2^35 terms
(checked here in Python integers); longer runs are cut.  Arrays of 2^35 floats do not fit in
a test, so the cutting is exercised with a small artificial ``run_limit``, against the exact
rational mean computed with fractions.
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opendp_duff.errors import MakeError
from opendp_duff.exact_sum import RUN_LIMIT, _SPLIT, exact_mean, run_starts

INT64_MAX = 2 ** 63 - 1


def rational_mean(x):
    return sum(map(Fraction, x.tolist())) / x.size


def test_run_limit_keeps_int64_sums_exact():
    # |hi| <= 2^26 and 0 <= lo < 2^27 for every term, so a run of RUN_LIMIT terms sums below 2^63
    hi_max, lo_max = 2 ** (53 - _SPLIT), 2 ** _SPLIT - 1
    assert RUN_LIMIT * hi_max <= INT64_MAX and RUN_LIMIT * lo_max <= INT64_MAX
    # ... while 2^37 terms of the largest lo would overflow: the limit is needed
    assert (4 * RUN_LIMIT) * lo_max > INT64_MAX


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
@pytest.mark.parametrize("extra", [-1, 0, 1, 2])
def test_runs_at_the_limit_boundary(limit, extra):
    # one long run of equal exponents (every value in [1, 2)), of length limit * 3 + extra,
    # then a second exponent: runs are cut at every multiple of the limit and at the change
    n = max(1, 3 * limit + extra)
    x = np.r_[1.0 + np.arange(n) * 2.0 ** -40, 4.0, 4.0]
    starts = run_starts(np.frexp(x)[1], limit)
    lengths = np.diff(np.r_[starts, x.size])
    assert starts[0] == 0 and np.all(lengths >= 1) and np.all(lengths <= limit)
    assert n in starts                                     # the exponent change starts a run
    assert set(starts) == set(range(0, x.size, limit)) | {0, n}  # cut at multiples of the limit only
    num, den = exact_mean(x, run_limit=limit)
    assert Fraction(num, den) == rational_mean(x)


def test_cut_runs_with_the_largest_mantissas():
    # the worst case for the lo sums: every mantissa has all 27 low bits set
    m = (1 << 53) - 1                          # all 53 bits set
    x = np.full(50, m * 2.0 ** -52)            # the largest float below 2, repeated
    for limit in (1, 4, 49, 50):
        num, den = exact_mean(x, run_limit=limit)
        assert Fraction(num, den) == Fraction(m, 1 << 52)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40),
       st.integers(1, 9), st.booleans())
def test_any_order_any_limit_is_exact(xs, limit, sort):
    x = np.array(sorted(xs) if sort else xs, dtype=np.float64)
    num, den = exact_mean(x, run_limit=limit)
    assert Fraction(num, den) == rational_mean(x)


def test_bad_input_is_refused_with_the_library_error():
    with pytest.raises(MakeError):
        exact_mean(np.array([]))
    with pytest.raises(MakeError):
        exact_mean(np.array([1.0, np.inf]))
    with pytest.raises(MakeError):
        exact_mean(np.array([1.0]), run_limit=0)
    with pytest.raises(MakeError):
        exact_mean(np.array([1.0]), run_limit=2 * RUN_LIMIT)
