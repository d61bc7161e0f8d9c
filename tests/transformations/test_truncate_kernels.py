"""The truncation kernels (pandas; Polars eager and lazy) against the definition, by brute force:
each keeps, per person (and per kept group), the rows first in the order (hash, canonical
content), with the groups first in the order (group hash, group value).  Hashes are read from
the kernels themselves, then forced to collide, so that ties between different contents go
through the content order.  Also: equal values hash equally whatever their spelling (-0.0,
NaN, null, dtype), strings that UTF-8 cannot encode, working column names.  Deterministic."""
import math

import numpy as np
import pytest

from helpers import canonical_rows, reference_truncation
from opendp_duff.transformations import _truncate_kernels as kernels
from opendp_duff.transformations._truncate_kernels import (Truncation, kept_positions, pandas_hashes, polars_hashed,
                                                           temp_columns, truncate_local)

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

KEY = bytes(range(16))
TYPES = {"id": int, "v": float, "s": str}
FLOATS = [0.0, -0.0, 1.5, math.nan, None, 2.0, -3.0]
STRINGS = ["a", "b", "é", ""]


def spec(k=2, by=(), g=None, key=KEY, types=TYPES):
    return Truncation("id", tuple(types.items()), k, key, tuple(by), g)


def random_columns(rng, n, n_ids=5):
    return {"id": [int(i) for i in rng.integers(0, n_ids, size=n)],
            "v": [FLOATS[i] for i in rng.integers(0, len(FLOATS), size=n)],
            "s": [STRINGS[i] for i in rng.integers(0, len(STRINGS), size=n)]}


def frame_rows(frame, types=TYPES):
    columns = frame.to_dict(as_series=False) if isinstance(frame, pl.DataFrame) else frame.to_dict("list")
    return canonical_rows(columns, types)


def by_indexes(by, types=TYPES):
    names = sorted(types)
    return tuple(names.index(b) for b in by)


def expected(columns, s, row_hash, group_hash):
    rows = canonical_rows(columns, TYPES)
    return reference_truncation(rows, [int(h) for h in row_hash], sorted(TYPES).index("id"), s.contributions,
                                None if group_hash is None else [int(h) for h in group_hash],
                                by_indexes(s.by), s.max_groups)


def polars_hashes(columns, s):
    tmp = temp_columns(s)
    out = polars_hashed(pl.DataFrame(columns), s).collect()
    return out[tmp.row_hash].to_list(), (out[tmp.group_hash].to_list() if s.by else None)


SPECS = [spec(1), spec(2), spec(5), spec(1, ["s"], 1), spec(2, ["s"], 2), spec(2, ["v", "s"], 1), spec(3, ["v"], 3)]


def show(s):
    return f"k{s.contributions}" + (f"-by{'+'.join(s.by)}-g{s.max_groups}" if s.by else "")


@pytest.mark.parametrize("s", SPECS, ids=show)
def test_pandas_kernel_keeps_what_the_definition_keeps(s):
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 40):
        columns = random_columns(rng, n)
        df = pd.DataFrame(columns)
        _, row_hash, group_hash = pandas_hashes(df, s)
        got = frame_rows(truncate_local(df, s))
        assert sorted(got) == sorted(expected(columns, s, row_hash, group_hash).elements())


@pytest.mark.parametrize("s", SPECS, ids=show)
def test_polars_kernel_keeps_what_the_definition_keeps_eager_and_lazy(s):
    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 40):
        columns = random_columns(rng, n)
        want = sorted(expected(columns, s, *polars_hashes(columns, s)).elements())
        eager = truncate_local(pl.DataFrame(columns), s)
        lazy = truncate_local(pl.DataFrame(columns).lazy(), s)
        assert isinstance(eager, pl.DataFrame) and isinstance(lazy, pl.LazyFrame)
        assert sorted(frame_rows(eager)) == want == sorted(frame_rows(lazy.collect()))
        assert eager.columns == list(TYPES)


