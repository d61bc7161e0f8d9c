"""Query plans as values: printed as the calls that built them, equal and hashed by their steps
(whichever name or argument form built a step), written as standard JSON and read back equal,
refused when malformed; one plan built without a context runs on two different contexts; a
plan bound by ``ctx.query()`` is the same value as the unbound one."""
import json
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.plans import Clamp, Statistic, Transform

pd = pytest.importorskip("pandas")

BOUNDS = (0.0, 100.0)

PLANS = [
    dp.query(),
    dp.query().clamp(BOUNDS).median(),
    dp.query().column("income").impute(0.0).clamp(BOUNDS).quantile(Fraction(9, 10), scale=2.0),
    dp.query().group_by("region", keys=["N", "S"]).column("income").clamp((0, 10)).mean(),
    dp.query().group_by("age", keys=[20, 40, 60]).column("income").count(),
    dp.query().column("region").mode(candidates=["N", "S", "E"]),
    dp.query().clamp((float("-inf"), 1.0)),               # refused by make_clamp when compiled, but a value
    dp.query().clamp(BOUNDS).sort().smooth_median(noise="lln", t=0.01, sigma=2.0),
    dp.query().clamp(BOUNDS).trimmed_mean(5, noise="student_t", d=3.0),
    dp.query().count_by_candidates(candidates=[1.0, 2.0]).report_noisy_max_gumbel(optimize="max"),
    dp.query().sum(bounds=(-1.5, 2.5), scale=1e-300),
]


@pytest.mark.parametrize("plan", PLANS, ids=range(len(PLANS)))
def test_a_plan_round_trips_through_standard_json(plan):
    text = plan.to_json()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))
    back = dp.Query.from_json(text)
    assert back == plan and hash(back) == hash(plan) and repr(back) == repr(plan)
    assert back.to_json() == text


def test_a_plan_prints_as_the_calls_that_built_it():
    plan = dp.query().group_by("region", keys=["N", "S"]).column("income").clamp((0.0, 5e5)).quantile(0.9)
    assert repr(plan) == ("query().group_by('region', keys=('N', 'S')).column('income')"
                          ".clamp(bounds=(0.0, 500000.0)).quantile(alpha=0.9)")
    assert str(dp.query().duff_median(scale=2.0)) == "query().median(scale=2.0)"


def test_one_vocabulary_whatever_name_or_argument_form_built_a_step():
    assert dp.query().median() == dp.query().duff_median() == dp.query().step("median")
    assert dp.query().median() == dp.query().median(bounds=None)
    assert dp.query().quantile(0.9) == dp.query().duff_quantile(alpha=0.9) == dp.query().duff_quantile(0.9)
    assert dp.query().median(bounds=[0, 1]) == dp.query().duff_median(bounds=(0, 1))
    assert dp.query().trimmed_mean(3) == dp.query().smooth_trimmed_mean(m=3)
    assert dp.query().mode(candidates=np.array([1, 2])) == dp.query().duff_mode([1, 2])
    assert dp.query().impute(0.0) == dp.query().impute_constant(constant=0.0)
    assert dp.query().column("x") == dp.query().select_column(key="x")
    assert dp.query().clamp(BOUNDS).steps == (Clamp(BOUNDS),)
    assert dp.query().sort().steps == (Transform("sort", ()),)
    assert dp.query().laplace(scale=1.0).steps == (Statistic("laplace", (("scale", 1.0),)),)
    assert dp.query().count() != dp.query().sum()
    assert len({dp.query().median(), dp.query().duff_median(), dp.query().mean()}) == 2


def test_the_statistics_methods_are_the_vocabularys_entries():
    import inspect

    from opendp_duff.plans._vocabulary import ENTRIES
    for name, entry in ENTRIES.items():
        method = getattr(dp.Query, name)
        assert list(inspect.signature(method).parameters)[1:] == list(inspect.signature(entry.declaration).parameters)
        assert method.__doc__ == entry.declaration.__doc__
    with pytest.raises(AttributeError, match="no step"):
        dp.query().no_such_step()
    with pytest.raises(dp.MakeError, match="no step"):
        dp.query().step("no_such_step")


def test_malformed_json_is_refused():
    good = json.loads(dp.query().column("x").median().to_json())
    cases = ["not json", "[]", json.dumps({**good, "version": 2}), json.dumps({**good, "steps": {}}),
             json.dumps({**good, "steps": [{"step": "drop_table"}]}),
             json.dumps({**good, "steps": [{"step": "column", "name": "x", "extra": 1}]}),
             json.dumps({**good, "steps": [{"step": "statistic", "name": "median", "args": [1]}]}),
             json.dumps({**good, "steps": [{"step": "clamp", "bounds": {"$code": "x"}}]}),
             json.dumps({**good, "steps": [{"step": "column", "name": 3}]})]
    for text in cases:
        with pytest.raises((dp.MakeError, dp.MakeTypeError)):
            dp.Query.from_json(text)


def test_a_hand_built_partial_constructor_is_a_step_without_json():
    partial = dp.t.then_sort()
    plan = dp.query().clamp(BOUNDS).then(partial)
    assert plan == dp.query().clamp(BOUNDS).then(partial) and plan != dp.query().clamp(BOUNDS).then(dp.t.then_sort())
    assert "then(then_sort())" in repr(plan)
    with pytest.raises(dp.MakeError, match="no JSON form"):
        plan.to_json()


def test_values_a_plan_cannot_hold_are_refused_when_the_step_is_built():
    with pytest.raises(dp.MakeTypeError, match="public value"):
        dp.query().clamp((object(), 1.0))
    with pytest.raises(dp.MakeTypeError, match="public value"):
        dp.query().mode(candidates=[{"a": 1}])


def test_a_plan_built_without_a_context_runs_on_two_contexts():
    rng = np.random.default_rng(4)
    income = rng.uniform(0.0, 100.0, 2000)
    plan = dp.query().column("income").impute(50.0).clamp(BOUNDS).median()
    pure = dp.Context.compositor(data=pd.DataFrame({"income": income}), privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(epsilon=1.0))
    zcdp = dp.Context.compositor(data=pd.DataFrame({"income": income[:500], "other": income[:500]}),
                                 privacy_unit=dp.unit_of(contributions=2), privacy_loss=dp.loss_of(rho=0.5))
    assert pure.resolve(plan, epsilon=0.5).output_measure == dp.max_divergence()
    assert zcdp.resolve(plan, rho=0.1).output_measure == dp.zero_concentrated_divergence()
    first, second = pure.release(plan, epsilon=0.5), zcdp.release(plan, rho=0.5)
    assert BOUNDS[0] <= first <= BOUNDS[1] and BOUNDS[0] <= second <= BOUNDS[1]
    assert pure.remaining == 0.5 and zcdp.remaining == 0.0
    assert plan == dp.Query.from_json(plan.to_json())


def test_a_bound_plan_is_the_same_value_and_an_unbound_one_needs_a_context():
    ctx = dp.Context.compositor(data=np.arange(100.0), privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0))
    bound = ctx.query(epsilon=0.5).clamp(BOUNDS).median()
    plan = dp.query().clamp(BOUNDS).median()
    assert bound == plan and repr(bound) == repr(plan) and bound.to_json() == plan.to_json()
    with pytest.raises(dp.MakeError, match="not bound"):
        plan.release()
    with pytest.raises(dp.MakeError, match="already ends"):
        plan.clamp(BOUNDS)
    assert ctx.release(bound, epsilon=0.25) is not None and ctx.remaining == 0.75
