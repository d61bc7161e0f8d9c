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
from opendp_duff.spark import (collection, make_spark_grouped, spark_frame_domain, then_spark_clamp,
                               then_spark_count, then_spark_duff_median, then_spark_duff_mode,
                               then_spark_select_column)
from opendp_duff.spark.ranks import sampler_ranks

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

@pytest.fixture(scope="module")
def frame(spark):
    rng = np.random.default_rng(2)
    sizes = {0: 2000, 1: 600, 2: 40, 3: 1, 99: 500}   # 99 is not a public key
    rows = [(float(v), k) for k, n in sizes.items() for v in rng.normal(size=n)]
    rows += [(3.0, 4)] * 300                           # all equal
    return spark.createDataFrame(rows, "x double, g long"), {**sizes, 4: 300}


SPACE = spark_frame_domain({"x": dp.atom_domain(T=float), "g": dp.atom_domain(T=int)}), dp.symmetric_distance()


def _grouped(part, keys):
    return make_spark_grouped(*SPACE, "g", keys, part)


def test_median_reads_at_most_the_window_per_key(frame):
    df, sizes = frame
    keys = [0, 1, 2, 3, 4, 5]                         # 5 is absent
    scale = 2.0
    part = SPACE >> then_spark_select_column("x") >> then_spark_clamp((-4.0, 4.0)) >> then_spark_duff_median(scale)
    released = _grouped(part, keys)(df)
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


def test_counts_and_modes_read_no_data_value_and_drop_other_keys(frame):
    df, sizes = frame
    keys = [0, 1, 2, 3, 4, 5]
    counts = _grouped(SPACE >> then_spark_count() >> dp.m.then_laplace(0.0), keys)(df)
    assert counts == tuple(float(sizes.get(k, 0)) for k in keys)   # scale 0: the exact counts
    assert collection.last_collection().values == 0
    mode = SPACE >> then_spark_select_column("x") >> then_spark_duff_mode([3.0, 0.0], 1.0)
    assert _grouped(mode, keys)(df)[4] in (3.0, 0.0)
    assert collection.last_collection().values == 0 and collection.last_collection().actions == 1
