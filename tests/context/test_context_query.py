"""The query builder on 1-D data: scales searched so that the map meets the budget exactly
(compared in exact rationals), the three quantiles that share epsilon = 1 and never exceed it,
``.x(...)`` reaching any then_x, refusals before the data is read (bounds, steps, schemas, NaN),
integer data reaching the float statistics through an exact cast, and the Duff median of a
context landing near the true median.

The one statistical test is seeded (``rerun_once``); its false-failure rate is below 1e-15
(the Duff median leaves a window of 400 ranks around the median with probability below
(b - a) / (narrowest gap) e^{-400/scale} with scale 8)."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.samplers import byte_source_for_tests

INCOMES = np.random.default_rng(7).lognormal(mean=10.5, sigma=0.8, size=20_000)
BOUNDS = (0.0, 5e5)
TOL = Fraction(1, 10 ** 12)


def context(loss=None, data=INCOMES, contributions=1, **kwargs):
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=contributions),
                                 privacy_loss=loss or dp.loss_of(epsilon=1.0), **kwargs)


def meets_exactly(got, budget):
    got, budget = Fraction(got), Fraction(budget)
    return got <= budget and (budget - got) <= TOL * budget


def test_three_scales_of_six_in_a_composition_exceed_one_epsilon():
    """What the context prevents: scale 2 / (1/3) = 6 costs just over 1/3 each."""
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    quantiles = [space >> dp.t.then_clamp(bounds=BOUNDS) >> dp.t.then_sort()
                 >> dp.m.then_duff_quantile(alpha=a, scale=6.0) for a in (0.25, 0.5, 0.75)]
    assert dp.c.make_composition(quantiles).map(1) > 1.0


def test_three_quantiles_sharing_epsilon_one_never_exceed_it():
    ctx = context(split_evenly_over=3)
    resolved = []
    for alpha in (0.25, 0.5, 0.75):
        query = ctx.query().clamp(BOUNDS).quantile(alpha)
        resolved.append(query.resolve())
        assert meets_exactly(resolved[-1].map(1), query.budget)
        query.release()
    assert sum(Fraction(m.map(1)) for m in resolved) <= 1
    assert dp.c.make_composition(resolved).map(1) <= 1.0
    assert ctx.spent <= 1.0 and ctx.remaining == 0.0


@pytest.mark.parametrize("epsilon", [1.0, 0.1, 1 / 3, 2.7, 1e-4, 50.0])
@pytest.mark.parametrize("contributions", [1, 3])
def test_the_median_meets_its_share_exactly(epsilon, contributions):
    ctx = context(dp.loss_of(epsilon=epsilon), contributions=contributions, split_evenly_over=7)
    query = ctx.query().clamp(BOUNDS).median()
    measurement = query.resolve()
    assert measurement.output_measure == dp.max_divergence()
    assert meets_exactly(measurement.map(contributions), query.budget)


@pytest.mark.parametrize("build", [
    lambda q: q.clamp(BOUNDS).mean(),
    lambda q: q.clamp(BOUNDS).quantile(0.1),
    lambda q: q.median(bounds=BOUNDS),
    lambda q: q.count(),
    lambda q: q.clamp(BOUNDS).mode(candidates=[0.0, 5e5]),
    lambda q: q.clamp(BOUNDS).sort().duff_quantile(alpha=0.9),
    lambda q: q.then(dp.t.then_count()).laplace(),
], ids=["mean", "quantile", "median-bounds", "count", "mode", "x-duff_quantile", "x-count-laplace"])
def test_every_mechanism_meets_its_budget_exactly(build):
    ctx = context()
    query = build(ctx.query(epsilon=0.3))
    assert meets_exactly(query.resolve().map(1), 0.3)
    release = query.release()
    assert np.isfinite(release)
    assert ctx.spent == 0.3


def test_x_reaches_transformations_and_measurements_with_given_parameters():
    ctx = context()
    query = ctx.query().clamp(BOUNDS).sort().duff_median(scale=4.0)
    assert query.budget is None and query.resolve().map(1) == 0.5
    assert BOUNDS[0] <= query.release() <= BOUNDS[1]
    assert ctx.spent == 0.5
    with pytest.raises(AttributeError, match="then_no_such_step"):
        ctx.query().no_such_step()
    with pytest.raises(dp.MakeTypeError, match="missing"):
        ctx.query().clamp(BOUNDS).sort().duff_quantile()   # alpha and scale both left out
    assert "duff_median" in dir(ctx.query()) and "clamp" in dir(ctx.query())


class FailingSource:
    """A byte source that fails the test if anything draws from it (the compositor draws a byte
    right before a query's function reads the data)."""

    def random_bytes(self, n):
        pytest.fail("a query reached the data")


def test_steps_are_refused_where_they_do_not_fit():
    ctx = context(split_evenly_over=2)
    with byte_source_for_tests(FailingSource()):
        with pytest.raises(dp.MakeError, match=r"\.clamp\("):
            ctx.query().median()
        with pytest.raises(dp.MakeError, match="already ends"):
            ctx.query().count().clamp(BOUNDS)
        with pytest.raises(dp.MakeError, match="single column"):
            ctx.query().column("income")
        with pytest.raises(dp.MakeError, match="data frame"):
            ctx.query().group_by("region", keys=["N"])
        with pytest.raises(dp.MakeError, match="does not end in a measurement"):
            ctx.query().clamp(BOUNDS).resolve()
        with pytest.raises(dp.MakeTypeError, match="partial constructor"):
            ctx.query().then(dp.t.make_sort)
        ctx.query().clamp(BOUNDS).median().resolve()   # resolving reads nothing either
    assert ctx.remaining == 1.0


def test_the_domain_comes_from_the_dtype_never_from_values():
    assert context(data=np.arange(10)).domain == dp.vector_domain(dp.atom_domain(T=int))
    assert context(data=INCOMES).domain == dp.vector_domain(dp.atom_domain(T=float))
    with pytest.raises(dp.MakeTypeError, match="domain="):
        context(data=[1.0, 2.0, 3.0])
    with pytest.raises(dp.MakeTypeError, match="dtype"):
        context(data=np.array([True, False]))
    listed = context(data=[1.0, 2.0, 3.0], domain=dp.vector_domain(dp.atom_domain(T=float)))
    assert 0.0 <= listed.query(epsilon=1.0).clamp((0.0, 4.0)).median().release() <= 4.0
    with pytest.raises(dp.MakeTypeError, match="vector_domain"):
        context(data=INCOMES, domain=dp.atom_domain(T=float))


def test_an_integer_column_reaches_the_float_statistics_through_an_exact_cast():
    ctx = context(data=np.arange(1000), loss=dp.loss_of(epsilon=10.0))
    assert np.isfinite(ctx.query(epsilon=0.5).count().release())
    median = ctx.query(epsilon=1.0).clamp((0, 999)).median()
    steps = median.resolve()
    assert meets_exactly(steps.map(1), 1.0) and 0.0 <= median.release() <= 999.0
    assert 0.0 <= ctx.query(epsilon=1.0).median(bounds=(0, 999)).release() <= 999.0
    assert 0.0 <= ctx.query(epsilon=1.0).quantile(0.9, bounds=(0.0, 999.0)).release() <= 999.0   # integral floats
    assert 0.0 <= ctx.query(epsilon=1.0).mean(bounds=(0, 999)).release() <= 999.0
    with pytest.raises(dp.MakeTypeError, match="integer"):   # an integer column is clamped to integers
        ctx.query(epsilon=1.0).median(bounds=(0.5, 999.5))
    with pytest.raises(dp.MakeError, match="2\\^53"):       # beyond 2^53 not every integer is a float
        ctx.query(epsilon=1.0).median(bounds=(0, 2 ** 60))
    assert ctx.remaining == pytest.approx(5.5)


def test_data_of_an_unsupported_kind_is_refused_before_anything_is_read():
    with pytest.raises(dp.MakeTypeError, match="not supported"):
        context(data={"income": [1.0]})
    with pytest.raises(dp.MakeTypeError, match="not supported"):
        context(data=np.zeros((3, 2)))


def test_data_with_nan_is_refused_with_how_to_declare_and_impute_it():
    data = INCOMES.copy()
    data[3] = np.nan
    with pytest.raises(dp.NotAMemberValueError, match=r"nan=True.*\.impute\(constant\)") as info:
        context(data=data)
    assert str(float(data[0])) not in str(info.value)
    ctx = context(data=data, domain=dp.vector_domain(dp.atom_domain(T=float, nan=True)))
    release = ctx.query(epsilon=1.0).impute(0.0).clamp(BOUNDS).median().release()
    assert BOUNDS[0] <= release <= BOUNDS[1]


def test_a_query_built_early_takes_the_share_that_is_next_when_it_is_released():
    ctx = context(split_by_weights=[1, 3])
    early = ctx.query().clamp(BOUNDS).median()
    assert early.budget == 0.25
    ctx.query().count().release()
    assert early.budget == 0.75 and meets_exactly(early.resolve().map(1), 0.75)
    early.release()
    assert ctx.remaining == 0.0


@rerun_once(seed=11)
def test_the_median_of_a_context_lands_near_the_true_median():
    ctx = context(dp.loss_of(epsilon=0.25))
    release = ctx.query(epsilon=0.25).clamp(BOUNDS).median().release()
    x = np.sort(INCOMES)
    mid = (x.size + 1) // 2 - 1
    assert x[mid - 400] <= release <= x[mid + 400]