@pytest.mark.parametrize("s", SPECS, ids=show)
def test_colliding_hashes_are_ordered_by_content(s, monkeypatch):
    """Every row and group hash forced to 0: the kernels keep the smallest contents."""
    rng = np.random.default_rng(4)
    original_pandas, original_polars = kernels.pandas_hashes, kernels.polars_hashed
    tmp = temp_columns(s)

    def zero_pandas(df, s):
        canon, row_hash, group_hash = original_pandas(df, s)
        return canon, np.zeros_like(row_hash), None if group_hash is None else np.zeros_like(group_hash)

    def zero_polars(frame, s):
        zeros = [pl.lit(0, dtype=pl.UInt64).alias(c) for c in (tmp.row_hash, tmp.group_hash)[:1 + bool(s.by)]]
        return original_polars(frame, s).with_columns(*zeros)

    monkeypatch.setattr(kernels, "pandas_hashes", zero_pandas)
    monkeypatch.setattr(kernels, "polars_hashed", zero_polars)
    for n in (5, 40):
        columns = random_columns(rng, n, n_ids=2)
        want = sorted(expected(columns, s, [0] * n, [0] * n if s.by else None).elements())
        assert sorted(frame_rows(truncate_local(pd.DataFrame(columns), s))) == want
        assert sorted(frame_rows(truncate_local(pl.DataFrame(columns), s))) == want


@pytest.mark.parametrize("key", [b"\xff" * 16, b"\x80" * 8 + b"\x7f" * 8, bytes(16)])
def test_every_key_works_top_bits_included(key):
    """Seeds and SipHash words at and above 2^63 are taken as unsigned 64-bit integers."""
    rng = np.random.default_rng(9)
    for s in (spec(2, key=key), spec(1, ["s"], 1, key=key)):
        columns = random_columns(rng, 30)
        _, row_hash, group_hash = pandas_hashes(pd.DataFrame(columns), s)
        assert sorted(frame_rows(truncate_local(pd.DataFrame(columns), s))) == sorted(
            expected(columns, s, row_hash, group_hash).elements())
        want = sorted(expected(columns, s, *polars_hashes(columns, s)).elements())
        assert sorted(frame_rows(truncate_local(pl.DataFrame(columns), s))) == want


def brute_kept(ids, row_hash, content, k, groups=(), group_hash=None, g=None):
    people = {}
    for i in range(len(ids)):
        group = tuple(c[i] for c in groups)
        gkey = (group_hash[i], group) if group_hash is not None else ()
        people.setdefault(ids[i], {}).setdefault(gkey, []).append(((row_hash[i], *(c[i] for c in content)), i))
    kept = []
    for person in people.values():
        for gkey in sorted(person)[:g] if group_hash is not None else person:
            kept += [i for _, i in sorted(person[gkey])[:k]]
    return kept


def test_kept_positions_against_brute_force_with_many_ties():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(0, 30))
        ids, h, gh = (rng.integers(0, 3, size=n) for _ in range(3))
        content = [rng.integers(0, 3, size=n), rng.integers(0, 2, size=n)]
        groups = [rng.integers(0, 3, size=n)]
        gh = (ids * 7 + groups[0] * 3) % 4                 # a function of (person, group), with collisions
        k, g = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        got = kept_positions(ids, h, content, k)
        assert _multiset(ids, h, content, got) == _multiset(ids, h, content, brute_kept(ids, h, content, k))
        got = kept_positions(ids, h, content, k, groups, gh, g)
        want = brute_kept(ids, h, content, k, groups, gh, g)
        assert _multiset(ids, h, content, got, groups) == _multiset(ids, h, content, want, groups)
        assert list(got) == sorted(got)


def _multiset(ids, h, content, positions, groups=()):
    return sorted((ids[i], h[i], *(c[i] for c in (*content, *groups))) for i in positions)


