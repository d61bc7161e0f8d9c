"""Context budgets on 1-D data: unit_of / loss_of, shares that never exceed the total (exact
rational sums) and equal the shares rounded down from exact fractions (computed here
independently), a split into 10^7 shares taking no time to build (its shares are computed when
taken), four queries under split_evenly_over=4 spending everything, the fifth refused without
reading the data, per-query budgets, nothing charged when a query is refused or the random
source fails before the data is read (a release that raises later stays charged:
tests/system/test_trust.py), degenerate budgets (the least positive float, an infinite cost)
refused with BudgetExceeded or MakeError, never a math error, and threads releasing on one split
context each taking a share, all of them usable.

The data is read only by a query's function, which the compositor runs right after drawing a
byte of randomness (``check_entropy``): a byte source that fails the test shows that a refused
query never got that far."""
from fractions import Fraction

import threading

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.measures import approximate_zero_concentrated_divergence
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
    assert dp.loss_of(rho=1.0, delta=1e-6) == (approximate_zero_concentrated_divergence(), (1.0, 1e-6))
    for bad in ({}, {"delta": 1e-6}, {"rho": 1.0, "epsilon": 1.0}, {"rho": 1.0, "delta": 1.0}):
        with pytest.raises(dp.MakeError):
            dp.loss_of(**bad)
    with pytest.raises(dp.MakeError, match="epsilon"):
        dp.loss_of(epsilon=-1.0)
    with pytest.raises(dp.MakeError, match="delta"):
        dp.loss_of(epsilon=1.0, delta=1.0)


def test_unit_of_counts_contributions_or_changes():
    metric, d_in = dp.unit_of(contributions=3)
    assert metric == dp.symmetric_distance() and d_in == 3
    assert dp.unit_of(changes=2) == (dp.change_one_distance(), 2)
    for bad in (0, -1, 1.5):
        with pytest.raises((dp.MakeError, dp.MakeTypeError), match="contributions"):
            dp.unit_of(contributions=bad)
        with pytest.raises((dp.MakeError, dp.MakeTypeError), match="changes"):
            dp.unit_of(changes=bad)
    for bad in ({}, {"contributions": 1, "changes": 1}):
        with pytest.raises(dp.MakeError, match="exactly one"):
            dp.unit_of(**bad)


def down(q):
    """The largest float at most the fraction q."""
    x = float(q)
    return x if Fraction(x) <= q else float(np.nextafter(x, -np.inf))


def reference_shares(total, weights):
    """The shares as exact fractions rounded down to floats: share i < n - 1 is the largest float
    at most total * w_i / sum(w); the last the largest float at most total minus the others."""
    parts = total if isinstance(total, tuple) else (total,)
    out = []
    for w in weights[:-1]:
        out.append(tuple(down(Fraction(c) * w / sum(weights)) for c in parts))
    out.append(tuple(down(Fraction(c) - sum((Fraction(o[k]) for o in out), Fraction(0)))
                     for k, c in enumerate(parts)))
    return [o if isinstance(total, tuple) else o[0] for o in out]


@pytest.mark.parametrize("total,weights", [
    (1.0, [1] * 7), (0.3, [1] * 10), (1.0, [1, 3]), (2.7, [1, 2, 3.5, 0.25]), ((1.3, 1e-6), [1, 2, 3.5]),
    ((0.7, 3e-7), [1] * 3), (1e-300, [1] * 3), (5.0, [1]),
], ids=range(8))
def test_shares_are_the_exact_fractions_rounded_down(total, weights):
    loss = dp.loss_of(epsilon=total[0], delta=total[1]) if isinstance(total, tuple) else dp.loss_of(epsilon=total)
    even = len(set(weights)) == 1
    ctx = context(loss, **({"split_evenly_over": len(weights)} if even else {"split_by_weights": weights}))
    expected = reference_shares(total, [Fraction(w) for w in weights])
    assert list(ctx.shares) == expected and len(ctx.shares) == len(weights)
    assert ctx.shares[-1] == expected[-1] and ctx.shares[:2] == expected[:2]


def test_a_split_into_ten_million_shares_is_built_without_computing_them():
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=10 ** 7)
    shares = ctx.shares
    assert len(shares) == 10 ** 7
    first = down(Fraction(1, 10 ** 7))
    assert shares[0] == shares[10 ** 6] == shares[-2] == first
    assert shares[-1] == down(1 - (10 ** 7 - 1) * Fraction(first))
    assert ctx.query().budget == shares[0]


def test_threads_on_an_unevenly_split_context_use_every_share():
    weights = list(range(1, 65))
    ctx = context(dp.loss_of(epsilon=1.0), split_by_weights=weights)
    errors, start = [], threading.Barrier(16)

    def analyst():
        start.wait()
        for _ in range(4):
            try:
                ctx.query().count().release()
            except Exception as exc:   # noqa: BLE001 - collected and reported below
                errors.append(exc)

    threads = [threading.Thread(target=analyst) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sum(map(Fraction, ctx.shares)) <= Fraction(ctx.spent) and ctx.remaining < 1e-15   # all 64 taken
    with pytest.raises(dp.BudgetExceeded):
        ctx.query()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 49])
def test_even_shares_spend_the_total_and_never_more(n):
    ctx = context(dp.loss_of(epsilon=1.0), split_evenly_over=n)
    shares = ctx.shares
    assert len(shares) == n
    assert sum(map(Fraction, shares)) <= 1
    # each share is the float below total/n (rounded down); the last takes what the others leave
    assert all(Fraction(s) <= Fraction(1, n) for s in shares[:-1])
    assert sum(map(Fraction, shares)) == 1   # the last remainder is a float here


def test_weighted_shares_for_approximate_dp_stay_within_both_components():
    ctx = context(dp.loss_of(epsilon=1.3, delta=1e-6), split_by_weights=[1, 2, 3.5])
    eps = [Fraction(s[0]) for s in ctx.shares]
    delta = [Fraction(s[1]) for s in ctx.shares]
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


def test_a_querys_bookkeeping_does_not_grow_with_the_queries_before_it():
    """The same release (same plan, budget and random bytes) makes exactly as many calls after
    300 queries as after 3: the compositor keeps a running total and the context's checks are
    O(1).  (Each charge is a whole epsilon, so that the exact sums take the same path; the time
    is measured in benchmarks/bench_context.py.)"""
    import gc
    import sys

    from opendp_duff.samplers import seeded_rng_for_tests

    ctx = context(dp.loss_of(epsilon=1000.0))
    plan = dp.query().count()

    def calls_of_one_release():
        calls = [0]

        def count(frame, event, arg):
            calls[0] += event in ("call", "c_call")

        # The collector runs Python callbacks (hypothesis registers one) whenever it likes: with
        # it off, the count is the release's own calls.
        gc.collect()
        gc.disable()
        with seeded_rng_for_tests(7):
            sys.setprofile(count)
            try:
                ctx.release(plan, epsilon=1.0)
            finally:
                sys.setprofile(None)
                gc.enable()
        return calls[0]

    for _ in range(3):
        ctx.release(plan, epsilon=1.0)
    early = calls_of_one_release()
    for _ in range(300):
        ctx.release(plan, epsilon=1.0)
    assert calls_of_one_release() == early
