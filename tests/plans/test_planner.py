"""The planner: a plan compiles, for a target of public facts only, to one measurement; every
plan starts from ``make_identity``; a grouped plan's scale is searched on the per-part
measurement with the parallel composition built twice (around the search's stand-in, then
around the chosen part), however many candidates the search tries; steps a plan cannot take
are refused when it is compiled."""
import json
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import combinators, measurements, transformations
from opendp_duff.plans import Target, compile_plan

pd = pytest.importorskip("pandas")

BOUNDS = (0.0, 100.0)
FRAME = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
TOL = Fraction(1, 10 ** 12)


def counting(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_plan_compiles_for_a_target_without_data_and_runs_as_a_measurement():
    target = Target(FRAME, dp.symmetric_distance(), 1, dp.max_divergence())
    plan = dp.query().group_by("g", keys=["a", "b"]).column("x").clamp(BOUNDS).median()
    measurement = compile_plan(plan.steps, target).measurement(0.5)
    cost = Fraction(measurement.map(1))
    assert cost <= Fraction(0.5) and Fraction(0.5) - cost <= TOL * Fraction(0.5)
    release = measurement(pd.DataFrame({"g": ["a", "b", "a"], "x": [1.0, 50.0, 99.0]}))
    assert list(release) == ["g", "x_median"] and release["g"] == ["a", "b"]


def test_every_plan_starts_from_the_identity(monkeypatch):
    calls = counting(monkeypatch, transformations, "make_identity")
    target = Target(dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance(), 1, dp.max_divergence())
    compiled = compile_plan(dp.query().count().steps, target)
    assert calls == ["make_identity"] and compiled.state.chain.input_domain == target.domain
    compile_plan(dp.query().group_by("g", keys=["a"]).column("x").count().steps,
                 Target(FRAME, dp.symmetric_distance(), 1, dp.max_divergence()))
    assert calls.count("make_identity") == 3        # the data's, and each part's


def test_a_grouped_scale_search_builds_the_parallel_composition_twice(monkeypatch):
    parallel = counting(monkeypatch, combinators, "make_parallel_composition")
    parts = counting(monkeypatch, measurements, "make_duff_median")
    target = Target(FRAME, dp.symmetric_distance(), 3, dp.zero_concentrated_divergence())
    plan = dp.query().group_by("g", keys=["a", "b", "c"]).column("x").clamp(BOUNDS).median()
    measurement = compile_plan(plan.steps, target).measurement(0.25)
    assert len(parallel) == 2 and len(parts) > 5
    cost = Fraction(measurement.map(3))
    assert cost <= Fraction(0.25) and Fraction(0.25) - cost <= TOL * Fraction(0.25)


def test_steps_that_cannot_be_taken_are_refused_when_compiled():
    vector = Target(dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance(), 1, dp.max_divergence())
    frame = Target(FRAME, dp.symmetric_distance(), 1, dp.max_divergence())
    refused = [
        (vector, dp.query().column("x"), "single column"),
        (vector, dp.query().group_by("g", keys=["a"]), "data frame"),
        (frame, dp.query().group_by("g"), "public keys"),
        (frame, dp.query().column("x").group_by("g", keys=["a"]), "comes first"),
        (frame, dp.query().column("x").column("g"), "already selected"),
        (frame, dp.query().median(bounds=BOUNDS), "needs a column"),
        (vector, dp.query().median(), "public bounds"),
        (vector, dp.query().sum(bounds=BOUNDS), "public"),
    ]
    for target, plan, message in refused:
        with pytest.raises(dp.MakeError, match=message):
            compile_plan(plan.steps, target)
    good = json.loads(dp.query().count().to_json())
    for steps, message in [([{"step": "statistic", "name": "no_such", "args": {}}], "no statistic"),
                           ([{"step": "transform", "name": "__class__", "args": {}}], "no transformation"),
                           ([{"step": "statistic", "name": "count", "args": {}}] * 2, "already ends"),
                           ([{"step": "statistic", "name": "count", "args": {"bounds": [0, 1]}}], "no argument")]:
        plan = dp.Query.from_json(json.dumps({**good, "steps": steps}))
        with pytest.raises((dp.MakeError, dp.MakeTypeError), match=message):
            compile_plan(plan.steps, vector)


def test_a_target_whose_unit_would_protect_nobody_is_refused():
    sized = dp.vector_domain(dp.atom_domain(T=float), size=10)
    with pytest.raises(dp.MakeError, match="changes=k"):
        compile_plan((), Target(sized, dp.symmetric_distance(), 1, dp.max_divergence()))
    with pytest.raises(dp.MakeError, match="size"):
        compile_plan((), Target(sized.with_(size=None), dp.change_one_distance(), 1, dp.max_divergence()))
    changed = compile_plan(dp.query().clamp(BOUNDS).median(scale=1.0).steps,
                           Target(sized, dp.change_one_distance(), 1, dp.max_divergence()))
    assert changed.measurement(None).map(1) == measurements.make_duff_median(
        sized.with_(element_domain=dp.atom_domain(T=float, bounds=BOUNDS)), dp.symmetric_distance(), 1.0).map(2)


def test_a_compiled_plan_is_calibrated_once_per_budget():
    target = Target(dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance(), 1, dp.max_divergence())
    compiled = compile_plan(dp.query().clamp(BOUNDS).median().steps, target)
    assert compiled.measurement(0.5) is compiled.measurement(0.5)
    assert compiled.parameter(0.5) == compiled.parameter(0.5) > 0 and compiled.param == "scale"
    assert np.isfinite(compiled.measurement(0.5)(np.arange(10.0)))
