"""Context budgets on 1-D data: unit_of / loss_of, shares that never exceed the total (exact
rational sums), four queries under split_evenly_over=4 spending everything, the fifth refused
without reading the data, per-query budgets, nothing charged when a query is refused or the
random source fails before the data is read (a release that raises later stays charged:
tests/system/test_trust.py), and degenerate budgets (the least positive float, an infinite
cost) refused with BudgetExceeded or MakeError, never a math error.

The data is read only by a query's function, which the compositor runs right after drawing a
byte of randomness (``check_entropy``): a byte source that fails the test shows that a refused
query never got that far."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.samplers import EntropyError, byte_source_for_tests

INCOMES = np.random.default_rng(20_000).lognormal(mean=10.5, sigma=0.8, size=20_000)
BOUNDS = (0.0, 5e5)


def context(loss, **kwargs):
    return dp.Context.compositor(data=INCOMES, privacy_unit=dp.unit_of(contributions=1), privacy_loss=loss,
                                 **kwargs)


def Q(budget):
    return tuple(map(Fraction, budget)) if isinstance(budget, tuple) else Fraction(budget)


class FailingSource:
    """A byte source that fails the test if anything draws from it."""

    def random_bytes(self, n):
        pytest.fail("randomness was drawn")


def test_loss_of_picks_the_measure_from_its_arguments():
    assert dp.loss_of(epsilon=1.0) == (dp.max_divergence(), 1.0)
    assert dp.loss_of(rho=0.5) == (dp.zero_concentrated_divergence(), 0.5)
    assert dp.loss_of(epsilon=1.0, delta=1e-6) == (dp.approximate_divergence(), (1.0, 1e-6))
    for bad in ({}, {"delta": 1e-6}, {"rho": 1.0, "delta": 1e-6}, {"rho": 1.0, "epsilon": 1.0}):
        with pytest.raises(dp.MakeError):
            dp.loss_of(**bad)
    with pytest.raises(dp.MakeError, match="epsilon"):
        dp.loss_of(epsilon=-1.0)
    with pytest.raises(dp.MakeError, match="delta"):
        dp.loss_of(epsilon=1.0, delta=1.0)


def test_unit_of_counts_contributions():
    metric, d_in = dp.unit_of(contributions=3)
    assert metric == dp.symmetric_distance() and d_in == 3
    for bad in (0, -1, 1.5):
        with pytest.raises((dp.MakeError, dp.MakeTypeError), match="contributions"):
            dp.unit_of(contributions=bad)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 49])
def test_even_shares_spend_the_total_and_never_more(n):
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=n)
    shares = ctx._shares
    assert len(shares) == n
    assert sum(map(Fraction, shares)) <= 1
    # each share is the float below total/n (rounded down); the last takes what the others leave
    assert all(Fraction(s) <= Fraction(1, n) for s in shares[:-1])
    assert sum(map(Fraction, shares)) == 1   # the last remainder is a float here


def test_weighted_shares_for_approximate_dp_stay_within_both_components():
    ctx = context(dp.loss_of(epsilon=1.3, delta=1e-6), split_by_weights=[1, 2, 3.5])
    eps = [Fraction(s[0]) for s in ctx._shares]
    delta = [Fraction(s[1]) for s in ctx._shares]
    assert sum(eps) <= Fraction(1.3) and sum(delta) <= Fraction(1e-6)
    assert eps[1] <= 2 * Fraction(1.3) / Fraction(6.5) and eps[0] < eps[1] < eps[2]


def test_split_arguments_are_validated():
    with pytest.raises(dp.MakeError, match="not both"):
        context(dp.loss_of(epsilon=1.0), split_evenly_over=2, split_by_weights=[1, 1])
    with pytest.raises(dp.MakeError, match="split_by_weights"):
        context(dp.loss_of(epsilon=1.0), split_by_weights=[1, -1])
    with pytest.raises((dp.MakeError, dp.MakeTypeError), match="split_evenly_over"):
        context(dp.loss_of(epsilon=1.0), split_evenly_over=0)


def test_four_queries_spend_everything_and_a_fifth_is_refused_unread():
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=4)
    releases = [ctx.query().clamp(BOUNDS).median().release(),
                ctx.query().clamp(BOUNDS).quantile(0.9).release(),
                ctx.query().clamp(BOUNDS).mean().release(),
                ctx.query().count().release()]
    assert all(BOUNDS[0] <= r <= BOUNDS[1] for r in releases[:3]) and np.isfinite(releases[3])
    assert ctx.remaining == 0.0 and ctx.spent == 1.0
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.BudgetExceeded):
            ctx.query()
    assert ctx.remaining == 0.0


def test_a_query_built_before_the_budget_ran_out_is_refused_unread():
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=1)
    late = ctx.query().clamp(BOUNDS).median()
    ctx.query().count().release()
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.BudgetExceeded):
            late.release()
    assert ctx.spent == 1.0


def test_per_query_budgets_are_charged_exactly():
    ctx = context(dp.loss_of(epsilon=1.0))
    query = ctx.query(epsilon=0.25).clamp(BOUNDS).median()
    assert query.budget == 0.25
    query.release()
    assert ctx.remaining == 0.75 and ctx.spent == 0.25
    ctx.query(epsilon=0.75).count().release()
    assert ctx.remaining == 0.0


def test_a_budget_beyond_what_remains_is_refused_and_charges_nothing():
    ctx = context(dp.loss_of(epsilon=1.0))
    ctx.query(epsilon=0.6).count().release()
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.BudgetExceeded, match="remaining"):
            ctx.query(epsilon=0.5)
    assert ctx.remaining == pytest.approx(0.4)
    assert Fraction(ctx.remaining) <= 1 - Fraction(0.6)   # rounded down


def test_a_failing_random_source_charges_nothing_and_keeps_its_share():
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=2)

    class Broken:
        def random_bytes(self, n):
            raise EntropyError("no entropy")

    with byte_source_for_tests(Broken()):
        with pytest.raises(EntropyError):
            ctx.query().clamp(BOUNDS).median().release()
    assert ctx.remaining == 1.0 and ctx.spent == 0.0
    ctx.query().count().release()
    ctx.query().count().release()
    assert ctx.remaining == 0.0


def test_budgets_in_the_wrong_form_are_refused():
    split = context(dp.loss_of(epsilon=1.0), split_evenly_over=2)
    with pytest.raises(dp.MakeError, match="without a budget"):
        split.query(epsilon=0.5)
    pure = context(dp.loss_of(epsilon=1.0))
    with pytest.raises(dp.MakeError, match="rho"):
        pure.query(rho=0.1)
    with pytest.raises(dp.MakeError, match="no release"):
        pure.query(epsilon=0.0)
    zcdp = context(dp.loss_of(rho=0.5))
    with pytest.raises(dp.MakeError, match="rho="):
        zcdp.query(epsilon=0.1)


def test_without_a_budget_a_query_is_charged_the_map_of_its_given_parameters():
    ctx = context(dp.loss_of(epsilon=1.0))
    ctx.query().clamp(BOUNDS).sort().duff_median(scale=8.0).release()
    assert ctx.spent == 0.25
    with pytest.raises(dp.MakeError, match="ctx.query\\(epsilon"):
        ctx.query().clamp(BOUNDS).median().resolve()


def test_approximate_dp_queries_default_to_delta_zero_and_track_both_components():
    ctx = context(dp.loss_of(epsilon=1.0, delta=1e-6))
    query = ctx.query(epsilon=0.5)
    assert query.budget == (0.5, 0.0)
    assert ctx.query(epsilon=0.5, delta=4e-7).budget == (0.5, 4e-7)
    assert ctx.remaining == (1.0, 1e-6)
    with pytest.raises(dp.BudgetExceeded):
        ctx.query(epsilon=0.5, delta=2e-6)


@pytest.mark.parametrize("loss,budget", [
    (dp.loss_of(epsilon=1.0), dict(epsilon=5e-324)), (dp.loss_of(epsilon=1.0, delta=1e-6), dict(epsilon=5e-324)),
    (dp.loss_of(epsilon=1.0, delta=1e-6), dict(epsilon=5e-324, delta=5e-324)),
])
@pytest.mark.parametrize("build", [
    lambda q: q.clamp(BOUNDS).median(), lambda q: q.clamp(BOUNDS).quantile(0.25), lambda q: q.clamp(BOUNDS).mean(),
    lambda q: q.count(), lambda q: q.mode(candidates=[1.0, 2.0]),
], ids=["median", "quantile", "mean", "count", "mode"])
def test_a_budget_too_small_for_any_scale_is_refused_clearly(loss, budget, build):
    ctx = context(loss)
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.MakeError, match="no value of scale meets the query's budget"):
            build(ctx.query(**budget)).release()
    assert ctx.spent in (0.0, (0.0, 0.0))


def test_a_tiny_zcdp_budget_still_releases_with_enormous_noise():
    ctx = context(dp.loss_of(rho=1.0))
    assert np.isfinite(ctx.query(rho=5e-324).count().release()) and ctx.spent == 5e-324


def test_an_infinite_cost_is_over_budget():
    for loss in (dp.loss_of(epsilon=1.0), dp.loss_of(epsilon=1.0, delta=1e-6)):
        ctx = context(loss)
        exact = dp.t.then_count()
        with byte_source_for_tests(FailingSource()):
            with pytest.raises(dp.BudgetExceeded, match="cost"):
                q = ctx.query().then(exact).laplace(scale=0.0)
                q.release()
        assert ctx.spent in (0.0, (0.0, 0.0))
