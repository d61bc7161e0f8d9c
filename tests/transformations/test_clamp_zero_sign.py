"""The sign of a zero in the data never reaches a transformed dataset: clamp, sort, impute and
the shared conversion give identical data for [-0.0] and [0.0]."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.transformations._common import as_array

FLOATS = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def same_bits(a, b):
    return np.asarray(a, dtype=np.float64).tobytes() == np.asarray(b, dtype=np.float64).tobytes()


@pytest.mark.parametrize("build", [
    lambda: dp.t.make_clamp(*FLOATS, bounds=(-1.0, 1.0)),
    lambda: dp.t.make_clamp(*FLOATS, bounds=(-0.0, 1.0)),
    lambda: dp.t.make_clamp(*FLOATS, bounds=(-1.0, -0.0)),
    lambda: dp.t.make_sort(*FLOATS),
    lambda: dp.t.make_impute_constant(dp.vector_domain(dp.atom_domain(T=float, nan=True)),
                                      dp.symmetric_distance(), constant=-0.0),
], ids=["clamp", "clamp[lo=-0]", "clamp[hi=-0]", "sort", "impute"])
def test_negative_and_positive_zero_give_identical_data(build):
    t = build()
    for neg, pos in (([-0.0], [0.0]), ([1.0, -0.0, -0.5], [1.0, 0.0, -0.5]),
                     (np.array([-0.0], dtype=np.float32), np.array([0.0], dtype=np.float32))):
        assert same_bits(t(neg), t(pos))
        assert not np.signbit(t(neg)[np.asarray(t(neg)) == 0]).any()


def test_clamp_to_a_negative_zero_bound_releases_positive_zero():
    t = dp.t.make_clamp(*FLOATS, bounds=(-0.0, 1.0))
    assert not np.signbit(t([-5.0, -0.0])).any()


def test_as_array_returns_a_new_array_without_negative_zero():
    x = np.array([-0.0, 2.0])
    y = as_array(x)
    assert y is not x and not np.signbit(y).any() and np.signbit(x[0])
    z = np.array([3, 1], dtype=np.int64)
    assert as_array(z, int) is not z
