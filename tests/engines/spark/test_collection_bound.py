"""What reaches the driver, per release and per key, read from the instrumented counter: a Duff
median reads at most the window's width in data values per key (fewer with ties: the window's
distinct values), a tail only when opened, and otherwise counts; counts, modes and sums read no
data value.  Every public key gets a release, including keys absent from the
data, and rows of other keys are dropped.  The tail-free assertion fails only if a tail is
opened, with probability below 1e-12 per key at these sizes."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines.spark import collection
from opendp_duff.measurements.duff import sampler_ranks

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop


@pytest.fixture(scope="module")
def frame(spark):
    rng = np.random.default_rng(2)
    sizes = {0: 2000, 1: 600, 2: 40, 3: 1, 99: 500}   # 99 is not a public key
    rows = [(float(v), k) for k, n in sizes.items() for v in rng.normal(size=n)]
    rows += [(3.0, 4)] * 300                           # all equal
    return spark.createDataFrame(rows, "x double, g long"), {**sizes, 4: 300}


DOM = dp.dataframe_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}, engine="spark")
SYM = dp.symmetric_distance()


def _grouped(inner, keys):
    parts = (DOM, SYM) >> dp.t.then_partition_by("g", keys=keys)
    return parts >> dp.c.then_parallel_composition(inner((parts.output_domain.part_domain, SYM)))


def test_median_reads_at_most_the_window_per_key(frame):
    df, sizes = frame
    keys = [0, 1, 2, 3, 4, 5]                         # 5 is absent
    scale = 2.0
    released = _grouped(lambda part: part >> dp.t.then_select_column("x") >> dp.t.then_clamp((-4.0, 4.0))
                        >> dp.m.then_duff_median(scale), keys)(df)
    log = collection.last_collection()
    assert len(released) == len(keys) and all(-4.0 <= r <= 4.0 for r in released)
    assert log.tails == 0 and log.actions == 3       # sizes, one bracket level, windows
    for i, k in enumerate(keys):
        n = sizes.get(k, 0)
        if n == 0:
            assert log.per_key.get(i, 0) == 0
            continue
        first, last = sampler_ranks(n, Fraction(1, 2), scale)
        width = 1 if k == 4 else last - first + 1     # all equal: one distinct value
        assert 0 < log.per_key[i] <= width
    assert log.values == sum(log.per_key.values())


def test_counts_modes_and_sums_read_no_data_value_and_drop_other_keys(frame):
    df, sizes = frame
    keys = [0, 1, 2, 3, 4, 5]
    counts = _grouped(lambda part: part >> dp.t.then_select_column("x") >> dp.t.then_count()
                      >> dp.m.then_laplace(0.0), keys)(df)
    assert counts == tuple(float(sizes.get(k, 0)) for k in keys)   # scale 0: the exact counts
    assert collection.last_collection().values == 0
    mode = _grouped(lambda part: part >> dp.t.then_select_column("x") >> dp.m.then_duff_mode([3.0, 0.0], 1.0), keys)
    assert mode(df)[4] in (3.0, 0.0)
    assert collection.last_collection().values == 0 and collection.last_collection().actions == 1


def test_the_collect_fallback_reads_every_value_once(frame):
    df, sizes = frame
    keys = [0, 1, 2]
    released = _grouped(lambda part: part >> dp.t.then_select_column("x") >> dp.t.then_clamp((-4.0, 4.0))
                        >> dp.m.then_duff_mean(1.0), keys)(df)
    log = collection.last_collection()
    assert len(released) == 3 and log.actions == 1    # one pass for every key
    assert [log.per_key[i] for i in range(3)] == [sizes[k] for k in keys]
