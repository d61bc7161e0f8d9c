"""A group_by on a Polars Enum column: public keys outside the Enum's categories are refused when
the plan is compiled for the data (eager and lazy frames), from the schema alone, with a message
naming the column and the public keys (no value of the data), and nothing is charged; keys
among the categories (absent from the data or not) are released; a Categorical column, whose
categories are not fixed, and a String column are not refused."""
import pytest

import opendp_duff as dp
from opendp_duff.engines import engine_named

pl = pytest.importorskip("polars")

SECRET = "secret-value-in-data"


def _frame(dtype):
    return pl.DataFrame({"g": pl.Series(["a", SECRET, "a"], dtype=dtype), "k": [1, 2, 3]})


def _context(data):
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(epsilon=1.0))


ENUM = pl.Enum(["a", "b", SECRET])


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_keys_outside_the_enum_are_refused_before_any_read(lazy):
    data = _frame(ENUM).lazy() if lazy else _frame(ENUM)
    ctx = _context(data)
    plan = dp.query().group_by("g", keys=["a", "zz"]).column("k").count()
    with pytest.raises(dp.MakeError) as info:
        ctx.release(plan, epsilon=0.5)
    message = str(info.value)
    assert "'g'" in message and "Enum" in message and "'zz'" in message and SECRET not in message
    with pytest.raises(dp.MakeError, match="Enum"):
        ctx.query(epsilon=0.5).group_by("g", keys=["zz"])      # refused as the step is added
    assert ctx.remaining == 1.0


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_keys_among_the_categories_are_released(lazy):
    data = _frame(ENUM).lazy() if lazy else _frame(ENUM)
    ctx = _context(data)
    out = ctx.release(dp.query().group_by("g", keys=["a", "b"]).column("k").count(), epsilon=0.5)
    assert out["g"].to_list() == ["a", "b"] and ctx.remaining == 0.5


@pytest.mark.parametrize("dtype", [pl.Categorical, pl.String], ids=["categorical", "string"])
def test_other_string_keys_are_not_refused(dtype):
    ctx = _context(_frame(dtype))
    ctx.release(dp.query().group_by("g", keys=["zz"]).column("k").count(), epsilon=0.5)
    assert ctx.remaining == 0.5


def test_the_engine_reads_the_schema_only():
    """A LazyFrame whose collection would fail is still judged: only its schema is read."""
    engine = engine_named("polars")
    lazy = _frame(ENUM).lazy().with_columns(pl.col("k").map_batches(_fail, return_dtype=pl.Int64))
    assert "'zz'" in engine.keys_refusal(lazy, "g", ("a", "zz"))
    assert engine.keys_refusal(lazy, "g", ("a", "b")) is None
    assert engine.keys_refusal(lazy, "k", (1,)) is None
    assert engine_named("pandas").keys_refusal(None, "g", ("zz",)) is None


def _fail(series):
    raise AssertionError("the data was read")
