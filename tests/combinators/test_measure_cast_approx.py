"""make_pureDP_to_approxDP: the same function, the map (eps, 0) with eps the inner map exactly,
the edge cases, the refusals, and the exact audit of the cast release in (eps, delta)."""
import math

import pytest

import opendp_duff as dp
from opendp_duff.audit import exact_privacy_loss
from opendp_duff.samplers import seeded_rng_for_tests

SPACE = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def test_map_and_function():
    lap = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=3.0)
    cast = dp.c.make_pureDP_to_approxDP(lap)
    assert cast.output_measure == dp.approximate_divergence()
    for d in (0, 1, 2, 7):
        assert cast.map(d) == (lap.map(d), 0.0)
    assert cast.check(1, (lap.map(1), 0.0)) and not cast.check(1, (math.nextafter(lap.map(1), 0), 1.0))
    with seeded_rng_for_tests(3):
        a = cast([1.0, 2.0])
    with seeded_rng_for_tests(3):
        assert lap([1.0, 2.0]) == a
    inf = dp.c.make_pureDP_to_approxDP(SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=0.0))
    assert inf.map(1) == (math.inf, 0.0) and inf.map(0) == (0.0, 0.0)


def test_the_cast_release_is_eps_zero_private():
    mode = SPACE >> dp.m.then_duff_mode(candidates=[1.0, 2.0], scale=0.5)
    cast = dp.c.make_pureDP_to_approxDP(mode)
    audit = exact_privacy_loss(mode, [1.0, 1.0], [1.0, 1.0, 2.0])
    delta, err = audit.delta(cast.map(1)[0])
    assert delta <= 1e-12 + err                       # at eps = map(1), delta(eps) is 0


def test_refusals():
    gauss = SPACE >> dp.t.then_count() >> dp.m.then_gaussian(scale=1.0)
    with pytest.raises(ValueError, match="max_divergence"):
        dp.c.make_pureDP_to_approxDP(gauss)
    with pytest.raises(TypeError, match="measurement"):
        dp.c.make_pureDP_to_approxDP(SPACE >> dp.t.then_count())
