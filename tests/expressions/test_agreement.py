"""Every compiler computes what the reference evaluator computes, row for row.

Random frames (NaN, nulls, infinities, -0.0, int64 extremes, empty and non-ASCII strings, no rows
at all) and random well-typed expressions of every construct are evaluated by numpy, pandas
(numpy and nullable dtypes), Polars (eager and lazy) and Spark (with ``spark.sql.ansi.enabled``
true and false), and compared with ``evaluate_row``: values and types (floats by their bits, so
the sign of zero counts), NULLs, and the rows a filter keeps (exactly those where the predicate is
TRUE).  The same runs check that ``check`` is sound (a non-nullable type never yields NULL) and
that no evaluation raises or warns.  Spark runs many expressions per frame in one job."""
import functools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from opendp_duff.expressions import (Abs, Arith, Between, Column, Compare, ExprType, In, IsNull, Literal, Logic,
                                     Negate, Not, check, compile_numpy, compile_pandas, compile_polars, compile_spark,
                                     evaluate_row, parse)

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

ODD = 'odd "name".`x`'
SCHEMA = {"f": ExprType(float, True), "g": ExprType(float), "i": ExprType(int, True), "j": ExprType(int),
          ODD: ExprType(int, True), "s": ExprType(str, True), "t": ExprType(str), "b": ExprType(bool, True),
          "c": ExprType(bool)}
COLUMNS = {T: [name for name, t in SCHEMA.items() if t.T is T] for T in (float, int, str, bool)}
INF = math.inf
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, -2.0 ** 63, 2.0 ** 63 - 1024,
                  1e308, -1e308, 5e-324]
SPECIAL_INTS = [0, 1, -1, 2, 3, 2 ** 31, 2 ** 53, 2 ** 53 + 1, -2 ** 53 - 1, 2 ** 62, 2 ** 63 - 1, -2 ** 63,
                -2 ** 63 + 1, 3037000499, 3037000500, -3037000500]
SPECIAL_STRS = ["", "a", "b", "A", "é", "😀", "\uffff", "a\x00", " ", "ab"]
INT64 = st.integers(-2 ** 63, 2 ** 63 - 1)
VALUES = {
    float: st.sampled_from(SPECIAL_FLOATS + [INF, -INF]) | st.floats(allow_nan=False),
    int: st.sampled_from(SPECIAL_INTS) | INT64,
    str: st.sampled_from(SPECIAL_STRS) | st.text(st.characters(exclude_categories=["Cs"]), max_size=3),
    bool: st.booleans(),
}
LITERALS = {float: st.sampled_from(SPECIAL_FLOATS) | st.floats(allow_nan=False, allow_infinity=False),
            int: VALUES[int], str: VALUES[str], bool: VALUES[bool]}


def _cell(t):
    value = VALUES[t.T]
    if t.nullable:
        value = value | st.none() | (st.just(math.nan) if t.T is float else st.none())
    return value


@st.composite
def frames(draw, max_rows=8):
    """Columns of random cells, or of one repeated cell (engines treat constant columns apart)."""
    n = draw(st.integers(0, max_rows))
    return {name: draw(st.lists(_cell(t), min_size=n, max_size=n) | _cell(t).map(lambda v, n=n: [v] * n))
            for name, t in SCHEMA.items()}


@functools.lru_cache(maxsize=None)
def exprs(T, depth):
    """Well-typed trees of type T, at most ``depth`` operators deep."""
    leaves = st.sampled_from(COLUMNS[T]).map(Column) | LITERALS[T].map(Literal)
    if depth == 0 or T is str:
        return leaves
    sub = functools.partial(exprs, depth=depth - 1)
    number = sub(int) | sub(float)
    if T is int:
        grown = st.builds(Arith, st.sampled_from("+-*"), sub(int), sub(int)) | st.builds(Negate, sub(int)) \
            | st.builds(Abs, sub(int))
    elif T is float:
        grown = st.one_of(st.builds(Arith, st.just("/"), number, number),
                          st.builds(Arith, st.sampled_from("+-*"), sub(float), number),
                          st.builds(Arith, st.sampled_from("+-*"), number, sub(float)),
                          st.builds(Negate, sub(float)), st.builds(Abs, sub(float)))
    else:
        in_list = st.sampled_from([int, float]).flatmap(
            lambda L: st.lists(LITERALS[L].map(Literal), min_size=1, max_size=3).map(tuple))
        grown = st.one_of(
            st.builds(Compare, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), number, number),
            st.builds(Compare, st.sampled_from(["=", "!=", "<", ">="]), sub(str), sub(str)),
            st.builds(Compare, st.sampled_from(["=", "!="]), sub(bool), sub(bool)),
            st.builds(Logic, st.sampled_from(["AND", "OR"]), st.lists(sub(bool), min_size=2, max_size=3).map(tuple)),
            st.builds(Not, sub(bool)), st.builds(IsNull, number | sub(str) | sub(bool), st.booleans()),
            st.builds(In, number, in_list, st.booleans()),
            st.builds(In, sub(str), st.lists(LITERALS[str].map(Literal), min_size=1, max_size=3).map(tuple),
                      st.booleans()),
            st.builds(Between, number, number, number, negated=st.booleans()))
    return leaves | grown


