"""Row-wise steps of a plan: ``.filter(predicate)`` and ``.with_column(name, expr)``.

They are data-free values holding an expression's canonical text (two spellings of one
expression are one step; a syntax error is refused when the step is built), travel as JSON,
and are typed against the data's columns before any data is read: an unknown column, a type
mismatch, or a filter that is not a predicate is refused when a bound query adds the step, and
charges nothing.  A filter's conjuncts tell which columns it leaves without missing values; its
rows, and a derived column, feed every statistic of an ``agg`` on pandas and Polars (compared
with the exact count and median of the filtered rows, at an epsilon where noise is negligible);
a column no query reads may hold missing values."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import MakeError, MakeTypeError

pd = pytest.importorskip("pandas")


def context():
    df = pd.DataFrame({"origin": ["JFK", "LGA"] * 50, "dep_delay": np.arange(100.0), "arr_delay": np.arange(100.0)})
    return dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(epsilon=1.0))


def test_row_steps_are_values_in_canonical_text():
    plan = dp.query().filter("dep_delay is not null and origin='JFK'").with_column("gain", "dep_delay-arr_delay")
    assert repr(plan) == ("query().filter(\"dep_delay IS NOT NULL AND origin = 'JFK'\")"
                          ".with_column('gain', 'dep_delay - arr_delay')")
    assert plan == dp.query().filter("dep_delay IS NOT NULL AND origin = 'JFK'").with_column(
        "gain", "dep_delay - arr_delay")
    assert dp.Query.from_json(plan.to_json()) == plan


@pytest.mark.parametrize("build, error", [
    (lambda q: q.filter("((("), MakeError),
    (lambda q: q.filter(3), MakeTypeError),
    (lambda q: q.with_column("", "dep_delay"), MakeTypeError),
])
def test_malformed_row_steps_are_refused_when_built(build, error):
    with pytest.raises(error):
        build(dp.query())


@pytest.mark.parametrize("build, match", [
    (lambda q: q.filter("nope > 1"), "unknown column 'nope'"),
    (lambda q: q.filter("dep_delay + 1"), "needs a predicate"),
    (lambda q: q.with_column("gain", "origin - 1"), "arithmetic needs numbers"),
    (lambda q: q.column("dep_delay").filter("dep_delay > 1"), "rows of a data frame"),
])
def test_row_steps_are_typed_before_any_data_is_read(build, match):
    ctx = context()
    with pytest.raises(MakeError, match=match):
        build(ctx.query(epsilon=0.5))
    assert ctx.spent == 0.0


@pytest.mark.parametrize("text, columns", [
    ("dep_delay IS NOT NULL AND origin = 'JFK'", {"dep_delay", "origin"}),
    ("a BETWEEN 1 AND 2 AND b NOT IN (1, 2) AND c + 1 > 2", {"a", "b"}),
    ("a > 1 OR b > 2", set()),
    ("NOT a IS NULL", set()),
    ("a IS NULL", set()),
])
def test_a_filter_says_which_columns_it_leaves_without_missing_values(text, columns):
    """Each column named is NULL-free on the rows the predicate keeps (a comparison, IN or
    BETWEEN with a NULL operand is NULL, never TRUE); OR and NOT infer nothing."""
    from opendp_duff.expressions import parse
    from opendp_duff.plans._planner import not_null_columns
    assert not_null_columns(parse(text)) == columns


def flights(library):
    """A small public table: JFK and LGA flights, a missing departure delay on some rows, and a
    column no query reads that holds missing values too."""
    n = 400
    dep = np.arange(n, dtype=float) / 8.0          # distinct values: the medians are not tied
    dep[::7] = np.nan
    data = {"origin": ["JFK", "LGA"] * (n // 2), "dep_delay": dep, "arr_delay": dep / 2,
            "unused": np.where(np.arange(n) % 3 == 0, np.nan, 1.0)}
    pl = pytest.importorskip("polars") if library == "polars" else None
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_filter_runs_and_its_rows_feed_every_statistic(library):
    """Epsilon 1e6: each count is within 1 of the truth but with probability e^{-1e6/3}, and the
    medians are the exact ones' neighbours; so the false-failure rate is below 1e-100."""
    df = flights(library)
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1e7))
    out = (ctx.query(epsilon=1e6).filter("dep_delay IS NOT NULL AND origin = 'JFK'")
           .with_column("gain", "dep_delay - arr_delay").filter("gain IS NOT NULL")
           .agg(n=dp.count(), median=dp.median("dep_delay", bounds=(0.0, 50.0)),
                gain=dp.median("gain", bounds=(0.0, 50.0))))
    row = out.release()
    pdf = pd.DataFrame(flights("pandas"))
    kept = pdf[(pdf["origin"] == "JFK") & pdf["dep_delay"].notna()]
    assert abs(float(row["n"][0]) - len(kept)) < 1
    x = np.sort(kept["dep_delay"])
    rank = (len(x) + 1) // 2
    assert x[rank - 2] <= float(row["median"][0]) <= x[rank]              # the median's neighbours
    assert x[rank - 2] / 2 <= float(row["gain"][0]) <= x[rank] / 2


def test_a_derived_column_that_may_be_missing_needs_a_filter():
    ctx = dp.Context.compositor(data=flights("pandas"), privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0))
    with pytest.raises(MakeError, match="missing values"):
        ctx.query(epsilon=0.5).with_column("gain", "dep_delay - arr_delay").agg(g=dp.median("gain", bounds=(0, 10)))
    ctx.query(epsilon=0.5).with_column("gain", "dep_delay - arr_delay").filter("gain IS NOT NULL").agg(
        g=dp.median("gain", bounds=(0.0, 10.0)))     # accepted: the filter leaves gain without NULL
    assert ctx.spent == 0.0
