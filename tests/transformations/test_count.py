"""make_count: the map under the change-one distance."""
import opendp_duff as dp


def test_count_under_change_one_is_constant():
    t = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=float), size=4), dp.change_one_distance())
    assert t.map(3) == 0
