"""Property tests (hypothesis) on random small datasets and their neighbours.

* every map is monotone in d_in, and ``check(d_in, map(d_in))`` holds;
* composition adds: the composed map is the exact (Fraction) sum rounded up, and tight;
* the measure casts are valid: pureDP -> zCDP gives rho = eps^2/2 rounded up (the smallest
  float above it); zCDP -> approxDP never claims less than the exact privacy profile of the
  Gaussian mechanism ([BW18] Theorem 8);
* chaining keeps domains consistent: T(x) is in T.output_domain for x in T.input_domain;
* stability: neighbours x, x' (within d_in under the input metric) give outputs within
  map(d_in) under the output metric, measured exactly.

The exact privacy loss between neighbours (at most map(1)) is checked in tests/audit/test_audit.py.
Nothing here is statistical: hypothesis searches for counterexamples and every assertion must
hold for every example.
"""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats

import opendp_duff as dp
from opendp_duff.core import Measurement
from opendp_duff.experiments import _baselines
from opendp_duff.measures import PrivacyProfile
from opendp_duff.metrics import (AbsoluteDistance, ChangeOneDistance, InfDifferenceDistance,
                                 SymmetricDistance)
from opendp_duff.samplers import seeded_rng_for_tests

SETTINGS = settings(max_examples=25, deadline=None)
LO, HI = -2.0, 5.0
N = 6  # the public size of the sized spaces


def raw(n=None, metric=None, T=float):
    return dp.vector_domain(dp.atom_domain(T=T), size=n), metric or dp.symmetric_distance()


def sorted_space(n=None, metric=None):
    return raw(n, metric) >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sort()


def atom(T=float):
    return dp.atom_domain(T=T), dp.absolute_distance(T=T)


def _smooth(noise, metric=None, **kw):
    return lambda: sorted_space(N, metric or dp.change_one_distance()) >> dp.m.then_smooth_median(
        t=0.1, s=0.2, noise=noise, **kw)


CANDS = [0.0, 1.0, 2.0]
MEASUREMENTS = {
    "laplace": lambda: dp.m.make_laplace(*atom(), scale=1.5),
    "laplace[int]": lambda: dp.m.make_laplace(dp.atom_domain(T=int, bounds=(0, 10)),
                                              dp.absolute_distance(T=int), scale=3.0),
    "laplace[vector,l1]": lambda: dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float)),
                                                    dp.l1_distance(T=float), scale=0.7),
    "gaussian": lambda: dp.m.make_gaussian(*atom(), scale=1.5),
    "gaussian[vector,l2]": lambda: dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float)),
                                                      dp.l2_distance(T=float), scale=0.3),
    "count>>laplace": lambda: raw() >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0),
    "sum>>laplace": lambda: sorted_space(N) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0),
    "noisy_max[inf_diff]": lambda: (dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance())
    >> dp.m.then_report_noisy_max_gumbel(scale=0.3),
    "noisy_max[linf]": lambda: (dp.vector_domain(dp.atom_domain(T=float)), dp.linf_distance())
    >> dp.m.then_report_noisy_max_gumbel(scale=0.3),
    "noisy_max[linf_monotonic,zCDP]": lambda: (dp.vector_domain(dp.atom_domain(T=float)),
                                               dp.linf_distance(monotonic=True))
    >> dp.m.then_report_noisy_max_gumbel(scale=0.3, output_measure=dp.zero_concentrated_divergence()),
    "duff_mode": lambda: raw() >> dp.m.then_duff_mode(candidates=CANDS, scale=0.5),
    "duff_median": lambda: sorted_space() >> dp.m.then_duff_median(scale=2.0),
    "duff_quantile": lambda: sorted_space() >> dp.m.then_duff_quantile(alpha=0.3, scale=0.7),
    "duff_mean": lambda: sorted_space() >> dp.m.then_duff_mean(scale=3.0),
    "smooth_median[lln]": _smooth("lln", sigma=1.0),
    "smooth_median[uln]": _smooth("uln"),
    "smooth_median[arsinh_normal]": _smooth("arsinh_normal"),
    "smooth_median[student_t]": _smooth("student_t"),
    "smooth_median[polynomial_tail]": _smooth("polynomial_tail"),
    "smooth_median[laplace]": _smooth("laplace", delta=1e-6),
    "smooth_median[symmetric]": _smooth("student_t", metric=dp.symmetric_distance()),
    "smooth_trimmed_mean": lambda: sorted_space(N, dp.change_one_distance()) >> dp.m.then_smooth_trimmed_mean(
        m=1, t=0.1, s=0.2, noise="student_t"),
    "baseline[SMOOTHSENS_eps]": lambda: sorted_space(N, dp.change_one_distance())
    >> _baselines.then_smooth_median_baseline("SMOOTHSENS_eps", 1.0),
    "baseline[LAPLACELN]": lambda: sorted_space(N, dp.change_one_distance())
    >> _baselines.then_smooth_median_baseline("LAPLACELN", 1.0, 1e-6, t=0.1),
    "composition": lambda: dp.c.make_composition([
        sorted_space() >> dp.m.then_duff_median(scale=2.0),
        sorted_space() >> dp.m.then_duff_quantile(alpha=0.9, scale=0.3),
        sorted_space() >> dp.m.then_duff_mean(scale=7.0)]),
    "pureDP_to_zCDP": lambda: dp.c.make_pureDP_to_zCDP(sorted_space() >> dp.m.then_duff_median(scale=2.0)),
    "zCDP_to_approxDP": lambda: dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*atom(), scale=1.5)),
    "fix_delta": lambda: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(
        dp.m.make_gaussian(*atom(), scale=1.5)), delta=1e-5),
}

