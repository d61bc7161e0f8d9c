"""The Polars engine's string key codes (PolarsEngine.string_codes, the first step of a split by a
string column): for String, Categorical and Enum key columns, for numbers of keys on both sides
of each width of Polars' Enum codes (8, 16 and 32 bits), with keys absent from the data, values
that are no key, and strings that differ only by a NUL or a combining accent, the code of every
row equals a Python dictionary's lookup of its value among the keys; a key Polars cannot hold (a
lone surrogate) codes no row and raises nothing, and a context refuses it before charging; a
Categorical column is coded alike through its table and through the cast; a split of eager and
lazy frames gives the same parts whatever the key column's type; a frame with a null key is
refused before the split.  No randomness: every check is exact."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines import engine_named
from opendp_duff.errors import NotAMemberTypeError

pl = pytest.importorskip("polars")

TRICKY = ["N", "N\x00", "", "e\u0301", "\u00e9", "\u65e5\u672c", "n"]
DTYPES = ["string", "categorical", "enum", "enum-of-the-keys"]


def reference(values, keys):
    index = {key: j for j, key in enumerate(keys)}
    return [index.get(v, len(keys)) for v in values]


def column(values, dtype, keys, pool):
    if dtype == "string":
        return pl.Series(values, dtype=pl.String)
    if dtype == "categorical":
        return pl.Series(values, dtype=pl.Categorical)
    # an Enum's categories in an order of their own: the pool reversed, or the keys reversed
    return pl.Series(values, dtype=pl.Enum(pool[::-1] if dtype == "enum" else keys[::-1]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [3, 255, 256, 300, pytest.param(70_000, marks=pytest.mark.slow)])
def test_codes_match_a_dictionary(dtype, k):
    rng = np.random.default_rng(k)
    pool = TRICKY + [f"v{i}" for i in range(k + 10)]
    keys = [pool[i] for i in rng.permutation(len(pool))[:k]]          # some of the pool: the rest is no key
    keys[-1] = "absent from the data"
    values = [pool[i] for i in rng.integers(0, len(pool), 2_000)] + TRICKY
    values = [v for v in values if v != keys[-1]]
    if dtype == "enum-of-the-keys":
        held = set(keys)
        values = [v for v in values if v in held]                      # an Enum holds its categories only
    df = pl.DataFrame({"g": column(values, dtype, keys, pool)})
    got = engine_named("polars").string_codes(df, "g", keys)
    assert got.tolist() == reference(values, keys)


@pytest.mark.parametrize("dtype", ["string", "categorical", "enum"])
def test_a_key_polars_cannot_hold_codes_no_row(dtype):
    keys = ["a", "\ud800", "b", "x\udfff"]               # lone surrogates: no UTF-8 string equals them
    values = ["b", "a", "c", "b"]
    df = pl.DataFrame({"g": column(values, dtype, keys, ["a", "b", "c"])})
    engine = engine_named("polars")
    assert engine.string_codes(df, "g", keys).tolist() == reference(values, keys) == [2, 0, 4, 2]
    assert engine.string_codes(df, "g", ["\ud800"]).tolist() == [1, 1, 1, 1]


def test_a_split_by_a_key_polars_cannot_hold_releases_an_empty_part():
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})
    t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a", "\ud800", "b"])
    parts = t(pl.DataFrame({"g": ["b", "a", "b"], "v": [1.0, 2.0, 3.0]}))
    assert [p.column("v").tolist() for p in parts] == [[2.0], [], [1.0, 3.0]]
    assert parts[2].column("g").tolist() == ["b", "b"]


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_the_split_is_the_same_whatever_the_key_columns_type(lazy):
    rng = np.random.default_rng(7)
    pool = TRICKY + ["S", "W"]
    keys = ["S", "e\u0301", "", "N", "absent"]
    values = [pool[i] for i in rng.integers(0, len(pool), 500)]
    v = rng.normal(size=500)
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})
    t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=keys)
    want = [[x for g, x in zip(values, v.tolist(), strict=True) if g == key] for key in keys]
    for dtype in ("string", "categorical", "enum"):
        df = pl.DataFrame({"g": column(values, dtype, keys, pool), "v": v})
        parts = t(df.lazy() if lazy else df)
        assert [p.column("v").tolist() for p in parts] == want, dtype
        assert [p.column("g").tolist() for p in parts] == [[key] * len(w) for key, w in zip(keys, want, strict=True)]


@pytest.mark.parametrize("dtype", ["string", "categorical", "enum"])
def test_a_null_key_is_refused_before_the_split(dtype):
    secret = "secret-key-value"
    kind = {"string": pl.String, "categorical": pl.Categorical, "enum": pl.Enum(["a", secret])}[dtype]
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})
    t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a"])
    with pytest.raises(NotAMemberTypeError) as info:
        t(pl.DataFrame({"g": pl.Series([secret, None], dtype=kind), "v": [1.0, 2.0]}))
    assert secret not in str(info.value)


def test_an_empty_enum_column_gives_empty_parts():
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "v": dp.atom_domain(T=float)})
    t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a", "b"])
    df = pl.DataFrame({"g": pl.Series([], dtype=pl.Enum(["b", "a"])), "v": pl.Series([], dtype=pl.Float64)})
    assert [len(p) for p in t(df)] == [0, 0]


def test_a_context_refuses_a_key_polars_cannot_hold_before_charging():
    ctx = dp.Context.compositor(data=pl.DataFrame({"g": ["a", "b"], "v": [1, 2]}),
                                privacy_unit=dp.unit_of(contributions=1), privacy_loss=dp.loss_of(epsilon=1.0))
    plan = dp.query().group_by("g", keys=["a", "\ud800"]).column("v").count()
    with pytest.raises(dp.MakeError, match="UTF-8"):
        ctx.release(plan, epsilon=0.5)
    assert ctx.remaining == 1.0
    assert ctx.release(dp.query().group_by("g", keys=["a", "zz"]).column("v").count(), epsilon=0.5)["g"].to_list() == \
        ["a", "zz"]


def test_a_context_refuses_a_tuple_key_component_polars_cannot_hold_before_charging():
    """Keys of several columns are checked column by column: a lone surrogate in one component,
    or a component outside an Enum column's categories, is refused before any charge."""
    df = pl.DataFrame({"g": ["a", "b"], "h": pl.Series(["x", "y"], dtype=pl.Enum(["x", "y"])), "v": [1, 2]})
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), privacy_loss=dp.loss_of(epsilon=1.0))
    for keys, words in (([("a", "x"), ("\ud800", "y")], "UTF-8"), ([("a", "x"), ("b", "z")], "Enum")):
        plan = dp.query().group_by(["g", "h"], keys=keys).column("v").count()
        with pytest.raises(dp.MakeError, match=words):
            ctx.release(plan, epsilon=0.5)
    assert ctx.remaining == 1.0
    out = ctx.release(dp.query().group_by(["g", "h"], keys=[("a", "x"), ("zz", "y")]).column("v").count(), epsilon=0.5)
    assert list(zip(out["g"].to_list(), out["h"].to_list(), strict=True)) == [("a", "x"), ("zz", "y")]


def test_a_categorical_column_codes_by_its_table_or_by_the_cast():
    """A Categorical column is coded through a table indexed by its physical codes when the largest
    is below 4 x rows + 2^16, else by the cast.  Polars' Categorical codes are global to the
    process: 10^5 distinct strings alive hold distinct codes, the largest at least 99,999, so a
    column of a few rows holding that string takes the cast, and that column repeated enough
    times the table.  Both agree with the dictionary."""
    others = pl.Series([f"other{i}" for i in range(100_000)], dtype=pl.Categorical)
    last = others.gather([others.to_physical().arg_max()])
    keys = ["a", "b", "\u00e9", "absent", last[0]]
    few = pl.concat([pl.Series(["b", "zz", "a", "b", "\u00e9"], dtype=pl.Categorical), last])
    top = few.to_physical().max() + 1
    many = pl.concat([few] * (top // 4 + 1))
    assert top > 4 * len(few) + 2 ** 16 and top <= 4 * len(many) + 2 ** 16
    engine = engine_named("polars")
    for values in (few, many):
        got = engine.string_codes(pl.DataFrame({"g": values}), "g", keys)
        assert got.tolist() == reference(values.to_list(), keys)
