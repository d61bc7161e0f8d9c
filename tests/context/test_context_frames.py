"""The context on pandas and Polars data frames of 20,000 synthetic rows (incomes, regions, ages):
the analyst's snippet, grouped releases returned as a frame of the input's library with every
key (one absent from the data too) and never without its key column, the grouped median
costing what the ungrouped one costs and a person's k rows charged through the partition
distance, the domain read from the dtypes (float columns may hold NaN), four queries spending
everything and a fifth refused without reading the frame or drawing randomness, and missing
values refused only in the columns a query reads, before anything is read.

The statistical test is seeded (``rerun_once``); its false-failure rate is below 1e-15 (each
group's Duff median leaves a window of 200 ranks around the group's median with probability
below (b - a) / (narrowest gap) e^{-200/scale}, scale 2)."""
import numpy as np
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.samplers import byte_source_for_tests

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
from opendp_duff.engines import _frames, _pandas, _polars  # noqa: E402

N = 20_000
REGIONS = ["N", "S", "E", "W"]
BOUNDS = (0.0, 5e5)


def synthetic(seed=2024):
    rng = np.random.default_rng(seed)
    region = rng.choice(REGIONS, size=N, p=[0.4, 0.3, 0.2, 0.1])
    log_mean = np.select([region == "N", region == "S", region == "E"], [10.9, 10.5, 10.7], 10.2)
    return {"region": region.tolist(), "income": rng.lognormal(log_mean, 0.7),
            "age": rng.integers(18, 90, size=N), "member": rng.random(N) < 0.3}


DATA = synthetic()


@pytest.fixture(params=["pandas", "polars"])
def library(request):
    return request.param


def frame(library, data=DATA):
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)


def is_library_frame(x, library):
    return isinstance(x, pd.DataFrame if library == "pandas" else pl.DataFrame)


DECLARED = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float),
                                "age": dp.atom_domain(T=int)})   # the curator says: no missing income


def context(df, loss=None, domain=DECLARED, **kwargs):
    return dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=loss or dp.loss_of(epsilon=1.0), domain=domain, **kwargs)


class FailingSource:
    def random_bytes(self, n):
        pytest.fail("randomness was drawn")


@pytest.fixture
def frame_reads(monkeypatch):
    """Record every read of a frame's rows or values (schema reads are public and not counted)."""
    reads = []
    for adapter in (_pandas.PandasEngine, _polars.PolarsEngine, _frames.LocalFrames):
        for name in ("read_column", "n_rows", "take_columns", "split", "string_codes"):
            if name not in vars(adapter):
                continue
            original = getattr(adapter, name)
            monkeypatch.setattr(adapter, name,
                                lambda self, *a, _o=original, _n=name: reads.append(_n) or _o(self, *a))
    return reads


def test_the_domain_is_read_from_the_dtypes(library):
    ctx = context(frame(library), domain=None)
    assert ctx.domain == dp.dataframe_domain({"region": dp.atom_domain(T=str),
                                              "income": dp.atom_domain(T=float, nan=True),
                                              "age": dp.atom_domain(T=int)})   # booleans are left out


def test_the_analysts_snippet_runs(library, frame_reads):
    df = frame(library)
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=4, domain=DECLARED)
    median = ctx.query().column("income").clamp(BOUNDS).median().release()
    p90 = ctx.query().column("income").clamp(BOUNDS).quantile(0.9).release()
    grouped = ctx.query().group_by("region", keys=REGIONS).column("income").clamp(BOUNDS).median().release()
    mode = ctx.query().column("region").mode(candidates=REGIONS).release()
    assert BOUNDS[0] <= median <= BOUNDS[1] and BOUNDS[0] <= p90 <= BOUNDS[1]
    assert is_library_frame(grouped, library) and mode in REGIONS
    assert ctx.remaining == 0.0 and ctx.spent == 1.0
    reads = len(frame_reads)
    assert {"read_column", "split"} <= set(frame_reads)   # the releases did read the frame
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.BudgetExceeded):
            ctx.query().column("income").clamp(BOUNDS).median().release()
    assert len(frame_reads) == reads and ctx.remaining == 0.0


def test_a_query_built_in_time_and_released_late_is_refused_unread(library, frame_reads):
    ctx = context(frame(library), split_evenly_over=1)
    late = ctx.query().group_by("region", keys=REGIONS).column("income").clamp(BOUNDS).median()
    ctx.query().column("income").count().release()
    reads = len(frame_reads)
    assert "read_column" in frame_reads
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.BudgetExceeded):
            late.release()
    assert len(frame_reads) == reads


def test_grouped_medians_are_a_frame_with_every_key_even_absent_ones(library):
    ctx = context(frame(library))
    keys = ["N", "S", "E", "W", "Centre"]
    out = ctx.query(epsilon=0.5).group_by("region", keys=keys).column("income").clamp(BOUNDS).median().release()
    assert is_library_frame(out, library)
    assert list(out.columns) == ["region", "income_median"]
    assert list(out["region"]) == keys
    values = list(out["income_median"])
    assert len(values) == len(keys) and all(BOUNDS[0] <= v <= BOUNDS[1] for v in values)
    assert ctx.remaining == 0.5


@pytest.mark.parametrize("contributions", [1, 2])
def test_the_grouped_median_costs_what_the_median_costs(library, contributions):
    ctx = dp.Context.compositor(data=frame(library), privacy_unit=dp.unit_of(contributions=contributions),
                                privacy_loss=dp.loss_of(epsilon=1.0), domain=DECLARED)
    plain = ctx.query(epsilon=0.3).column("income").clamp(BOUNDS).median().resolve()
    grouped = ctx.query(epsilon=0.3).group_by("region", keys=REGIONS).column("income").clamp(BOUNDS).median()
    assert grouped.resolve().map(contributions) <= 0.3
    if contributions == 1:
        assert grouped.resolve().map(1) == plain.map(1)