TRANSFORMATIONS = {
    "clamp": lambda: dp.t.make_clamp(*raw(), bounds=(LO, HI)),
    "clamp[int,change_one]": lambda: dp.t.make_clamp(*raw(N, dp.change_one_distance(), T=int), bounds=(-3, 4)),
    "sort": lambda: dp.t.make_sort(*raw()),
    "sort[int]": lambda: dp.t.make_sort(*raw(T=int)),
    "count": lambda: dp.t.make_count(*raw()),
    "count[change_one]": lambda: dp.t.make_count(*raw(N, dp.change_one_distance())),
    "clamp>>sum[symmetric]": lambda: raw(N) >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sum(),
    "clamp>>sum[change_one]": lambda: raw(N, dp.change_one_distance()) >> dp.t.then_clamp(bounds=(LO, HI))
    >> dp.t.then_sum(),
    "count_by_candidates": lambda: dp.t.make_count_by_candidates(*raw(), candidates=CANDS),
    "count_by_candidates[change_one]": lambda: dp.t.make_count_by_candidates(
        *raw(N, dp.change_one_distance()), candidates=CANDS),
    "count_by_candidates[int]": lambda: dp.t.make_count_by_candidates(*raw(T=int), candidates=[0, 1, 2]),
    "symmetric_to_change_one": lambda: dp.t.make_symmetric_to_change_one(*raw(N)),
    "change_one_to_symmetric": lambda: dp.t.make_change_one_to_symmetric(*raw(N, dp.change_one_distance())),
    "clamp>>sort": lambda: raw() >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sort(),
    "symmetric_to_change_one>>clamp>>sort": lambda: raw(N) >> dp.t.then_symmetric_to_change_one()
    >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sort(),
}


# --------------------------------------------------------------------------- d_in strategies
def d_in_strategy(metric):
    if metric.distance_type is int:
        return st.integers(0, 60)
    return st.floats(0.0, 1e6) | st.sampled_from([0.0, 5e-324, 1e300, math.inf])


def _le(a, b):
    """a <= b for distances: numbers, (eps, delta) pairs (componentwise), or profiles."""
    if isinstance(a, PrivacyProfile):
        return all(a(d) <= b(d) for d in (1e-9, 1e-6, 1e-3, 0.3))
    if isinstance(a, tuple):
        return a[0] <= b[0] and a[1] <= b[1]
    return a <= b


