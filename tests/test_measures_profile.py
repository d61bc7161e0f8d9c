"""opendp_duff.measures: the privacy profile validates delta itself, and the measures compare and
add as documented (composition rounds up and caps delta at 1).  Deterministic."""
import math
from fractions import Fraction

import pytest

import opendp_duff as dp
from opendp_duff.errors import MapError
from opendp_duff.measures import PrivacyProfile


def gaussian_profile(scale=2.0):
    g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=scale)
    return dp.c.make_zCDP_to_approxDP(g).map(1.0)


def test_profile_epsilon_validates_delta():
    profile = gaussian_profile()
    assert profile.epsilon(1.5) == 0.0 and profile.epsilon(1) == 0.0 and profile.epsilon(math.inf) == 0.0
    assert profile.epsilon(0.0) == math.inf          # rho > 0: no finite epsilon at delta = 0
    assert profile.epsilon(1e-6) == profile(1e-6) > 0
    for bad in (-0.5, -1e-300, math.nan, -math.inf):
        with pytest.raises(MapError, match="delta"):
            profile.epsilon(bad)
    for bad in ("0.1", None, True):
        with pytest.raises(MapError, match="delta"):
            profile(bad)


def test_profile_never_reaches_the_curve_outside_its_domain():
    seen = []
    profile = PrivacyProfile(lambda delta: seen.append(delta) or 1.0, "recorder")
    assert profile(2.0) == 0.0 and profile(0.25) == 1.0
    with pytest.raises(MapError):
        profile(-0.25)
    assert seen == [0.25]


def test_measures_are_distinct_and_compose_upward():
    assert dp.max_divergence() == dp.max_divergence() != dp.zero_concentrated_divergence()
    assert repr(dp.zero_concentrated_divergence()) == "ZeroConcentratedDivergence()"
    parts = [0.1, 0.2, 0.7]
    total = dp.max_divergence().compose(parts)
    assert Fraction(total) >= sum(Fraction(p) for p in parts) > Fraction(math.nextafter(total, 0))
    assert dp.zero_concentrated_divergence().compose([]) == 0.0
    eps, delta = dp.approximate_divergence().compose([(1.0, 0.6), (2.0, 0.7)])
    assert (eps, delta) == (3.0, 1.0)
    with pytest.raises(ValueError, match="fixed delta"):
        dp.smoothed_max_divergence().ge(gaussian_profile(), gaussian_profile())