def test_other_grouped_statistics_and_integer_keys(library):
    ctx = context(frame(library), loss=dp.loss_of(rho=1.0))
    counts = ctx.query(rho=0.25).group_by("region", keys=REGIONS).column("income").count().release()
    assert list(counts.columns) == ["region", "income_count"]
    assert np.isfinite(list(counts["income_count"])).all()
    q = ctx.query(rho=0.25).group_by("age", keys=[20, 40, 60, 95]).column("income").clamp(BOUNDS).quantile(0.9)
    out = q.release()
    assert list(out["age"]) == [20, 40, 60, 95] and list(out.columns) == ["age", "income_quantile_0.9"]
    assert q.resolve().output_measure == dp.zero_concentrated_divergence()
    assert ctx.remaining == 0.5


def test_group_by_is_refused_where_it_does_not_fit(library):
    ctx = context(frame(library), split_evenly_over=2)
    with pytest.raises(dp.MakeError, match="before .column"):
        ctx.query().column("income").group_by("region", keys=REGIONS)
    with pytest.raises(dp.MakeError, match="declared columns"):
        ctx.query().column("salary")
    with pytest.raises(dp.MakeError, match="declared columns"):
        ctx.query().group_by("member", keys=[True, False])
    with pytest.raises(dp.MakeError, match="needs a column"):
        ctx.query().group_by("region", keys=REGIONS).median(bounds=BOUNDS)
    assert ctx.remaining == 1.0


def test_missing_values_are_refused_only_in_the_columns_a_query_reads(library, frame_reads):
    data = dict(DATA, income=DATA["income"].copy(), spare=np.ones(N))
    data["income"][17] = np.nan
    data["spare"][3] = np.nan                     # a column no query reads
    ctx = context(frame(library, data), domain=None, loss=dp.loss_of(epsilon=2.0))
    admitted = len(frame_reads)                   # the context admits the frame when it is created
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.MakeError, match=r"'income' may hold missing values.*\.impute\(constant\)"):
            ctx.query(epsilon=1.0).column("income").clamp(BOUNDS).median()
        with pytest.raises(dp.MakeError, match="missing values"):
            ctx.release(dp.query().group_by("region", keys=REGIONS).column("income").median(bounds=BOUNDS),
                        epsilon=1.0)
    assert len(frame_reads) == admitted and ctx.remaining == 2.0
    release = ctx.query(epsilon=1.0).column("income").impute(0.0).clamp(BOUNDS).median().release()
    assert BOUNDS[0] <= release <= BOUNDS[1]
    assert 18 <= ctx.query(epsilon=1.0).column("age").median(bounds=(18, 89)).release() <= 89


def test_a_column_declared_without_nan_is_checked_when_the_context_is_created(library):
    data = dict(DATA, income=DATA["income"].copy())
    data["income"][17] = np.nan
    with pytest.raises(dp.NotAMemberValueError, match=r"nan=True.*\.impute\(constant\)") as info:
        context(frame(library, data))
    assert repr(float(data["income"][0])) not in str(info.value)


def test_the_key_column_is_never_lost_to_the_statistics_column(library):
    df = frame(library, dict(DATA, income_median=DATA["region"]))   # a group column named <col>_median
    domain = dp.dataframe_domain({"income_median": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
    ctx = context(df, domain=domain)
    out = (ctx.query(epsilon=1.0).group_by("income_median", keys=REGIONS).column("income").clamp(BOUNDS)
           .median().release())
    assert list(out.columns) == ["income_median", "income_median_dp"]
    assert list(out["income_median"]) == REGIONS


@pytest.mark.parametrize("contributions", [1, 3, 7])
def test_a_persons_rows_are_charged_through_the_partition_distance(library, contributions):
    """k rows touch at most min(k, groups) groups, each by at most k rows: the grouped map is the
    parallel composition's at the partition's distance (k, k, k), with 5 groups."""
    ctx = dp.Context.compositor(data=frame(library), privacy_unit=dp.unit_of(contributions=contributions),
                                privacy_loss=dp.loss_of(epsilon=100.0), domain=DECLARED)
    keys = REGIONS + ["C"]
    grouped = ctx.query().group_by("region", keys=keys).column("income").clamp(BOUNDS).median(scale=4.0).resolve()
    parts = (DECLARED, dp.symmetric_distance()) >> dp.t.then_partition_by("region", keys=keys)
    part = ((parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("income")
            >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(scale=4.0))
    expected = dp.c.make_parallel_composition(parts.output_domain, parts.output_metric, part)
    assert parts.map(contributions) == (contributions,) * 3
    assert grouped.map(contributions) == expected.map(parts.map(contributions))
    assert grouped.map(contributions) <= min(contributions, len(keys)) * part.map(contributions)


def test_an_explicit_domain_must_be_a_frame_domain(library):
    with pytest.raises(dp.MakeTypeError, match="dataframe_domain"):
        context(frame(library), domain=dp.vector_domain(dp.atom_domain(T=float)))


@rerun_once(seed=5)
def test_grouped_medians_land_near_each_groups_median(library):
    ctx = context(frame(library))
    out = ctx.query(epsilon=1.0).group_by("region", keys=REGIONS).column("income").clamp(BOUNDS).median().release()
    region, income = np.array(DATA["region"]), DATA["income"]
    for key, release in zip(REGIONS, list(out["income_median"]), strict=True):
        x = np.sort(income[region == key])
        mid = (x.size + 1) // 2 - 1
        assert x[mid - 200] <= release <= x[mid + 200]
