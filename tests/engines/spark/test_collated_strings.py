"""On Spark, string records are compared with public strings as Python compares them.

A Spark 4 string column may carry a collation (``UTF8_LCASE``, ``UNICODE_CI``) under which
"a" equals "A"; the column is still a member of a string domain.  The candidate counts and the
partition by a string key compare in the binary collation, so they equal the single-machine
results (Python ``==``, code point by code point), and nothing raises on such a member.
"""
import numpy as np
import pytest

import opendp_duff as dp

pytestmark = [pytest.mark.spark, pytest.mark.slow]   # a local SparkSession: not in the quick loop

# "\u00e9" and "e\u0301" are canonically equivalent, distinct code points (and distinct for Python)
RECORDS = ["a", "A", "b", "B", "b", "\u00df", "SS", "\u00e9", "e\u0301", "e\u0301"]
CANDIDATES = ["a", "A", "b", "ss", "SS", "\u00df", "\u00e9", "e\u0301", "z"]
DOM = dp.dataframe_domain({"s": dp.atom_domain(T=str), "g": dp.atom_domain(T=int)}, engine="spark")
SYM = dp.symmetric_distance()


@pytest.fixture(scope="module", params=["UTF8_BINARY", "UTF8_LCASE", "UNICODE_CI"])
def frame(spark, request):
    from pyspark.sql import functions as F
    if not hasattr(F, "collate"):
        pytest.skip("this Spark has no collations")
    df = spark.createDataFrame([(s, i) for i, s in enumerate(RECORDS)], "s string, g long")
    return df.withColumn("s", F.collate("s", request.param))


def test_candidate_counts_are_python_equality_counts(frame):
    spark_counts = ((DOM, SYM) >> dp.t.then_select_column("s") >> dp.t.then_count_by_candidates(CANDIDATES))(frame)
    local = (dp.vector_domain(dp.atom_domain(T=str)), SYM) >> dp.t.then_count_by_candidates(CANDIDATES)
    expected = [sum(r == c for r in RECORDS) for c in CANDIDATES]
    assert list(np.asarray(spark_counts)) == list(local(RECORDS)) == expected


def test_a_string_key_partition_splits_by_python_equality(frame):
    """Both ways a part is read: its own rows (``where``) and the batched pass over all keys
    (one join with the keys, ``keyed_rows``) that a statistic of a part runs."""
    parts = (DOM, SYM) >> dp.t.then_partition_by("s", keys=CANDIDATES)
    count = (parts.output_domain.part_domain, SYM) >> dp.t.then_select_column("g") >> dp.t.then_count()
    split = parts(frame)
    expected = [sum(r == c for r in RECORDS) for c in CANDIDATES]
    assert [part.count() for part in split] == expected
    assert [count._function(part) for part in split] == expected
