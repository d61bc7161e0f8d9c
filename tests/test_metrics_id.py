"""symmetric_id_distance and grouped_symmetric_distance: validation of their parameters and of
distances, equality and repr; the brute-force distances of tests/helpers.py on examples that
spell the definitions out."""
import pytest

from helpers import canonical_rows, grouped_distance, id_distance
from opendp_duff.errors import MakeError, MapError
from opendp_duff.metrics import PartitionBound
from opendp_duff.metrics_id import (GroupedSymmetricDistance, SymmetricIdDistance, grouped_symmetric_distance,
                                    symmetric_id_distance)


def test_symmetric_id_distance_value_object():
    metric = symmetric_id_distance("user")
    assert metric == SymmetricIdDistance("user") and metric != symmetric_id_distance("other")
    assert hash(metric) == hash(SymmetricIdDistance("user"))
    assert repr(metric) == "SymmetricIdDistance(identifier='user')"
    assert metric.distance_type is int
    assert metric.validate_distance(3) == 3 and type(metric.validate_distance(2.0)) is int
    for bad in (-1, 0.5, float("nan"), float("inf"), True, "1", None, (1, 1, 1)):
        with pytest.raises(MapError):
            metric.validate_distance(bad)


def test_symmetric_id_distance_refuses_bad_identifiers():
    for bad in ("", 1, None, ("a",)):
        with pytest.raises(TypeError, match="identifier"):
            symmetric_id_distance(bad)
    with pytest.raises(TypeError, match="identifier"):
        SymmetricIdDistance(3)


def test_grouped_symmetric_distance_value_object():
    metric = grouped_symmetric_distance("airline")
    assert metric == grouped_symmetric_distance(["airline"]) == GroupedSymmetricDistance(("airline",))
    assert metric != grouped_symmetric_distance(("airline", "year"))
    assert repr(metric) == "GroupedSymmetricDistance(by=('airline',))"
    assert metric.validate_distance((1, 2, 2)) == PartitionBound(1, 2, 2)
    for bad in (1, (1, 2), (-1, 0, 0), (1, 0.5, 1), None):
        with pytest.raises(MapError):
            metric.validate_distance(bad)
    with pytest.raises(MapError, match="d_out"):
        metric.validate_distance((1,), "d_out")


@pytest.mark.parametrize("bad, error", [((), MakeError), (("a", "a"), MakeError), ("", TypeError),
                                        (("a", 1), TypeError), (3, TypeError), (None, TypeError)])
def test_grouped_symmetric_distance_refuses_bad_columns(bad, error):
    with pytest.raises(error, match="by"):
        grouped_symmetric_distance(bad)


TYPES = {"id": int, "v": float}


def rows(ids, values):
    return canonical_rows({"id": ids, "v": values}, TYPES)


def test_id_distance_counts_whole_persons():
    x = rows([1, 1, 2], [1.0, 2.0, 3.0])
    assert id_distance(x, x, 0) == 0
    assert id_distance(x, rows([1, 1, 2, 3, 3, 3], [1.0, 2.0, 3.0, 9.0, 9.0, 9.0]), 0) == 1   # one person added
    assert id_distance(x, rows([2], [3.0]), 0) == 1                        # one person and both rows removed
    assert id_distance(x, rows([1, 1, 2], [1.0, 5.0, 3.0]), 0) == 2        # one person's rows changed
    assert id_distance(x, rows([1, 2, 1], [2.0, 3.0, 1.0]), 0) == 0  # order does not matter
    assert id_distance(rows([1], [-0.0]), rows([1], [0.0]), 0) == 0         # -0.0 is 0.0
    assert id_distance(rows([1], [float("nan")]), rows([1], [None]), 0) == 0   # one missing value


def test_grouped_distance_counts_per_group():
    x = rows([1, 1, 2], [1.0, 2.0, 3.0])                 # groups: the value of v
    y = rows([1, 1, 2, 3, 3], [1.0, 2.0, 3.0, 1.0, 1.0])
    assert grouped_distance(x, x, (1,)) == (0, 0, 0)
    assert grouped_distance(x, y, (1,)) == (1, 2, 2)
    assert grouped_distance(x, rows([], []), (1,)) == (3, 3, 1)
