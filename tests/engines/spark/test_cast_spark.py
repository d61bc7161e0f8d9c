"""make_int_to_float on a Spark column: a lazy row-wise step whose Spark expression is a double
equal to each integer (compared with exact integers near 2^53), with no Spark call at the
cast; the size, the sort marker and the engine of the domain are kept; the cast column is a
member of the output domain."""
from fractions import Fraction

import pytest

import opendp_duff as dp
from opendp_duff.engines import engine_named
from opendp_duff.engines.spark import SparkColumn

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession

E = 2 ** 53
VALUES = [0, 1, -1, E, -E, E - 1, -(E - 1), 2 ** 52 + 1, 123456789012345, 7]


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame([(v,) for v in VALUES], "k long")


def _chain(*steps):
    domain = dp.dataframe_domain({"k": dp.atom_domain(T=int)}, size=len(VALUES), engine="spark")
    chain = (domain, dp.change_one_distance()) >> dp.t.then_select_column("k") >> dp.t.then_clamp(bounds=(-E, E))
    for step in steps:
        chain = chain >> step
    return chain >> dp.t.then_int_to_float()


def test_the_spark_cast_is_exact_near_two_to_the_53(frame):
    t = _chain()
    column = t(frame)
    assert isinstance(column, SparkColumn) and column.T is float
    assert t.output_domain == dp.vector_domain(dp.atom_domain(T=float, bounds=(-float(E), float(E))),
                                               size=len(VALUES), engine="spark")
    out = column.frame.select(column.expr.alias("v"))
    assert dict(out.dtypes)["v"] == "double"
    got = [row["v"] for row in out.collect()]
    assert all(type(v) is float for v in got)
    assert [Fraction(v) for v in got] == [Fraction(v) for v in VALUES]
    assert t.output_domain.member(column) and t.map(2) == 2


def test_the_sort_marker_and_a_sorted_listing_are_kept(frame):
    t = _chain(dp.t.then_sort())
    column = t(frame)
    assert t.output_domain.sorted and column.is_sorted
    engine = engine_named("spark")
    assert engine.collect(column).tolist() == [float(v) for v in sorted(VALUES)]


def test_a_cast_of_a_clamped_column_clamps_first(spark):
    """Values beyond the bounds (and beyond 2^53) are clamped as integers before the cast."""
    frame = spark.createDataFrame([(v,) for v in (2 ** 62, -(2 ** 62), 5)], "k long")
    domain = dp.dataframe_domain({"k": dp.atom_domain(T=int)}, engine="spark")
    t = ((domain, dp.symmetric_distance()) >> dp.t.then_select_column("k") >> dp.t.then_clamp(bounds=(0, 10))
         >> dp.t.then_int_to_float())
    column = t(frame)
    assert sorted(r["v"] for r in column.frame.select(column.expr.alias("v")).collect()) == [0.0, 5.0, 10.0]
