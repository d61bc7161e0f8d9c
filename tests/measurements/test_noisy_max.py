"""make_report_noisy_max_gumbel: exact maps, the sampler against softmax, exact privacy
loss between neighbours, numerical edge cases and bad parameters.

Statistical tests are seeded: the chi-square tests run under ``rerun_once`` at level 1e-3
(false-failure rate about 1e-6 each); the others state their rate (below 1e-7) beside the check."""
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import special, stats

import opendp_duff as dp
from opendp_duff import arithmetic as ar
from opendp_duff.samplers import seeded_rng_for_tests

from helpers import rerun_once

make = dp.m.make_report_noisy_max_gumbel
FLOATS = dp.vector_domain(dp.atom_domain(T=float))
METRICS = [(dp.inf_difference_distance(), 1), (dp.linf_distance(monotonic=True), 1),
           (dp.linf_distance(), 2)]

# Chi-square tests at level 1e-3, rerun once with a fresh seed: false-failure rate about 1e-6 each.
ALPHA = 1e-3


def exact_up(q):
    """The smallest float >= the rational q, found independently of arithmetic.up."""
    if q > Fraction(ar.MAX):
        return math.inf
    f = float(q)
    while Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    while Fraction(math.nextafter(f, -math.inf)) >= q:
        f = math.nextafter(f, -math.inf)
    return f


def softmax_probs(scores, scale):
    """Reference release probabilities for finite scores and 0 < scale < inf."""
    return special.softmax(np.asarray(scores, dtype=float) / scale)


# ---------------------------------------------------------------- maps

@pytest.mark.parametrize("metric,factor", METRICS)
@pytest.mark.parametrize("scale", [0.5, 2.0, 3.0, 0.1, 7.3, 1e-300, 1e300])
@pytest.mark.parametrize("d_in", [1, 0.5, 2.0, 3, 0.3, 1e-5])
def test_maps_are_the_tightest_floats_above_the_exact_values(metric, factor, scale, d_in):
    eta = Fraction(factor) * Fraction(d_in) / Fraction(scale)
    pure = make(FLOATS, metric, scale=scale)
    zc = make(FLOATS, metric, scale=scale, output_measure=dp.zero_concentrated_divergence())
    assert pure.map(d_in) == exact_up(eta)
    assert zc.map(d_in) == exact_up(eta * eta / 8)


@pytest.mark.parametrize("metric,factor", METRICS)
def test_map_edge_cases(metric, factor):
    for measure in (None, dp.zero_concentrated_divergence()):
        assert make(FLOATS, metric, scale=1.0, output_measure=measure).map(0) == 0
        assert make(FLOATS, metric, scale=0.0, output_measure=measure).map(1) == math.inf
        assert make(FLOATS, metric, scale=0.0, output_measure=measure).map(0) == 0
        assert make(FLOATS, metric, scale=math.inf, output_measure=measure).map(5) == 0
        assert make(FLOATS, metric, scale=1.0, output_measure=measure).map(math.inf) == math.inf
        assert make(FLOATS, metric, scale=1e-300, output_measure=measure).map(1e300) == math.inf
    assert make(FLOATS, metric, scale=4.0).check(1, factor / 4.0)
    assert not make(FLOATS, metric, scale=4.0).check(1, math.nextafter(factor / 4.0, 0))


def test_temperature_meaning():
    # scale is the temperature: doubling it halves the privacy loss and flattens the release.
    m1, m2 = make(FLOATS, METRICS[0][0], scale=1.0), make(FLOATS, METRICS[0][0], scale=2.0)
    assert m2.map(1) == m1.map(1) / 2


# ---------------------------------------------------------------- distribution

def empirical_counts(m, x, k, n):
    out = np.bincount([m(x) for _ in range(n)], minlength=k)
    assert out.size == k
    return out


