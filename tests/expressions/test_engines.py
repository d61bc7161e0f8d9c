"""What each compiler promises beyond agreeing with the reference: pandas, Polars and pyspark are
imported only when used; int64 overflow decided exactly at the edge of the range; the inputs each engine
accepts (numpy object, str, float32 and masked
arrays; pandas numpy and nullable dtypes on any index; Polars narrower dtypes; Spark float, int and
collated string columns, and names with dots and quotes); the outputs' dtypes; refusals that
come before any data is read; deep expressions evaluated exactly, and compiled to an expression
whose size grows linearly (not exponentially) with the depth."""
import math
import subprocess
import sys

import numpy as np
import pytest

from opendp_duff.errors import MakeError
from opendp_duff.expressions import (ExprType, compile_numpy, compile_pandas, compile_polars, compile_spark,
                                     evaluate_row, parse)

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
FN, IN_, SN, BN = ExprType(float, True), ExprType(int, True), ExprType(str, True), ExprType(bool, True)


@pytest.mark.slow
def test_the_package_imports_no_frame_library():
    code = ("import sys, opendp_duff.expressions as e; e.parse('x > 1'); "
            "print(sorted(m for m in ('pandas', 'polars', 'pyspark') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _deep(depth, pattern):
    text = "x"
    for level in range(depth):
        text = pattern(text, level)
    return text


DEEP = {   # each nests its operand once per level
    "arith": lambda t, d: f"({t} {'+-*/'[d % 4]} y)",
    "divisor": lambda t, d: f"(y / {t})",
    "abs": lambda t, d: f"ABS({t} - k)",
    "int": lambda t, d: f"(ABS({t}) * k - 1)" if d else "k",
    "negate": lambda t, d: f"-({t} + k)",
    "compare": lambda t, d: f"(({t}) = (y > k))" if d else "(x > k)",
}
DEEP_SCHEMA = {"x": FN, "y": FN, "k": IN_}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_polars_expressions_grow_linearly_with_depth(name):
    sizes = [len(str(compile_polars(parse(_deep(depth, DEEP[name])), DEEP_SCHEMA))) for depth in (8, 16)]
    assert sizes[1] < 2.5 * sizes[0], sizes          # twice as deep: about twice as long, not the square


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_expressions_are_exact_on_numpy_pandas_and_polars(name):
    tree = parse(_deep(15, DEEP[name]))                     # at most three levels of tree per step
    columns = {"x": [1.5, -0.0, None, 7.0], "y": [3.0, 2.0, 0.5, -1.0], "k": [2, -3, 5, None]}
    rows = [{c: columns[c][r] for c in columns} for r in range(4)]
    expected = [evaluate_row(tree, row, DEEP_SCHEMA) for row in rows]
    arrays = {"x": np.array([math.nan if v is None else v for v in columns["x"]]), "y": np.array(columns["y"]),
              "k": np.ma.MaskedArray([2, -3, 5, 0], mask=[False, False, False, True])}
    got = compile_numpy(tree, DEEP_SCHEMA).column(arrays)
    assert [None if m else v for v, m in zip(got.data.tolist(), got.mask.tolist(), strict=True)] == expected
    frame = pl.DataFrame(columns, schema={"x": pl.Float64, "y": pl.Float64, "k": pl.Int64})
    assert frame.with_columns(compile_polars(tree, DEEP_SCHEMA).alias("r"))["r"].to_list() == expected
    df = pd.DataFrame({"x": arrays["x"], "y": arrays["y"], "k": pd.array(columns["k"], dtype="Int64")})
    assert [None if pd.isna(v) else v for v in compile_pandas(tree, DEEP_SCHEMA).column(df)] == expected


def _boundary_pairs():
    """Pairs of int64 whose product, sum or difference is at or near the edge of int64."""
    import random
    rng, top = random.Random(20261126), 2 ** 63
    pairs = [(-top, -1), (-top, 1), (top - 1, -1), (2 ** 32, 2 ** 31), (-2 ** 32, 2 ** 31), (3037000499, 3037000499),
             (3037000500, -3037000500), (top - 1, 1), (-top, 0), (top - 1, top - 1)]
    for _ in range(400):
        a = rng.randrange(1, 2 ** rng.randrange(1, 63))
        b = top // a + rng.randrange(-2, 3)
        pairs.append((a * rng.choice((1, -1)), max(-top, min(top - 1, b * rng.choice((1, -1))))))
    return pairs


def test_int_overflow_is_exact_at_the_edge_of_int64_on_numpy_and_polars():
    a, b = (list(column) for column in zip(*_boundary_pairs(), strict=True))
    schema = {"a": ExprType(int), "b": ExprType(int)}
    frame = pl.DataFrame({"a": a, "b": b}, schema={"a": pl.Int64, "b": pl.Int64})
    for op, exact in (("*", lambda x, y: x * y), ("+", lambda x, y: x + y), ("-", lambda x, y: x - y)):
        want = [v if -2 ** 63 <= v < 2 ** 63 else None for v in map(exact, a, b)]
        got = compile_numpy(parse(f"a {op} b"), schema).column({"a": np.array(a), "b": np.array(b)})
        assert [None if m else v for v, m in zip(got.data.tolist(), got.mask.tolist(), strict=True)] == want
        assert frame.with_columns(compile_polars(parse(f"a {op} b"), schema).alias("r"))["r"].to_list() == want


def test_numpy_reads_every_column_form():
    tree = parse("f > 1 OR i = 2 OR s = 'a' OR b")
    schema = {"f": FN, "i": IN_, "s": SN, "b": BN}
    forms = [
        {"f": np.array([2.0, np.nan, 0.0, 0.0], dtype=np.float32), "i": np.array([0, 2, 0, 0], dtype=np.int32),
         "s": np.array(["x", "y", "a", "z"]), "b": np.array([False, False, False, True])},
        {"f": np.array([2.0, None, 0.0, float("nan")], dtype=object), "i": np.array([None, 2, 0, 0], dtype=object),
         "s": np.array(["x", None, "a", float("nan")], dtype=object),
         "b": np.array([None, False, False, True], dtype=object)},
        {"f": np.ma.MaskedArray([2.0, 9.0, 0.0, 0.0], mask=[False, True, False, False]),
         "i": np.ma.MaskedArray([0, 2, 0, 0], mask=[True, False, False, False]),
         "s": np.ma.MaskedArray(np.array(["x", "y", "a", "z"], dtype=object), mask=[False, False, False, True]),
         "b": np.ma.MaskedArray([False, False, True, True], mask=[False, False, True, False])},
    ]
    for columns in forms:
        assert compile_numpy(tree, schema).mask(columns).tolist() == [True, True, True, True]


def test_numpy_outputs_and_refusals():
    schema = {"i": IN_, "f": FN}
    out = compile_numpy(parse("i * 2"), schema).column({"i": np.array([1, 2 ** 62]), "f": np.zeros(2)})
    assert out.dtype == np.int64 and out.mask.tolist() == [False, True] and out.data.tolist() == [2, 0]
    out = compile_numpy(parse("f / 0"), schema).column({"i": np.array([1, 2]), "f": np.zeros(2)})
    assert out.dtype == np.float64 and out.mask.all() and np.isnan(out.data).all()
    with pytest.raises(MakeError, match="needs a predicate"):
        compile_numpy(parse("i + 1"), schema).mask({"i": np.array([1])})
    with pytest.raises(MakeError, match="same number of rows"):
        compile_numpy(parse("i + f"), schema).column({"i": np.array([1, 2]), "f": np.zeros(3)})
    with pytest.raises(MakeError, match="one-dimensional"):
        compile_numpy(parse("i + 1"), schema).column({"i": np.zeros((2, 2), dtype=np.int64)})


def test_pandas_outputs_keep_the_index_and_use_nullable_dtypes_only_when_nullable():
    df = pd.DataFrame({"i": [1, 2 ** 62, 3], "s": ["b", "a", None], "c": [True, False, True]}, index=[10, 20, 5])
    schema = {"i": ExprType(int), "s": SN, "c": ExprType(bool)}
    out = compile_pandas(parse("i * 2"), schema).column(df)
    assert str(out.dtype) == "Int64" and out.index.tolist() == [10, 20, 5]
    assert out.isna().tolist() == [False, True, False]
    assert str(compile_pandas(parse("-ABS(i / 2)"), schema).column(df).dtype) == "float64"
    assert str(compile_pandas(parse("s < 'b'"), schema).column(df).dtype) == "boolean"
    assert str(compile_pandas(parse("NOT c"), schema).column(df).dtype) == "bool"
    strings = compile_pandas(parse("s"), schema).column(df)
    assert strings.dtype == object and strings.tolist() == ["b", "a", None]
    mask = compile_pandas(parse("s < 'b' OR i > 2"), schema).mask(df)
    assert mask.dtype == bool and df[mask].index.tolist() == [20, 5]


@pytest.mark.parametrize("value", [None, math.nan, -0.0, 1.0])
def test_polars_on_constant_columns(value):
    """A column holding one value on every row is stored apart by Polars; a constant beside it
    (on either side of a comparison, in arithmetic, in BETWEEN) still gives one value per row."""
    schema = {"f": FN, "k": IN_}
    frame = pl.DataFrame({"f": [value] * 3, "k": [None] * 3}, schema={"f": pl.Float64, "k": pl.Int64})
    texts = ["-0.0 = f", "0.0 <= f", "f > 0", "f BETWEEN 0.0 AND 0", "1.0 - f", "f / 2.0", "f IS NULL AND TRUE",
             "k = f", "0 < k", "k + 1 > f", "f IN (0.0, 1.0)", "('' = '') = (k = f)"]
    for text in texts:
        expected = [evaluate_row(parse(text), {"f": value, "k": None}, schema)] * 3
        got = frame.with_columns(compile_polars(parse(text), schema).alias("r"))["r"].to_list()
        assert [None if v is None else (v, math.copysign(1, v) if isinstance(v, float) else 0) for v in got] == \
            [None if v is None else (v, math.copysign(1, v) if isinstance(v, float) else 0) for v in expected], text


def test_polars_casts_narrower_dtypes_and_works_lazily():
    frame = pl.DataFrame({"f": [1.5, None, float("nan")], "i": [1, 2, None], "s": ["a", "b", None]},
                         schema={"f": pl.Float32, "i": pl.Int16, "s": pl.Categorical})
    schema = {"f": FN, "i": IN_, "s": SN}
    e = compile_polars(parse("f + i"), schema)
    assert frame.with_columns(e.alias("r"))["r"].to_list() == [2.5, None, None]
    kept = frame.lazy().filter(compile_polars(parse("s < 'b' AND f IS NOT NULL OR i = 2"), schema)).collect()
    assert kept["i"].to_list() == [1, 2]                      # the NaN row is NULL: not kept
    assert frame.select(compile_polars(parse("i * 2"), schema).alias("r")).schema["r"] == pl.Int64


# Spark -----------------------------------------------------------------------------------------

@pytest.mark.spark
@pytest.mark.slow
def test_spark_inputs_and_expression_size(spark):
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    odd = 'a.b "c" `d`'
    schema = T.StructType([T.StructField("f", T.FloatType()), T.StructField("i", T.IntegerType()),
                           T.StructField(odd, T.LongType()), T.StructField("s", T.StringType())])
    sdf = spark.createDataFrame([(1.5, 2, 7, "a"), (float("nan"), None, 2 ** 62, "B")], schema)
    if hasattr(F, "collate"):       # Spark 4: a case-insensitive collation must not change the order
        sdf = sdf.withColumn("s", F.collate("s", "UTF8_LCASE"))
    exprs = {"f + i": FN, f'"{odd.replace(chr(34), 2 * chr(34))}" * 2': IN_, "s < 'b'": BN, "f IS NULL": BN}
    exprs_schema = {"f": FN, "i": IN_, odd: IN_, "s": SN}
    rows = sdf.select(*[compile_spark(parse(text), exprs_schema).alias(f"e{k}")
                        for k, text in enumerate(exprs)]).collect()
    assert [tuple(row) for row in rows] == [(3.5, 14, True, False), (None, None, True, True)]
    for name in sorted(DEEP):
        sizes = [len(str(compile_spark(parse(_deep(depth, DEEP[name])), DEEP_SCHEMA))) for depth in (8, 16)]
        assert sizes[1] < 2.5 * sizes[0], (name, sizes)
    pairs = _boundary_pairs()
    ints = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.LongType())])
    got = spark.createDataFrame(pairs, ints).select(
        *[compile_spark(parse(f"a {op} b"), {"a": ExprType(int), "b": ExprType(int)}) for op in "*+-"]).collect()
    for (a, b), row in zip(pairs, got, strict=True):
        for value, exact in zip(row, (a * b, a + b, a - b), strict=True):
            assert value == (exact if -2 ** 63 <= exact < 2 ** 63 else None)