# --------------------------------------------------------------------------- monotone + check
@pytest.mark.slow
@pytest.mark.parametrize("name", list(MEASUREMENTS) + list(TRANSFORMATIONS))
@SETTINGS
@given(data=st.data())
def test_map_is_monotone_and_check_holds(name, data):
    obj = (MEASUREMENTS.get(name) or TRANSFORMATIONS[name])()
    d1 = data.draw(d_in_strategy(obj.input_metric), label="d1")
    d2 = data.draw(d_in_strategy(obj.input_metric), label="d2")
    d1, d2 = min(d1, d2), max(d1, d2)
    m1, m2 = obj.map(d1), obj.map(d2)
    assert _le(m1, m2), (d1, m1, d2, m2)
    if obj.map(obj.input_metric.distance_type(0)) != 0:
        zero = obj.map(obj.input_metric.distance_type(0))
        assert (isinstance(zero, tuple) and zero[0] == 0) or (isinstance(zero, PrivacyProfile)
                                                              and zero(1e-6) == 0), zero
    if isinstance(m1, PrivacyProfile):
        return  # privacy profiles are compared at a fixed delta (make_fix_delta), not by check
    assert obj.check(d1, m1) and obj.check(d2, m2)
    if isinstance(m2, float) and 0 < m2 < math.inf and isinstance(obj, Measurement):
        # and check is tight: a smaller d_out fails (when map(d1) < map(d2))
        if m1 < m2:
            assert not obj.check(d2, math.nextafter(m2, 0.0))


# --------------------------------------------------------------------------- composition
@SETTINGS
@given(scales=st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=6),
       d_in=st.floats(1e-6, 1e6))
def test_composition_adds_exactly_rounded_up(scales, d_in):
    parts = [dp.m.make_laplace(*atom(), scale=s) for s in scales]
    total = dp.c.make_composition(parts).map(d_in)
    exact = sum((Fraction(p.map(d_in)) for p in parts), Fraction(0))
    assert Fraction(total) >= exact
    # tight: each of the len - 1 additions rounds up by at most one ulp of the running total
    assert Fraction(total) - exact <= len(parts) * Fraction(math.ulp(total))


@SETTINGS
@given(rhos=st.lists(st.floats(1e-3, 10.0), min_size=2, max_size=5), delta=st.floats(1e-12, 0.1))
def test_composition_adds_approx_dp_pairs(rhos, delta):
    parts = [dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(
        dp.m.make_gaussian(*atom(), scale=1.0 / math.sqrt(2 * r))), delta=delta) for r in rhos]
    eps, dl = dp.c.make_composition(parts).map(1.0)
    exact_eps = sum((Fraction(p.map(1.0)[0]) for p in parts), Fraction(0))
    exact_delta = sum((Fraction(p.map(1.0)[1]) for p in parts), Fraction(0))
    assert Fraction(eps) >= exact_eps and Fraction(eps) - exact_eps <= len(parts) * Fraction(math.ulp(eps))
    assert Fraction(dl) >= min(exact_delta, Fraction(1))


@SETTINGS
@given(d_in=st.integers(0, 20))
def test_composition_of_dataset_measurements_adds(d_in):
    comp = MEASUREMENTS["composition"]()
    parts = [sorted_space() >> dp.m.then_duff_median(scale=2.0),
             sorted_space() >> dp.m.then_duff_quantile(alpha=0.9, scale=0.3),
             sorted_space() >> dp.m.then_duff_mean(scale=7.0)]
    exact = sum((Fraction(p.map(d_in)) for p in parts), Fraction(0))
    assert Fraction(comp.map(d_in)) >= exact
    assert Fraction(comp.map(d_in)) - exact <= 3 * Fraction(math.ulp(comp.map(d_in)))


# --------------------------------------------------------------------------- measure casts
@SETTINGS
@given(scale=st.floats(1e-3, 1e3), d_in=st.integers(0, 1000))
def test_pure_to_zcdp_is_half_eps_squared_rounded_up(scale, d_in):
    pure = sorted_space() >> dp.m.then_duff_median(scale=scale)
    eps = pure.map(d_in)
    rho = dp.c.make_pureDP_to_zCDP(pure).map(d_in)
    exact = Fraction(eps) ** 2 / 2
    assert Fraction(rho) >= exact
    if exact > 0 and rho < math.inf:
        assert Fraction(math.nextafter(rho, 0.0)) < exact  # the smallest float above


def _gaussian_delta(eps, mu):
    """Exact delta(eps) of the Gaussian mechanism with sensitivity/sigma = mu ([BW18]
    Theorem 8): Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), via log-CDFs."""
    a = stats.norm.logcdf(mu / 2 - eps / mu)
    b = eps + stats.norm.logcdf(-mu / 2 - eps / mu)
    return -math.expm1(b - a) * math.exp(a) if a > b else 0.0


