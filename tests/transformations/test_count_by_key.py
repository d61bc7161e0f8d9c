"""make_count_by_key: counts per distinct value (str, int, float keys), in key order, independent of
the records' order; the stability map (exact, checked against the counts of random neighbours);
the spaces it refuses.  Nothing here is statistical."""
import math
from collections import Counter

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.map_domain import count_map_domain
from opendp_duff.metrics import PartitionBound, l01inf_distance


def space(T=str, size=None, metric=None):
    return dp.vector_domain(dp.atom_domain(T=T), size=size), metric or dp.symmetric_distance()


def distance(a, b):
    keys = set(a) | set(b)
    diffs = [abs(a.get(k, 0) - b.get(k, 0)) for k in keys]
    return sum(d > 0 for d in diffs), sum(diffs), max(diffs, default=0)


def test_counts_in_key_order_for_every_key_type():
    t = dp.t.make_count_by_key(*space())
    assert t(["b", "a", "b"]) == {"a": 1, "b": 2} and list(t(["b", "a"])) == ["a", "b"]
    assert dp.t.make_count_by_key(*space(int))([3, -1, 3]) == {-1: 1, 3: 2}
    out = dp.t.make_count_by_key(*space(float))([0.5, -0.0, 0.0, 2])
    assert out == {0.0: 2, 0.5: 1, 2.0: 1} and math.copysign(1, list(out)[0]) == 1
    assert t([]) == {} and t.output_domain == count_map_domain(str) and t.output_metric == l01inf_distance()
    assert all(type(v) is int for v in t(["a"]).values())


def test_order_of_records_does_not_matter():
    t = dp.t.make_count_by_key(*space(float))
    x = np.random.default_rng(0).integers(0, 5, 50).astype(float)
    assert t(x) == t(x[::-1]) and list(t(x)) == list(t(x[::-1]))


@pytest.mark.parametrize("T", [str, int, float])
def test_stability_on_random_neighbours(T):
    rng = np.random.default_rng(1)
    t = dp.t.make_count_by_key(*space(T))
    pool = ["a", "b", "c", "d"] if T is str else [0, 1, 2, 3]
    for _ in range(50):
        x = list(rng.choice(pool, rng.integers(0, 12)))
        y = list(x)
        d = int(rng.integers(0, 4))
        for _ in range(d):
            if y and rng.random() < 0.5:
                y.pop(int(rng.integers(0, len(y))))
            else:
                y.append(rng.choice(pool))
        x = [T(v) for v in x]
        y = [T(v) for v in y]
        d_in = sum((Counter(x) - Counter(y)).values()) + sum((Counter(y) - Counter(x)).values())
        assert PartitionBound(*distance(t(x), t(y))) <= t.map(d_in)


def test_maps():
    assert dp.t.make_count_by_key(*space()).map(3) == PartitionBound(3, 3, 3)
    assert dp.t.make_count_by_key(*space(size=5, metric=dp.change_one_distance())).map(2) == PartitionBound(4, 4, 2)
    assert dp.t.make_count_by_key(*space()).map(0) == PartitionBound(0, 0, 0)


def test_change_one_stability_is_exact():
    t = dp.t.make_count_by_key(*space(size=3, metric=dp.change_one_distance()))
    assert PartitionBound(*distance(t(["a", "a", "b"]), t(["c", "a", "b"]))) == PartitionBound(2, 2, 1) <= t.map(1)


def test_refused_spaces():
    with pytest.raises(ValueError):
        dp.t.make_count_by_key(dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance())
    with pytest.raises(TypeError):
        dp.t.make_count_by_key(dp.atom_domain(T=float), dp.absolute_distance())
    with pytest.raises(ValueError):
        dp.t.make_count_by_key(dp.vector_domain(dp.atom_domain(T=str)), dp.change_one_distance())