@pytest.mark.slow
@rerun_once(seed=301)
@pytest.mark.parametrize("scores,scale,optimize", [
    ([0.0, 1.0, 2.0, 0.5, -1.0], 0.7, "max"),
    ([0.0, 1.0, 2.0, 0.5, -1.0], 1.3, "min"),
    ([0.0, 1e-300, -2e-300], 1e-300, "max"),        # weights e^0, e^1, e^-2 at a tiny scale
    ([1e300, 1e300, -1e300, 1e300], 1e300, "max"),  # huge scores, exactly representable ratios
])
def test_sampler_matches_softmax_chi_square(scores, scale, optimize):
    m = make(FLOATS, dp.inf_difference_distance(), scale=scale, optimize=optimize)
    sign = -1.0 if optimize == "min" else 1.0
    # reference computed in exact-enough arithmetic: the ratios scores/scale are small here
    ref = special.softmax([sign * float(Fraction(s) / Fraction(scale)) for s in scores])
    n = 12_000
    obs = empirical_counts(m, scores, len(scores), n)
    assert stats.chisquare(obs, ref * n).pvalue > ALPHA


# ---------------------------------------------------------------- exact privacy loss

def max_log_ratio(s, t, scale):
    lp, lq = np.log(softmax_probs(s, scale)), np.log(softmax_probs(t, scale))
    return float(np.max(np.abs(lp - lq)))


def renyi(p, q, alpha):
    return float(special.logsumexp(alpha * np.log(p) + (1 - alpha) * np.log(q)) / (alpha - 1))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["infdiff", "monotonic", "linf"])
def test_exact_privacy_loss_of_random_neighbours_within_map(kind):
    rng = np.random.default_rng(7)
    metric, factor = {"infdiff": METRICS[0], "monotonic": METRICS[1], "linf": METRICS[2]}[kind]
    worst = 0.0
    for _ in range(400):
        k = int(rng.integers(2, 7))
        scale = float(rng.choice([0.1, 0.5, 1.0, 3.0]))
        s = rng.normal(0, 3, size=k)
        u = rng.uniform(0, 1, size=k)
        i, j = rng.choice(k, size=2, replace=False)
        u[i], u[j] = 0.0, 1.0                      # max - min of u is exactly 1
        if kind == "infdiff":    # any common shift is free under the inf-difference distance
            delta = u + rng.normal(0, 5)
        elif kind == "monotonic":  # one sign, |delta| <= 1
            delta = rng.choice([-1.0, 1.0]) * u
        else:                    # any signs, |delta| <= 1: inf-difference up to 2
            delta = rng.choice([-1.0, 1.0], size=k) * u
        t = s + delta
        pure = make(FLOATS, metric, scale=scale)
        zc = make(FLOATS, metric, scale=scale, output_measure=dp.zero_concentrated_divergence())
        loss = max_log_ratio(s, t, scale)
        assert loss <= pure.map(1) * (1 + 1e-9)
        worst = max(worst, loss / pure.map(1))
        # bounded range: the log ratios span at most eta, and zCDP holds at every order
        lr = np.log(softmax_probs(s, scale)) - np.log(softmax_probs(t, scale))
        assert lr.max() - lr.min() <= pure.map(1) * (1 + 1e-9)
        p, q = softmax_probs(s, scale), softmax_probs(t, scale)
        for alpha in (1.5, 2.0, 4.0, 16.0):
            assert renyi(p, q, alpha) <= zc.map(1) * alpha * (1 + 1e-9) + 1e-12
    # the bound is not vacuous: some pair comes close to it
    assert worst > 0.5


def test_plain_linf_needs_the_factor_two():
    # A non-monotonic pair at L-inf distance 1 loses more than 1/scale: the factor 2 is needed.
    s, t, scale = [0.0, 0.0], [1.0, -1.0], 0.1
    assert max_log_ratio(s, t, scale) > 1 / scale
    assert max_log_ratio(s, t, scale) <= make(FLOATS, dp.linf_distance(), scale=scale).map(1)


def test_plain_linf_needs_the_factor_two_under_zcdp_too():
    # (d/scale)^2/8 would be too small for the plain L-inf metric: D_2 of this pair exceeds 2 * 1/8.
    s, t, scale = [0.0, 0.0], [1.0, -1.0], 1.0
    d2 = renyi(softmax_probs(s, scale), softmax_probs(t, scale), 2.0)
    assert d2 > 2 * (1 / scale) ** 2 / 8
    zc = make(FLOATS, dp.linf_distance(), scale=scale, output_measure=dp.zero_concentrated_divergence())
    assert d2 <= 2 * zc.map(1)


