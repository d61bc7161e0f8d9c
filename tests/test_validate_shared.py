"""The shared validators of public parameters: trim counts, finite widths, the 2^53 integer
bound, and numbers too large for a float."""
import math
from fractions import Fraction

import pytest

from opendp_duff import _validate as v
from opendp_duff.errors import MakeError, MakeTypeError


@pytest.mark.parametrize("m,n", [(0, 1), (0, 2), (1, 3), (4, 9), (4, 10)])
def test_trim_count_accepts_while_a_record_remains(m, n):
    assert v.trim_count("m", m, n) == m


@pytest.mark.parametrize("m,n,error", [(1, 2, MakeError), (5, 10, MakeError), (-1, 5, MakeError),
                                       (1.5, 5, MakeTypeError), (True, 5, MakeTypeError), ("1", 5, MakeTypeError)])
def test_trim_count_refuses(m, n, error):
    with pytest.raises(error, match="m"):
        v.trim_count("m", m, n)


def test_finite_width_rounds_up_and_refuses_infinity():
    assert v.finite_width("bounds", (0.0, 1.0)) == 1.0
    w = v.finite_width("bounds", (-0.1, 0.2))
    exact = Fraction(0.2) - Fraction(-0.1)
    assert Fraction(w) >= exact > Fraction(math.nextafter(w, 0))   # the smallest float above
    with pytest.raises(MakeError, match="finite width"):
        v.finite_width("bounds", (-1e308, 1e308))


@pytest.mark.parametrize("bounds", [(0, 2 ** 53), (-(2 ** 53), 0), (-5, 5)])
def test_exact_int_bounds_accepts(bounds):
    v.exact_int_bounds("input_domain", "dom", int, bounds)
    v.exact_int_bounds("input_domain", "dom", float, None)   # floats are exact already


@pytest.mark.parametrize("bounds", [None, (0, 2 ** 53 + 1), (-(2 ** 60), 0)])
def test_exact_int_bounds_refuses(bounds):
    with pytest.raises(MakeError, match="2\\^53"):
        v.exact_int_bounds("input_domain", "dom", int, bounds)


def test_a_number_too_large_for_a_float_is_a_make_error_with_a_short_message():
    with pytest.raises(MakeError, match="too large") as info:
        v.number("scale", 10 ** 400)
    assert len(str(info.value)) < 120
    with pytest.raises(MakeError):
        v.number("scale", 10 ** 5000)