ANY_EXPR = st.sampled_from([float, int, bool, bool]).flatmap(lambda T: exprs(T, 3))


def key(value):
    """A value as a comparable key: floats by their bits, types kept apart, NaN never allowed."""
    if value is None:
        return None
    assert not (isinstance(value, float) and math.isnan(value)), "NaN leaked out of an engine"
    return (type(value).__name__, value.hex() if isinstance(value, float) else value)


def reference(tree, frame):
    n = len(frame["f"])
    return [evaluate_row(tree, {name: frame[name][r] for name in SCHEMA}, SCHEMA) for r in range(n)]


def assert_sound(tree, values):
    t = check(tree, SCHEMA)
    for value in values:
        assert (value is None and t.nullable) or type(value) is t.T, (tree, t, value)


# the frame on each engine ---------------------------------------------------------------------

def numpy_columns(frame, masked):
    out = {}
    for name, t in SCHEMA.items():
        values, null = frame[name], [v is None for v in frame[name]]
        if t.T is float:
            data = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
            out[name] = np.ma.MaskedArray(data, mask=null) if masked else data
        elif t.T is str or (t.T is bool and t.nullable and not masked):
            out[name] = np.array(values, dtype=object)
        else:
            data = np.array([0 if v is None else v for v in values], dtype=np.int64 if t.T is int else bool)
            out[name] = np.ma.MaskedArray(data, mask=null) if t.nullable else data
    return out


def pandas_frame(frame, nullable_dtypes):
    dtypes = {float: "Float64" if nullable_dtypes else "float64", str: "str" if nullable_dtypes else object}
    columns = {}
    for name, t in SCHEMA.items():
        if t.T in (int, bool):
            dtype = ({int: "Int64", bool: "boolean"}[t.T] if t.nullable else {int: "int64", bool: "bool"}[t.T])
        else:
            dtype = dtypes[t.T]
        columns[name] = pd.Series(frame[name], dtype=dtype)
    return pd.DataFrame(columns)


def polars_frame(frame):
    dtypes = {float: pl.Float64, int: pl.Int64, str: pl.String, bool: pl.Boolean}
    return pl.DataFrame(frame, schema={name: dtypes[t.T] for name, t in SCHEMA.items()})


def as_list(values):
    """A result column as Python values, NULL (NaN, NA, masked) as None."""
    if isinstance(values, np.ma.MaskedArray):
        return [None if m else v for v, m in zip(values.data.tolist(), values.mask.tolist(), strict=True)]
    out = values.tolist()
    return [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v for v in out]


def check_local_engines(trees, frame, masked, nullable_dtypes):
    """Every local engine against the reference on one frame; filters included."""
    np_cols, df, pf = numpy_columns(frame, masked), pandas_frame(frame, nullable_dtypes), polars_frame(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = [compile_polars(tree, SCHEMA).alias(f"e{k}") for k, tree in enumerate(trees)]
        eager = pf.with_columns(compiled)
        lazy = pf.lazy().with_columns(compiled).collect()
        indexed = pf.with_row_index("__row")
        for k, tree in enumerate(trees):
            expected = reference(tree, frame)
            assert_sound(tree, expected)
            want = [key(v) for v in expected]
            on_numpy, on_pandas = compile_numpy(tree, SCHEMA), compile_pandas(tree, SCHEMA)
            assert [key(v) for v in as_list(on_numpy.column(np_cols))] == want, ("numpy", tree)
            assert [key(v) for v in as_list(on_pandas.column(df))] == want, ("pandas", tree)
            assert [key(v) for v in eager[f"e{k}"].to_list()] == want, ("polars", tree)
            assert [key(v) for v in lazy[f"e{k}"].to_list()] == want, ("polars lazy", tree)
            if check(tree, SCHEMA).T is bool:
                kept = [r for r, v in enumerate(expected) if v is True]
                assert np.flatnonzero(on_numpy.mask(np_cols)).tolist() == kept
                assert df[on_pandas.mask(df)].index.tolist() == kept
                assert indexed.filter(compiled[k])["__row"].to_list() == kept
                assert indexed.lazy().filter(compiled[k]).collect()["__row"].to_list() == kept


FIXED_TEXTS = [
    "f = i", "i > f", "g <= j", '"odd ""name"".`x`" < g', "i + j", "i * j", "i - 1", "-i", "ABS(i)", "f / 0",
    "f - g", "f * 0.0", "j / 2", "-f", "ABS(g)", "s < 'b'", "t >= s", "b OR f > 0", "NOT b", "b = c",
    "i IN (1, 9007199254740993)", "f NOT IN (0.0, 1e308)", "g BETWEEN -1 AND i", "s IS NULL", "c AND b IS NOT NULL",
    "f = 9007199254740994", "j - 1 <= g", "s IN ('', 'é')", "f + g * 2.5 / j > -3",
    # constant operands, which Polars would otherwise rewrite or compute by other kernels
    "f / 3.0", "f / (1.5 + 1.5)", "3.0 / f", "j / 3", "0.0 - j", "g + 0.0", "g - -0.0", "1.0 / g", "f / g",
    "-0.0 * 1.0 + -0.0",
]
FIXED_FRAME = {
    "f": [-0.0, math.nan, INF, 2.0 ** 53 + 2, None, -INF], "g": [0.0, -0.0, 2.0 ** 63, 1e308, -5e-324, 3.0],
    "i": [2 ** 53 + 1, None, -2 ** 63, 2 ** 63 - 1, 0, 3], "j": [1, 0, -1, 2 ** 63 - 1, -2 ** 63, 9007199254740993],
    ODD: [None, 5, 2 ** 62, -2 ** 63, 7, 0], "s": ["a", None, "", "é", "😀", "\uffff"],
    "t": ["b", "a", "", "e\u0301", "a\x00", "A"], "b": [True, None, False, True, None, False],
    "c": [False, True, False, True, True, False],
}


@pytest.mark.parametrize("masked, nullable_dtypes", [(False, False), (True, True)])
def test_local_engines_agree_on_a_fixed_frame(masked, nullable_dtypes):
    check_local_engines([parse(text) for text in FIXED_TEXTS], FIXED_FRAME, masked, nullable_dtypes)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frames(), st.lists(ANY_EXPR, min_size=1, max_size=8), st.booleans(), st.booleans())
