"""Windows predicted by Spark (sizes and windows of every key in one pass) equal the
single-machine windows exactly.

* Spark's evaluation of the sampler's ranks (``predicted_ranks_sql``) equals ``sampler_ranks``
  for every alpha of denominator <= 4 and several scales, at n = 1..400, at both sides of every
  step of ``quantile_window`` below 10^7 and at large n up to 2^62 (the logarithms of Spark and
  Python agree on these inputs on the platforms we run; were one to differ, the key would only
  cost a window pass, which the last test forces).
* The one pass gives every key (ties across the window's edges, all-equal data, n below the
  window, an empty key) the window and tails of SelectedRecords on the same records, within the
  driver bound, in ONE action, with the rows moved whole to their key's partition or not.
* A wrong prediction is caught and recomputed by one more pass; a prediction Spark cannot
  evaluate (alpha 9/10) takes the sizes pass.  Deterministic: no randomness is drawn."""
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.duff_utility import SamplerRanks, quantile_window, sampler_ranks
from opendp_duff.engines import SelectedRecords
from opendp_duff.engines.spark import SparkColumn, collection, driver_pairs_bound, predicted, ranks
from opendp_duff.engines.spark.parts import KID, keyed_rows, split_by_keys

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

ALPHAS = [Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 3), Fraction(2, 3)]
SCALES = [0.0, 0.5, 2.0, 20.0, 137.25]


def _step_edges(scale, top=10 ** 7):
    """Every n < top where quantile_window(n, scale) differs from its value at n - 1, with n - 1."""
    ns = np.arange(1, top)
    ks = np.array([quantile_window(int(n), scale) for n in ns[:2000]])
    edges = set(int(n) for n in ns[1:2000][np.diff(ks) != 0])
    n = 2000
    while n < top:             # k grows like scale ln n: walk in steps short enough to see each change
        step = max(1, n // max(1, int(4 * max(scale, 1.0))))
        if quantile_window(n + step, scale) != quantile_window(n, scale):
            lo, hi = n, n + step
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if quantile_window(mid, scale) == quantile_window(n, scale) else (lo, mid)
            edges.add(hi)
        n += step
    return sorted(edges | {e - 1 for e in edges})


def test_spark_predicts_the_sampler_ranks_exactly(spark):
    rng = np.random.default_rng(11)
    big = [int(x) for x in rng.integers(10 ** 7, 2 ** 62, size=200)] + [2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 2 ** 62]
    for scale in SCALES:   # one Spark job per scale: every alpha's query in one union
        ns = sorted(set(range(1, 401)) | set(_step_edges(scale)) | set(big))
        frame = spark.sql("SELECT CAST(col1 AS BIGINT) AS tot FROM VALUES " + ", ".join(f"({n})" for n in ns))
        queries = []
        for i, alpha in enumerate(ALPHAS):
            predict = SamplerRanks(alpha, scale)
            assert predicted.predictable(predict)
            queries.append(f"SELECT {i} AS a, tot, first, last, m FROM "
                           f"({predicted.predicted_ranks_sql('SELECT * FROM {t}', predict)}) AS q{i}")
        got = spark.sql(" UNION ALL ".join(queries), t=frame).collect()
        assert len(got) == len(ns) * len(ALPHAS)
        for row in got:
            alpha = ALPHAS[row["a"]]
            first, last = sampler_ranks(row["tot"], alpha, scale)
            assert (row["first"], row["last"]) == (first, last), (alpha, scale, row["tot"])
            assert row["m"] == (last - first + 2) // 2


def _datasets():
    rng = np.random.default_rng(7)
    return {
        0: np.round(rng.normal(size=400), 1),                      # few values, some repeated
        1: rng.integers(0, 5, size=300).astype(float),             # ties across both edges
        2: np.full(120, 2.5),                                      # all equal
        3: np.array([3.0, -1.0, 3.0]),                             # n below the window
        4: np.array([]),                                           # absent from the data
        5: np.concatenate([np.zeros(150), np.round(rng.uniform(size=150), 2)]),  # a block of ties below the median
    }


@pytest.fixture(scope="module")
def grouped(spark):
    data = _datasets()
    rows = [(float(v), k) for k, xs in data.items() for v in xs]
    frame = spark.createDataFrame(rows, "x double, g long")
    return data, split_by_keys(frame, "g", int, tuple(data))


def _sources(parts, predict, few=True, small=False):
    rows, n_keys = keyed_rows(SparkColumn(parts[0], float, (("column", "x", float),)))
    return ranks.spark_rank_sources(rows, n_keys, predict, -10.0, 10.0, few, small)


def _same_as_local(data, sources, alpha, scale):
    for k, xs in data.items():
        assert sources[k].n == xs.size
        r = sampler_ranks(xs.size, alpha, scale)
        if r is None:
            continue
        w, local = sources[k].window(*r), SelectedRecords(xs).window(*r)
        assert w.n == local.n and w.first == local.first and np.array_equal(w.values, local.values)
        for a, b in ((w.left, local.left), (w.right, local.right)):
            assert (a.count, a.ties) == (b.count, b.ties)
            (av, ac), (bv, bc) = a.pairs(), b.pairs()       # opens the tails: near pairs and the rest
            assert np.array_equal(av, bv) and np.array_equal(ac, bc)


@pytest.mark.parametrize("alpha, scale, small", [(Fraction(1, 2), 2.0, False), (Fraction(1, 2), 2.0, True),
                                                 (Fraction(1, 4), 0.5, True), (Fraction(3, 4), 0.0, False)])
def test_one_pass_gives_every_key_the_local_window(grouped, alpha, scale, small):
    data, parts = grouped
    with collection.release() as log:
        sources = _sources(parts, SamplerRanks(alpha, scale), small=small)
    assert log.actions == 1
    assert all(log.per_key.get(k, 0) <= driver_pairs_bound(xs.size, scale, alpha) for k, xs in data.items())
    _same_as_local(data, sources, alpha, scale)


def test_a_wrong_prediction_costs_one_pass_not_a_window(grouped, monkeypatch):
    data, parts = grouped
    honest = predicted.predicted_ranks_sql

    def off_by_one(query, predict):   # keys of more than 100 records get a window one rank later
        return (f"SELECT {KID}, s, v, c, cum, tot, CASE WHEN tot > 100 THEN first + 1 ELSE first END AS first, last, m "
                f"FROM ({honest(query, predict)}) AS q")
    monkeypatch.setattr(ranks, "predicted_ranks_sql", off_by_one)
    with collection.release() as log:
        sources = _sources(parts, SamplerRanks(Fraction(1, 2), 2.0))
    assert log.actions == 2
    _same_as_local(data, sources, Fraction(1, 2), 2.0)


def test_a_prediction_spark_cannot_evaluate_takes_the_sizes_pass(grouped):
    data, parts = grouped
    predict = SamplerRanks(Fraction(9, 10), 2.0)
    assert not predicted.predictable(predict)
    assert not predicted.predictable(lambda n: sampler_ranks(n, Fraction(1, 2), 2.0))   # not a SamplerRanks
    with collection.release() as log:
        sources = _sources(parts, predict)
    assert log.actions == 2
    _same_as_local(data, sources, Fraction(9, 10), 2.0)


def test_sql_numbers_read_back_exactly(spark):
    """Doubles written by ``sql_number`` are read back by Spark bit for bit: random bit patterns
    (every exponent), subnormals, signed zeros, extremes; integers to 2^62."""
    import struct

    from opendp_duff.engines.spark._pyspark import sql_number
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 2 ** 63, size=300, dtype=np.uint64) | (rng.integers(0, 2, size=300).astype(np.uint64) << 63)
    doubles = [x for x in (struct.unpack("<d", struct.pack("<Q", int(b)))[0] for b in bits) if np.isfinite(x)]
    doubles += [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                0.1, 1 / 3, 30.0, 2.0]
    ints = [0, 1, -7, 2 ** 31, 2 ** 53 + 1, 2 ** 62]
    for chunk in range(0, len(doubles), 100):
        part = doubles[chunk:chunk + 100]
        row = spark.sql("SELECT " + ", ".join(f"{sql_number(x)} AS d{i}" for i, x in enumerate(part))).collect()[0]
        assert [struct.pack("<d", row[i]) for i in range(len(part))] == [struct.pack("<d", x) for x in part]
    row = spark.sql("SELECT " + ", ".join(f"{sql_number(n)} AS n{i}" for i, n in enumerate(ints))).collect()[0]
    assert list(row) == ints
    for bad in (float("inf"), float("nan"), True, "1"):
        with pytest.raises((TypeError, ValueError)):
            sql_number(bad)


