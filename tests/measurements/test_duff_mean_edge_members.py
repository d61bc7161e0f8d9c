"""make_duff_mean on edge-case members of its input domain, with every warning an error.

A warning that depends on the data tells something about it (and is an error under
``python -W error``), so no member may cause one: bounds at +-MAX (where hi - lo
overflows), subnormal bounds and records, all-equal records, records at the bounds and the
empty dataset, at scales 0, tiny, 1 and inf.  The level-set ends at such bounds are also
checked against exact rational arithmetic: an intermediate overflow must not move them.
"""
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff._constants import MAX
from opendp_duff.duff_mean_utility import duff_mean_level_sets
from opendp_duff.measurements.duff_mean import make_duff_mean
from opendp_duff.samplers import seeded_rng_for_tests

TINY = 5e-324
BOUNDS = [(-MAX, MAX), (0.0, MAX), (-MAX, 0.0), (3 * 2.0 ** 970, MAX), (-MAX, -3 * 2.0 ** 970),
          (-MAX, -MAX), (MAX, MAX), (0.0, TINY), (-TINY, TINY), (-1e-310, 1e-310), (0.0, 1.0),
          (1.0, 1.0)]
SCALES = [0.0, 1e-300, 1.0, math.inf]


def space(bounds):
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), sorted=True)
    return dom, dp.symmetric_distance()


def members(lo, hi):
    mid = lo * 0.5 + hi * 0.5
    tiny = [TINY] if lo <= TINY <= hi else []
    return [[], [lo], [hi], [lo, hi], [hi, hi], [lo] * 5, [hi] * 5, [mid] * 3,
            sorted([lo, mid, hi]), sorted([lo, *tiny, hi]), [lo] * 3 + [hi] * 4]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("bounds", BOUNDS, ids=repr)
def test_no_member_warns_or_leaves_the_bounds(bounds, scale):
    meas = make_duff_mean(*space(bounds), scale=scale)
    with warnings.catch_warnings(), seeded_rng_for_tests(11):
        warnings.simplefilter("error")
        for x in members(*bounds):
            out = meas(x)
            assert isinstance(out, float) and bounds[0] <= out <= bounds[1], (x, out)


def test_max_records_at_max_bounds_do_not_warn():
    # the case that used to warn: [MAX, MAX] on (-MAX, MAX) while [1, 2, 3] did not
    meas = make_duff_mean(*space((-MAX, MAX)), scale=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in ([MAX, MAX], [1.0, 2.0, 3.0], [-MAX, -MAX]):
            assert -MAX <= meas(x) <= MAX


def _exact_lower_ends(x, lo, hi):
    """The lower ends alpha_k, k = 1..n+1, of the level sets of the records rounded to the grid
    lo + j (hi - lo) / 2^32, from the formula min_r (P_{n-r} + (k - r) lo) / (n + k - 2r),
    in exact rationals (an independent evaluation of what the code computes)."""
    lo_q, hi_q = Fraction(lo), Fraction(hi)
    step = (hi_q - lo_q) / 2 ** 32
    grid = sorted(lo_q + round((Fraction(v) - lo_q) / step) * step for v in x)
    n = len(grid)
    ends = []
    for k in range(1, n + 2):
        ends.append(min((sum(grid[:n - r], Fraction(0)) + (k - r) * lo_q) / (n + k - 2 * r)
                        for r in range(min(k - 1, n) + 1)))
    return ends


@pytest.mark.parametrize("x", [[MAX, MAX], [-MAX, MAX], [0.0, 1e300, MAX], [MAX / 3] * 4])
def test_level_set_ends_at_max_bounds_are_close_to_exact(x):
    # hi - lo overflows here; each computed end must still be the exact end up to a few
    # roundings (relative to hi - lo), not saturated at a bound by an intermediate overflow
    lo, hi = -MAX, MAX
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower, upper = duff_mean_level_sets(np.array(x), (lo, hi))
    span = Fraction(hi) - Fraction(lo)
    for got, want in zip(lower, _exact_lower_ends(x, lo, hi), strict=True):
        assert abs(Fraction(float(got)) - want) <= span * Fraction(1, 2 ** 50), (got, float(want))
    # the reflection x -> -x maps the upper ends to minus the lower ends
    lower_r, _ = duff_mean_level_sets(-np.array(x)[::-1], (lo, hi))
    assert np.array_equal(upper, -lower_r)


def test_halving_the_bounds_halves_the_ends():
    # with bounds (-MAX, MAX) the ends are computed on halved operands: they must be exactly
    # twice the ends for the halved data on (-MAX/2, MAX/2), where hi - lo does not overflow
    rng = np.random.default_rng(4)
    for _ in range(20):
        x = np.sort(rng.uniform(-1.0, 1.0, size=int(rng.integers(0, 9))) * MAX)
        lower, upper = duff_mean_level_sets(x, (-MAX, MAX))
        lower_h, upper_h = duff_mean_level_sets(x * 0.5, (-MAX * 0.5, MAX * 0.5))
        assert np.array_equal(lower, 2.0 * lower_h) and np.array_equal(upper, 2.0 * upper_h)
