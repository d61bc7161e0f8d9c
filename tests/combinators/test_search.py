"""binary_search_param: the smallest passing scale, the largest passing epsilon-like parameter,
integer parameters, and bounds that do not straddle the answer."""
import math

import pytest

import opendp_duff as dp

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)


def lap(scale):
    return dp.m.make_laplace(*ATOM, scale=scale)


def test_binary_search_smallest_scale():
    scale = dp.binary_search_param(lap, d_in=1.0, d_out=0.5)
    assert lap(scale).check(1.0, 0.5)
    assert not lap(math.nextafter(scale, 0)).check(1.0, 0.5)


def test_binary_search_largest_epsilon_like_parameter():
    # check passes for small parameters here: the search returns the largest passing one
    def make(inv):
        return lap(1.0 / inv) if inv > 0 else lap(math.inf)

    inv = dp.binary_search_param(make, d_in=1.0, d_out=0.25, bounds=(0.0, 10.0))
    assert make(inv).check(1.0, 0.25) and not make(math.nextafter(inv, 11)).check(1.0, 0.25)


def test_binary_search_integer_and_errors():
    def make(k):
        return dp.c.make_composition([lap(1.0)] * k)

    k = dp.binary_search_param(make, d_in=1.0, d_out=5.0, bounds=(1, 100), T=int)
    assert k == 5
    with pytest.raises(ValueError, match="straddle"):
        dp.binary_search_param(lap, 1.0, 0.5, bounds=(10.0, 20.0))
