"""The registry of smooth-sensitivity noises: every record is consistent, the library reads the
records rather than the names, and adding a noise is adding one entry."""
import math

import attrs
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import distributions as D
from opendp_duff.measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from opendp_duff.samplers.exact_noise import EXACT_NOISES
from opendp_duff.smooth import maps, noises as sn


@pytest.mark.parametrize("name", list(sn.NOISES))
def test_every_record_is_consistent(name):
    r = sn.NOISES[name]
    assert r.name == name and r.shape_name in ("sigma", "d", "gamma", "delta")
    assert r.measure in (ZeroConcentratedDivergence, MaxDivergence, ApproximateDivergence)
    assert (r.group_epsilon is not None) == (r.measure is ApproximateDivergence) == (r.shape_name == "delta")
    assert r.exact in EXACT_NOISES and r.exact.name == name
    shape = r.shape_default if r.shape_default is not None else {"sigma": 0.7, "delta": 1e-6}[r.shape_name]
    assert r.check_shape(shape) == shape
    law = r.law(shape)
    assert type(law).__module__ == D.__name__ and law.variance() > 0
    # the float guess inverts the bound: one_step(t, guess) is epsilon up to rounding
    s = r.scale_guess(1.0, 0.01, shape)
    assert s > 0 and abs(r.one_step(0.01, s, shape) - 1.0) < 1e-9


def test_measures_match_the_old_tables():
    assert sn.ZCDP_NOISES == ("lln", "uln", "arsinh_normal")
    assert sn.PURE_NOISES == ("student_t", "polynomial_tail")


@pytest.mark.parametrize("kw,name", [(dict(sigma=100.5), "sigma"), (dict(sigma=0.0), "sigma"),
                                     (dict(d=2.0), "d"), (dict(sigma=None), "sigma")])
def test_shapes_are_checked_by_the_record(kw, name):
    with pytest.raises(dp.MakeError, match=name):
        sn.resolve("lln", **kw)


def test_a_new_noise_is_one_entry(monkeypatch):
    # a Cauchy noise defined only by its record: constructor, map, parameters and release all work
    poly = sn.NOISES["polynomial_tail"]
    cauchy = attrs.evolve(poly, name="cauchy", shape_default=2.0,
                          check_shape=lambda g: 2.0 if g == 2.0 else (_ for _ in ()).throw(dp.MakeError("gamma")))
    monkeypatch.setitem(sn.NOISES, "cauchy", cauchy)
    p = dp.smooth.smooth_parameters("cauchy", size=11, epsilon=0.6, t=0.1)
    assert p["noise"] == "cauchy" and p["gamma"] == 2.0
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=11, sorted=True)
    meas = dp.m.make_smooth_median(dom, dp.change_one_distance(), **p)
    ref = dp.m.make_smooth_median(dom, dp.change_one_distance(), **dict(p, noise="polynomial_tail"))
    assert meas.map(1) == ref.map(1) <= 0.6
    with dp.samplers.seeded_rng_for_tests(3):
        a = meas(np.linspace(0, 1, 11))
    with dp.samplers.seeded_rng_for_tests(3):
        b = ref(np.linspace(0, 1, 11))
    assert a == b and math.isfinite(a)


def test_group_map_reads_the_measure():
    r = sn.NOISES["student_t"]
    assert maps.group_map(r, 0.1, 0.2, 3.0)(3) == dp.arithmetic.mul_up(3, r.one_step(0.1, 0.2, 3.0))
    lap = sn.NOISES["laplace"]
    assert maps.group_map(lap, 0.1, 0.2, 1e-6)(0) == (0.0, 0.0)
