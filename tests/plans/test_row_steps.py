"""Row-wise steps of a plan: ``.filter(predicate)`` and ``.with_column(name, expr)``.

They are data-free values holding an expression's canonical text (two spellings of one
expression are one step; a syntax error is refused when the step is built), travel as JSON,
and are typed against the data's columns before any data is read: an unknown column, a type
mismatch, or a filter that is not a predicate is refused when a bound query adds the step, and
charges nothing."""
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
