"""Rank windows computed by Spark equal the single-machine ones exactly (SelectedRecords on the
same records): values, counts, ties at both edges and the tails when opened, for many keys in
the same passes, with ties across the window's edges, all-equal data, n below the window, an
empty key, a window other than the predicted one (an extra pass), and a bracket that misses
its window (the recomputation without bracket).  Deterministic: no randomness is drawn."""
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.measurements._rank_window import SelectedRecords
from opendp_duff.spark import collection, ranks
from opendp_duff.spark._parts import keyed_rows, split_by_keys
from opendp_duff.spark.domain import SparkColumn

pytestmark = pytest.mark.spark

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
        if open_tails:
            assert np.array_equal(a.values(), np.sort(b.values()))


def _sources(parts, alpha, scale, accuracy=ranks.ACCURACY):
    rows, n_keys = keyed_rows(SparkColumn(parts[0], float, X))
    return ranks.spark_rank_sources(rows, n_keys, alpha, scale, accuracy)


@pytest.mark.parametrize("alpha, scale", [(HALF, 2.0), (Fraction(9, 10), 0.5)])
def test_windows_of_every_key_equal_the_local_ones(grouped, alpha, scale):
    data, parts = grouped
    with collection.release() as log:
        sources = _sources(parts, alpha, scale)
    assert log.actions == 2                      # sizes and ladder, then every window
    for k, xs in data.items():
        src = sources[k]
        assert src.n == xs.size
        ranks_k = ranks.sampler_ranks(xs.size, alpha, scale)
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
    # brackets above every record: the window is outside them, so the second pass must run
    monkeypatch.setattr(ranks, "bracket", lambda *args: (1e9, 2e9))
    with collection.release() as log:
        sources = _sources(parts, HALF, 2.0)
    assert log.actions == 3
    for k in (0, 1, 5):
        first, last = ranks.sampler_ranks(data[k].size, HALF, 2.0)
        _same(sources[k].window(first, last), SelectedRecords(data[k]).window(first, last), open_tails=False)


def test_ungrouped_column_and_a_small_accuracy(spark):
    xs = np.random.default_rng(3).integers(0, 40, size=2000).astype(float)
    frame = spark.createDataFrame([(float(v),) for v in xs], "x double")
    rows, n_keys = keyed_rows(SparkColumn(frame, float, X))
    assert n_keys == 1
    src = ranks.spark_rank_sources(rows, 1, HALF, 1.0, accuracy=50)   # rank error up to n/50
    first, last = ranks.sampler_ranks(xs.size, HALF, 1.0)
    _same(src[0].window(first, last), SelectedRecords(xs).window(first, last))


def test_ladder_and_bracket_arithmetic():
    fr = ranks.ladder(HALF, 1000)
    assert fr == sorted(fr) and all(0 < p < 1 for p in fr) and 0.5 in fr
    assert (min(fr), max(fr)) == (0.25, 0.75) and len(fr) == 2 * 11 + 1
    assert 0 < 0.5 - fr[10] < 1 / 1000 and 0 < fr[12] - 0.5 < 1 / 1000
    q = [p * 100 for p in fr]                    # quantiles of 0..100 at the fractions
    a, b = ranks.bracket(10_000, 4000, 6000, fr, q, 1000)
    assert a <= 40 and b >= 60 and np.isfinite(a) and np.isfinite(b)
    assert ranks.bracket(10, 1, 10, fr, q, 1000) == (-np.inf, np.inf)
