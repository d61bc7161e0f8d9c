"""Transformation and Measurement: chaining with >>, partial constructors, post-processing, and
chaining errors that show both sides."""
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))
SPACE = FLOATS, dp.symmetric_distance()


def test_chain_transformations_and_measurement():
    meas = SPACE >> dp.t.then_clamp(bounds=(0.0, 10.0)) >> dp.t.then_count() >> dp.m.then_laplace(scale=2.0)
    assert isinstance(meas, dp.Measurement)
    assert meas.map(1) == 0.5
    assert meas.check(1, 0.5) and not meas.check(1, 0.49)
    assert isinstance(meas([1.0, 2.0, 3.0]), float)


def test_chain_with_make_functions_equals_partial_form():
    clamp = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    sort = dp.t.make_sort(clamp.output_domain, clamp.output_metric)
    chained = clamp >> sort
    assert chained.output_domain == (SPACE >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_sort()).output_domain
    assert chained([3.0, -1.0, 0.5]).tolist() == [0.0, 0.5, 1.0]
    assert chained.map(3) == 3


def test_postprocessing_keeps_the_map():
    meas = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    post = meas >> (lambda y: round(y))
    assert post.map(2) == meas.map(2)
    assert isinstance(post([1.0]), int)


def test_domain_mismatch_shows_both_sides():
    clamp = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    other = dp.t.make_sort(FLOATS, dp.symmetric_distance())
    with pytest.raises(dp.DomainMismatch) as info:
        clamp >> other
    msg = str(info.value)
    assert "bounds=(0.0, 1.0)" in msg and repr(FLOATS) in msg


def test_metric_mismatch_shows_both_sides():
    sized = dp.vector_domain(dp.atom_domain(T=float), size=3)
    a = dp.t.make_sort(sized, dp.change_one_distance())
    b = dp.t.make_sort(a.output_domain, dp.symmetric_distance())
    with pytest.raises(dp.MetricMismatch) as info:
        a >> b
    assert "ChangeOneDistance" in str(info.value) and "SymmetricDistance" in str(info.value)


def test_measurement_cannot_be_followed_by_a_transformation():
    meas = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    with pytest.raises(TypeError):
        meas >> dp.t.make_sort(FLOATS, dp.symmetric_distance())
    with pytest.raises(TypeError):
        dp.t.make_sort(FLOATS, dp.symmetric_distance()) >> 3


def test_partial_needs_a_space():
    with pytest.raises(TypeError):
        (FLOATS,) >> dp.t.then_sort()