def test_a_local_frame_holds_its_values_exactly(spark):
    """``local_frame`` writes numbers and strings as literals and other values as parameters: every
    cell reads back as given (doubles bit for bit, the long range's ends, a decimal beyond it, strings
    with quotes, accents, an emoji and a newline, a non-finite double)."""
    import decimal
    import struct

    from opendp_duff.engines.spark._pyspark import local_frame, types
    t = types()
    schema = t.StructType([t.StructField("s", t.StringType(), False), t.StructField("d", t.DoubleType(), False),
                           t.StructField("n", t.LongType(), False), t.StructField("big", t.DecimalType(38, 0), False)])
    rows = [("it's", -0.0, -2 ** 63, decimal.Decimal(2 ** 64)),
            ('a "b" \\ c', 5e-324, 2 ** 63 - 1, decimal.Decimal(-1)),
            ("", 0.1, 0, decimal.Decimal(10 ** 37)), ("x\u00e9\U0001f600\n", float("inf"), 7, decimal.Decimal(0))]
    got = local_frame(spark, schema, rows).collect()
    assert [(r["s"], struct.pack("<d", r["d"]), r["n"], r["big"]) for r in got] == \
        [(s, struct.pack("<d", d), n, big) for s, d, n, big in rows]


def test_expressions_of_public_steps_are_built_once_per_session(spark):
    """A column's expression and a key column are functions of public steps: built once per
    session, the same object after, and another for other steps."""
    from opendp_duff.engines.spark.column import SparkColumn
    from opendp_duff.engines.spark.parts import split_by_keys
    frame = spark.range(3).selectExpr("CAST(id AS DOUBLE) AS x", "id AS g")
    column = SparkColumn(frame, float, (("column", "x", float), ("clamp", 0.0, 1.0)))
    assert column.expr is SparkColumn(frame.where("g > 0"), float, column.steps).expr
    assert column.then("clamp", 0.0, 2.0).expr is not column.expr
    part = split_by_keys(frame, "g", int, (0, 1))[1]
    assert part.batch.key_expr() is split_by_keys(frame, "g", int, (5,))[0].batch.key_expr()
    assert SparkColumn(part, float, column.steps).expr is column.expr and part._frame is None   # no part frame built
    assert sorted(r[0] for r in frame.select(column.expr.alias("c")).collect()) == [0.0, 1.0, 1.0]   # clamped
