"""make_approximate_zCDP_to_approxDP: the map against an exact rational recomputation
(eps(rho, delta) + log(1/(1 - delta_0)) and delta_0 + delta, each never below the exact value),
its edge cases (delta_0 + delta >= 1, rho = 0 or inf, d_in = 0), the function kept, and the
compositors: an (eps, delta) compositor runs a cast key discovery; a compositor without delta
refuses key discovery with a message that says why.  Deterministic."""
import math
from fractions import Fraction

import pytest

import opendp_duff as dp
from opendp_duff.combinators.measure_cast import zcdp_to_epsilon
from opendp_duff.core import Measurement
from opendp_duff.errors import MakeError, MakeTypeError, MeasureMismatch
from opendp_duff.measures import ApproximateDivergence, ApproximateZeroConcentratedDivergence

mpmath = pytest.importorskip("mpmath")   # the exact recomputation (the test extra)

ROWS = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()


def gaussian_keys(scale=4.0, threshold=30.0):
    return ROWS >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=scale, threshold=threshold,
                                                                        noise="gaussian")


def fixed(rho, delta_0):
    """A measurement of the measure with a given map (only its map is used here)."""
    return Measurement(ROWS[0], ROWS[1], ApproximateZeroConcentratedDivergence(), lambda x: None,
                       lambda d_in: (rho, delta_0) if d_in else (0.0, 0.0))


@pytest.mark.parametrize("rho, delta_0, delta", [(0.5, 1e-7, 1e-6), (0.03125, 0.25, 1e-9), (2.0, 0.0, 0.1),
                                                 (1e-12, 1e-300, 1e-6)])
def test_the_map_bounds_the_exact_values(rho, delta_0, delta):
    eps, total = dp.c.make_approximate_zCDP_to_approxDP(fixed(rho, delta_0), delta).map(1)
    assert Fraction(total) >= Fraction(delta_0) + Fraction(delta)
    with mpmath.workdps(60):
        exact = mpmath.mpf(zcdp_to_epsilon(rho, delta)) - mpmath.log1p(-mpmath.mpf(delta_0))
        assert mpmath.mpf(eps) >= exact
        assert mpmath.mpf(eps) - exact <= 1e-12 * max(1, exact)   # rounded up by a few ulps only


def test_edge_cases():
    assert dp.c.make_approximate_zCDP_to_approxDP(fixed(1.0, 0.6), 0.5).map(1) == (0.0, 1.0)
    assert dp.c.make_approximate_zCDP_to_approxDP(fixed(math.inf, 0.0), 0.5).map(1)[0] == math.inf
    assert dp.c.make_approximate_zCDP_to_approxDP(fixed(0.0, 0.0), 1e-6).map(1) == (0.0, 1e-6)
    assert dp.c.make_approximate_zCDP_to_approxDP(fixed(1.0, 0.1), 1e-6).map(0) == (0.0, 1e-6)
    for bad in (0.0, 1.0, -1e-3, math.nan):
        with pytest.raises(MakeError):
            dp.c.make_approximate_zCDP_to_approxDP(gaussian_keys(), bad)
    with pytest.raises(MakeTypeError):
        dp.c.make_approximate_zCDP_to_approxDP(gaussian_keys(), "0.1")
    with pytest.raises(MakeError, match="approximate_zero_concentrated"):
        dp.c.make_approximate_zCDP_to_approxDP(dp.c.make_pureDP_to_approxDP(
            ROWS >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)), 1e-6)


def test_the_cast_keeps_the_function_and_composes():
    keys = gaussian_keys(scale=4.0, threshold=30.0)
    cast = dp.c.make_approximate_zCDP_to_approxDP(keys, delta=1e-7)
    assert cast.output_measure == ApproximateDivergence() and cast.input_domain == keys.input_domain
    assert cast(["a"] * 2000 + ["b"]).keys() <= {"a", "b"}
    compositor = dp.c.make_sequential_composition(*ROWS, dp.approximate_divergence(), 1, (5.0, 1e-5))
    queryable = compositor(["a"] * 2000 + ["b"])
    assert "a" in queryable(cast, cast.map(1))       # 2000 + N(0, 16) >= 30: always
    with pytest.raises(MeasureMismatch, match="make_approximate_zCDP_to_approxDP"):
        queryable(keys, keys.map(1))


@pytest.mark.parametrize("measure, budget", [(dp.max_divergence(), 1.0), (dp.zero_concentrated_divergence(), 1.0)])
def test_a_budget_without_delta_refuses_key_discovery(measure, budget):
    laplace_keys = ROWS >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=1.0, threshold=20.0)
    queryable = dp.c.make_sequential_composition(*ROWS, measure, 1, budget)(["a", "b"])
    for query in (laplace_keys, gaussian_keys()):
        with pytest.raises(MeasureMismatch, match="needs a delta"):
            queryable(query, query.map(1))
    assert queryable.queries == 0                     # refused before the data: nothing charged
