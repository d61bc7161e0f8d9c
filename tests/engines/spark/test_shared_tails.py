"""Tails opened by several keys of one grouped release are fetched in one shared pass per round.

* Every key's two tails asked for in one round: one Spark pass, and each tail's pairs equal the
  single-machine source's on the same records, exactly.
* A grouped median with one-gap windows (tails carry mass, so the samplers open them) on 3 and
  on 12 keys: several keys open tails, and the tail passes stay at most 2 (the most tails one
  key opens), whatever the number of keys.
* A key whose release raises stops the round; the keys waiting for a tail are released.
Deterministic: the data is hashed from row ids and the releases are seeded.
"""
import importlib
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.selection import SelectedRecords
from opendp_duff.engines.spark import SparkColumn, collection, ranks, rounds
from opendp_duff.engines.spark.parts import keyed_rows, split_by_keys
from opendp_duff.measurements import duff_sampler
from opendp_duff.measurements.duff import sampler_ranks
from opendp_duff.samplers import seeded_rng_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

HALF = Fraction(1, 2)
DOM = dp.dataframe_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}, engine="spark")
SYM = dp.symmetric_distance()


@pytest.fixture(scope="module")
def spread(spark):
    """12 keys of 2,000 rows each, values on a 0.01 grid of [0, 100] (ties and gaps), cached."""
    from pyspark.sql import functions as F
    frame = spark.range(24_000, numPartitions=4).select(
        (F.pmod(F.xxhash64("id"), F.lit(10_000)) / 100.0).alias("x"), (F.col("id") % 12).alias("g")).cache()
    rows = frame.collect()                     # no pandas conversion (pyspark warns about pandas 3)
    xs = np.array([r.x for r in rows], dtype=np.float64)
    gs = np.array([r.g for r in rows])
    per_key = {k: xs[gs == k] for k in range(12)}
    yield frame, per_key
    frame.unpersist()


def test_all_tails_of_a_round_come_from_one_pass_and_equal_the_local_ones(spread):
    frame, per_key = spread
    keys = tuple(range(12))
    parts = split_by_keys(frame, "g", int, keys)
    rows, n_keys = keyed_rows(SparkColumn(parts[0], float, (("column", "x", float),)))
    predict = lambda n: sampler_ranks(n, HALF, 0.5)   # noqa: E731
    with collection.release() as log:
        sources = ranks.spark_rank_sources(rows, n_keys, predict, 0.0, 100.0)
        windows = [sources[k].window(*predict(per_key[k].size)) for k in keys]
        before = log.actions
        tails = [t for w in windows for t in (w.left, w.right)]
        got = rounds.run_in_rounds([t.rest for t in tails])
    assert log.actions == before + 1 and log.tail_passes == 1 and log.tails == 24
    for k in keys:
        want = SelectedRecords(per_key[k]).window(*predict(per_key[k].size))
        for side, (a, b) in enumerate(((windows[k].left, want.left), (windows[k].right, want.right))):
            assert (a.count, a.ties) == (b.count, b.ties)
            near_v, near_c = a.near
            rest_v, rest_c = got[2 * k + side]
            av, ac = np.concatenate([near_v, rest_v]), np.concatenate([near_c, rest_c])
            order = np.argsort(av, kind="stable")
            bv, bc = b.pairs()
            assert np.array_equal(av[order], bv) and np.array_equal(ac[order], bc)


@pytest.fixture
def one_gap_windows(monkeypatch):
    monkeypatch.setattr(duff_sampler, "quantile_window", lambda n, scale: 1)
    utility = importlib.import_module("opendp_duff.duff_utility")
    monkeypatch.setattr(utility, "quantile_window", lambda n, scale: 1)


@pytest.mark.parametrize("n_keys", [3, 12])
def test_tail_passes_do_not_grow_with_the_keys(spread, one_gap_windows, n_keys):
    frame, _ = spread
    keys = list(range(n_keys))
    split = (DOM, SYM) >> dp.t.then_partition_by("g", keys=keys)
    inner = ((split.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
             >> dp.t.then_clamp((0.0, 100.0)) >> dp.m.then_duff_median(50.0))
    with seeded_rng_for_tests(7):
        released = (split >> dp.c.then_parallel_composition(inner))(frame)
    log = collection.last_collection()
    assert len(released) == n_keys and all(0.0 <= r <= 100.0 for r in released)
    assert log.tails >= 2 and 1 <= log.tail_passes <= 2


def test_a_failing_key_stops_the_round_and_frees_the_waiting_ones():
    calls = []

    def waits():
        calls.append("asked")
        return rounds.request("group", 1, lambda group, specs: [s + 1 for s in specs])

    def fails():
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        rounds.run_in_rounds([waits, fails, waits])
    assert calls == ["asked"]   # the key after the failing one never started
    assert rounds.run_in_rounds([waits, lambda: 5, waits]) == [2, 5, 2]
