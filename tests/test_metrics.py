"""The metrics: d_in is validated (non-negative, a number, an integer for dataset metrics), and
metrics compare by kind and flags."""
import math

import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


@pytest.mark.parametrize("d_in", [-1, math.nan, True, "1", 1.5, None])
def test_bad_d_in_for_dataset_metrics(d_in):
    t = dp.t.make_count(FLOATS, dp.symmetric_distance())
    with pytest.raises((TypeError, ValueError), match="d_in"):
        t.map(d_in)


@pytest.mark.parametrize("d_in", [-1.0, math.nan, False, "1"])
def test_bad_d_in_for_float_metrics(d_in):
    m = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    with pytest.raises((TypeError, ValueError), match="d_in"):
        m.map(d_in)


def test_metric_equality_and_flags():
    assert dp.linf_distance() != dp.linf_distance(monotonic=True)
    assert dp.absolute_distance(T=int) != dp.absolute_distance(T=float)
    with pytest.raises(TypeError, match="monotonic"):
        dp.linf_distance(monotonic=1)
