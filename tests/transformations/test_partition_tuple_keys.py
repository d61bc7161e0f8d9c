"""make_partition_by over several key columns on pandas, Polars eager and lazy, and parts split
again: part i holds exactly the rows whose tuple of values equals keys[i] (floats as values, -0.0
equal to 0.0), in their order, by brute force on seeded random frames; the grouped metric over the
same tuple of columns (the output of make_truncate_per_group) carries its triple; refusals (bad
keys) before any data; a Spark domain is split by several columns too (its parts are compared with
pandas' in tests/engines/spark/test_several_key_columns.py).  Deterministic."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.metrics import PartitionBound
from opendp_duff.metrics_id import grouped_symmetric_distance, symmetric_id_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

COLUMNS = {"carrier": dp.atom_domain(T=str), "origin": dp.atom_domain(T=str), "hour": dp.atom_domain(T=int),
           "delay": dp.atom_domain(T=float)}
DOMAIN = dp.dataframe_domain(COLUMNS)
CARRIERS, ORIGINS, HOURS, DELAYS = ["AA", "BA", "LH", "é"], ["JFK", "LHR", ""], [0, 1, 2 ** 62], [0.0, -0.0, 1.5]


def random_frame(rng, n):
    return {"carrier": list(rng.choice(CARRIERS, n)), "origin": list(rng.choice(ORIGINS, n)),
            "hour": [int(h) for h in rng.choice(HOURS, n)], "delay": [float(d) for d in rng.choice(DELAYS, n)]}


def engines(data):
    return {"pandas": pd.DataFrame(data), "polars": pl.DataFrame(data), "polars-lazy": pl.DataFrame(data).lazy()}


def expected_rows(data, by, key):
    n = len(data["carrier"])
    return [r for r in range(n) if all(data[b][r] == v for b, v in zip(by, key, strict=True))]   # -0.0 == 0.0


@pytest.mark.parametrize("by", [("carrier", "origin"), ("origin", "hour", "delay"), ("delay", "carrier")])
def test_parts_hold_exactly_the_rows_of_their_key_tuple(by):
    rng = np.random.default_rng(11)
    values = {"carrier": CARRIERS + ["ZZ"], "origin": ORIGINS, "hour": HOURS + [7], "delay": [0.0, 1.5, 9.0]}
    for n in (0, 1, 40):
        data = random_frame(rng, n)
        all_keys = list(dict.fromkeys(tuple(values[b][int(rng.integers(len(values[b])))] for b in by)
                                      for _ in range(12)))
        t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by(by, keys=all_keys)
        data["row"] = list(range(n))
        dom = dp.dataframe_domain({**COLUMNS, "row": dp.atom_domain(T=int)})
        t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by(list(by), keys=all_keys)
        for name, frame in engines(data).items():
            parts = t(frame)
            assert t.output_domain.member(parts), name
            got = [p.column("row").tolist() for p in parts]
            assert got == [expected_rows(data, by, key) for key in all_keys], name
        assert t.map(3) == PartitionBound(3, 3, 3)


def test_a_part_split_again_by_a_tuple():
    data = {"carrier": ["AA", "AA", "BA", "AA"], "origin": ["JFK", "LHR", "JFK", "JFK"], "hour": [1, 1, 2, 2],
            "delay": [1.0, 2.0, 3.0, 4.0]}
    first = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by("carrier", keys=["AA", "BA"])
    again = (first.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_partition_by(
        ("origin", "hour"), keys=[("JFK", 1), ("JFK", 2), ("LHR", 1)])
    for frame in engines(data).values():
        aa = first(frame)[0]
        assert [p.column("delay").tolist() for p in again(aa)] == [[1.0], [4.0], [2.0]]


def test_the_grouped_metric_over_a_tuple_of_columns():
    trunc = (DOMAIN, symmetric_id_distance("hour")) >> dp.t.then_truncate_per_group(
        ("carrier", "origin"), max_groups=2, contributions=3, key=bytes(16))
    parts = trunc >> dp.t.then_partition_by(("carrier", "origin"), keys=[("AA", "JFK"), ("BA", "LHR")])
    assert parts.map(1) == PartitionBound(2, 6, 3)
    with pytest.raises(MakeError, match="groups"):
        trunc >> dp.t.then_partition_by(("origin", "carrier"), keys=[("JFK", "AA")])
    with pytest.raises(MakeError, match="groups"):
        trunc >> dp.t.then_partition_by("carrier", keys=["AA"])
    one = (DOMAIN, grouped_symmetric_distance(["carrier"])) >> dp.t.then_partition_by(["carrier"], keys=["AA"])
    assert one.output_domain.keys == ("AA",) and one.map((1, 2, 2)) == PartitionBound(1, 2, 2)


@pytest.mark.parametrize("by, keys, error, words", [
    (("carrier", "origin"), [("AA",)], MakeTypeError, "tuple of 2"),
    (("carrier", "origin"), ["AA"], MakeTypeError, "tuple of 2"),
    (("carrier", "origin"), [("AA", "JFK"), ("AA", "JFK")], MakeError, "distinct"),
    (("carrier", "hour"), [("AA", 1.5)], MakeTypeError, "integer"),
    (("delay", "hour"), [(0.0, 1), (-0.0, 1)], MakeError, "distinct"),
    (("carrier", "origin"), [], MakeError, "empty"),
    (("carrier", "carrier"), [("AA", "AA")], MakeError, "distinct declared"),
    (("carrier", "nope"), [("AA", "AA")], MakeError, "declared"),
    ((), [()], MakeError, "declared"),
])
def test_bad_keys_are_refused(by, keys, error, words):
    with pytest.raises(error, match=words):
        dp.t.make_partition_by(DOMAIN, dp.symmetric_distance(), by, keys)


def test_spark_builds_a_partition_by_several_columns_with_the_same_map():
    split = dp.t.make_partition_by(DOMAIN.with_(engine="spark"), dp.symmetric_distance(), ("carrier", "origin"),
                                   [("AA", "JFK"), ("BA", "LHR")])
    assert split.output_domain.keys == (("AA", "JFK"), ("BA", "LHR")) and split.map(2) == PartitionBound(2, 2, 2)
