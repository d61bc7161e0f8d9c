"""A partition by several key columns on Spark: ``make_partition_by(by=(cols...), keys=[tuples])``.

* The parts hold exactly the rows whose every key column equals the key's component: each
  part's rows (collected) equal pandas' part's rows, a tuple key absent from the data gives an
  empty part, and rows of no key are in no part; a float key column compares -0.0 equal to 0.0.
* A grouped release by two columns (a count, a median, a Duff mode) is the same bytes on Spark as
  on pandas under the same test seed (the Spark rank source without the reach, ``no_reach``, as
  in the engines' parity matrix): equality is exact, no statistical test.
"""
from __future__ import annotations

import numpy as np
import pytest

import opendp_duff as dp
from engines.test_context_parity import canonical
from opendp_duff.samplers import seeded_rng_for_tests

pd = pytest.importorskip("pandas")

pytestmark = [pytest.mark.spark, pytest.mark.slow]

N = 300
DOMAINS = {"carrier": dp.atom_domain(T=str), "origin": dp.atom_domain(T=str), "hour": dp.atom_domain(T=float),
           "delay": dp.atom_domain(T=float), "n": dp.atom_domain(T=int)}
KEYS = [("AA", "JFK"), ("AA", "LGA"), ("BA", "JFK"), ("BA", "LHR"), ("ZZ", "JFK")]   # ("ZZ", "JFK") holds no row


def _columns():
    rng = np.random.default_rng(31)
    hour = rng.integers(-1, 3, N).astype(np.float64)
    hour[hour == 0] = -0.0                                # -0.0 and 0.0 alike in a float key column
    hour[::5] = 0.0
    return {"carrier": np.array(["AA", "BA", "CC"], dtype=object)[rng.integers(0, 3, N)],
            "origin": np.array(["JFK", "LGA", "LHR"], dtype=object)[rng.integers(0, 3, N)],
            "hour": hour, "delay": np.round(rng.normal(20.0, 30.0, N), 1), "n": rng.integers(0, 50, N)}


DATA = _columns()


@pytest.fixture(scope="module")
def frames(spark):
    rows = [(str(c), str(o), float(h), float(d), int(n)) for c, o, h, d, n in zip(*DATA.values(), strict=True)]
    return pd.DataFrame(DATA), spark.createDataFrame(rows, "carrier string, origin string, hour double, "
                                                           "delay double, n long")


def _rows(part, engine):
    if engine == "spark":
        return sorted((r["carrier"], r["origin"], r["hour"] + 0.0, r["delay"], r["n"]) for r in part.collect())
    df = part.to_pandas() if hasattr(part, "to_pandas") else part
    return sorted((c, o, h + 0.0, d, int(n)) for c, o, h, d, n in zip(
        df["carrier"], df["origin"], df["hour"], df["delay"], df["n"], strict=True))


@pytest.mark.parametrize("by, keys", [(("carrier", "origin"), KEYS),
                                      (("origin", "hour"), [("JFK", 0.0), ("LGA", -1.0), ("LHR", 2.0), ("JFK", 7.0)])])
def test_the_parts_are_the_rows_of_each_tuple_key(frames, by, keys):
    local, remote = frames
    parts = {}
    for engine, df in (("pandas", local), ("spark", remote)):
        domain = dp.dataframe_domain(DOMAINS, engine="spark" if engine == "spark" else None)
        split = dp.t.make_partition_by(domain, dp.symmetric_distance(), by=by, keys=keys)
        parts[engine] = [_rows(p, engine) for p in split(df)]
    assert parts["spark"] == parts["pandas"]
    expected = [sorted((c, o, h + 0.0, d, int(n)) for c, o, h, d, n in zip(*DATA.values(), strict=True)
                       if tuple({"carrier": c, "origin": o, "hour": h}[b] for b in by) == key) for key in keys]
    assert parts["spark"] == expected and expected[-1] == []          # the last key holds no row


def test_a_grouped_release_by_two_columns_is_the_same_bytes_on_spark_and_pandas(frames, no_reach):
    local, remote = frames
    plan = dp.query().group_by(["carrier", "origin"], keys=KEYS).agg(
        count=dp.count(), median=dp.median("delay", bounds=(-50.0, 100.0)),
        mode=dp.mode("origin", candidates=["JFK", "LGA", "LHR"]))
    releases = []
    for df, engine in ((local, None), (remote, "spark")):
        ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                    privacy_loss=dp.loss_of(epsilon=3.0),
                                    domain=dp.dataframe_domain(DOMAINS, engine=engine))
        with seeded_rng_for_tests(41):
            releases.append(canonical(ctx.release(plan, epsilon=3.0)))
    assert releases[0] == releases[1]
    assert [row[:2] for row in releases[0]] == KEYS