def test_local_engines_agree_with_the_reference(frame, trees, masked, nullable_dtypes):
    check_local_engines(trees, frame, masked, nullable_dtypes)


# Spark -----------------------------------------------------------------------------------------

def spark_frame(spark, frame):
    from pyspark.sql import types as T
    kinds = {float: T.DoubleType(), int: T.LongType(), str: T.StringType(), bool: T.BooleanType()}
    schema = T.StructType([T.StructField("__row", T.LongType(), False)]
                          + [T.StructField(name, kinds[t.T], True) for name, t in SCHEMA.items()])
    n = len(frame["f"])
    return spark.createDataFrame([(r, *(frame[name][r] for name in SCHEMA)) for r in range(n)], schema)


def check_spark(spark, trees, frame):
    """All trees in one select per ANSI setting, all filters in one union: three jobs."""
    from functools import reduce

    from pyspark.sql import functions as F
    sdf = spark_frame(spark, frame)
    columns = [compile_spark(tree, SCHEMA).alias(f"e{k}") for k, tree in enumerate(trees)]
    expected = [reference(tree, frame) for tree in trees]
    before = spark.conf.get("spark.sql.ansi.enabled")
    try:
        for ansi in ("true", "false"):
            spark.conf.set("spark.sql.ansi.enabled", ansi)
            rows = sdf.select("__row", *columns).orderBy("__row").collect()
            for k, tree in enumerate(trees):
                got = [key(row[f"e{k}"]) for row in rows]
                assert got == [key(v) for v in expected[k]], (ansi, tree)
        predicates = [k for k, tree in enumerate(trees) if check(tree, SCHEMA).T is bool]
        if predicates:
            kept = reduce(lambda a, b: a.unionAll(b), [sdf.where(columns[k]).select(F.lit(k).alias("k"), "__row")
                                                       for k in predicates]).collect()
            got = sorted((row["k"], row["__row"]) for row in kept)
            assert got == sorted((k, r) for k in predicates for r, v in enumerate(expected[k]) if v is True)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_agrees_on_the_fixed_frame(spark):
    check_spark(spark, [parse(text) for text in FIXED_TEXTS], FIXED_FRAME)


NESTED_FRAME = {**{name: [v[0]] * 3 for name, v in FIXED_FRAME.items()}, "i": [3, 2 ** 62, None],
                ODD: [2 ** 63 - 1, 3, 2 ** 63 - 1]}
NESTED = [Arith("+", Column("i"), Arith("+", Column(ODD), Literal(-(2 ** 63 - 1)))),   # 3 + 0: every step fits
          Arith("*", Column("i"), Arith("*", Column(ODD), Literal(2))),
          Arith("-", Column("i"), Arith("-", Column(ODD), Literal(2 ** 63 - 1)))]


def test_local_engines_agree_on_nested_integer_arithmetic():
    check_local_engines(NESTED, NESTED_FRAME, False, False)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_keeps_the_order_of_nested_integer_arithmetic(spark):
    """Spark's optimiser reassociates nested long additions (i + (j + c) as (i + j) + c), which would
    overflow at i + j where every step of the expression fits: the compiled sum must not."""
    check_spark(spark, NESTED, NESTED_FRAME)


@pytest.mark.spark
@pytest.mark.slow
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frames(max_rows=12), st.lists(ANY_EXPR, min_size=30, max_size=30))
def test_spark_agrees_with_the_reference(spark, frame, trees):
    check_spark(spark, trees, frame)
