"""The grouped Duff quantile on pandas and Polars frames feeds the sampler exactly the windows of
the whole-sort reference.

Each part's release reads one rank window (the records of the ranks around the target, the two
tails' counts, ties with the window's ends and sorted records).  Here the sampler is replaced by a
recorder, and for many random and tie-heavy grouped inputs (string and integer keys, empty parts,
all-equal parts, signed zeros, records beyond the clamp's bounds, a part split again) every
recorded window is compared with the reference: the part's rows found by a boolean mask, clamped,
sorted, and sliced.  The selection's thresholds are lowered so that small parts take the one-pass
path in many chunks.  Equal windows give the sampler equal inputs, hence the same law; a seeded
two-sample Kolmogorov-Smirnov test checks a grouped release end to end against independent draws
from the sorted reference (false-failure rate 1e-3 per attempt, 1e-6 with the rerun).
"""
import numpy as np
import pytest
import scipy.stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.engines import selection as sel
from opendp_duff.engines.rank_window import SortedRecords
from opendp_duff.measurements import duff as duff_mod
from opendp_duff.measurements.duff import duff_quantile_sample, sampler_ranks

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

SYM = dp.symmetric_distance()
BOUNDS = (-0.5, 1.0)
LIBS = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "lazy": lambda d: pl.DataFrame(d).lazy()}


@pytest.fixture
def recorded(monkeypatch):
    """The windows the sampler is given, in call order, instead of a release."""
    monkeypatch.setattr(sel, "_DIRECT", 16)
    monkeypatch.setattr(sel, "_CHUNK", 64)
    log = []

    def record(src, lo, hi, alpha, scale, size=None):
        ranks = sampler_ranks(src.n, duff_mod.v.alpha("alpha", alpha), scale)
        log.append(None if ranks is None else src.window(*ranks))
        return 0.0
    monkeypatch.setattr(duff_mod, "_sample", record)
    return log


def reference(x, alpha, scale):
    y = np.sort(np.clip(x, *BOUNDS)) + 0.0
    ranks = sampler_ranks(y.size, duff_mod.v.alpha("alpha", alpha), scale)
    return None if ranks is None else SortedRecords(y).window(*ranks)


def same_window(got, want):
    if want is None:
        assert got is None
        return
    assert (got.n, got.first) == (want.n, want.first)
    assert np.array_equal(got.values, want.values) and not np.signbit(got.values[got.values == 0]).any()
    for g, w in ((got.left, want.left), (got.right, want.right)):
        assert (g.count, g.ties) == (w.count, w.ties)
        gv = g.values()
        assert np.array_equal(gv, w.values()) and not np.signbit(gv[gv == 0]).any()


def values(rng, kind, n):
    if kind == "uniform":
        return rng.uniform(-1.0, 2.0, n)
    if kind == "integers":
        return rng.integers(-1, 3, n).astype(float) / 2
    if kind == "few values":
        return rng.choice([-0.0, 0.0, 0.25, 1.0, 7.0], size=n, p=[0.2, 0.2, 0.3, 0.2, 0.1])
    return rng.choice([-np.inf, -3.0, 0.5, np.inf], size=n)           # beyond the bounds


def grouped_input(rng, kind, n, k):
    codes = rng.integers(0, k + 2, n)                                  # codes k, k + 1: no key
    codes[codes == 1] = 2                                              # key 1 gets no row
    x = values(rng, kind, n)
    x[codes == 3] = 0.25                                               # one part all equal
    return codes, x


