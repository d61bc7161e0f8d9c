"""The Spark frame domain: the schema decides the types (a missing column or a Spark type that
does not hold the element type is refused), one distributed pass refuses null, NaN and
out-of-bounds elements and a wrong row count, and no refusal quotes a value of the data.
Refusals happen before any random byte is drawn."""
import math

import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMemberTypeError, NotAMemberValueError
from opendp_duff.samplers import byte_source_for_tests
from opendp_duff.spark import (collection, spark_frame_domain, spark_frame_domain_of, then_spark_clamp,
                               then_spark_duff_median, then_spark_select_column)
from opendp_duff.spark.domain import SparkColumn, SparkColumnDomain

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

SECRET = 123456.789   # a value that must never appear in a message


class NoBytes:
    def random_bytes(self, n):
        raise AssertionError("randomness drawn before the data was admitted")


def _frame(spark, xs):
    return spark.createDataFrame([(x, "a", 7) for x in xs], "x double, s string, k long")


def test_members_are_admitted_in_one_pass(spark):
    frame = _frame(spark, [1.0, SECRET, -0.0])
    dom = spark_frame_domain({"x": dp.atom_domain(T=float), "k": dp.atom_domain(T=int)}, size=3)
    with collection.release() as log:
        assert dom.admit(frame) is frame
    assert log.actions == 1
    assert spark_frame_domain_of(frame).column("x") == dp.atom_domain(T=float)
    assert spark_frame_domain_of(frame).column("k") == dp.atom_domain(T=int)


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


def test_wrong_size_and_not_a_frame_are_refused(spark):
    dom = spark_frame_domain({"x": dp.atom_domain(T=float)}, size=5)
    with pytest.raises(NotAMemberValueError, match="exactly 5 rows"):
        dom.admit(_frame(spark, [SECRET]))
    with pytest.raises(NotAMemberTypeError):
        dom.admit([SECRET])


def test_a_release_refuses_nan_before_drawing_randomness(spark):
    dom = spark_frame_domain({"x": dp.atom_domain(T=float)})
    m = ((dom, dp.symmetric_distance()) >> then_spark_select_column("x") >> then_spark_clamp((0.0, 1.0))
         >> then_spark_duff_median(1.0))
    with byte_source_for_tests(NoBytes()), pytest.raises(NotAMemberValueError):
        m(_frame(spark, [0.5, math.nan]))


def test_column_domain_admits_a_column_in_one_pass(spark):
    frame = _frame(spark, [0.5, 2.0])
    column = SparkColumn(frame, float, (("column", "x", float),))
    assert SparkColumnDomain(dp.atom_domain(T=float), size=2).member(column)
    assert not SparkColumnDomain(dp.atom_domain(T=float, bounds=(0.0, 1.0))).member(column)
    assert not SparkColumnDomain(dp.atom_domain(T=float)).member(frame)
