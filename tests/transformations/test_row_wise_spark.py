"""make_filter and make_with_column on Spark frames and on the parts of a Spark partition: the
rows kept and the values derived equal the reference evaluator's, row for row (floats by their
bits), on a frame of special values (NaN, -0.0, infinities, int64 extremes) and a seeded random
frame, with ``spark.sql.ansi.enabled`` true and false; the outputs are members of the output
domains (a float NULL stored as NaN).  Deterministic."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.expressions import evaluate_row, parse
from opendp_duff.transformations.row_wise import frame_schema

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

COLUMNS = {"i": dp.atom_domain(T=int), "f": dp.atom_domain(T=float, nan=True), "g": dp.atom_domain(T=float),
           "s": dp.atom_domain(T=str)}
DOMAIN = dp.dataframe_domain(COLUMNS, engine="spark")
SCHEMA = frame_schema(DOMAIN)
PREDICATES = ["i > 1", "f < 2.5", "f IS NULL", "NOT (f > 0.0)", "i + 9223372036854775807 > 0", "g / f > 1.0",
              "s IN ('a', 'é') OR i = 0", "i * i >= 4 AND g BETWEEN -1.0 AND 1e300", "i = f", "ABS(i) < 3",
              "s >= 'b' AND NOT f IS NOT NULL", "g = -0.0"]
DERIVED = ["f / i", "1.0 * i + 9223372036854775807", "g - f", "-g", "s", "i", "'k'", "f / 0", "g * 0.0 + f"]
SPECIAL = {"i": [2, 9223372036854775807, -9223372036854775808, 0, 3, 1],
           "f": [1.0, math.nan, -0.0, math.inf, 2.0, -1e308], "g": [0.5, 1.0, 0.0, -math.inf, -0.0, 1e308],
           "s": ["a", "é", "", "b", "a", "😀"]}


def random_columns(seed, n=40):
    rng = np.random.default_rng(seed)
    floats = [0.0, -0.0, 1.5, -2.0, 3.0, math.inf, 1e308]
    return {"i": [int(v) for v in rng.choice([0, 1, 2, -3, 2 ** 62, -2 ** 63, 2 ** 63 - 1], n)],
            "f": [floats[k] if k < len(floats) else math.nan for k in rng.integers(0, len(floats) + 2, n)],
            "g": [floats[k] for k in rng.integers(0, len(floats), n)],
            "s": [str(v) for v in rng.choice(["a", "b", "", "é"], n)]}


FRAMES = [SPECIAL, random_columns(7)]


def spark_frame(spark, columns):
    rows = list(zip(*(columns[name] for name in COLUMNS), strict=True))
    return spark.createDataFrame(rows, "i long, f double, g double, s string")


def key(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return ("float", value.hex()) if isinstance(value, float) else value


def reference_rows(columns):
    return [{name: columns[name][r] for name in COLUMNS} for r in range(len(columns["i"]))]


def sort_key(row):
    return [repr(v) for v in row]


@pytest.fixture(params=["true", "false"])
def ansi(spark, request):
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.mark.parametrize("columns", FRAMES, ids=["special", "random"])
def test_filters_and_derived_columns_equal_the_reference(ansi, columns):
    df, rows = spark_frame(ansi, columns), reference_rows(columns)
    for text in PREDICATES:
        t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter(text)
        want = sorted(([key(r[n]) for n in COLUMNS] for r in rows if evaluate_row(parse(text), r, SCHEMA) is True),
                      key=sort_key)
        got = sorted(([key(v) for v in row] for row in t(df).collect()), key=sort_key)
        assert got == want, text
    for text in DERIVED:
        t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_with_column("new", text)
        want = sorted(([key(r[n]) for n in COLUMNS] + [key(evaluate_row(parse(text), r, SCHEMA))] for r in rows),
                      key=sort_key)
        got = sorted(([key(v) for v in row] for row in t(df).collect()), key=sort_key)
        assert got == want, text


def test_outputs_are_members_and_parts_work(spark):
    df = spark_frame(spark, SPECIAL)
    w = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_with_column("q", "f / g")
    assert w.output_domain.columns["q"] == dp.atom_domain(T=float, nan=True)
    assert w.output_domain.member(w(df))                  # NULL stored as NaN: no null in the column
    f = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter("f > 0.0")
    assert f.output_domain.member(f(df)) and f.output_domain.size is None
    parts = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by("s", keys=["a", "b", "z"])
    inner = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_filter("i >= 2")
    assert [sorted(r["i"] for r in inner(p).collect()) for p in parts(df)] == [[2, 3], [], []]
    counted = inner >> dp.t.then_select_column("i") >> dp.t.then_count()
    assert [counted(p) for p in parts(df)] == [2, 0, 0]