@SETTINGS
@given(sigma=st.floats(0.05, 50.0), d_in=st.floats(0.01, 10.0), delta=st.floats(1e-12, 0.5))
def test_zcdp_to_approx_dp_covers_the_exact_gaussian_curve(sigma, d_in, delta):
    g = dp.m.make_gaussian(*atom(), scale=sigma)
    eps = dp.c.make_zCDP_to_approxDP(g).map(d_in)(delta)
    mu = d_in / sigma
    assume(math.isfinite(eps))
    # the claimed (eps, delta) must hold for the real mechanism: its delta at eps is <= delta
    assert _gaussian_delta(eps, mu) <= delta * (1 + 1e-9), (eps, mu, delta)


@SETTINGS
@given(sigma=st.floats(0.05, 50.0), d_in=st.floats(0.01, 10.0), delta=st.floats(1e-12, 0.5))
def test_fix_delta_agrees_with_the_profile(sigma, d_in, delta):
    g = dp.m.make_gaussian(*atom(), scale=sigma)
    profile = dp.c.make_zCDP_to_approxDP(g).map(d_in)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), delta=delta).map(d_in)
    assert fixed == (profile(delta), delta)


# --------------------------------------------------------------------------- members
finite_floats = st.floats(-1e6, 1e6, allow_nan=False)
any_floats = st.floats(allow_nan=False)   # infinities are members of unbounded float domains


def member_strategy(domain):
    """Members of a vector domain of the kinds used above (floats or int64 ints)."""
    elem = domain.element_domain
    if elem.T is int:
        lo, hi = elem.bounds or (-(2 ** 63), 2 ** 63 - 1)
        items = st.integers(int(lo), int(hi))
    elif elem.bounds is not None:
        items = st.floats(float(elem.bounds[0]), float(elem.bounds[1]))
    else:
        items = any_floats | st.sampled_from(CANDS)
    if domain.size is not None:
        lists = st.lists(items, min_size=domain.size, max_size=domain.size)
    else:
        lists = st.lists(items, max_size=12)
    if domain.sorted:
        lists = lists.map(sorted)
    return lists


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TRANSFORMATIONS))
@SETTINGS
@given(data=st.data())
def test_transformation_output_is_in_its_output_domain(name, data):
    t = TRANSFORMATIONS[name]()
    x = data.draw(member_strategy(t.input_domain))
    assert t.input_domain.member(x)
    assert t.output_domain.member(t(x)), (x, t(x), t.output_domain)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in MEASUREMENTS if not n.startswith(("laplace", "gaussian"))
                                  and not n.startswith(("noisy_max", "zCDP", "fix_delta"))])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_chained_measurement_releases_on_random_members(name, data):
    """Releases of chained measurements on random members are finite (and in the bounds
    for the Duff releases): the chain's domains fit together at run time too."""
    meas = MEASUREMENTS[name]()
    x = data.draw(member_strategy(meas.input_domain))
    seed = data.draw(st.integers(0, 2 ** 32 - 1))
    with seeded_rng_for_tests(seed):
        out = meas(x)
    arr = np.asarray(out, dtype=np.float64)
    assert np.all(np.isfinite(arr)), out
    if name.startswith("duff_") and name != "duff_mode":
        assert LO <= out <= HI


# --------------------------------------------------------------------------- stability
def multiset_symmetric(a, b):
    ca, cb = Counter(_norm(a)), Counter(_norm(b))
    return sum(((ca - cb) + (cb - ca)).values())


def _norm(x):
    return [0.0 if v == 0 else float(v) for v in np.asarray(x, dtype=np.float64).tolist()]


@st.composite
def symmetric_neighbours(draw, domain, max_d=4):
    """x and x' at symmetric distance <= d: remove some records of x, add some others."""
    x = draw(member_strategy(domain))
    k_remove = draw(st.integers(0, min(len(x), max_d)))
    x2 = list(x)
    for _ in range(k_remove):
        x2.pop(draw(st.integers(0, len(x2) - 1)))
    k_add = draw(st.integers(0, max_d - k_remove))
    item = member_strategy(domain.with_(size=1, sorted=False)).map(lambda v: v[0])
    x2 += [draw(item) for _ in range(k_add)]
    if domain.sorted:
        x2 = sorted(x2)
    return x, x2, k_remove + k_add


