"""The context on pandas and Polars data frames of 20,000 synthetic rows (incomes, regions, ages):
the analyst's snippet, grouped releases returned as a frame of the input's library with every
key (one absent from the data too), the grouped median costing what the ungrouped one costs,
the domain read from the dtypes, four queries spending everything and a fifth refused without
reading the frame or drawing randomness, and NaN refused with how to impute it.

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


def context(df, loss=None, **kwargs):
    return dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=loss or dp.loss_of(epsilon=1.0), **kwargs)


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
    ctx = context(frame(library))
    assert ctx.domain == dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float),
                                              "age": dp.atom_domain(T=int)})   # booleans are left out


def test_the_analysts_snippet_runs(library, frame_reads):
    df = frame(library)
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=4)
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
                                privacy_loss=dp.loss_of(epsilon=1.0))
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


def test_nan_is_refused_with_how_to_declare_and_impute_it(library):
    data = dict(DATA, income=DATA["income"].copy())
    data["income"][17] = np.nan
    df = frame(library, data)
    with pytest.raises(dp.NotAMemberValueError, match=r"nan=True.*\.impute\(constant\)") as info:
        context(df)
    assert repr(float(data["income"][0])) not in str(info.value)
    declared = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float, nan=True)})
    ctx = context(df, domain=declared)
    release = ctx.query(epsilon=1.0).column("income").impute(0.0).clamp(BOUNDS).median().release()
    assert BOUNDS[0] <= release <= BOUNDS[1]


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
