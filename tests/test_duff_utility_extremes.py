"""StepFunction.log_masses and StepFunction.cdf at extreme values, under warnings-as-errors.

Pieces whose width exceeds the largest float (bounds near -MAX and MAX), pieces one subnormal
wide, and scales from the least subnormal to inf (and 0): every result is compared with an
exact reference computed here from the floats read as exact rationals (``decimal`` at 2000
digits for the widths, ``fractions`` for level / scale), never with the float path.  The CDF
must also be the law that ``sample`` draws from: with no piece of positive width, a point mass
at the left end of a highest-level piece.  Nothing here is statistical.
"""
import functools
import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.duff_utility import StepFunction, duff_utility
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = pytest.mark.filterwarnings("error")

MAX = sys.float_info.max
TINY = 5e-324
SCALES = [TINY, 1e-300, 1e-5, 1.0, 1e300, MAX, math.inf]

CASES = {
    "whole float line": ([-MAX, 0.0], [0.0, MAX], [-1, 0]),
    "one piece wider than MAX": ([-MAX], [MAX], [0]),
    "wide and one subnormal": ([-MAX, 0.0, 1.0], [0.0, TINY, MAX], [-2, 0, -1]),
    "subnormal widths only": ([0.0, TINY, 3 * TINY], [TINY, 2 * TINY, 4 * TINY], [0, -1, -7]),
    "huge levels": ([0.0, 1.0], [1.0, 2.0], [-(2 ** 62), 2 ** 62]),
}


@functools.lru_cache(maxsize=None)       # the same widths recur under every scale
def exact_log_width(a, b):
    with localcontext() as ctx:
        ctx.prec = 2000
        w = Decimal(b) - Decimal(a)         # exact: both ends are floats
        return float(w.ln())


def exact_level_term(level, scale):
    if level == 0:
        return 0.0
    if math.isinf(scale):
        return 0.0
    q = Fraction(level) / Fraction(scale)
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def exact_cdf(left, right, levels, scale, x):
    """P(X <= x) for the density proportional to exp(level / scale), in decimal."""
    with localcontext() as ctx:
        ctx.prec = 2000
        pos = [(Decimal(a), Decimal(b), lv) for a, b, lv in zip(left, right, levels, strict=True) if b > a]
        top = max(lv for _, _, lv in pos)
        weights = []
        for a, b, lv in pos:
            rel = (Decimal(lv) - Decimal(top)) / Decimal(scale) if not math.isinf(scale) else Decimal(0)
            weights.append((b - a) * (rel.exp() if rel > Decimal(-10) ** 7 else Decimal(0)))
        total = sum(weights)
        xd = Decimal(x)
        below = sum(w * min(max((xd - a) / (b - a), Decimal(0)), Decimal(1))
                    for w, (a, b, _) in zip(weights, pos, strict=True))
        return float(below / total)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("scale", SCALES + [0.0])
def test_log_masses_match_the_exact_values(name, scale):
    left, right, levels = CASES[name]
    got = StepFunction(left, right, levels).log_masses(scale)
    assert not np.isnan(got).any()
    keep = [i for i in range(len(left)) if right[i] > left[i]]
    assert got.size == len(keep)
    for g, i in zip(got, keep, strict=True):
        term = exact_level_term(levels[i], scale) if scale > 0 else (0.0 if levels[i] == 0
                                                                      else math.copysign(math.inf, levels[i]))
        want = exact_log_width(left[i], right[i]) + term
        assert g == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("scale", SCALES)
def test_cdf_matches_the_exact_law(name, scale):
    left, right, levels = CASES[name]
    sf = StepFunction(left, right, levels)
    xs = sorted(set(left + right + [-MAX, MAX, 0.0, TINY, 0.5, 1.5, -1e300, 1e300]))
    got = sf.cdf(xs, scale)
    assert got.shape == (len(xs),) and not np.isnan(got).any()
    assert np.all(np.diff(got) >= -1e-15) and got[-1] == pytest.approx(1.0, abs=1e-12)
    for x, g in zip(xs, got, strict=True):
        assert g == pytest.approx(exact_cdf(left, right, levels, scale, x), rel=1e-9, abs=1e-12)


def test_cdf_at_scale_zero_is_uniform_on_the_top_level_pieces():
    sf = StepFunction([0.0, 1.0, 2.0], [1.0, 2.0, 4.0], [0, -1, 0])
    assert sf.cdf([0.5, 1.5, 3.0, 4.0], 0.0) == pytest.approx([1 / 6, 1 / 3, 2 / 3, 1.0], rel=1e-14)


def test_cdf_without_positive_width_is_the_point_the_sampler_releases():
    sf = StepFunction([0.0, 2.0, 5.0], [0.0, 2.0, 5.0], [-3, 0, -1])
    with seeded_rng_for_tests(1):
        draw = sf.sample(1.0)
    assert draw == 2.0
    assert sf.cdf([1.9, 2.0, 5.0], 1.0).tolist() == [0.0, 1.0, 1.0]


def test_negative_or_nan_scale_is_refused():
    sf = StepFunction([0.0], [1.0], [0])
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError, match="scale"):
            sf.log_masses(bad)
        with pytest.raises(ValueError, match="scale"):
            sf.cdf(0.5, bad)


@pytest.mark.slow
@pytest.mark.parametrize("scale", [TINY, 1.0, MAX])
def test_duff_median_on_the_whole_float_line(scale):
    sf = duff_utility(np.array([-1e308, 0.0, 1e308]), "median", bounds=(-MAX, MAX))
    lm = sf.log_masses(scale)
    assert not np.isnan(lm).any()
    got = sf.cdf([-MAX, -1e308, 0.0, 1e308, MAX], scale)
    want = [exact_cdf(sf.left.tolist(), sf.right.tolist(), sf.levels.tolist(), scale, x)
            for x in (-MAX, -1e308, 0.0, 1e308, MAX)]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