def test_infinite_scores_privacy_between_neighbours():
    # Pairs at finite distance share their +-inf entries; the release laws then agree on them.
    m = make(FLOATS, dp.inf_difference_distance(), scale=1.0)
    with seeded_rng_for_tests(5):
        a = {m([math.inf, 0.0, math.inf]) for _ in range(200)}
        b = {m([math.inf, 1.0, math.inf]) for _ in range(200)}
    assert a == b == {0, 2}


# ---------------------------------------------------------------- numerical edge cases

EDGE_SCALES = [1.0, 1e-300, 5e-324, 0.0, math.inf, 1e300]
EDGE_SCORES = [
    [1e300, -1e300, 1e300],
    [1.7976931348623157e308, -1.7976931348623157e308],
    [math.inf, 0.0, math.inf, -math.inf],
    [-math.inf, -math.inf, -math.inf],
    [-math.inf, 3.0, -math.inf],
    [2.0, 2.0, 2.0],
    [5.0],
    [0.0, -0.0],
    [1.0, 1.0 + 2 ** -52, -5.0],
]


def reference_probs(scores, scale):
    """Ideal release probabilities, by cases, with the exponents computed in exact rationals."""
    s = list(map(float, scores))
    k = len(s)
    top = [i for i in range(k) if s[i] == math.inf]
    if top:
        return [1 / len(top) if i in top else 0.0 for i in range(k)]
    fin = [i for i in range(k) if math.isfinite(s[i])]
    if not fin:
        return [1 / k] * k
    m = max(s[i] for i in fin)
    if scale == 0:
        win = [i for i in fin if s[i] == m]
        return [1 / len(win) if i in win else 0.0 for i in range(k)]
    if scale == math.inf:
        return [1 / len(fin) if i in fin else 0.0 for i in range(k)]
    expo = [max(-1e6, (Fraction(s[i]) - Fraction(m)) / Fraction(scale)) if i in fin else -math.inf
            for i in range(k)]
    w = [math.exp(float(e)) for e in expo]
    return [x / sum(w) for x in w]


@pytest.mark.slow
@pytest.mark.statistical  # seeded; its false-failure rate is stated below
@pytest.mark.parametrize("scale", EDGE_SCALES)
@pytest.mark.parametrize("scores", EDGE_SCORES)
def test_edge_scores_never_crash_or_nan(scale, scores):
    m = make(FLOATS, dp.inf_difference_distance(), scale=scale)
    p = reference_probs(scores, scale)
    finite_or_top = {i for i, x in enumerate(p) if x > 0} | (
        {i for i, x in enumerate(scores) if math.isfinite(x)} if 0 < scale < math.inf else set())
    with warnings.catch_warnings(), seeded_rng_for_tests(11):
        warnings.simplefilter("error")
        got = [m(scores) for _ in range(200)] + [m(np.asarray(scores)) for _ in range(20)]
    assert all(isinstance(i, int) for i in got)
    assert set(got) <= finite_or_top                    # never an index of ideal probability 0
    # every index of probability >= 0.1 shows up: misses one with probability <= 0.9^220 < 1e-10
    assert {i for i, x in enumerate(p) if x >= 0.1} <= set(got)


@pytest.mark.slow
@pytest.mark.statistical  # seeded; its false-failure rate is stated below
def test_scale_zero_is_argmax_with_uniform_ties():
    m = make(FLOATS, dp.inf_difference_distance(), scale=0.0)
    with seeded_rng_for_tests(3):
        got = [m([1.0, 3.0, 3.0, 2.999999]) for _ in range(2000)]
    assert set(got) == {1, 2}
    assert abs(got.count(1) / 2000 - 0.5) < 0.06   # binomial sd 0.011: false failure < 1e-7


def test_empty_vector_and_sizes():
    m = make(FLOATS, dp.inf_difference_distance(), scale=1.0)
    assert m([]) is None
    assert make(FLOATS.with_(size=1), dp.inf_difference_distance(), scale=1.0)([7.0]) == 0
    with pytest.raises(ValueError, match="input_domain"):
        make(FLOATS.with_(size=0), dp.inf_difference_distance(), scale=1.0)


