"""Grouping by keys discovered from the data: ``ctx.query(...).group_by("code")`` without keys.

* Only a context with a delta discovers keys: pure DP and rho-only contexts refuse, before any
  data is read, with a message that says why and names the fix (the (rho, delta) contexts are
  tested in ``test_discovery_zcdp.py``).
* The plan states the split (``key_share``), prints it and carries it through JSON; the keys'
  part of the budget is the exact fraction rounded down, and the whole map is at least the exact
  sum of the keys' map and the grouped statistics' map and at most the budget.
* The release has one row per discovered key (real values of the column, never a placeholder);
  when no key passes the threshold it is an empty frame with the same columns.
* 2,000 seeded releases at delta = 1e-6 for the keys: a key held by one person's row never
  appears, and a key with 10,000 rows always does.  The false-failure rate: each release shows a
  single-person key with probability at most 5 * 1e-6 (the map's delta for one key, times the
  5 such keys), so some trial does with probability at most 2000 * 5e-6 = 1e-2, twice in a row
  (``rerun_once``) at most 1e-4; the key of 10,000 rows is missed with probability below
  e^{-4000} per release (threshold < 30, noise scale 2).  The (seeded) Polars Enum test releases its
  key of one row with probability below 1e-6 and misses a key of 300 rows below e^{-100}, twice in
  a row below 1e-12.
"""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.errors import MakeError

pd = pytest.importorskip("pandas")

DOMAIN = dp.dataframe_domain({"code": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
BIG, SINGLES = 7, (1001, 1002, 1003, 1004, 1005)


def data(big=10_000):
    codes = np.concatenate([np.full(big, BIG), np.array(SINGLES)])
    return pd.DataFrame({"code": codes, "x": np.linspace(0.0, 100.0, len(codes))})


def context(df, loss):
    return dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1), privacy_loss=loss,
                                 domain=DOMAIN)


@pytest.mark.parametrize("loss, budget, message", [
    (dp.loss_of(epsilon=1.0), {"epsilon": 1.0}, r"needs an \(epsilon, delta\) context .* or a \(rho, delta\) one"),
    (dp.loss_of(rho=1.0), {"rho": 1.0}, r"a rho-only budget has no delta; give one, dp.loss_of\(rho=..., delta=...\)")])
def test_a_context_without_delta_refuses_to_discover_keys(loss, budget, message):
    ctx = context(data(10), loss)
    with pytest.raises(MakeError, match=message):
        ctx.query(**budget).group_by("code")
    assert ctx.spent == 0.0


def test_the_split_is_stated_printed_and_carried_through_json():
    plan = dp.query().group_by("code", key_share=0.25).agg(n=dp.count())
    assert repr(plan).startswith("query().group_by('code', keys=None, key_share=0.25)")
    assert dp.Query.from_json(plan.to_json()) == plan
    assert "key_share" not in dp.query().group_by("code", keys=[1]).to_json()   # only for discovered keys
    for bad in (0, 1, 1.5, True):
        with pytest.raises(MakeError):
            dp.query().group_by("code", key_share=bad)


def test_the_keys_and_the_statistics_share_the_budget_exactly():
    ctx = context(data(100), dp.loss_of(epsilon=4.0, delta=1e-5))
    budget = (1.0, 2e-6)
    plan = dp.query().group_by("code", key_share=0.25).agg(n=dp.count(), m=dp.median("x", bounds=(0.0, 100.0)))
    compiled = ctx.compile(plan)
    keys_budget, scale, threshold = compiled.key_parameters(budget)
    for k, b in zip(keys_budget, budget, strict=True):     # the exact quarter, rounded down
        assert Fraction(1, 4) * Fraction(b) * (1 - Fraction(1, 2 ** 50)) < Fraction(k) <= Fraction(1, 4) * Fraction(b)
    keys_map = (dp.t.make_select_column(DOMAIN, dp.symmetric_distance(), key="code") >> dp.t.then_count_by_key()
                >> dp.m.then_threshold_keys(scale=scale, threshold=threshold)).map(1)
    assert keys_map[0] <= keys_budget[0] and keys_map[1] <= keys_budget[1]
    shares = compiled.shares(budget)
    total = ctx.resolve(plan, epsilon=budget[0], delta=budget[1]).map(1)
    assert Fraction(total[0]) <= Fraction(budget[0]) and Fraction(total[1]) <= Fraction(budget[1])
    assert Fraction(total[0]) >= Fraction(keys_map[0])
    assert sum(Fraction(s[0]) for s in shares) + Fraction(keys_budget[0]) <= Fraction(budget[0])


