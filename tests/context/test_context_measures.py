"""Contexts in zCDP and (epsilon, delta): the Duff mechanisms restated by the measure casts, the
smooth-sensitivity mechanisms in their own measure or cast, each meeting its budget exactly, and
the refusals (an (epsilon, delta) or zCDP mechanism in a stronger context, a delta of 0 for a
zCDP mechanism, an unknown size).  Data of a public size comes with the privacy unit
``unit_of(changes=k)``."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp

N = 4_000
INCOMES = np.random.default_rng(3).lognormal(mean=10.5, sigma=0.8, size=N)
BOUNDS = (0.0, 5e5)
SIZED = dp.vector_domain(dp.atom_domain(T=float), size=N)
TOL = Fraction(1, 10 ** 12)


def context(loss, contributions=1, domain=None, **kwargs):
    unit = dp.unit_of(changes=1) if domain == SIZED else dp.unit_of(contributions=contributions)
    return dp.Context.compositor(data=INCOMES, privacy_unit=unit, privacy_loss=loss, domain=domain, **kwargs)


def meets_exactly(got, budget):
    got, budget = Fraction(got), Fraction(budget)
    return got <= budget and budget - got <= TOL * budget


def test_a_duff_median_in_a_zcdp_context_is_cast_and_meets_rho():
    ctx = context(dp.loss_of(rho=0.5), split_evenly_over=3)
    query = ctx.query().clamp(BOUNDS).median()
    measurement = query.resolve()
    assert measurement.output_measure == dp.zero_concentrated_divergence()
    assert meets_exactly(measurement.map(1), query.budget)
    assert BOUNDS[0] <= query.release() <= BOUNDS[1]
    count = ctx.query().count()
    assert meets_exactly(count.resolve().map(1), count.budget)


@pytest.mark.parametrize("statistic", ["smooth_median", "trimmed_mean"])
@pytest.mark.parametrize("loss,noise,measure", [
    (dp.loss_of(rho=0.5), None, dp.zero_concentrated_divergence()),          # LLN, native
    (dp.loss_of(rho=0.5), "student_t", dp.zero_concentrated_divergence()),   # pure, cast
    (dp.loss_of(epsilon=1.0), None, dp.max_divergence()),                    # Student's T
    (dp.loss_of(epsilon=1.0, delta=1e-6), None, dp.approximate_divergence()),       # LLN, cast
    (dp.loss_of(epsilon=1.0, delta=1e-6), "laplace", dp.approximate_divergence()),  # native
], ids=["zcdp-lln", "zcdp-student", "pure-student", "approx-lln", "approx-laplace"])
def test_smooth_mechanisms_meet_their_share_exactly(statistic, loss, noise, measure):
    ctx = context(loss, domain=SIZED, split_evenly_over=2)
    query = ctx.query().clamp(BOUNDS)
    query = query.smooth_median(noise=noise) if statistic == "smooth_median" else query.trimmed_mean(400, noise=noise)
    measurement, budget = query.resolve(), query.budget
    assert measurement.output_measure == measure
    got = measurement.map(1)
    if isinstance(budget, tuple):
        assert got[1] == budget[1] and meets_exactly(got[0], budget[0])
    else:
        assert meets_exactly(got, budget)
    assert np.isfinite(query.release())
    assert Fraction(ctx.spent if not isinstance(budget, tuple) else ctx.spent[0]) == Fraction(
        budget if not isinstance(budget, tuple) else budget[0])


def test_a_given_t_and_shape_are_used_as_given():
    ctx = context(dp.loss_of(rho=0.5), domain=SIZED)
    query = ctx.query(rho=0.25).clamp(BOUNDS).smooth_median(noise="uln", t=0.01, sigma=2.0)
    assert meets_exactly(query.resolve().map(1), 0.25)
    with pytest.raises(dp.MakeError, match="d .* does not apply"):
        ctx.query(rho=0.25).clamp(BOUNDS).smooth_median(noise="uln", d=3)


def test_mechanisms_of_a_weaker_measure_are_refused():
    pure = context(dp.loss_of(epsilon=1.0), domain=SIZED)
    with pytest.raises(dp.MakeError, match="lln"):
        pure.query(epsilon=0.5).clamp(BOUNDS).smooth_median(noise="lln")
    zcdp = context(dp.loss_of(rho=1.0), domain=SIZED)
    with pytest.raises(dp.MakeError, match="laplace"):
        zcdp.query(rho=0.5).clamp(BOUNDS).smooth_median(noise="laplace")
    with pytest.raises(dp.MakeError, match="cannot run in a context"):
        pure.query(epsilon=0.5).then(dp.t.then_count()).gaussian().resolve()
    with pytest.raises(dp.MakeError, match="l2_distance|metric"):
        pure.query(epsilon=0.5).clamp(BOUNDS).gaussian().resolve()
    assert pure.remaining == 1.0 and zcdp.remaining == 1.0


def test_a_zcdp_mechanism_needs_a_delta_in_an_approximate_context():
    ctx = context(dp.loss_of(epsilon=1.0, delta=1e-6), domain=SIZED)
    with pytest.raises(dp.MakeError, match="delta > 0"):
        ctx.query(epsilon=0.5).clamp(BOUNDS).smooth_median(noise="lln", t=0.01).resolve()
    assert ctx.remaining == (1.0, 1e-6)


def test_the_smooth_mechanisms_need_a_public_size():
    with pytest.raises(dp.MakeError, match="size"):
        context(dp.loss_of(epsilon=1.0), contributions=2).query(epsilon=0.5).clamp(BOUNDS).smooth_median()


def test_a_duff_median_in_an_approximate_context_spends_epsilon_and_no_delta():
    ctx = context(dp.loss_of(epsilon=1.0, delta=1e-6), split_evenly_over=4)
    query = ctx.query().clamp(BOUNDS).median()
    measurement, budget = query.resolve(), query.budget
    assert measurement.output_measure == dp.approximate_divergence()
    eps, delta = measurement.map(1)
    assert delta == 0.0 and meets_exactly(eps, budget[0])
    query.release()
    assert ctx.spent == budget
