"""Spark frame domains (``dataframe_domain(..., engine="spark")``): the schema decides the types
(a missing column or a Spark type that does not hold the element type is refused), one
distributed pass (which also snapshots the declared columns: the member) refuses null, NaN
and out-of-bounds elements and a wrong row count, and no refusal quotes a value of the data;
``check`` never raises.  Refusals happen before any random byte is drawn.  A Spark vector
domain admits a Spark column of a whole frame in one pass."""
import math

import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMemberTypeError, NotAMemberValueError
from opendp_duff.membership import Refusal
from opendp_duff.engines import engine_for
from opendp_duff.engines.spark import SparkColumn, collection
from opendp_duff.samplers import byte_source_for_tests

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

SECRET = 123456.789   # a value that must never appear in a message


class NoBytes:
    def random_bytes(self, n):
        raise AssertionError("randomness drawn before the data was admitted")


def _frame(spark, xs):
    return spark.createDataFrame([(x, "a", 7) for x in xs], "x double, s string, k long")


def spark_frame_domain(columns, size=None):
    return dp.dataframe_domain(columns, size=size, engine="spark")


def test_members_are_admitted_in_one_pass(spark):
    frame = _frame(spark, [1.0, SECRET, -0.0])
    dom = spark_frame_domain({"x": dp.atom_domain(T=float), "k": dp.atom_domain(T=int)}, size=3)
    with collection.release() as log:
        admitted = dom.admit(frame)
    assert log.actions == 1
    # the member is the snapshot of the declared columns: the same rows, read from its cache
    assert admitted.columns == ["x", "k"] and admitted.is_cached
    assert sorted(admitted.collect()) == sorted(frame.select("x", "k").collect())
    schema = engine_for(frame).schema(frame)
    assert schema == dp.dataframe_domain({"x": dp.atom_domain(T=float), "s": dp.atom_domain(T=str),
                                          "k": dp.atom_domain(T=int)}, engine="spark")


@pytest.mark.parametrize("xs, declared, error", [
    ([1.0, None], {"x": dp.atom_domain(T=float)}, NotAMemberValueError),
    ([SECRET, math.nan], {"x": dp.atom_domain(T=float)}, NotAMemberValueError),
    ([SECRET, 2.0], {"x": dp.atom_domain(T=float, bounds=(0.0, 10.0))}, NotAMemberValueError),
    ([SECRET], {"x": dp.atom_domain(T=int)}, NotAMemberTypeError),
    ([SECRET], {"y": dp.atom_domain(T=float)}, NotAMemberTypeError),
    ([SECRET], {"k": dp.atom_domain(T=int, bounds=(0, 5))}, NotAMemberValueError),
])
def test_non_members_are_refused_without_quoting_data(spark, xs, declared, error):
    frame = _frame(spark, xs)
    dom = spark_frame_domain(declared)
    with pytest.raises(error) as info:
        dom.admit(frame)
    text = str(info.value)
    assert "123456" not in text and "nan" not in text.lower().replace("no nan", "")
    assert info.value.__cause__ is None and not dom.member(frame)
    assert isinstance(dom.check(frame), Refusal)          # check returns the refusal, never raises


def test_wrong_size_and_not_a_frame_are_refused(spark):
    dom = spark_frame_domain({"x": dp.atom_domain(T=float)}, size=5)
    with pytest.raises(NotAMemberValueError, match="exactly 5 rows"):
        dom.admit(_frame(spark, [SECRET]))
    with pytest.raises(NotAMemberTypeError):
        dom.admit([SECRET])


def test_a_release_refuses_nan_before_drawing_randomness(spark):
    dom = spark_frame_domain({"x": dp.atom_domain(T=float)})
    m = ((dom, dp.symmetric_distance()) >> dp.t.then_select_column("x") >> dp.t.then_clamp((0.0, 1.0))
         >> dp.m.then_duff_median(1.0))
    with byte_source_for_tests(NoBytes()), pytest.raises(NotAMemberValueError):
        m(_frame(spark, [0.5, math.nan]))


def test_column_domain_admits_a_column_in_one_pass(spark):
    frame = _frame(spark, [0.5, 2.0])
    column = SparkColumn(frame, float, (("column", "x", float),))
    assert dp.vector_domain(dp.atom_domain(T=float), size=2, engine="spark").member(column)
    assert not dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), engine="spark").member(column)
    assert not dp.vector_domain(dp.atom_domain(T=float), engine="spark").member(frame)
    assert not dp.vector_domain(dp.atom_domain(T=float), sorted=True, engine="spark").member(column)
    assert dp.vector_domain(dp.atom_domain(T=float), sorted=True, engine="spark").member(column.then("sort"))
    assert not dp.vector_domain(dp.atom_domain(T=float)).member(column)   # a local domain refuses it


def test_a_local_domain_refuses_a_spark_frame_and_a_spark_domain_a_local_one(spark):
    pd = pytest.importorskip("pandas")
    columns = {"x": dp.atom_domain(T=float)}
    assert not dp.dataframe_domain(columns).member(_frame(spark, [1.0]))
    assert not spark_frame_domain(columns).member(pd.DataFrame({"x": [1.0]}))
