"""Rank windows computed by Spark equal the single-machine ones exactly (SelectedRecords on the
same records): values, counts, ties at both edges and the tails when opened, for many keys in
the same passes, with ties across the window's edges, all-equal data, n below the window, an
empty key, brackets of several histogram levels, a window other than the predicted one (an
extra pass), and a bracket that misses its window (the recomputation without bracket); the
side of a value under any levels is non-decreasing.  Deterministic: no randomness is drawn."""
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.engines import SelectedRecords
from opendp_duff.engines.spark import SparkColumn, _brackets, collection, ranks
from opendp_duff.engines.spark.parts import KID, VAL, keyed_rows, split_by_keys
from opendp_duff.measurements.duff import sampler_ranks

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

HALF = Fraction(1, 2)
X = (("column", "x", float),)


def _datasets():
    rng = np.random.default_rng(7)
    return {
        0: rng.normal(size=400),                                   # distinct values
        1: rng.integers(0, 5, size=300).astype(float),             # ties across both edges
        2: np.full(120, 2.5),                                      # all equal
        3: np.array([3.0, -1.0, 3.0]),                             # n below the window
        4: np.array([]),                                           # absent from the data
        5: np.concatenate([np.zeros(150), rng.uniform(size=150)]),  # a block of ties below the median
    }


@pytest.fixture(scope="module")
def grouped(spark):
    data = _datasets()
    rows = [(float(v), k) for k, xs in data.items() for v in xs]
    frame = spark.createDataFrame(rows, "x double, g long")
    parts = split_by_keys(frame, "g", int, tuple(data))
    return data, parts


def _same(w, local, open_tails=True):
    assert w.n == local.n and w.first == local.first
    assert np.array_equal(w.values, local.values)
    for a, b in ((w.left, local.left), (w.right, local.right)):
        assert (a.count, a.ties) == (b.count, b.ties)
        if open_tails:    # the pairs that feed the sampler: near ones and the rest, merged
            (av, ac), (bv, bc) = a.pairs(), b.pairs()
            assert np.array_equal(av, bv) and np.array_equal(ac, bc)


def _sources(parts, alpha, scale):
    rows, n_keys = keyed_rows(SparkColumn(parts[0], float, X))
    return ranks.spark_rank_sources(rows, n_keys, lambda n: sampler_ranks(n, alpha, scale), -10.0, 10.0)


@pytest.mark.parametrize("alpha, scale, bins, passes", [(HALF, 2.0, 1024, 2), (Fraction(9, 10), 0.5, 16, 3)])
def test_windows_of_every_key_equal_the_local_ones(grouped, monkeypatch, alpha, scale, bins, passes):
    data, parts = grouped
    monkeypatch.setattr(_brackets, "BINS", bins)
    choose = ranks.choose_levels   # without the distinct-value estimate: every key large enough gets a bracket
    monkeypatch.setattr(ranks, "choose_levels", lambda rows, n, r, lo, hi, distinct: choose(rows, n, r, lo, hi))
    with collection.release() as log:
        sources = _sources(parts, alpha, scale)
    # sizes, windows, and one bracket level or more when a key holds much more than its window
    assert passes <= log.actions <= passes + _brackets.MAX_LEVELS - 1 and (bins < 1024 or log.actions == 2)
    for k, xs in data.items():
        src = sources[k]
        assert src.n == xs.size
        ranks_k = sampler_ranks(xs.size, alpha, scale)
        if ranks_k is None:
            continue
        _same(src.window(*ranks_k), SelectedRecords(xs).window(*ranks_k), open_tails=k in (1, 2, 5))


def test_another_window_is_computed_by_one_more_pass(grouped):
    data, parts = grouped
    sources = _sources(parts, HALF, 2.0)
    for k, (first, last) in ((0, (1, 5)), (1, (40, 260)), (5, (150, 151))):
        with collection.release() as log:
            w = sources[k].window(first, last)
        assert log.actions == 1
        _same(w, SelectedRecords(data[k]).window(first, last))


def test_a_bracket_that_misses_is_recomputed_without_bracket(grouped, monkeypatch):
    data, parts = grouped
    # a level whose inside is empty (y = 0 < 5 for every value): every row is below it
    monkeypatch.setattr(ranks, "choose_levels",
                        lambda rows, n, r, lo, hi, *_: {k: ((0.0, 0.0, 5.0, 6.0, 8.0),) for k in r})
    with collection.release() as log:
        sources = _sources(parts, HALF, 2.0)
    assert log.actions == 3
    for k in (0, 1, 5):
        first, last = sampler_ranks(data[k].size, HALF, 2.0)
        _same(sources[k].window(first, last), SelectedRecords(data[k]).window(first, last), open_tails=False)


def test_several_levels_and_ties(spark, monkeypatch):
    monkeypatch.setattr(_brackets, "BINS", 4)      # coarse bins: the bracket needs several levels
    xs = np.concatenate([np.random.default_rng(3).uniform(0, 1, size=3000), np.full(500, 0.5)])
    frame = spark.createDataFrame([(float(v),) for v in xs], "x double")
    rows, n_keys = keyed_rows(SparkColumn(frame, float, X))
    assert n_keys == 1
    with collection.release() as log:
        src = ranks.spark_rank_sources(rows, 1, lambda n: sampler_ranks(n, HALF, 0.5), 0.0, 1.0)
    assert log.actions >= 4                         # sizes, two levels or more, windows
    first, last = sampler_ranks(xs.size, HALF, 0.5)
    _same(src[0].window(first, last), SelectedRecords(xs).window(first, last))


def test_the_side_is_non_decreasing_in_the_value(spark):
    from pyspark.sql import functions as F
    xs = sorted({float(v) for v in np.random.default_rng(4).normal(size=300)} | {-1e300, 1e300, 0.0})
    levels = ((-1.0, 100.0, 20.0, 170.0, 256.0), (-0.7, 3000.0, -1.0, 900.0, 1024.0), (-0.5, 1e9, 3.0, 64.0, 64.0))
    frame = spark.createDataFrame([(0, v) for v in xs], f"{KID} int, {VAL} double")
    got = _brackets.with_levels(frame, {0: (1, 1, levels)}, 3).select(
        VAL, _brackets.side(F.col(VAL), 3).alias("s")).collect()
    sides = [r["s"] for r in sorted(got, key=lambda r: r[VAL])]
    assert sides == sorted(sides) and set(sides) == {-1, 0, 1}
