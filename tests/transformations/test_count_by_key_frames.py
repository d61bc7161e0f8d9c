"""make_count_by_key on frames: the counts of a key column on pandas, Polars eager and lazy, and
parts of a partition equal those of the column as a vector (str, int and float keys, -0.0 read
as 0.0, in key order); the map under the symmetric and grouped distances, checked on random
neighbours by brute force; the spaces it refuses.  Deterministic (Spark: test_count_by_key_spark.py)."""
import numpy as np
import pytest

import opendp_duff as dp
from helpers import grouped_distance
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.map_domain import count_map_domain
from opendp_duff.metrics import PartitionBound
from opendp_duff.metrics_id import grouped_symmetric_distance, symmetric_id_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

COLUMNS = {"k": dp.atom_domain(T=float), "s": dp.atom_domain(T=str), "i": dp.atom_domain(T=int),
           "v": dp.atom_domain(T=float, nan=True)}
DOMAIN = dp.dataframe_domain(COLUMNS)
DATA = {"k": [0.0, -0.0, 1.5, 1.5, 2.0, -3.25], "s": ["b", "a", "b", "é", "a", ""], "i": [3, 1, 3, 3, -2, 2 ** 62],
        "v": [1.0, float("nan"), 2.0, 3.0, 4.0, 5.0]}


def frames(data):
    return [pd.DataFrame(data), pl.DataFrame(data), pl.DataFrame(data).lazy()]


def counts_by_brute_force(values):
    out = {}
    for x in values:
        x = x + 0.0 if isinstance(x, float) else x
        out[x] = out.get(x, 0) + 1
    return {key: out[key] for key in sorted(out)}


@pytest.mark.parametrize("by", ["k", "s", "i"])
def test_counts_of_a_key_column_on_every_local_engine(by):
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_count_by_key(by=by)
    assert t.output_domain == count_map_domain(COLUMNS[by].T)
    want = counts_by_brute_force(DATA[by])
    vector = (dp.vector_domain(COLUMNS[by]), dp.symmetric_distance()) >> dp.t.then_count_by_key()
    assert vector(DATA[by]) == want
    for frame in frames(DATA):
        got = t(frame)
        assert got == want and list(got) == list(want) and t.output_domain.member(got)
    assert t.map(3) == PartitionBound(3, 3, 3) and t.map(0) == PartitionBound(0, 0, 0)


def test_empty_frames_and_parts():
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_count_by_key(by="s")
    assert t(pd.DataFrame({name: pd.Series([], dtype=object if name == "s" else float if name != "i" else int)
                           for name in COLUMNS})) == {}
    parts = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by("s", keys=["a", "b", "z"])
    inner = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_count_by_key(by="k")
    for frame in frames(DATA)[:2]:
        assert [inner(p) for p in parts(frame)] == [{-0.0: 1, 2.0: 1}, {0.0: 1, 1.5: 1}, {}]


def test_the_grouped_map_on_truncated_neighbours():
    """Frames of persons truncated per group: the counts' (l0, l1, linf) is within the map of the
    grouped distance between the truncated frames, computed by brute force."""
    rng = np.random.default_rng(5)
    dom = dp.dataframe_domain({"user": dp.atom_domain(T=int), "product": dp.atom_domain(T=str)})
    trunc = (dom, symmetric_id_distance("user")) >> dp.t.then_truncate_per_group(
        "product", max_groups=2, contributions=2, key=bytes(16))
    t = trunc >> dp.t.then_count_by_key(by="product")
    assert t.map(1) == PartitionBound(2, 4, 2)
    count = (trunc.output_domain, trunc.output_metric) >> dp.t.then_count_by_key(by="product")
    for _ in range(40):
        rows = [(int(u), str(p)) for u, p in zip(rng.integers(0, 6, 15), rng.choice(list("abcd"), 15), strict=True)]
        gone = int(rng.integers(0, 6))
        other = [r for r in rows if r[0] != gone]                       # one person removed
        x, y = (trunc(pd.DataFrame(r, columns=["user", "product"])) for r in (rows, other))
        d = grouped_distance(list(x.itertuples(index=False)), list(y.itertuples(index=False)), [1])
        cx, cy = count(x), count(y)
        diffs = [abs(cx.get(k, 0) - cy.get(k, 0)) for k in set(cx) | set(cy)]
        got = (sum(1 for e in diffs if e), sum(diffs), max(diffs, default=0))
        assert all(a <= b for a, b in zip(got, count.map(d), strict=True))
        assert all(a <= b for a, b in zip(d, trunc.map(1), strict=True))


def test_refusals():
    with pytest.raises(MakeError, match="declared columns"):
        dp.t.make_count_by_key(DOMAIN, dp.symmetric_distance())
    with pytest.raises(MakeError, match="declared columns"):
        dp.t.make_count_by_key(DOMAIN, dp.symmetric_distance(), by="z")
    with pytest.raises(MakeError, match="NaN"):
        dp.t.make_count_by_key(DOMAIN, dp.symmetric_distance(), by="v")
    with pytest.raises(MakeError, match="groups"):
        dp.t.make_count_by_key(DOMAIN, grouped_symmetric_distance("i"), by="s")
    with pytest.raises(MakeTypeError):
        dp.t.make_count_by_key(DOMAIN, dp.change_one_distance(), by="s")
    with pytest.raises(MakeError, match="vector"):
        dp.t.make_count_by_key(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance(), by="s")
