"""make_threshold_keys (key discovery by thresholded noisy counts): the map against exact references
(epsilon and rho as exact rationals rounded up; delta against mpmath at 50 digits), its edge cases,
bad parameters, the release (sorted, counts of 0 never released, independent of the input's order),
the calibration helper and the pass probability.

Statistical tests (seeded, ``rerun_once``):
* at delta = 1e-6 (l0 = 1), 2,000 releases never show a key held by one person: each shows it with
  probability at most 1e-6, so a false failure has probability at most 2,000 x 1e-6 = 2e-3 per
  attempt, 4e-6 with the rerun; the key with 10,000 rows appears every time (missing it once has
  probability below 2,000 x e^-9000);
* the empirical pass rate of a key near the threshold lies within 5.5 standard deviations of the
  exact probability: false-failure rate below 1e-7 per check, 1e-14 with the rerun;
* from 10,001 rows, five releases show the common value and never the rare one: false-failure
  rate at most 5e-6 per attempt;
* with an infinite scale, 64 keys are released on fair coins, between 11 and 53 of them:
  false-failure rate 2e-8 per attempt."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.map_domain import count_map_domain, map_domain
from opendp_duff.measurements.threshold_keys import threshold_keys_parameters, threshold_pass_probability
from opendp_duff.measures import ApproximateDivergence, ApproximateZeroConcentratedDivergence
from opendp_duff.metrics import l01inf_distance
from opendp_duff.samplers import byte_source_for_tests

mpmath = pytest.importorskip("mpmath")  # an independent high-precision reference (the test extra)

mpmath.mp.dps = 50
SPACE = count_map_domain(str), l01inf_distance()


def threshold_keys(scale, threshold, noise="laplace", space=SPACE):
    return dp.m.make_threshold_keys(*space, scale=scale, threshold=threshold, noise=noise)


def exact_tail(t, noise):
    t = mpmath.mpf(t.numerator) / t.denominator
    if noise == "gaussian":
        return mpmath.ncdf(-t)
    return mpmath.exp(-t) / 2 if t >= 0 else 1 - mpmath.exp(t) / 2


# --------------------------------------------------------------------------- the map
CASES = [((1, 1, 1), 1.0, 14.122, "laplace"), ((3, 6, 2), 12.0, 227.9, "laplace"), ((5, 2, 2), 0.7, 3.0, "laplace"),
         ((1, 1, 1), 1.0, 5.75, "gaussian"), ((4, 10, 3), 2.5, 20.0, "gaussian"), ((2, 4, 4), 0.1, 0.5, "gaussian")]


@pytest.mark.parametrize("d_in,scale,threshold,noise", CASES)
def test_map_against_exact_references(d_in, scale, threshold, noise):
    l0, l1, linf = d_in
    first, delta = threshold_keys(scale, threshold, noise).map(d_in)
    if noise == "laplace":
        exact_first = Fraction(min(l1, l0 * linf)) / Fraction(scale)
    else:
        exact_first = Fraction(min(l0 * linf ** 2, l1 * linf)) / (2 * Fraction(scale) ** 2)
    assert Fraction(first) >= exact_first > Fraction(math.nextafter(first, 0.0))   # the tightest float above
    c, m = min(linf, l1), min(l0, l1)
    p = exact_tail((Fraction(math.nextafter(threshold, -math.inf)) - c) / Fraction(scale), noise)
    exact_delta = 1 - (1 - p) ** m
    assert exact_delta <= delta <= exact_delta * (1 + 1e-12) + 1e-300


def test_map_edges():
    m = threshold_keys(1.0, 10.0)
    assert m.map((0, 5, 5)) == (0.0, 0.0) and m.map((3, 0, 2)) == (0.0, 0.0) and m.map((2, 2, 0)) == (0.0, 0.0)
    eps, delta = threshold_keys(0.0, 10.0).map((1, 1, 1))
    assert eps == math.inf and delta == 0.0                     # a count of 1 never reaches 10 without noise
    assert threshold_keys(0.0, 1.0).map((1, 1, 1)) == (math.inf, 1.0)
    eps, delta = threshold_keys(math.inf, 10.0).map((3, 3, 1))
    assert eps == 0.0 and delta >= 1 - 2.0 ** -3 and delta < 1 - 2.0 ** -3 + 1e-15
    assert threshold_keys(1.0, -1.7976931348623157e308).map((1, 1, 1))[1] == 1.0
    assert threshold_keys(1.0, 10.0, "gaussian").map((1, 1, 1))[0] == 0.5
    with pytest.raises(ValueError, match="d_in"):
        m.map((1, 1))
    with pytest.raises(ValueError):
        m.map((1, -1, 1))


def test_map_is_monotone_and_check_holds():
    m = threshold_keys(2.0, 30.0)
    previous = (0.0, 0.0)
    for d in range(0, 8):
        d_out = m.map((d, d, d))
        assert d_out[0] >= previous[0] and d_out[1] >= previous[1]
        assert m.check((d, d, d), d_out)
        previous = d_out


def test_measures():
    assert threshold_keys(1.0, 5.0).output_measure == ApproximateDivergence()
    zcdp = threshold_keys(1.0, 5.0, "gaussian").output_measure
    assert zcdp == ApproximateZeroConcentratedDivergence() and zcdp != ApproximateDivergence()
    assert not isinstance(zcdp, ApproximateDivergence)
    assert zcdp.compose([(0.5, 1e-6), (0.25, 1e-6)]) == (0.75, 2e-6)
    assert zcdp.ge((1.0, 1e-5), (0.5, 1e-6)) and not zcdp.ge((1.0, 1e-7), (0.5, 1e-6))
    with pytest.raises(ValueError, match="rho"):
        zcdp.validate((-1.0, 0.0))


# --------------------------------------------------------------------------- construction
@pytest.mark.parametrize("kw,match", [(dict(scale=-1.0), "scale"), (dict(scale=math.nan), "scale"),
                                      (dict(threshold=math.inf), "threshold"), (dict(threshold=math.nan), "threshold"),
                                      (dict(threshold="5"), "threshold"), (dict(noise="cauchy"), "noise")])
def test_bad_parameters(kw, match):
    args = dict(scale=1.0, threshold=5.0, noise="laplace")
    args.update(kw)
    with pytest.raises((TypeError, ValueError), match=match):
        dp.m.make_threshold_keys(*SPACE, **args)


@pytest.mark.parametrize("space", [
    (dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()),
    (map_domain(dp.atom_domain(T=str), dp.atom_domain(T=float, bounds=(0.0, 9.0))), l01inf_distance()),
    (map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)), l01inf_distance()),
    (map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int, bounds=(-1, 9))), l01inf_distance()),
    (map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int, bounds=(0, 2 ** 60))), l01inf_distance()),
    (count_map_domain(str), dp.partition_distance(dp.symmetric_distance()))])
def test_wrong_space_is_refused(space):
    with pytest.raises((TypeError, ValueError)):
        threshold_keys(1.0, 5.0, space=space)


# --------------------------------------------------------------------------- the release
def test_release_is_sorted_drops_zero_counts_and_ignores_the_input_order():
    m = threshold_keys(0.0, 3.0)                      # no noise: the release is deterministic
    a = m({"b": 5, "a": 3, "c": 2, "z": 0})
    b = m(dict(reversed(list({"b": 5, "a": 3, "c": 2, "z": 0}.items()))))
    assert a == b == {"a": 3.0, "b": 5.0} and list(a) == ["a", "b"]
    assert threshold_keys(0.0, -1.0)({"z": 0}) == {}  # a key of count 0 is never released
    ints = dp.m.make_threshold_keys(count_map_domain(int), l01inf_distance(), scale=0.0, threshold=1.0)
    assert list(ints({5: 1, -2: 4, 3: 2})) == [-2, 3, 5]
    floats = dp.m.make_threshold_keys(count_map_domain(float), l01inf_distance(), scale=0.0, threshold=1.0)
    assert list(floats({-0.0: 1, 2.5: 1})) == [0.0, 2.5] and math.copysign(1, list(floats({-0.0: 1}))[0]) == 1


def test_noisy_counts_are_finite_floats():
    out = threshold_keys(2.0, -1e9)({"a": 7, "b": 1})
    assert set(out) == {"a", "b"} and all(isinstance(v, float) and math.isfinite(v) for v in out.values())


@rerun_once(74)
def test_infinite_scale_releases_each_key_on_a_fair_coin():
    out = threshold_keys(math.inf, 0.0)({str(i): 1 for i in range(64)})
    assert set(out.values()) <= {1.7976931348623157e308}
    assert 10 < len(out) < 54                        # Binomial(64, 1/2) outside: 2e-8


class NoBytes:
    name = "no bytes"

    def random_bytes(self, n):
        pytest.fail("a random byte was requested for data that is not a member")


@pytest.mark.parametrize("bad", [{"secret-key": -1}, {"secret-key": 1.5}, {3: 1}, ["secret-key"], {"k": True},
                                 {"secret-key": 2 ** 60}])
def test_non_members_are_refused_before_randomness_without_quoting_them(bad):
    m = threshold_keys(1.0, 5.0)
    with byte_source_for_tests(NoBytes()):
        with pytest.raises((TypeError, ValueError)) as info:
            m(bad)
    assert "secret" not in str(info.value) and "1152921504606846976" not in str(info.value)


# --------------------------------------------------------------------------- calibration
@pytest.mark.parametrize("d_in,delta,kw", [((1, 1, 1), 1e-6, dict(epsilon=1.0)), ((3, 6, 2), 1e-8, dict(epsilon=0.5)),
                                           ((1, 1, 1), 1e-6, dict(rho=0.5)), ((4, 4, 1), 1e-9, dict(rho=0.1))])
def test_parameters_meet_the_budget_tightly(d_in, delta, kw):
    noise = "laplace" if "epsilon" in kw else "gaussian"
    scale, threshold = threshold_keys_parameters(d_in, delta, **kw)
    first, got = threshold_keys(scale, threshold, noise).map(d_in)
    assert first <= next(iter(kw.values())) and got <= delta
    assert threshold_keys(scale, math.nextafter(threshold, 0.0), noise).map(d_in)[1] > delta


def test_parameters_refuse_pure_dp_and_ambiguous_budgets():
    with pytest.raises(ValueError, match="pure DP"):
        threshold_keys_parameters((1, 1, 1), 0.0, epsilon=1.0)
    with pytest.raises(ValueError, match="exactly one"):
        threshold_keys_parameters((1, 1, 1), 1e-6)
    with pytest.raises(ValueError, match="exactly one"):
        threshold_keys_parameters((1, 1, 1), 1e-6, epsilon=1.0, rho=1.0)
    with pytest.raises(ValueError, match="d_in"):
        threshold_keys_parameters((0, 1, 1), 1e-6, epsilon=1.0)


# --------------------------------------------------------------------------- pass probability
@pytest.mark.parametrize("count,scale,threshold,noise", [(1, 1.0, 14.122, "laplace"), (12, 1.0, 14.122, "laplace"),
                                                         (20, 3.0, 14.0, "laplace"), (1, 1.0, 5.75, "gaussian"),
                                                         (5, 1.0, 5.75, "gaussian"), (9, 2.0, 5.75, "gaussian")])
def test_pass_probability_encloses_the_exact_value(count, scale, threshold, noise):
    lo, hi = threshold_pass_probability(count, scale, threshold, noise)
    exact = exact_tail((Fraction(threshold) - count) / Fraction(scale), noise)   # P(c + scale Z >= T)
    assert lo <= exact <= hi <= exact * (1 + 1e-12)


def test_pass_probability_edges():
    assert threshold_pass_probability(0, 1.0, 5.0) == (0.0, 0.0)
    assert threshold_pass_probability(5, 0.0, 5.0) == (1.0, 1.0)
    assert threshold_pass_probability(4, 0.0, 5.0) == (0.0, 0.0)
    assert threshold_pass_probability(4, math.inf, 5.0) == (0.5, 0.5)


@pytest.mark.slow
@pytest.mark.parametrize("noise,count,threshold", [("laplace", 13, 14.122), ("gaussian", 5, 5.75)])
@rerun_once(71)
def test_pass_rate_matches_the_exact_probability(noise, count, threshold):
    lo, hi = threshold_pass_probability(count, 1.0, threshold, noise)
    m, trials = threshold_keys(1.0, threshold, noise), 2000
    rate = sum("k" in m({"k": count}) for _ in range(trials)) / trials
    sd = math.sqrt(hi * (1 - lo) / trials)
    assert lo - 5.5 * sd <= rate <= hi + 5.5 * sd


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(epsilon=1.0), dict(rho=0.5)])
@rerun_once(72)
def test_single_person_keys_never_appear_and_large_keys_always_do(kw):
    scale, threshold = threshold_keys_parameters((1, 1, 1), 1e-6, **kw)
    m = threshold_keys(scale, threshold, "laplace" if "epsilon" in kw else "gaussian")
    assert threshold_pass_probability(1, scale, threshold, "laplace" if "epsilon" in kw else "gaussian")[1] <= 1e-6
    releases = [m({"one person": 1, "ten thousand rows": 10_000}) for _ in range(2000)]
    assert not any("one person" in r for r in releases)
    assert all("ten thousand rows" in r for r in releases)


@rerun_once(73)
def test_from_rows_a_rare_value_is_hidden_and_a_common_one_released():
    rows = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
    scale, threshold = threshold_keys_parameters((1, 1, 1), 1e-6, epsilon=1.0)
    m = rows >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=scale, threshold=threshold)
    assert m.map(1)[1] <= 1e-6
    data = np.array(["common"] * 10_000 + ["rare"], dtype=object)
    for _ in range(5):                     # rare: at most 1e-6 per release, 5e-6 per attempt
        assert list(m(data)) == ["common"]
