"""make_int_to_float: integer records become the floats of the same value, exactly, up to 2^53 in
magnitude (compared with exact integers); bounds beyond 2^53, unbounded or non-integer domains
refused; size and order kept; map d -> d under both dataset metrics."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp

E = 2 ** 53
INTS = dp.vector_domain(dp.atom_domain(T=int, bounds=(-E, E)))


def test_every_integer_up_to_two_to_the_53_is_cast_exactly():
    t = dp.t.make_int_to_float(INTS, dp.symmetric_distance())
    values = [0, 1, -1, 3, E, -E, E - 1, -(E - 1), 2 ** 52 + 1, 123456789012345]
    out = t(values)
    assert out.dtype == np.float64
    assert [Fraction(v) for v in out.tolist()] == [Fraction(v) for v in values]
    assert t.output_domain == dp.vector_domain(dp.atom_domain(T=float, bounds=(-float(E), float(E))))
    assert t.map(3) == 3 and t.map(0) == 0


def test_size_order_and_the_change_one_distance_are_kept():
    sized = dp.vector_domain(dp.atom_domain(T=int, bounds=(0, 10)), size=3)
    t = (sized, dp.change_one_distance()) >> dp.t.then_sort() >> dp.t.then_int_to_float()
    assert t.output_domain.size == 3 and t.output_domain.sorted and t.output_metric == dp.change_one_distance()
    assert t([9, 0, 4]).tolist() == [0.0, 4.0, 9.0] and t.map(2) == 2


@pytest.mark.parametrize("domain,message", [
    (dp.vector_domain(dp.atom_domain(T=int)), "bounded"),
    (dp.vector_domain(dp.atom_domain(T=int, bounds=(0, E + 1))), "2\\^53"),
    (dp.vector_domain(dp.atom_domain(T=int, bounds=(-E - 2, 0))), "2\\^53"),
    (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0))), "int"),
], ids=["unbounded", "above", "below", "floats"])
def test_domains_whose_values_are_not_all_exact_floats_are_refused(domain, message):
    with pytest.raises(dp.MakeError, match=message):
        dp.t.make_int_to_float(domain, dp.symmetric_distance())
