"""make_count_by_key on Spark frames and parts: the counts of str, int and float key columns
equal the brute-force counts (-0.0 and 0.0 one key, keys in increasing order) in one Spark job,
and a grouped key discovery (truncation per group, counts, thresholded noisy counts) runs on
Spark.  Deterministic apart from the release's noise, which the last test does not inspect."""
import pytest

import opendp_duff as dp
from opendp_duff.metrics import PartitionBound
from opendp_duff.metrics_id import symmetric_id_distance

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

COLUMNS = {"k": dp.atom_domain(T=float), "s": dp.atom_domain(T=str), "i": dp.atom_domain(T=int)}
DOMAIN = dp.dataframe_domain(COLUMNS, engine="spark")
ROWS = [(0.0, "b", 3), (-0.0, "a", 1), (1.5, "b", 3), (1.5, "é", 3), (2.0, "a", -2), (-3.25, "", 2 ** 62)]


def brute_force(index):
    out = {}
    for row in ROWS:
        key = row[index] + 0.0 if isinstance(row[index], float) else row[index]
        out[key] = out.get(key, 0) + 1
    return {key: out[key] for key in sorted(out)}


@pytest.mark.parametrize("index, by", [(0, "k"), (1, "s"), (2, "i")])
def test_counts_equal_the_brute_force_in_one_job(spark, index, by):
    df = spark.createDataFrame(ROWS, "k double, s string, i long")
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_count_by_key(by=by)
    got = t(df)
    assert got == brute_force(index) and list(got) == list(brute_force(index)) and t.output_domain.member(got)
    assert all(type(k) is COLUMNS[by].T for k in got) and all(type(c) is int for c in got.values())


def test_parts_and_a_grouped_key_discovery(spark):
    df = spark.createDataFrame(ROWS, "k double, s string, i long")
    parts = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by("s", keys=["a", "b", "z"])
    inner = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_count_by_key(by="i")
    assert [inner(p) for p in parts(df)] == [{-2: 1, 1: 1}, {3: 2}, {}]
    discover = ((DOMAIN, symmetric_id_distance("i"))
                >> dp.t.then_truncate_per_group("s", max_groups=1, contributions=1, key=bytes(16))
                >> dp.t.then_count_by_key(by="s") >> dp.m.then_threshold_keys(scale=1.0, threshold=1e6))
    assert discover.map(1)[0] == 1.0 and discover.map(1)[1] < 1e-300
    assert discover(df) == {}                                  # every count is tiny next to the threshold
    counts = (DOMAIN, symmetric_id_distance("i")) >> dp.t.then_truncate_per_group(
        "s", max_groups=1, contributions=1, key=bytes(16)) >> dp.t.then_count_by_key(by="s")
    assert counts.map(1) == PartitionBound(1, 1, 1) and sum(counts(df).values()) == 4   # four persons
