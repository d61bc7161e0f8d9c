"""make_partition_by on pandas and Polars frames: the parts against a direct grouping (string,
int and float keys, rows with no key dropped, empty parts for absent keys, row order kept),
the partition distance of neighbouring frames by brute force against the map, the three
widths of the radix codes, and bad parameters."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines._frames import group_rows

from helpers import multiset_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

SYM = dp.symmetric_distance()
LIBS = ["pandas", "polars"]


def frame(lib, cols):
    return pd.DataFrame(cols) if lib == "pandas" else pl.DataFrame(cols)


def rows_of(part, names):
    cols = [np.asarray(part[n]).tolist() for n in names]
    return list(zip(*cols, strict=True)) if cols and cols[0] else []


def direct_parts(keys_column, values, keys):
    return [[(k, v) for k, v in zip(keys_column, values, strict=True) if k == key] for key in keys]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("T", [str, int, float])
def test_parts_match_a_direct_grouping(lib, T):
    rng = np.random.default_rng({str: 1, int: 2, float: 3}[T])
    pool = {str: ["N", "S", "E", "W", "N\x00", ""], int: [3, -1, 7, 0, 2 ** 40, 5],
            float: [0.5, -2.0, 1e300, 0.0, 3.25, 7.0]}[T]
    keys = pool[:4] + ([9.75] if T is float else [99] if T is int else ["absent"])
    n = 400
    by = [pool[i] for i in rng.integers(0, len(pool), n)]
    vals = rng.normal(size=n).tolist()
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=T), "v": dp.atom_domain(T=float)})
    t = (dom, SYM) >> dp.t.then_partition_by("k", keys=keys)
    parts = t(frame(lib, {"k": by, "v": vals}))
    assert len(parts) == len(keys) and t.output_domain.member(parts)
    want = direct_parts(by, vals, keys)
    for part, expected in zip(parts, want, strict=True):
        assert rows_of(part, ["k", "v"]) == expected          # rows, in their order in the frame
    assert len(rows_of(parts[-1], ["k", "v"])) == 0           # a key absent from the data: an empty part


@pytest.mark.parametrize("lib", LIBS)
def test_float_keys_compare_as_values(lib):
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=float, nan=True), "v": dp.atom_domain(T=int)})
    t = (dom, SYM) >> dp.t.then_partition_by("k", keys=[-0.0, 1.0])
    parts = t(frame(lib, {"k": [0.0, -0.0, math.nan, 1.0, 2.0], "v": [1, 2, 3, 4, 5]}))
    assert [np.asarray(p["v"]).tolist() for p in parts] == [[1, 2], [4]]     # NaN and 2.0: no key


@pytest.mark.parametrize("lib", LIBS)
def test_parts_keep_the_declared_columns_only(lib):
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})
    parts = ((dom, SYM) >> dp.t.then_partition_by("k", keys=["a"]))(
        frame(lib, {"secret": [1, 2], "v": [1.0, 2.0], "k": ["a", "b"]}))
    assert list(parts[0].columns) == ["k", "v"]


@pytest.mark.parametrize("lib", LIBS)
def test_empty_frame_gives_empty_parts(lib):
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=int), "v": dp.atom_domain(T=float)})
    empty = pd.DataFrame({"k": np.array([], dtype=np.int64), "v": np.array([], dtype=np.float64)}) \
        if lib == "pandas" else pl.DataFrame({"k": [], "v": []}, schema={"k": pl.Int64, "v": pl.Float64})
    parts = ((dom, SYM) >> dp.t.then_partition_by("k", keys=[1, 2]))(empty)
    assert [len(p) for p in parts] == [0, 0]


def partition_distance(parts_a, parts_b):
    ds = [multiset_distance(rows_of(a, ["k", "v"]), rows_of(b, ["k", "v"]), change_one=False)
          for a, b in zip(parts_a, parts_b, strict=True)]
    return (sum(1 for d in ds if d > 0), sum(ds), max(ds))


@pytest.mark.parametrize("lib", LIBS)
def test_neighbouring_frames_give_partitions_within_the_map(lib):
    rng = np.random.default_rng(5)
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=str), "v": dp.atom_domain(T=int)})
    keys = ["a", "b", "c"]
    t = (dom, SYM) >> dp.t.then_partition_by("k", keys=keys)
    attained = set()
    for _ in range(150):
        rows = [(str(rng.choice(["a", "b", "c", "z"])), int(rng.integers(0, 3))) for _ in range(rng.integers(0, 8))]
        other = list(rows)
        for _ in range(int(rng.integers(0, 4))):
            if other and rng.random() < 0.5:
                del other[int(rng.integers(len(other)))]
            else:
                other.append((str(rng.choice(["a", "b", "c", "z"])), int(rng.integers(0, 3))))
        d = multiset_distance(rows, other, change_one=False)
        fa = frame(lib, {"k": [r[0] for r in rows], "v": [r[1] for r in rows]})
        fb = frame(lib, {"k": [r[0] for r in other], "v": [r[1] for r in other]})
        if lib == "polars":
            fa, fb = (f.cast({"k": pl.String, "v": pl.Int64}) for f in (fa, fb))
        got = partition_distance(t(fa), t(fb))
        assert t.map(d) >= got and t.map(d) == (d, d, d)
        attained.add(got == (d, d, d))
    assert True in attained           # the bound is attained (one row moved, one part)


@pytest.mark.parametrize("k", [3, 300, 70_000])
def test_group_rows_for_every_code_width(k):
    rng = np.random.default_rng(k)
    codes = rng.integers(0, k + 1, 5000)
    order, starts = group_rows(codes, k)
    assert len(starts) == k + 1 and starts[-1] == int((codes < k).sum())
    for j in rng.integers(0, k, 20).tolist() + [0, k - 1]:
        assert order[starts[j]:starts[j + 1]].tolist() == np.flatnonzero(codes == j).tolist()


def test_partition_by_many_int_keys():
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=int)})
    keys = list(range(0, 600, 2))
    parts = ((dom, SYM) >> dp.t.then_partition_by("k", keys=keys))(pd.DataFrame({"k": np.arange(600)}))
    assert [np.asarray(p["k"]).tolist() for p in parts] == [[k] for k in keys]


DOM = dp.dataframe_domain({"k": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})


@pytest.mark.parametrize("by,keys,match", [
    ("nope", ["a"], "by"), (None, ["a"], "by"), ("k", [], "keys"), ("k", ["a", "a"], "keys"),
    ("k", ["a", 1], r"keys\[1\]"), ("v", ["a"], r"keys\[0\]"), ("v", [math.nan], r"keys\[0\]"), ("k", "ab", "keys"),
])
def test_bad_parameters_name_themselves(by, keys, match):
    with pytest.raises((TypeError, ValueError), match=match):
        dp.t.make_partition_by(DOM, SYM, by, keys)


def test_only_the_symmetric_distance_and_frames():
    with pytest.raises(TypeError, match="input_metric"):
        dp.t.make_partition_by(dp.dataframe_domain(DOM.columns, size=3), dp.change_one_distance(), "k", ["a"])
    with pytest.raises(TypeError, match="input_domain"):
        dp.t.make_partition_by(dp.vector_domain(dp.atom_domain(T=str)), SYM, "k", ["a"])


def test_output_space():
    t = dp.t.make_partition_by(DOM, SYM, "k", ("a", "b"))
    assert t.output_domain == dp.PartitionDomain(dp.dataframe_domain(DOM.columns), keys=("a", "b"))
    assert t.output_metric == dp.partition_distance(SYM) and t.map(0) == (0, 0, 0)
    assert t.check(2, (2, 2, 2)) and not t.check(2, (2, 1, 2)) and t.check(1, (5, 5, 5))
