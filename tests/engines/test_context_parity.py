"""The same statistics on every engine: a parity matrix of query plans.

Every named statistic of the plans' vocabulary (median, quantile, mean, mode, count, sum,
smooth_median, trimmed_mean), the steps ``.impute`` and ``.clamp``, and a generic
``dp.m.make_x`` statistic (``laplace`` after ``dp.t.then_count``), grouped and ungrouped, are
released by ``ctx.release(plan)`` from ONE data-free plan on numpy (ungrouped), pandas, Polars
(eager and lazy) and Spark, each under the same test seed.  Each engine must release the same
bytes as the reference: numpy for an ungrouped plan (for an integer column, numpy given the
floats of the same integers, with the bounds as floats), pandas for a grouped one (numpy data
has no key column).  The engines feed the same samplers the same inputs, so no cell needs a
statistical test: equality is exact, and a cell fails on the first differing bit.

A plan that the planner refuses (a grouped sum or a grouped smooth mechanism: the parts' sizes
are private) must be refused alike, by the same exception with the same message, before any
data is read and without a charge.

The local engines form the quick part; the Spark cells are marked ``spark`` and ``slow`` and
skip with the reason when pyspark or Java is missing (the ``spark`` fixture of tests/engines/spark).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import opendp_duff as dp
from engines.spark.conftest import no_reach, spark  # noqa: F401  (the Spark cells' session; no near pairs)
from opendp_duff.samplers import seeded_rng_for_tests

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

N = 240
KEYS = ["a", "b", "c", "zz"]                     # "zz" holds no row
FLOAT_BOUNDS, INT_BOUNDS = (0.0, 100.0), (0, 100)


def _columns() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20)
    x = np.round(rng.normal(50.0, 25.0, N), 2)     # some values outside the bounds: the clamp acts
    xn = x.copy()
    xn[::7] = np.nan
    return {"g": np.array(["a", "b", "c", "d"], dtype=object)[rng.integers(0, 4, N)],
            "x": x, "xn": xn, "k": rng.integers(-20, 130, N).astype(np.int64)}


DATA = _columns()
DOMAINS = {"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float),
           "xn": dp.atom_domain(T=float, nan=True), "k": dp.atom_domain(T=int)}

Build = Callable[[Any, Any], Any]     # (query at the column, bounds) -> plan


# The matrix: statistic -> (plan at a column, the columns it is released on, whether the size is public).
CELLS: dict[str, tuple[Build, tuple[str, ...], bool]] = {
    "median": (lambda q, b: q.clamp(b).median(), ("x", "k"), False),
    "quantile": (lambda q, b: q.clamp(b).quantile(0.25), ("x", "k"), False),
    "mean": (lambda q, b: q.clamp(b).mean(), ("x", "k"), False),
    "mode": (lambda q, b: q.mode(candidates=["a", "b", "d", "e"]), ("g",), False),
    "count": (lambda q, b: q.count(), ("x", "k"), False),
    "sum": (lambda q, b: q.clamp(b).sum(), ("x", "k"), True),
    "smooth_median": (lambda q, b: q.clamp(b).smooth_median(), ("x", "k"), True),
    "trimmed_mean": (lambda q, b: q.clamp(b).trimmed_mean(m=20), ("x", "k"), True),
    "impute": (lambda q, b: q.impute(5.0).clamp(b).median(), ("xn",), False),
    "generic laplace": (lambda q, b: q.then(dp.t.then_count()).laplace(), ("x",), False),
    "bounds given": (lambda q, b: q.median(bounds=b), ("k",), False),
}
CASES = [(name, column, grouped) for name, (_, columns, _) in CELLS.items() for column in columns
         for grouped in (False, True)]


def _id(case: tuple[str, str, bool]) -> str:
    name, column, grouped = case
    return f"{name}-{column}-{'grouped' if grouped else 'whole'}"


def plan_of(name: str, column: str | None, grouped: bool, bounds: Any) -> Any:
    """The data-free plan of a cell (``column=None``: 1-D data)."""
    build = CELLS[name][0]
    q = dp.query()
    if grouped:
        q = q.group_by("g", keys=KEYS)
    if column is not None:
        q = q.column(column)
    return build(q, bounds)


def _context(data: Any, sized: bool, domain: Any) -> dp.Context:
    unit = dp.unit_of(changes=1) if sized else dp.unit_of(contributions=1)
    return dp.Context.compositor(data=data, privacy_unit=unit, privacy_loss=dp.loss_of(epsilon=10.0), domain=domain)


def frame_context(data: Any, sized: bool, engine: str | None = None) -> dp.Context:
    return _context(data, sized, dp.dataframe_domain(DOMAINS, size=N if sized else None, engine=engine))


def numpy_context(column: str, sized: bool) -> tuple[dp.Context, Any]:
    """The numpy context of ``column``'s values, floats for an integer column, and the bounds
    as the reference plan gives them."""
    values, elem = DATA[column], DOMAINS[column]
    if elem.T is int:
        values, elem = values.astype(np.float64), dp.atom_domain(T=float)
    ctx = _context(values, sized, dp.vector_domain(elem, size=N if sized else None))
    return ctx, FLOAT_BOUNDS if column != "g" else None


def bounds_of(column: str) -> Any:
    return INT_BOUNDS if column == "k" else FLOAT_BOUNDS


def canonical(release: Any) -> Any:
    """A release as comparable Python values, each float by its bits (``float.hex``): a frame
    (pandas, Polars or Spark) as its list of rows."""
    if hasattr(release, "itertuples"):
        rows = [tuple(r) for r in release.itertuples(index=False)]
    elif hasattr(release, "rows"):
        rows = release.rows()
    elif hasattr(release, "collect"):
        rows = [tuple(r) for r in release.collect()]
    else:
        return _bits(release)
    return [tuple(_bits(v) for v in row) for row in rows]


def _bits(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return ("float", float(v).hex())
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return ("int", int(v))
    return v


def outcome(ctx: dp.Context, plan: Any, seed: int) -> Any:
    """The canonical release of ``plan`` under ``seed``, or (exception type, message) when the
    plan is refused, which must then charge nothing."""
    before = ctx.remaining
    try:
        with seeded_rng_for_tests(seed):
            return canonical(ctx.release(plan, epsilon=1.0))
    except dp.errors.MakeError as exc:
        assert ctx.remaining == before
        return (type(exc).__name__, str(exc))


def seed_of(case: tuple[str, str, bool]) -> int:
    return sorted(CASES).index(case) + 100


def reference(case: tuple[str, str, bool]) -> Any:
    """numpy's release of an ungrouped cell, pandas' of a grouped one."""
    name, column, grouped = case
    sized = CELLS[name][2]
    if grouped:
        ctx = frame_context(pd.DataFrame(DATA), sized)
        return outcome(ctx, plan_of(name, column, True, bounds_of(column)), seed_of(case))
    ctx, bounds = numpy_context(column, sized)
    return outcome(ctx, plan_of(name, None, False, bounds), seed_of(case))


LOCAL_FRAMES = {"pandas": lambda: pd.DataFrame(DATA), "polars": lambda: pl.DataFrame(DATA),
                "polars lazy": lambda: pl.DataFrame(DATA).lazy()}


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_local_engines_release_what_numpy_releases(case):
    name, column, grouped = case
    want = reference(case)
    # A refusal is the expected outcome only where the parts' sizes would have to be public: a
    # matrix whose cells were refused everywhere would compare refusals only.
    refused = isinstance(want, tuple) and want[0] == "MakeError"
    assert refused == (grouped and CELLS[name][2]), f"{_id(case)}: {want!r}"
    plan = plan_of(name, column, grouped, bounds_of(column))
    for engine, make in LOCAL_FRAMES.items():
        got = outcome(frame_context(make(), CELLS[name][2]), plan, seed_of(case))
        assert got == want, f"{engine}: {_id(case)}"


@pytest.mark.parametrize("name", ["median", "quantile", "mean", "sum"])
def test_numpy_integers_release_what_their_floats_release(name):
    """numpy data of integers (the frames' cells are compared with the floats' release above):
    the int array with integer bounds releases the bytes the float array with float bounds does."""
    sized = CELLS[name][2]
    ints = _context(DATA["k"], sized, dp.vector_domain(dp.atom_domain(T=int), size=N if sized else None))
    floats, bounds = numpy_context("k", sized)
    assert floats.domain.element_domain.T is float and bounds == FLOAT_BOUNDS
    got = outcome(ints, plan_of(name, None, False, INT_BOUNDS), 5)
    assert got == outcome(floats, plan_of(name, None, False, FLOAT_BOUNDS), 5)
    assert got[0] == "float"


# ---- Spark -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def spark_frame(spark):  # noqa: F811  (the imported fixture)
    rows = [(str(g), float(x), float(xn), int(k)) for g, x, xn, k in zip(*DATA.values(), strict=True)]
    return spark.createDataFrame(rows, "g string, x double, xn double, k long")


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_spark_releases_what_numpy_releases(spark_frame, case, no_reach):  # noqa: F811
    # no_reach: the Spark source hands out no (value, count) pairs beyond the window, as the local
    # sources, so the same random bytes give the same release (with them the law is the same:
    # tests/engines/spark/test_ranks_windows.py compares the pairs exactly)
    name, column, grouped = case
    plan = plan_of(name, column, grouped, bounds_of(column))
    got = outcome(frame_context(spark_frame, CELLS[name][2], engine="spark"), plan, seed_of(case))
    assert got == reference(case), _id(case)


@pytest.mark.spark
@pytest.mark.slow
def test_one_plan_built_without_a_context_runs_on_pandas_and_on_spark(spark_frame):
    """The same plan object (no context bound it) released on two contexts of two engines."""
    plan = dp.query().group_by("g", keys=KEYS).column("k").clamp(INT_BOUNDS).median()
    releases = []
    for ctx in (frame_context(pd.DataFrame(DATA), False), frame_context(spark_frame, False, engine="spark")):
        with seeded_rng_for_tests(9):
            releases.append(canonical(ctx.release(plan, epsilon=1.0)))
        assert ctx.remaining == 9.0
    assert releases[0] == releases[1]
    assert [row[0] for row in releases[0]] == KEYS
