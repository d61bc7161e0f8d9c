"""Domains, metrics, chaining with >>, partial constructors and chaining errors."""
import math

import numpy as np
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))
SPACE = FLOATS, dp.symmetric_distance()


def test_atom_domain_membership():
    d = dp.atom_domain(T=float, bounds=(0.0, 1.0))
    assert d.member(0.0) and d.member(1.0) and d.member(0.5)
    assert not d.member(1.5) and not d.member(math.nan) and not d.member(True) and not d.member("0.5")
    assert dp.atom_domain(T=float).member(math.inf)
    assert not dp.atom_domain(T=float).member(math.nan)
    assert dp.atom_domain(T=float, nan=True).member(math.nan)
    assert dp.atom_domain(T=int).member(3) and not dp.atom_domain(T=int).member(3.5)


def test_vector_domain_membership():
    bounded = dp.atom_domain(T=float, bounds=(0.0, 1.0))
    v = dp.vector_domain(bounded, size=2, sorted=True)
    assert v.member([0.1, 0.2]) and v.member(np.array([0.1, 0.2]))
    assert not v.member([0.2, 0.1])           # unsorted
    assert not v.member([0.1])                # wrong size
    assert not v.member([0.1, 2.0])           # out of bounds
    assert not v.member([[0.1, 0.2]])         # not 1-d
    assert not v.member("ab")
    assert dp.vector_domain(bounded).member([])
    assert not FLOATS.member([1.0, math.nan])


@pytest.mark.parametrize("bounds", [(math.nan, 1.0), (0.0, math.inf), (-math.inf, 0.0), (2.0, 1.0),
                                    (True, 2.0), ("0", 1.0), (0.0,), [0.0, 1.0, 2.0]])
def test_bad_bounds(bounds):
    with pytest.raises((TypeError, ValueError), match="bounds"):
        dp.atom_domain(T=float, bounds=bounds)


def test_bad_domain_arguments():
    with pytest.raises(TypeError, match="T"):
        dp.atom_domain(T=str)
    with pytest.raises(TypeError, match="element_domain"):
        dp.vector_domain(float)
    with pytest.raises((TypeError, ValueError), match="size"):
        dp.vector_domain(dp.atom_domain(), size=-1)
    with pytest.raises(TypeError, match="sorted"):
        dp.vector_domain(dp.atom_domain(), sorted="yes")


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


def test_int_domains_are_64_bit():
    ints = dp.atom_domain(T=int)
    assert ints.member(2 ** 63 - 1) and not ints.member(2 ** 63) and not ints.member(-2 ** 63 - 1)
    vec = dp.vector_domain(ints)
    assert not vec.member([2 ** 70, 1])
    assert not vec.member(np.array([2 ** 64 - 1], dtype=np.uint64))
    assert vec.member(np.array([5], dtype=np.uint64))
    t = dp.t.make_sort(vec, dp.symmetric_distance())
    assert t([2 ** 62, 1]).tolist() == [1, 2 ** 62]
