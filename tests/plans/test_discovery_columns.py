"""Keys of several columns discovered from the data: ``group_by(["carrier", "origin"])`` without keys.

* ``make_count_by_key`` counts tuples of values (brute force with ``collections.Counter`` over
  the rows, -0.0 read as 0.0), and its map domain admits exactly tuples of the declared types.
* In an (epsilon, delta) and a (rho, delta) context, on pandas, Polars (eager and lazy) and Spark,
  the release has the tuple keys of 5,000 rows each, in increasing order, in two columns, and
  never the 3 tuples held by one person's row.  The false-failure rate of one release: each single
  tuple passes with probability at most 1e-6 (the keys' delta), a tuple of 5,000 rows is missed
  below e^{-1000} (threshold below 30, noise scale below 4), so at most 3e-6 per release and
  per engine, twice in a row (``rerun_once``) below 1e-11.
* The map is the one of the same plan with one column: the number of columns changes nothing in
  the privacy analysis (the counts and the partition have the same stability maps).
"""
from collections import Counter

import numpy as np
import pytest

import opendp_duff as dp
from engines.spark.conftest import spark  # noqa: F401  (the Spark test's session)
from helpers import frames_of, rerun_once
from opendp_duff.errors import NotAMemberTypeError

pd = pytest.importorskip("pandas")

COLUMNS = {"carrier": dp.atom_domain(T=str), "origin": dp.atom_domain(T=str), "hour": dp.atom_domain(T=float),
           "delay": dp.atom_domain(T=float)}
DOMAIN = dp.dataframe_domain(COLUMNS)
BIG = [("AA", "JFK"), ("AA", "LGA"), ("BA", "JFK")]
SINGLES = [("AA", "ZRH"), ("ZZ", "JFK"), ("é", "LGA")]
LOSSES = [(dp.loss_of(epsilon=4.0, delta=1e-5), {"epsilon": 2.0, "delta": 1e-6}),
          (dp.loss_of(rho=2.0, delta=1e-5), {"rho": 1.0, "delta": 1e-6})]


def columns(each=5_000):
    keys = [k for k in BIG for _ in range(each)] + SINGLES
    order = np.random.default_rng(3).permutation(len(keys))
    keys = [keys[i] for i in order]
    hour = np.array([-0.0, 0.0, 1.0])[np.arange(len(keys)) % 3]
    return {"carrier": [c for c, _ in keys], "origin": [o for _, o in keys], "hour": hour,
            "delay": np.linspace(-10.0, 50.0, len(keys))}


def test_count_by_key_counts_tuples_of_values():
    cols = columns(7)
    for by in (("carrier", "origin"), ["origin", "hour"]):
        count = dp.t.make_count_by_key(DOMAIN, dp.symmetric_distance(), by=by)
        rows = zip(*(cols[b] for b in by), strict=True)
        want = Counter(tuple(v + 0.0 if isinstance(v, float) else v for v in row) for row in rows)
        got = count(pd.DataFrame(cols))
        assert got == dict(want) and list(got) == sorted(want) and count.map(2) == (2, 2, 2)
        assert all(type(k) is tuple and len(k) == 2 for k in got)
    domain = count.output_domain
    assert domain.member({("JFK", 0.0): 3}) and not domain.member({("JFK", "0"): 3})
    with pytest.raises(NotAMemberTypeError, match="tuple of 2 values"):
        domain.admit({"JFK": 3})


def _keys(out):
    rows = out.collect() if hasattr(out, "collect") and not hasattr(out, "rows") else None
    if rows is not None:
        return [(r["carrier"], r["origin"]) for r in rows]
    return list(zip(list(out["carrier"]), list(out["origin"]), strict=True))


def _release(df, loss, budget, domain=DOMAIN):
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), privacy_loss=loss, domain=domain)
    plan = ctx.query(**budget).group_by(["carrier", "origin"]).agg(n=dp.count(),
                                                                     m=dp.median("delay", bounds=(-10.0, 50.0)))
    return plan, plan.release()


@pytest.mark.parametrize("loss, budget", LOSSES, ids=["epsilon-delta", "rho-delta"])
@rerun_once(7041)
def test_every_local_engine_discovers_the_tuples_of_many_rows_only(loss, budget):
    for name, df in frames_of(columns()):
        plan, out = _release(df, loss, budget)
        assert _keys(out) == BIG, name
        single = dp.query().group_by("carrier").agg(n=dp.count(), m=dp.median("delay", bounds=(-10.0, 50.0)))
        ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), privacy_loss=loss,
                                    domain=DOMAIN)
        assert plan.resolve().map(1) == ctx.resolve(single, **budget).map(1)     # the same map as one column


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("loss, budget", LOSSES, ids=["epsilon-delta", "rho-delta"])
@rerun_once(7042)
def test_spark_discovers_the_tuples_of_many_rows_only(spark, loss, budget):  # noqa: F811  (the imported fixture)
    cols = columns()
    rows = list(zip(cols["carrier"], cols["origin"], cols["hour"].tolist(), cols["delay"].tolist(), strict=True))
    df = spark.createDataFrame(rows, "carrier string, origin string, hour double, delay double")
    _, out = _release(df, loss, budget, DOMAIN.with_(engine="spark"))
    assert _keys(out) == BIG
