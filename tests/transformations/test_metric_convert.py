"""make_symmetric_to_change_one and make_change_one_to_symmetric: the maps (floor(d/2) and 2d),
their tightness on every pair of small multisets, chaining both ways, and refused spaces."""
import itertools

import pytest

import opendp_duff as dp
from helpers import multiset_distance


def _sized_space(metric, size=6):
    return dp.vector_domain(dp.atom_domain(T=float), size=size), metric


def test_symmetric_to_change_one_map_is_floor_half():
    t = dp.t.make_symmetric_to_change_one(*_sized_space(dp.symmetric_distance()))
    assert t.output_metric == dp.change_one_distance() and t.output_domain == t.input_domain
    assert [t.map(d) for d in range(7)] == [0, 0, 1, 1, 2, 2, 3]
    x = [3.0, 1.0, 2.0, 0.0, 5.0, 4.0]
    assert t._function(x) is x and t(x).tolist() == x   # __call__ passes the admitted array


def test_change_one_to_symmetric_map_is_double():
    t = dp.t.make_change_one_to_symmetric(*_sized_space(dp.change_one_distance()))
    assert t.output_metric == dp.symmetric_distance()
    assert [t.map(d) for d in range(4)] == [0, 2, 4, 6]


def test_metric_conversions_are_tight_on_brute_force_pairs():
    """Every pair of size-3 multisets over a small universe: the change-one distance (least
    substitutions) is exactly half the symmetric distance, so both maps are tight."""
    sym = dp.t.make_symmetric_to_change_one(*_sized_space(dp.symmetric_distance(), 3))
    c1 = dp.t.make_change_one_to_symmetric(*_sized_space(dp.change_one_distance(), 3))
    universe = (0.0, 1.0, 2.0, 3.0)
    sets = list(itertools.combinations_with_replacement(universe, 3))
    for x in sets:
        # least number of substitutions from x to every y, by breadth-first search
        d_c1 = {x: 0}
        frontier = [x]
        while frontier:
            nxt = []
            for y in frontier:
                for idx in range(3):
                    for u in universe:
                        z = tuple(sorted(y[:idx] + (u,) + y[idx + 1:]))
                        if z not in d_c1:
                            d_c1[z] = d_c1[y] + 1
                            nxt.append(z)
            frontier = nxt
        for y in sets:
            d_sym = multiset_distance(x, y, False)
            assert sym.map(d_sym) == d_c1[y] and c1.map(d_c1[y]) == d_sym
            assert sym.map(d_sym + 1) == d_c1[y]  # an odd bound admits no more


def test_metric_conversions_chain_both_ways():
    space = _sized_space(dp.symmetric_distance(), 11)
    chain = (space >> dp.t.then_symmetric_to_change_one() >> dp.t.then_clamp(bounds=(0.0, 1.0))
             >> dp.t.then_change_one_to_symmetric() >> dp.t.then_sort())
    assert chain.map(5) == 4 and chain.map(6) == 6
    assert chain.output_metric == dp.symmetric_distance()
    assert chain([0.5] * 11).tolist() == [0.5] * 11


def test_metric_conversions_refuse_bad_spaces():
    unsized = dp.vector_domain(dp.atom_domain(T=float))
    with pytest.raises(ValueError, match="size"):
        dp.t.make_symmetric_to_change_one(unsized, dp.symmetric_distance())
    with pytest.raises(ValueError, match="size"):
        dp.t.make_change_one_to_symmetric(unsized, dp.change_one_distance())
    with pytest.raises(ValueError, match="input_metric"):
        dp.t.make_symmetric_to_change_one(*_sized_space(dp.change_one_distance()))
    with pytest.raises(ValueError, match="input_metric"):
        dp.t.make_change_one_to_symmetric(*_sized_space(dp.symmetric_distance()))
    with pytest.raises(TypeError):
        dp.t.make_change_one_to_symmetric(dp.atom_domain(T=float), dp.change_one_distance())
