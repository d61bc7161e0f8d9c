"""partition_distance and PartitionBound: validation of triples, the componentwise order that
check(d_in, d_out) relies on, and the inner metrics accepted."""
import pytest

import opendp_duff as dp
from opendp_duff.errors import MapError
from opendp_duff.metrics import PartitionBound

METRIC = dp.partition_distance(dp.symmetric_distance())


def test_validation():
    assert METRIC.validate_distance((1, 2, 3)) == PartitionBound(1, 2, 3)
    assert METRIC.validate_distance([0, 0, 0]) == (0, 0, 0)
    assert type(METRIC.validate_distance((1, 1.0, 1))[1]) is int
    for bad in (1, (1, 2), (1, 2, 3, 4), (-1, 0, 0), (1, 0.5, 1), (1, True, 1), (1, float("nan"), 1),
                (1, float("inf"), 1), "111", None):
        with pytest.raises(MapError):
            METRIC.validate_distance(bad)
    with pytest.raises(MapError, match="d_out"):
        METRIC.validate_distance((1,), "d_out")


def test_componentwise_order():
    a = PartitionBound(1, 2, 3)
    assert a >= (1, 2, 3) and a <= (1, 2, 3) and not a > (1, 2, 3) and not a < (1, 2, 3)
    assert a >= (0, 2, 3) and a > (0, 2, 3) and not a >= (2, 0, 0)          # lexicographic order would say yes
    assert not a <= (5, 1, 9) and not a >= (5, 1, 9)                         # incomparable
    assert a == (1, 2, 3) and hash(a) == hash((1, 2, 3))


def test_inner_metrics():
    assert dp.partition_distance(dp.change_one_distance()).inner == dp.change_one_distance()
    assert METRIC == dp.PartitionDistance(dp.symmetric_distance())
    for bad in (dp.absolute_distance(), dp.l1_distance(), None, "sym"):
        with pytest.raises(TypeError, match="inner"):
            dp.partition_distance(bad)