@st.composite
def change_one_neighbours(draw, domain, max_d=3):
    """x and x' of the same size with at most d records substituted."""
    x = draw(member_strategy(domain))
    k = draw(st.integers(0, min(len(x), max_d)))
    x2 = list(x)
    item = member_strategy(domain.with_(size=1, sorted=False)).map(lambda v: v[0])
    for i in draw(st.permutations(range(len(x))))[:k]:
        x2[i] = draw(item)
    if domain.sorted:
        x2 = sorted(x2)
    return x, x2, k


def neighbours(t):
    if isinstance(t.input_metric, ChangeOneDistance):
        return change_one_neighbours(t.input_domain)
    if t.input_domain.size is not None:   # symmetric distance on a fixed size: substitutions
        return change_one_neighbours(t.input_domain).map(lambda p: (p[0], p[1], 2 * p[2]))
    return symmetric_neighbours(t.input_domain)


def output_distance(t, y, y2):
    """The distance between two outputs under t.output_metric, exactly (a Fraction or int)."""
    metric = t.output_metric
    if isinstance(metric, AbsoluteDistance):
        return abs(Fraction(y) - Fraction(y2))
    if isinstance(metric, InfDifferenceDistance):
        diff = np.asarray(y, dtype=np.int64) - np.asarray(y2, dtype=np.int64)
        return int(diff.max() - diff.min())
    sym = multiset_symmetric(y, y2)
    if isinstance(metric, SymmetricDistance):
        return sym
    assert len(y) == len(y2) and sym % 2 == 0
    return sym // 2   # same-size multisets: the fewest substitutions


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TRANSFORMATIONS))
@SETTINGS
@given(data=st.data())
def test_stability_on_random_neighbours(name, data):
    t = TRANSFORMATIONS[name]()
    x, x2, d_in = data.draw(neighbours(t))
    assert t.input_domain.member(x) and t.input_domain.member(x2)
    d_out = output_distance(t, t(x), t(x2))
    assert Fraction(d_out) <= Fraction(t.map(d_in)), (x, x2, d_in, d_out, t.map(d_in))


def test_stability_of_sum_is_tight_up_to_rounding():
    """One substitution lo -> hi moves the exact sum by hi - lo; map(1) is that plus one
    ulp(n M) for the final rounding, so it is tight to within that ulp."""
    t = TRANSFORMATIONS["clamp>>sum[change_one]"]()
    x, x2 = [LO] * N, [HI] + [LO] * (N - 1)
    moved = abs(Fraction(t(x)) - Fraction(t(x2)))
    assert moved <= Fraction(t.map(1)) <= moved + 2 * Fraction(math.ulp(N * max(abs(LO), abs(HI))))


@pytest.mark.parametrize("name", list(MEASUREMENTS) + list(TRANSFORMATIONS))
def test_map_at_huge_d_in_is_a_number_not_an_error(name):
    """Maps are total on valid distances: huge d_in gives a large (or infinite) bound,
    never an OverflowError or NaN."""
    obj = (MEASUREMENTS.get(name) or TRANSFORMATIONS[name])()
    huge = [10 ** 9, 2 ** 62, 10 ** 308] if obj.input_metric.distance_type is int else [1e300, 1e308, math.inf]
    previous = obj.map(obj.input_metric.distance_type(1))
    for d in huge:
        value = obj.map(d)
        if isinstance(value, PrivacyProfile):
            value = value(1e-6)
        for part in (value if isinstance(value, tuple) else (value,)):
            assert part == part and part >= 0  # not NaN (part may be a huge int)
        assert _le(previous, value) if not isinstance(previous, PrivacyProfile) else True
        previous = obj.map(d)


@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1])
def test_zcdp_to_approx_dp_is_monotone_at_tiny_rho(delta):
    """Regression (found by the monotonicity property): for rho from d_in = 5e-324 the [CKS20]
    search ran on alpha in [1, inf] (NaN everywhere, so only [BS19] Lemma 9 was used), and on
    [1, 1e300] it could not resolve the best alpha; map(5e-324) came out above map(1e-9)."""
    meas = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*atom(), scale=1.5))
    d_ins = [0.0, 5e-324, 1e-320, 1e-300, 1e-150, 1e-9, 1e-3, 1.0, 10.0]
    eps = [meas.map(d)(delta) for d in d_ins]
    assert eps == sorted(eps), eps
    for d, e in zip(d_ins[1:], eps[1:], strict=True):   # and still valid against the exact Gaussian curve
        assert _gaussian_delta(e, d / 1.5) <= delta * (1 + 1e-9)
