"""Every constructor that dispatches on its domain releases, on each local engine (a pandas frame,
a Polars frame, a Polars LazyFrame), exactly what it releases on the column as a numpy array:
with the same random bytes the same float, because the samplers read the same inputs (the same
window, counts, exact sum, sorted records).  That equality is the equality of the laws; a seeded
two-sample Kolmogorov-Smirnov test checks one grouped release end to end against independent
single-machine releases (false-failure rate 1e-3 per attempt, 1e-6 with the rerun).  The Spark
engine has the same tests in tests/engines/spark/."""
import math

import numpy as np
import pytest
import scipy.stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.samplers import seeded_rng_for_tests

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

SYM = dp.symmetric_distance()
RNG = np.random.default_rng(17)
N = 120
X = np.round(RNG.normal(5.0, 2.0, N), 1)
X_NAN = np.where(np.arange(N) % 9 == 0, np.nan, X)
K = RNG.choice(["a", "b", "c"], N)
ENGINES = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "lazy": lambda d: pl.DataFrame(d).lazy()}
BOUNDS = (0.0, 10.0)


def frame(engine, x=X):
    return ENGINES[engine]({"k": K, "x": x})


def spaces(nan=False, size=None):
    elem = dp.atom_domain(T=float, nan=nan)
    frames = dp.dataframe_domain({"k": dp.atom_domain(T=str), "x": elem}, size=size), SYM
    return frames >> dp.t.then_select_column("x"), (dp.vector_domain(elem, size=size), SYM)


CHAINS = {
    "count": lambda s: s >> dp.t.then_count() >> dp.m.then_laplace(1.0),
    "sum": lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.t.then_sum() >> dp.m.then_laplace(1.0),
    "median": lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(1.0),
    "quantile": lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_quantile(0.9, 0.5),
    "sorted median": lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.t.then_sort() >> dp.m.then_duff_median(1.0),
    "mean": lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_mean(0.5),
    "smooth median": lambda s: (s >> dp.t.then_clamp(BOUNDS) >> dp.t.then_sort()
                                >> dp.m.then_smooth_median(t=0.1, s=0.5, noise="student_t", d=3)),
    "trimmed mean": lambda s: (s >> dp.t.then_clamp(BOUNDS) >> dp.t.then_sort()
                               >> dp.m.then_smooth_trimmed_mean(m=10, t=0.1, s=0.5, noise="student_t", d=3)),
}


def same_bytes(a, b, data_a, data_b, seed=11):
    with seeded_rng_for_tests(seed):
        first = a(data_a)
    with seeded_rng_for_tests(seed):
        second = b(data_b)
    return first, second


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("name", sorted(CHAINS))
def test_column_statistics_equal_the_numpy_ones_byte_for_byte(engine, name):
    on_frame, on_vector = spaces(size=N if name in ("sum", "smooth median", "trimmed mean") else None)
    build = CHAINS[name]
    got, want = same_bytes(build(on_frame), build(on_vector), frame(engine), X.copy())
    assert got == want and math.isfinite(got)
    for d in (0, 1, 2):
        assert build(on_frame).map(d) == build(on_vector).map(d)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_imputed_and_mode_releases_equal_the_numpy_ones(engine):
    on_frame, on_vector = spaces(nan=True)
    chain = lambda s: s >> dp.t.then_impute_constant(5.0) >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(1.0)  # noqa: E731
    got, want = same_bytes(chain(on_frame), chain(on_vector), frame(engine, X_NAN), X_NAN.copy())
    assert got == want
    words = ((dp.dataframe_domain({"k": dp.atom_domain(T=str)}), SYM) >> dp.t.then_select_column("k")
             >> dp.m.then_duff_mode(["a", "b", "z"], 0.5))
    local_words = (dp.vector_domain(dp.atom_domain(T=str)), SYM) >> dp.m.then_duff_mode(["a", "b", "z"], 0.5)
    got, want = same_bytes(words, local_words, frame(engine), K.tolist())
    assert got == want


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_grouped_releases_equal_the_numpy_ones_key_by_key(engine):
    domain = dp.dataframe_domain({"k": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    parts = (domain, SYM) >> dp.t.then_select_columns(["k", "x"]) >> dp.t.then_partition_by("k", keys=["c", "a", "z"])
    median = lambda s: s >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(1.0)  # noqa: E731
    part_space = (parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
    grouped = parts >> dp.c.then_parallel_composition(median(part_space))
    local = median((dp.vector_domain(dp.atom_domain(T=float)), SYM))
    with seeded_rng_for_tests(4):
        got = grouped(frame(engine))
    with seeded_rng_for_tests(4):
        dp.samplers.check_entropy()         # the one draw Measurement.__call__ makes first
        want = tuple(local._function(X[K == key]) for key in ["c", "a", "z"])
    assert got == want and len(got) == 3


@pytest.mark.slow
@rerun_once(31)
def test_a_grouped_lazy_frame_release_passes_a_two_sample_ks_test():
    copies, xs = 300, np.round(np.random.default_rng(2).normal(size=25), 1)
    lazy = pl.DataFrame({"g": np.repeat(np.arange(copies), xs.size), "x": np.tile(xs, copies)}).lazy()
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
    parts = (domain, SYM) >> dp.t.then_partition_by("g", keys=list(range(copies)))
    inner = ((parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x") >> dp.t.then_clamp((-3.0, 3.0))
             >> dp.m.then_duff_median(1.0))
    grouped = (parts >> dp.c.then_parallel_composition(inner))(lazy)
    local = ((dp.vector_domain(dp.atom_domain(T=float)), SYM) >> dp.t.then_clamp((-3.0, 3.0))
             >> dp.m.then_duff_median(1.0))
    singles = [local(xs) for _ in range(copies)]
    assert scipy.stats.ks_2samp(grouped, singles).pvalue > 1e-3
