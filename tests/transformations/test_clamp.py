"""make_clamp: clamping of lists, tuples and arrays, sortedness and NaN handling, bad bounds."""
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


def test_clamp_maps_nan_to_lo_and_accepts_nan_domains():
    nan_space = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
    t = nan_space >> dp.t.then_clamp(bounds=(-1.0, 1.0))
    assert t([math.nan, 0.5, math.inf, -math.inf]).tolist() == [-1.0, 0.5, 1.0, -1.0]
    assert not t.output_domain.element_domain.nan
    # NaN is not a member of the default domain, but raw data may hold it: clamp still bounds it
    plain = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    assert plain([math.nan]).tolist() == [0.0]
    # a sorted domain that admits NaN loses sortedness through clamp
    sorted_nan = dp.vector_domain(dp.atom_domain(T=float, nan=True), sorted=True)
    assert not dp.t.make_clamp(sorted_nan, dp.symmetric_distance(), bounds=(0.0, 1.0)).output_domain.sorted
