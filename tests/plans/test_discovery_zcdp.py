"""Key discovery in a (rho, delta) context: ``dp.loss_of(rho=..., delta=...)``, Gaussian noisy
counts and a threshold calibrated to delta.

* The budget is delta-approximate zCDP; the context composes it by adding both parts and a
  rho-only query in it is charged (rho, 0).
* The keys get ``key_share`` of rho and all of delta; the statistics (zCDP) the rest of rho.
  The keys' map is recomputed independently: rho = 1 / (2 scale^2) in exact rationals, and the
  threshold's delta as the normal tail P(1 + scale Z >= T-) at 50 digits (mpmath), T- the float
  below the threshold; the whole map is compared with the exact sum of the two stages.
* Every engine (pandas, Polars eager and lazy, Spark) releases the key of 10,000 rows and none of
  the single-person keys.  The false-failure rate of one such release: each of the 5 single keys
  passes with probability at most 1e-6 (the keys' delta), the big key is missed with probability
  below 1e-100 (threshold below 20, noise scale below 2), so at most 5e-6 per engine, twice in a
  row (``rerun_once``) at most 2.5e-11.
* 2,000 seeded releases at delta = 1e-6 (slow): a single-person key never appears, the big key
  always does.  Some trial shows a single key with probability at most 2000 * 5e-6 = 1e-2, twice
  in a row at most 1e-4.
"""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from engines.spark.conftest import spark  # noqa: F401  (the Spark test's session)
from helpers import frames_of, rerun_once
from opendp_duff.errors import BudgetExceeded, MakeError
from opendp_duff.measures import approximate_zero_concentrated_divergence

mpmath = pytest.importorskip("mpmath")
pd = pytest.importorskip("pandas")