def chain(parts, alpha, scale):
    inner = ((parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("x")
             >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_quantile(alpha, scale))
    return parts >> dp.c.then_parallel_composition(inner)


@pytest.mark.parametrize("lib", sorted(LIBS))
@pytest.mark.parametrize("kind", ["uniform", "integers", "few values", "beyond"])
@pytest.mark.parametrize("by", ["str", "int"])
def test_every_part_gets_the_window_of_the_whole_sort(recorded, lib, kind, by):
    rng = np.random.default_rng([len(lib), len(kind), len(by)])
    k = 7
    codes, x = grouped_input(rng, kind, 3000, k)
    names = np.array([f"key-{c}" for c in range(k + 2)], dtype=object)
    column = names[codes] if by == "str" else codes * 10
    keys = [str(s) for s in names[:k]] if by == "str" else [c * 10 for c in range(k)]
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=str if by == "str" else int), "x": dp.atom_domain(T=float)})
    parts = (domain, SYM) >> dp.t.then_partition_by("g", keys=keys)
    for alpha, scale in ((0.5, 1.0), (0.1, 0.25), (0.95, 3.0)):
        recorded.clear()
        chain(parts, alpha, scale)(LIBS[lib]({"g": column, "x": x}))
        assert len(recorded) == k
        for j in range(k):
            same_window(recorded[j], reference(x[codes == j], alpha, scale))


def test_a_part_split_again_gets_the_window_of_the_whole_sort(recorded):
    rng = np.random.default_rng(5)
    codes, x = grouped_input(rng, "few values", 4000, 3)
    inner_codes = rng.integers(0, 3, codes.size)
    df = pd.DataFrame({"g": codes, "h": inner_codes, "x": x})
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=int), "h": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
    outer = (domain, SYM) >> dp.t.then_partition_by("g", keys=[0, 2])
    inner = (outer.output_domain.part_domain, SYM) >> dp.t.then_partition_by("h", keys=[0, 1, 2])
    parts = inner(outer(df)[1])
    release = (inner.output_domain.part_domain, SYM) >> dp.t.then_select_column("x") \
        >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(1.0)
    for j, part in enumerate(parts):
        recorded.clear()
        release(part)
        same_window(recorded[0], reference(x[(codes == 2) & (inner_codes == j)], 0.5, 1.0))


@pytest.mark.slow
@rerun_once(47)
def test_a_grouped_release_on_string_keys_passes_a_two_sample_ks_test():
    """Releases of the same 400 records under 300 keys (pandas, fused clamp and selection) against
    300 independent draws from the sorted, clamped records (the whole-sort path)."""
    copies = 300
    xs = np.round(np.random.default_rng(9).normal(0.3, 0.6, 400), 1)     # ties; some beyond the bounds
    keys = [f"k{i}" for i in range(copies)]
    df = pd.DataFrame({"g": np.repeat(np.array(keys, dtype=object), xs.size), "x": np.tile(xs, copies)})
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    parts = (domain, SYM) >> dp.t.then_partition_by("g", keys=keys)
    grouped = chain(parts, 0.5, 0.5)(df)
    y = np.sort(np.clip(xs, *BOUNDS))
    singles = [duff_quantile_sample(y, BOUNDS, 0.5, 0.5) for _ in range(copies)]
    assert scipy.stats.ks_2samp(grouped, singles).pvalue > 1e-3


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_the_split_holds_every_declared_column_of_its_rows_and_none_of_later_changes(lib):
    df = {"k": ["b", "a", "b", "c", "a"], "s": ["s0", "s1", "s2", "s3", "s4"], "i": [5, 6, 7, 8, 9],
          "x": [0.5, -0.0, 2.0, 3.0, 4.0]}
    domain = dp.dataframe_domain({"k": dp.atom_domain(T=str), "s": dp.atom_domain(T=str),
                                  "i": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
    frame = LIBS[lib](df)
    parts = ((domain, SYM) >> dp.t.then_partition_by("k", keys=["a", "b", "z"]))(frame)
    if lib == "pandas":
        frame.loc[1, "x"] = 99.0                     # a later change to the frame reaches no part
    want = {"a": [1, 4], "b": [0, 2], "z": []}
    for part, key in zip(parts, ["a", "b", "z"], strict=True):
        rows = want[key]
        assert part.column("k").tolist() == [key] * len(rows) and all(type(v) is str for v in part.column("k"))
        assert part.column("s").tolist() == [df["s"][r] for r in rows]
        assert part.column("i").tolist() == [df["i"][r] for r in rows] and part.column("i").dtype == np.int64
        x = part.column("x")
        assert x.tolist() == [df["x"][r] for r in rows] and x.dtype == np.float64
        assert list(part.frame().columns) == ["k", "s", "i", "x"] and len(part.frame()) == len(rows)