def test_int_scores_must_be_bounded_within_2_53_and_huge_non_members_do_not_crash():
    for bounds in (None, (0, 2 ** 53 + 1), (-(2 ** 60), 0)):
        with pytest.raises(ValueError, match="input_domain"):
            make(dp.vector_domain(dp.atom_domain(T=int, bounds=bounds)), dp.inf_difference_distance(), scale=1.0)
    ints = dp.vector_domain(dp.atom_domain(T=int, bounds=(-(2 ** 53), 2 ** 53)))
    m = make(ints, dp.inf_difference_distance(), scale=1e-3)
    assert m(np.array([3, 1000, 2], dtype=np.int64)) == 1
    assert m([2 ** 53, -(2 ** 53), 0]) == 0
    # integers beyond the float range are not members: refused; the function itself still
    # gives a normal release on them
    with pytest.raises(dp.errors.NotAMemberValueError):
        m([10 ** 400, 1, -(10 ** 400)])
    assert m._function([10 ** 400, 1, -(10 ** 400)]) == 0
    assert make(ints, dp.inf_difference_distance(), scale=1e-3, optimize="min")._function(
        [10 ** 400, 1, -(10 ** 400)]) == 2


def test_nan_outside_the_domain_never_wins_and_never_crashes():
    m = make(FLOATS, dp.inf_difference_distance(), scale=1e-3)
    with pytest.raises(dp.errors.NotAMemberValueError):
        m([float("nan"), 1.0, 0.0])      # refused by the domain; the function still copes
    with seeded_rng_for_tests(4):
        assert {m._function([float("nan"), 1.0, 0.0]) for _ in range(50)} == {1}
        assert {m._function([float("nan")] * 2) for _ in range(50)} <= {0, 1}


def test_optimize_min_picks_small_scores():
    m = make(FLOATS, dp.inf_difference_distance(), scale=1e-3, optimize="min")
    assert m([5.0, -2.0, 7.0]) == 1


# ---------------------------------------------------------------- chaining

def test_chain_with_count_by_candidates_uses_the_inf_difference_bound():
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    m = space >> dp.t.then_count_by_candidates(candidates=[1.0, 2.0]) \
        >> dp.m.then_report_noisy_max_gumbel(scale=0.25)
    assert m.map(1) == 4.0 and m.map(3) == 12.0
    assert m([1.0, 2.0, 2.0]) in (0, 1)


# ---------------------------------------------------------------- bad parameters

@pytest.mark.parametrize("kwargs,name", [
    (dict(scale=float("nan")), "scale"),
    (dict(scale=-1.0), "scale"),
    (dict(scale=-math.inf), "scale"),
    (dict(scale=True), "scale"),
    (dict(scale="1"), "scale"),
    (dict(scale=None), "scale"),
    (dict(scale=1.0, optimize="median"), "optimize"),
    (dict(scale=1.0, optimize=1), "optimize"),
    (dict(scale=1.0, output_measure=dp.approximate_divergence()), "output_measure"),
    (dict(scale=1.0, output_measure="max"), "output_measure"),
])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises((TypeError, ValueError), match=name):
        make(FLOATS, dp.inf_difference_distance(), **kwargs)


@pytest.mark.parametrize("domain,metric,name", [
    (FLOATS, dp.symmetric_distance(), "input_metric"),
    (FLOATS, dp.l1_distance(), "input_metric"),
    (FLOATS, "inf_difference", "input_metric"),
    (dp.atom_domain(T=float), dp.inf_difference_distance(), "input_domain"),
    (dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.inf_difference_distance(), "input_domain"),
    ([1.0, 2.0], dp.inf_difference_distance(), "input_domain"),
])
def test_bad_spaces_name_themselves(domain, metric, name):
    with pytest.raises((TypeError, ValueError), match=name):
        make(domain, metric, scale=1.0)


def test_numpy_scale_and_integer_scale_accepted():
    assert make(FLOATS, dp.inf_difference_distance(), scale=np.float32(0.5)).map(1) == 2.0
    assert make(FLOATS, dp.inf_difference_distance(), scale=2).map(1) == 0.5
    assert ar.up(Fraction(1, 3)) == make(FLOATS, dp.inf_difference_distance(), scale=3).map(1)