DOMAIN = dp.dataframe_domain({"code": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
BIG, SINGLES = 7, (1001, 1002, 1003, 1004, 1005)
BUDGET = (1.0, 1e-6)           # the query's: the keys get (0.5, 1e-6), the statistics (0.5, 0)


def columns(big=10_000):
    codes = np.concatenate([np.full(big, BIG), np.array(SINGLES)])
    return {"code": codes, "x": np.linspace(0.0, 100.0, len(codes))}


def context(df, loss=None, domain=DOMAIN):
    return dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=loss or dp.loss_of(rho=2.0, delta=1e-5), domain=domain)


def plan(ctx):
    return ctx.query(rho=BUDGET[0], delta=BUDGET[1]).group_by("code").agg(n=dp.count(),
                                                                         m=dp.median("x", bounds=(0.0, 100.0)))


def test_a_rho_delta_budget_composes_both_parts():
    ctx = context(pd.DataFrame(columns(100)))
    assert ctx.privacy_loss == (approximate_zero_concentrated_divergence(), (2.0, 1e-5))
    ctx.query(rho=0.5).agg(n=dp.count()).release()              # a zCDP statistic: charged (rho, 0)
    assert ctx.spent == (0.5, 0.0)
    ctx.query(rho=0.25, delta=2e-6).group_by("code").agg(n=dp.count()).release()
    assert Fraction(ctx.spent[0]) == Fraction(3, 4) and ctx.spent[1] == 2e-6
    assert ctx.remaining == (1.25, 8e-6)
    with pytest.raises(BudgetExceeded):
        ctx.query(rho=0.1, delta=1e-4)
    with pytest.raises(MakeError, match=r"rho= \(and delta=\)"):
        ctx.query(epsilon=1.0)


def test_a_rho_only_context_refuses_discovery_and_names_the_fix_before_any_charge():
    ctx = context(pd.DataFrame(columns(10)), dp.loss_of(rho=1.0))
    fix = r"rho-only budget has no delta; give one, dp.loss_of\(rho=..., delta=...\)"
    with pytest.raises(MakeError, match=fix):
        ctx.query(rho=1.0).group_by("code").agg(n=dp.count())
    assert ctx.spent == 0.0
    rho_delta = context(pd.DataFrame(columns(10)))
    with pytest.raises(MakeError, match="positive rho and delta"):
        rho_delta.query(rho=1.0).group_by("code").agg(n=dp.count()).release()    # delta 0: nothing to discover with
    assert rho_delta.spent == (0.0, 0.0)


def _normal_tail(count, scale, threshold):
    """P(count + scale Z > T-) for Z standard normal, T- the float below ``threshold``: 50 digits."""
    with mpmath.workdps(50):
        below = mpmath.mpf(np.nextafter(threshold, -np.inf))
        return mpmath.ncdf(-(below - count) / mpmath.mpf(scale))


def test_the_keys_map_and_the_whole_map_against_independent_computations():
    ctx = context(pd.DataFrame(columns(100)))
    query = plan(ctx)
    compiled = ctx.compile(query)
    keys_budget, scale, threshold = compiled.key_parameters(BUDGET)
    assert keys_budget == (0.5, 1e-6)
    keys = (dp.t.make_count_by_key(DOMAIN, dp.symmetric_distance(), by="code")
            >> dp.m.then_threshold_keys(scale=scale, threshold=threshold, noise="gaussian"))
    rho, delta = keys.map(1)
    assert keys.output_measure == approximate_zero_concentrated_divergence()
    exact_rho = 1 / (2 * Fraction(scale) ** 2)                   # one key, count 1: l0 = l1 = linf = 1
    assert exact_rho <= Fraction(rho) <= exact_rho * (1 + Fraction(1, 2 ** 50)) and rho <= 0.5
    tail = _normal_tail(1, scale, threshold)
    assert tail <= delta <= 1e-6 and delta <= tail * (1 + 1e-9)   # the map is the tail, rounded up
    assert _normal_tail(1, scale, np.nextafter(threshold, -np.inf)) > 1e-6 * (1 - 1e-9)   # the least threshold
    total = query.resolve().map(1)
    statistics = compiled.shares(BUDGET)
    assert all(share[1] == 0.0 for share in statistics)         # the statistics are zCDP: no delta
    assert Fraction(total[0]) <= Fraction(BUDGET[0]) and total[1] == delta
    assert Fraction(total[0]) >= Fraction(rho) + sum(Fraction(s[0]) for s in statistics) - Fraction(1, 2 ** 40)
    rows = query.summarize(0.05).to_dict("records")
    assert rows[0]["statistic"] == "keys of code" and rows[0]["budget"] == (0.5, 1e-6)
    assert "gaussian noise" in rows[0]["statement"] and str(threshold) in rows[0]["statement"]
    assert threshold < rows[0]["accuracy"] < threshold + 2 * scale * 2    # the normal's 1.65 sigma, rounded up


@rerun_once(7031)
def test_every_local_engine_releases_the_big_key_only():
    for name, df in frames_of(columns()):
        out = plan(context(df)).release()
        codes = out["code"].to_list() if hasattr(out["code"], "to_list") else list(out["code"])
        assert codes == [BIG], name


@pytest.mark.spark
@pytest.mark.slow
@rerun_once(7032)
def test_spark_releases_the_big_key_only(spark):  # noqa: F811  (the imported fixture)
    data = columns()                              # rows, not pandas (pyspark warns about pandas 3)
    df = spark.createDataFrame([(int(c), float(x)) for c, x in zip(data["code"], data["x"], strict=True)],
                               "code long, x double")
    out = plan(context(df, domain=DOMAIN.with_(engine="spark"))).release()
    assert [row["code"] for row in out.collect()] == [BIG]


@pytest.mark.slow
@rerun_once(7033)
def test_single_person_keys_never_appear_in_2000_releases_and_the_big_key_always_does():
    df = pd.DataFrame(columns())
    ctx = context(df)
    query = ctx.query(rho=BUDGET[0], delta=BUDGET[1]).group_by("code").agg(n=dp.count())
    assert ctx.compile(query).key_parameters(BUDGET)[0] == (0.5, 1e-6)
    release = query.resolve()
    seen = [tuple(release(df)["code"]) for _ in range(2000)]
    assert all(keys == (BIG,) for keys in seen), {k for keys in seen for k in keys}