def test_equal_values_hash_equally_whatever_their_spelling():
    s = spec(1, ["v"], 1)
    a = {"id": [1, 1, 1, 1], "v": [-0.0, math.nan, 2.0, 1.0], "s": ["x", "x", "x", "x"]}
    b = {"id": [1, 1, 1, 1], "v": [0.0, None, 2.0, 1.0], "s": ["x", "x", "x", "x"]}
    frames_a = [pd.DataFrame(a), pd.DataFrame(a).astype({"id": "int32"})]
    frames_b = [pd.DataFrame(b), pd.DataFrame(b).astype({"id": "Int64"})]
    hashes = [pandas_hashes(f, s)[1:] for f in frames_a + frames_b]
    for row_hash, group_hash in hashes[1:]:
        assert np.array_equal(row_hash, hashes[0][0]) and np.array_equal(group_hash, hashes[0][1])
    pa, pb = polars_hashes(a, s), polars_hashes(b, s)
    assert pa == pb == polars_hashes(pl.DataFrame(b).with_columns(pl.col("id").cast(pl.Int32)).to_dict(
        as_series=False), s)
    weird_nan = np.array([0x7FF8000000000001, 0xFFF8000000000000], dtype=np.uint64).view(np.float64)
    c = pandas_hashes(pd.DataFrame({"id": [1, 1], "v": weird_nan, "s": ["x", "x"]}), s)[1]
    assert c[0] == c[1] == hashes[0][0][1]                # NaNs of any payload or sign: one value
    ints = pd.DataFrame({"id": [1, 1], "v": np.array([2, 1], dtype=np.int64), "s": ["x", "x"]})
    assert np.array_equal(pandas_hashes(ints, s)[1], hashes[0][0][2:])   # 2 and 2.0 in a float column


def test_hashes_depend_on_the_key():
    columns = random_columns(np.random.default_rng(6), 20)
    s1, s2 = spec(1, ["s"], 1), spec(1, ["s"], 1, key=bytes(16))
    for one, two in ((pandas_hashes(pd.DataFrame(columns), s1)[1:], pandas_hashes(pd.DataFrame(columns), s2)[1:]),
                     (polars_hashes(columns, s1), polars_hashes(columns, s2))):
        assert not np.array_equal(one[0], two[0]) and not np.array_equal(one[1], two[1])


def test_strings_that_utf8_cannot_encode_are_hashed():
    df = pd.DataFrame({"id": ["\ud800", "\ud800", "a"], "v": [1.0, 2.0, 3.0], "s": ["\udfff", "b", "c"]})
    out = truncate_local(df, spec(1, types={"id": str, "v": float, "s": str}))
    assert sorted(out["id"]) == ["a", "\ud800"]


def test_working_columns_never_collide_with_declared_ones():
    types = {"id": int, "__truncate_0": float, "__truncate_row_hash": str}
    s = spec(1, ["__truncate_row_hash"], 1, types=types)
    tmp = temp_columns(s)
    assert not {*tmp.canonical.values(), tmp.row_hash, tmp.group_hash} & set(types)
    columns = {"id": [1, 1, 2], "__truncate_0": [1.0, 2.0, 3.0], "__truncate_row_hash": ["a", "a", "b"]}
    for frame in (pd.DataFrame(columns), pl.DataFrame(columns)):
        out = truncate_local(frame, s)
        assert list(out.columns) == list(types) and len(out) == 2


def test_undeclared_columns_are_dropped_and_index_reset():
    columns = {"s": ["a", "b"], "extra": [1, 2], "v": [1.0, 2.0], "id": [1, 2]}
    out = truncate_local(pd.DataFrame(columns, index=[10, 20]), spec(1))
    assert list(out.columns) == ["id", "v", "s"] and list(out.index) == [0, 1]
    assert list(truncate_local(pl.DataFrame(columns), spec(1)).columns) == ["id", "v", "s"]
