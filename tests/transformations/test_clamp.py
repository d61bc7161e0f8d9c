"""make_clamp: clamping of lists, tuples and arrays, sortedness, NaN refused, bad bounds."""
import math

import numpy as np
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


def test_clamp_accepts_lists_tuples_and_arrays():
    t = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    for data in ([0.5, 2.0], (0.5, 2.0), np.array([0.5, 2.0], dtype=np.float32)):
        assert t(data).tolist() == [0.5, 1.0]
    assert t(np.array([-3, 2], dtype=np.int64)).tolist() == [0.0, 1.0]


def test_clamp_preserves_sortedness():
    sorted_space = dp.t.make_sort(FLOATS, dp.symmetric_distance())
    t = sorted_space >> dp.t.then_clamp(bounds=(0.0, 1.0))
    assert t.output_domain.sorted


@pytest.mark.parametrize("bounds", [(1.0, 0.0), (math.nan, 1.0), (0.0, math.inf), "ab"])
def test_clamp_bad_bounds(bounds):
    with pytest.raises((TypeError, ValueError), match="bounds"):
        dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=bounds)


def test_clamp_refuses_nan_domains_and_nan_data():
    # NaN enters only through make_impute_constant: clamp refuses a NaN domain at construction
    nan_space = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
    with pytest.raises(ValueError, match="make_impute_constant"):
        nan_space >> dp.t.then_clamp(bounds=(-1.0, 1.0))
    t = nan_space >> dp.t.then_impute_constant(-1.0) >> dp.t.then_clamp(bounds=(-1.0, 1.0))
    assert t([math.nan, 0.5, math.inf, -math.inf]).tolist() == [-1.0, 0.5, 1.0, -1.0]
    assert not t.output_domain.element_domain.nan
    # NaN is not a member of the default domain: refused before clamp runs
    plain = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    with pytest.raises(dp.errors.NotAMemberValueError, match="NaN"):
        plain([math.nan])
