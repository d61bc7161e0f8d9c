"""The smooth-sensitivity functions share one argument order, (x_sorted, t, bounds), with the
statistic's own parameter by keyword, and parse quantile levels with the library's one parser
(opendp_duff._validate.alpha: the open interval (0, 1), a float read as the decimal it prints as)."""
import inspect
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import _validate
from opendp_duff.smooth import sensitivity as ss

X = np.sort(np.random.default_rng(3).normal(size=10))
BOUNDS = (-4.0, 4.0)


def test_one_argument_order():
    for f in (ss.smooth_sensitivity_median, ss.smooth_sensitivity_quantile, ss.smooth_sensitivity_trimmed_mean):
        params = list(inspect.signature(f).parameters.values())
        assert [p.name for p in params[:3]] == ["x_sorted", "t", "bounds"]
    assert inspect.signature(ss.smooth_sensitivity_trimmed_mean).parameters["m"].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.signature(ss.smooth_sensitivity_quantile).parameters["alpha"].kind is \
        inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        ss.smooth_sensitivity_trimmed_mean(X, 2, 0.1, BOUNDS)   # the old positional order fails loudly
    assert dp.smooth_sensitivity_median is dp.smooth.smooth_sensitivity_median is ss.smooth_sensitivity_median


@pytest.mark.parametrize("alpha", [0, 1, 0.0, 1.0, Fraction(0), Fraction(1), -0.1, 1.5, np.float64(1.0)])
def test_quantile_levels_outside_the_open_interval_are_refused(alpha):
    with pytest.raises(dp.MakeError, match="alpha"):
        ss.smooth_sensitivity_quantile(X, 0.1, BOUNDS, alpha=alpha)


# np.float32(0.1) is 1/10 for the shared parser (rank 1 of 10), not 0.100000001... (rank 2)
@pytest.mark.parametrize("alpha", [0.1, np.float32(0.1), np.float64(0.7), Fraction(3, 10), 0.95])
def test_quantile_rank_comes_from_the_library_parser(alpha):
    rank = max(1, -(-_validate.alpha("alpha", alpha) * X.size // 1))   # ceil(alpha n)
    assert ss.smooth_sensitivity_quantile(X, 0.3, BOUNDS, alpha=alpha) == ss._window_statistic(
        X, int(rank), int(rank), 0.3, *BOUNDS)

