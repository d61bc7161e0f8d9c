"""Accuracy before release: ``query.summarize(alpha)`` and ``ctx.summarize(plan, alpha, ...)``.

* One row per statistic, before anything is spent: the statistic's share of the budget, the
  mechanism, the scale the release will use (the calibrated parameter), the figure of
  :mod:`opendp_duff.accuracy` for that scale, its unit and its statement.
* The Duff median's rank figure is stated only under the analyst's spread condition; without it
  the row says that no rank bound holds for all data, with an infinite figure.  Likewise the Duff
  mean's figure needs the number of records.
* Empirical coverage (seeded, ``rerun_once``): the count's releases miss their half-width h with
  frequency at most alpha (Laplace: exactly alpha), and the median's releases leave the rank
  window [y_(R-k), y_(R+k)] with frequency at most alpha, on data that meets the spread
  condition.  Each test fails when more than alpha T + 6 sqrt(alpha (1 - alpha) T) of its T
  trials miss (the count's test also when fewer than alpha T - 6 sqrt(alpha (1 - alpha) T) do,
  since its miss probability is exactly alpha): the binomial tails (Bernstein's inequality) bound
  either event by exp(-36 / (2 (1 + 2 / sqrt(alpha (1 - alpha) T)))) < 1e-6 for T >= 1000, hence
  a false failure after the rerun below 1e-12.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.accuracy import duff_mean_accuracy, duff_median_accuracy, laplace_accuracy
from opendp_duff.errors import MakeError, MakeTypeError

ALPHA = 0.05
X = np.linspace(0.0, 100.0, 401)          # distinct values 0.25 apart: spread 0.5 within 1 rank
BOUNDS = (0.0, 100.0)


def context(data=X, loss=None):
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=loss or dp.loss_of(epsilon=1.0))


def limit(trials, alpha=ALPHA, side=1):
    return alpha * trials + side * 6 * math.sqrt(alpha * (1 - alpha) * trials)


def test_a_summary_states_each_statistic_at_the_scale_of_its_release():
    ctx = context()
    plan = ctx.query(epsilon=0.5).agg(n=dp.count(), m=dp.median(bounds=BOUNDS), avg=dp.mean(bounds=BOUNDS))
    rows = {row["statistic"]: row for row in plan.summarize(ALPHA, spread=0.5, n=401)}
    scales = ctx.compile(plan).parameter(0.5)
    assert [rows[k]["scale"] for k in ("n", "m", "avg")] == list(scales)
    assert sum(Fraction(r["budget"]) for r in rows.values()) <= Fraction(0.5)
    assert rows["n"]["accuracy"] == laplace_accuracy(scales[0], ALPHA).accuracy and rows["n"]["unit"] == "value"
    assert rows["m"]["accuracy"] == duff_median_accuracy(scales[1], ALPHA, bounds=BOUNDS, spread=0.5).accuracy
    assert rows["m"]["unit"] == "rank" and rows["m"]["mechanism"] == "duff_median"
    assert rows["avg"]["accuracy"] == duff_mean_accuracy(scales[2], ALPHA, bounds=BOUNDS, n=401).accuracy
    assert ctx.spent == 0.0                              # nothing is spent before the release


def test_without_the_spread_condition_no_rank_figure_is_stated():
    rows = context().query(epsilon=0.5).agg(m=dp.median(bounds=BOUNDS), avg=dp.mean(bounds=BOUNDS)).summarize()
    assert [r["accuracy"] for r in rows] == [math.inf, math.inf]
    assert "no rank bound holds for all data" in rows[0]["statement"] and "give spread=" in rows[0]["statement"]
    assert "give n=" in rows[1]["statement"]


def test_assumptions_by_statistic_and_out_of_range():
    plan = context().query(epsilon=0.5).agg(a=dp.median(bounds=BOUNDS), b=dp.quantile(None, 0.9, bounds=BOUNDS))
    rows = plan.summarize(ALPHA, spread={"a": 1.0})
    assert rows[0]["accuracy"] < math.inf and rows[1]["accuracy"] == math.inf
    for bad in ({"alpha": 1.5}, {"spread": -1.0}, {"spread": 200.0}, {"within": 0}, {"n": 2.5}):
        with pytest.raises((MakeError, MakeTypeError)):
            plan.summarize(**{"alpha": ALPHA, **bad})


def test_an_unbound_plan_is_summarized_by_a_context_at_a_budget_given_or_its_next_share():
    plan = dp.query().median(bounds=BOUNDS)
    rows = context().summarize(plan, ALPHA, spread=0.5, epsilon=0.25)
    assert len(rows) == 1 and rows[0]["budget"] == 0.25 and rows[0]["statistic"] == "median"
    split = dp.Context.compositor(data=X, privacy_unit=dp.unit_of(contributions=1),
                                  privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=4)
    assert split.summarize(plan, ALPHA)[0]["budget"] == 0.25


def test_a_frame_plan_is_summarized_as_a_frame_of_its_library():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"g": ["a", "b"] * 50, "x": np.arange(100.0)})
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0), domain=domain)
    summary = ctx.query(epsilon=1.0).group_by("g", keys=["a", "b"]).agg(
        n=dp.count(), m=dp.median("x", bounds=BOUNDS)).summarize()
    assert isinstance(summary, pd.DataFrame)
    assert list(summary.columns) == ["statistic", "budget", "mechanism", "scale", "accuracy", "unit", "statement"]
    assert list(summary["statistic"]) == ["n", "m"]


@rerun_once(20261126)
def test_the_count_misses_its_half_width_with_frequency_at_most_alpha():
    ctx = context()
    plan = ctx.query(epsilon=0.5).count()
    (row,) = plan.summarize(ALPHA)
    release = plan.resolve()
    trials = 1000
    misses = sum(abs(release(X) - len(X)) > row["accuracy"] for _ in range(trials))
    assert misses <= limit(trials), (misses, row)
    assert misses >= limit(trials, side=-1)    # Laplace noise misses h with probability alpha exactly


@pytest.mark.slow
@rerun_once(20261127)
def test_the_median_leaves_its_rank_window_with_frequency_at_most_alpha():
    ctx = context()
    plan = ctx.query(epsilon=0.05).median(bounds=BOUNDS)       # a wide window: scale ~ 40
    (row,) = plan.summarize(ALPHA, spread=0.5)                 # X's neighbours are 0.25 apart
    k = int(row["accuracy"])
    n, rank = len(X), math.ceil(len(X) / 2)
    lo, hi = X[max(rank - k, 1) - 1], X[min(rank + k, n) - 1]
    assert X[0] < lo and hi < X[-1]                            # the window excludes part of the data
    release = plan.resolve()
    trials = 1500
    misses = sum(not (lo <= release(X) <= hi) for _ in range(trials))
    assert misses <= limit(trials), (misses, k)