def test_the_release_has_one_row_per_discovered_key_or_none():
    ctx = context(data(200), dp.loss_of(epsilon=10.0, delta=1e-5))
    out = ctx.query(epsilon=2.0, delta=1e-6).group_by("code").agg(n=dp.count()).release()
    assert list(out.columns) == ["code", "n"] and list(out["code"]) == [BIG]
    empty = context(data(0), dp.loss_of(epsilon=10.0, delta=1e-5))
    out = empty.query(epsilon=2.0, delta=1e-6).group_by("code").column("x").clamp((0.0, 100.0)).median().release()
    assert list(out.columns) == ["code", "x_median"] and len(out) == 0
    assert empty.spent == (2.0, 1e-6)                    # charged all the same


@pytest.mark.slow
@rerun_once(6021)
def test_single_person_keys_never_appear_and_large_keys_always_do():
    df = data()
    ctx = context(df, dp.loss_of(epsilon=4.0, delta=1e-5))
    plan = ctx.query(epsilon=2.0, delta=2e-6).group_by("code").agg(n=dp.count())   # keys: (1.0, 1e-6)
    assert ctx.compile(plan).key_parameters((2.0, 2e-6))[0] == (1.0, 1e-6)
    release = plan.resolve()
    seen = [tuple(release(df)["code"]) for _ in range(2000)]
    assert all(keys == (BIG,) for keys in seen), {k for keys in seen for k in keys}


def test_the_summary_states_the_count_from_which_a_key_appears():
    ctx = context(data(100), dp.loss_of(epsilon=4.0, delta=1e-5))
    rows = ctx.query(epsilon=2.0, delta=2e-6).group_by("code").agg(n=dp.count()).summarize(0.05).to_dict("records")
    assert [r["statistic"] for r in rows] == ["keys of code", "n"]
    keys = rows[0]
    assert keys["mechanism"] == "threshold_keys" and keys["unit"] == "count" and keys["budget"] == (1.0, 1e-6)
    assert 14 < keys["accuracy"] < 40           # threshold near 1 + 2 ln(1 / 2e-6) ~ 27, plus the noise's 2 ln 10


@rerun_once(6022)
def test_keys_discovered_from_a_polars_enum_column_are_never_refused_by_its_categories():
    """The public-keys check of an Enum column (keys outside its categories are refused) does
    not apply to discovered keys, which come from the column itself."""
    pl = pytest.importorskip("polars")
    codes = pl.Series(["A"] * 300 + ["B"] * 300 + ["C"], dtype=pl.Enum(["A", "B", "C", "D"]))
    df = pl.DataFrame({"code": codes, "x": np.linspace(0.0, 1.0, 601)})
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=4.0, delta=1e-6),
                                domain=dp.dataframe_domain({"code": dp.atom_domain(T=str),
                                                            "x": dp.atom_domain(T=float)}))
    out = ctx.query(epsilon=2.0, delta=1e-6).group_by("code").agg(n=dp.count()).release()
    assert list(out["code"]) == ["A", "B"]      # C (one row) passes with probability below 1e-6
    with pytest.raises(MakeError, match="Enum"):
        ctx.query(epsilon=1.0).group_by("code", keys=["A", "Z"]).agg(n=dp.count())
