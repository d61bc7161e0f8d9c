"""make_sort: the clamp >> sort >> count chain, its output domain and maps."""
import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


def test_clamp_sort_count_functions_and_maps():
    space = FLOATS, dp.symmetric_distance()
    t = space >> dp.t.then_clamp(bounds=(-1.0, 1.0)) >> dp.t.then_sort()
    assert t([3.0, -5.0, 0.25]).tolist() == [-1.0, 0.25, 1.0]
    assert t.output_domain.sorted and t.output_domain.element_domain.bounds == (-1.0, 1.0)
    assert t.map(4) == 4
    count = space >> dp.t.then_count()
    assert count([]) == 0 and count.map(3) == 3
