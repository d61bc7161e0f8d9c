"""make_smooth_median / make_smooth_trimmed_mean / baselines: exact maps, privacy audits by
numerical integration, parameter helpers, bad input, and releases that are never NaN.

Statistical tests run under ``rerun_once`` (seeded; one rerun with a fresh seed); each states its
false-failure rate per attempt.
"""
import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from scipy import stats

import opendp_duff as dp
from helpers import Recorder, replay_laplace, rerun_once
from opendp_duff import distributions as D
from opendp_duff.experiments import _baselines
from opendp_duff.smooth import maps as sm, noises as sn


@pytest.fixture(autouse=True)
def _decimal_precision():
    """The exact references below compute with 60-digit decimals: a local context, so that the
    setting neither leaks into other test modules nor is overwritten by them."""
    with localcontext() as ctx:
        ctx.prec = 60
        yield


PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")


def Dd(x):
    return Decimal(Fraction(x).numerator) / Decimal(Fraction(x).denominator)


def space(n=11, bounds=(0.0, 1.0), metric=None):
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=n, sorted=True)
    return dom, metric or dp.change_one_distance()


def median(n=11, **kw):
    return dp.m.make_smooth_median(*space(n), **kw)


def t_hat(n, t):
    return dp.arithmetic.add_up(t, dp.smooth_sensitivity_rounding_slack(n))


# ---- exact references (Decimal, 60 digits) --------------------------------------------------

def ref_one_step(noise, t, s, shape):
    t, s, g = Dd(t), Dd(s), Dd(shape)
    if noise == "lln":
        return t / g + (Decimal(3) / 2 * g * g).exp() * s
    if noise == "uln":
        return t / g + (Decimal(3) / 2 * g * g).exp() * (2 / (PI * g * g)).sqrt() * s
    if noise == "arsinh_normal":
        return (t * (t / (g * g) + 1 / g + 2)).sqrt() + s * (Decimal(2) / (3 * g) + g / 2)
    if noise == "student_t":
        return t * (g + 1) + s * (g + 1) / (2 * g.sqrt())
    if noise == "polynomial_tail":
        return (g + 1) * (t + s)
    if noise == "laplace":
        return s + (t.exp() - 1) * (1 / g).ln() - t
    raise AssertionError(noise)


def ref_laplace_group(t, s, delta, k):
    t, s, L = Dd(t), Dd(s), (1 / Dd(delta)).ln()
    ekt = (k * t).exp() - 1
    return s * ekt / (t.exp() - 1) + ekt * L - k * t


CASES = [("lln", dict(sigma=0.4)), ("lln", dict(sigma=1.7)), ("uln", {}), ("uln", dict(sigma=2.0)),
         ("arsinh_normal", {}), ("arsinh_normal", dict(sigma=0.3)), ("student_t", {}),
         ("student_t", dict(d=1.5)), ("polynomial_tail", {}), ("polynomial_tail", dict(gamma=4.5)),
         ("laplace", dict(delta=1e-6)), ("laplace", dict(delta=0.1))]
SHAPE = {"sigma", "d", "gamma", "delta"}


def shape_of(noise, kw):
    if kw:
        return next(iter(kw.values()))
    return {"uln": sn.ULN_SIGMA, "arsinh_normal": sn.ARSINH_SIGMA, "student_t": 3.0,
            "polynomial_tail": 2.0}[noise]


@pytest.mark.parametrize("noise,kw", CASES)
@pytest.mark.parametrize("t,s", [(0.1, 0.2), (0.013, 1.7), (0.5, 0.05)])
def test_map_is_a_tight_upper_bound_of_the_theorem(noise, kw, t, s):
    n = 11
    m = median(n, t=t, s=s, noise=noise, **kw)
    th, shape = t_hat(n, t), shape_of(noise, kw)
    exact1 = ref_one_step(noise, th, s, shape)
    for k in (1, 2, 5):
        got = m.map(k)
        if noise == "laplace":
            assert got[1] == kw["delta"]
            exact = ref_laplace_group(th, s, shape, k) if k > 1 else exact1
            got = got[0]
        elif noise in sn.ZCDP_NOISES:
            exact = k * k * exact1 * exact1 / 2
        else:
            exact = k * exact1
        assert Dd(got) >= exact
        assert Dd(got) <= exact * (1 + Decimal("1e-12")), (got, exact)
    assert m.map(0) in (0.0, (0.0, 0.0))


def test_polynomial_tail_map_is_exact_rational():
    m = median(t=0.1, s=0.3, noise="polynomial_tail", gamma=2.5)
    exact = Fraction(7, 2) * (Fraction(t_hat(11, 0.1)) + Fraction(0.3))
    got = Fraction(m.map(1))
    assert got >= exact > Fraction(math.nextafter(m.map(1), -math.inf))


def test_smoothing_slack_is_what_the_map_uses():
    # with t_hat = t the Student-T map would be 0.1*4 + 0.2*4/(2 sqrt 3); the slack makes it slightly larger
    m = median(t=0.1, s=0.2, noise="student_t")
    plain = ref_one_step("student_t", 0.1, 0.2, 3.0)
    assert plain < Dd(m.map(1)) < plain * (1 + Decimal("1e-9"))


def test_symmetric_distance_counts_two_per_substitution():
    sym = dp.m.make_smooth_median(*space(metric=dp.symmetric_distance()), t=0.1, s=0.2, noise="student_t")
    c1 = median(t=0.1, s=0.2, noise="student_t")
    assert sym.map(1) == 0.0 and sym.map(2) == c1.map(1) and sym.map(5) == c1.map(2)


def test_trimmed_mean_has_the_same_map_as_the_median():
    tm = dp.m.make_smooth_trimmed_mean(*space(21), m=3, t=0.1, s=0.2, noise="lln", sigma=0.5)
    md = dp.m.make_smooth_median(*space(21), t=0.1, s=0.2, noise="lln", sigma=0.5)
    assert tm.map(3) == md.map(3)
    assert isinstance(tm.output_measure, dp.measures.ZeroConcentratedDivergence)


# ---- parameter helpers ---------------------------------------------------------------------

@pytest.mark.parametrize("noise,budget", [("lln", dict(epsilon=1.0)), ("lln", dict(rho=0.02)),
                                          ("uln", dict(epsilon=1.0)), ("arsinh_normal", dict(epsilon=0.7)),
                                          ("student_t", dict(epsilon=1.0)), ("polynomial_tail", dict(epsilon=2.0)),
                                          ("laplace", dict(epsilon=1.0, delta=1e-6))])
def test_smooth_parameters_meet_the_budget_tightly(noise, budget):
    n, t = 1001, 0.02
    p = dp.smooth.smooth_parameters(noise, size=n, t=t, **budget)
    got = dp.m.make_smooth_median(*space(n), **p).map(1)
    if noise == "laplace":
        assert got[1] == budget["delta"]
        got = got[0]
    target = budget.get("epsilon")
    if noise in sn.ZCDP_NOISES:
        target = budget["rho"] if "rho" in budget else budget["epsilon"] ** 2 / 2
    assert got <= target and got >= target * (1 - 1e-9)


def test_lln_sigma_solves_the_cubic_and_minimises_the_variance():
    eps, t = 1.0, 0.05
    sigma = sn.lln_optimal_sigma(eps, t)
    assert abs(5 * eps / t * sigma ** 3 - 5 * sigma ** 2 - 1) < 1e-9

    def var(sig):  # 2 e^{2 sigma^2} / s^2 with s = e^{-3 sigma^2/2}(eps - t/sigma)
        return 2 * math.exp(2 * sig ** 2) / (math.exp(-1.5 * sig ** 2) * (eps - t / sig)) ** 2
    grid = np.linspace(t / eps * 1.01, 2.0, 4000)
    assert var(sigma) <= min(var(g) for g in grid) * (1 + 1e-9)


def test_fixed_shapes_of_the_papers():
    assert dp.smooth.smooth_parameters("uln", size=11, epsilon=1.0, t=0.01)["sigma"] ** 2 >= 2
    assert dp.smooth.smooth_parameters("arsinh_normal", size=11, epsilon=1.0, t=0.01)["sigma"] == 2 / math.sqrt(3)
    assert dp.smooth.smooth_parameters("student_t", size=11, epsilon=1.0, t=0.01)["d"] == 3.0


def test_choose_smoothing_does_not_read_the_data_and_is_feasible():
    t1 = dp.smooth.choose_smoothing("lln", 201, (0.0, 1.0), epsilon=1.0)
    t2 = dp.smooth.choose_smoothing("lln", 201, (0.0, 1.0), epsilon=1.0)
    assert t1 == t2 and 0 < t1 < 1
    p = dp.smooth.smooth_parameters("lln", size=201, epsilon=1.0, t=t1)
    assert p["s"] > 0
    # with a reference sample and a grid, the choice is the grid's argmin of (S_t(ref)/s(t))^2 Var(Z)
    ref = np.sort(np.random.default_rng(0).normal(size=201))
    grid_t = [0.01, 0.03, 0.1, 0.2]
    got = dp.smooth.choose_smoothing("student_t", 201, (-50.0, 50.0), epsilon=1.0, reference=ref, grid=grid_t)

    def objective(t):
        s = dp.smooth.smooth_parameters("student_t", size=201, epsilon=1.0, t=t)["s"]
        return dp.smooth_sensitivity_median(ref, t, (-50.0, 50.0)) / s
    assert got == min(grid_t, key=objective)


@pytest.mark.parametrize("name,delta", [("SMOOTHSENS_eps", None), ("smoothsens_eps_delta", 1e-3),
                                        ("LAPLACELN", 1e-3)])
def test_baselines_meet_their_budget(name, delta):
    eps = 0.5
    b = _baselines.make_smooth_median_baseline(*space(101), name, epsilon=eps, delta=delta)
    got = b.map(1)
    if delta is None:
        assert isinstance(b.output_measure, dp.measures.MaxDivergence)
        assert eps * (1 - 1e-9) <= got <= eps
    else:
        assert isinstance(b.output_measure, dp.measures.ApproximateDivergence)
        assert got[1] == delta and 0 < got[0] <= eps
    assert math.isfinite(b(np.linspace(0, 1, 101)))


def test_smoothsens_eps_is_proposition_3():
    # [GM-Duff] Proposition 3
    p = dp.smooth.smooth_parameters("polynomial_tail", size=101, epsilon=0.6, t=0.1, gamma=2.0)
    assert p["t"] == 0.1 and abs(p["s"] - 0.1) < 1e-9  # alpha = beta = eps / (2 (gamma + 1))


def test_lower_bound_is_below_every_noise_variance():
    eps = 1.0
    for t in (0.01, 0.05, 0.2):
        lb = dp.smooth.smooth_variance_lower_bound(eps, t)
        for noise in ("lln", "uln", "arsinh_normal"):
            p = dp.smooth.smooth_parameters(noise, size=1001, epsilon=eps, t=t)
            var = {"lln": D.LaplaceLogNormal, "uln": D.UniformLogNormal,
                   "arsinh_normal": D.ArsinhNormal}[noise](p["sigma"]).variance() / p["s"] ** 2
            assert 0 < lb <= var


# ---- privacy audits by numerical integration -------------------------------------------------

LAWS = {"lln": D.LaplaceLogNormal, "uln": D.UniformLogNormal, "arsinh_normal": D.ArsinhNormal,
        "student_t": D.StudentT, "polynomial_tail": D.PolynomialTail}


def grid(V=45.0, N=12001):
    v = np.linspace(-V, V, N)
    return np.sinh(v), np.cosh(v) * (v[1] - v[0])  # points and trapezoid-like weights


def logq(law, y, u, w):
    """log density of e^u Z + w at y."""
    return -u + law.logpdf((y - w) * math.exp(-u))


def renyi(lp, lq, weights, alpha):
    # points where either density underflows to 0 are dropped (both are negligible there)
    ok = np.isfinite(lp) & np.isfinite(lq)
    lp, lq, weights = lp[ok], lq[ok], weights[ok]
    a = alpha * lp + (1 - alpha) * lq + np.log(weights)
    top = a.max()
    return (top + math.log(np.exp(a - top).sum())) / (alpha - 1)


ALPHAS = (1.5, 2, 5, 10, 50)


@pytest.mark.slow
@pytest.mark.parametrize("noise,t", [("lln", 0.05), ("lln", 0.4), ("uln", 0.05), ("arsinh_normal", 0.05),
                                     ("arsinh_normal", 0.2)])
def test_zcdp_audit_worst_cases(noise, t):
    # the worst cases the theorems allow: |f(x) - f(x')| = g(x) (w = +-s) and g(x') = e^{+-t} g(x) (u = +-t)
    n = 101
    p = dp.smooth.smooth_parameters(noise, size=n, epsilon=1.0, t=t)
    rho = dp.m.make_smooth_median(*space(n), **p).map(1)
    law = LAWS[noise](p["sigma"])
    y, wts = grid(40.0, 8001) if noise == "lln" else grid()
    lp = law.logpdf(y)
    # (u, -w) mirrors (u, w): Z is symmetric
    for u, w in [(t, p["s"]), (-t, p["s"]), (0.0, p["s"]), (t, 0.0)]:
        lq = logq(law, y, u, w)
        for alpha in ALPHAS:
            for a, b in ((lp, lq), (lq, lp)):
                d = renyi(a, b, wts, alpha)
                assert d <= rho * alpha * (1 + 1e-6) + 1e-9, (noise, u, w, alpha, d, rho * alpha)


@pytest.mark.slow
def test_zcdp_audit_is_not_vacuous():
    # a shift three times larger than the map allows must break the LLN bound at some alpha
    p = dp.smooth.smooth_parameters("lln", size=101, epsilon=1.0, t=0.05)
    rho = dp.m.make_smooth_median(*space(101), **p).map(1)
    law = D.LaplaceLogNormal(p["sigma"])
    y, wts = grid(40.0, 8001)
    lp, lq = law.logpdf(y), logq(law, y, 0.0, 3 * p["s"])
    assert max(renyi(lp, lq, wts, a) / a for a in ALPHAS) > rho


@pytest.mark.slow
@pytest.mark.parametrize("noise,kw,t", [("student_t", {}, 0.05), ("student_t", dict(d=1.0), 0.2),
                                        ("polynomial_tail", {}, 0.05), ("polynomial_tail", dict(gamma=1.5), 0.2),
                                        ("polynomial_tail", dict(gamma=6.0), 0.02)])
def test_pure_audit_max_log_ratio(noise, kw, t):
    n = 101
    s = 0.3
    eps = dp.m.make_smooth_median(*space(n), t=t, s=s, noise=noise, **kw).map(1)
    law = LAWS[noise](shape_of(noise, kw))
    y = np.concatenate([np.sinh(np.linspace(-30, 30, 200001)), np.linspace(-20, 20, 100001)])
    lp = law.logpdf(y)
    worst = 0.0
    for u, w in itertools.product((t, -t), (s, -s)):
        worst = max(worst, np.max(np.abs(lp - logq(law, y, u, w))))
    assert worst <= eps
    if noise == "student_t" and not kw:
        assert worst >= 0.5 * eps  # the audit sees most of the bound: it is not vacuous


def test_laplace_audit_hockey_stick():
    n, t, s, delta = 101, 0.05, 0.4, 1e-6
    eps, dlt = dp.m.make_smooth_median(*space(n), t=t, s=s, noise="laplace", delta=delta).map(1)
    law = D.Laplace(1.0)
    y = np.concatenate([np.linspace(-60, 60, 600001)])
    dy = y[1] - y[0]
    p = law.pdf(y)
    for u, w in itertools.product((t, -t), (s, -s)):
        q = np.exp(logq(law, y, u, w))
        for a, b in ((q, p), (p, q)):
            assert np.sum(np.maximum(0.0, a - math.exp(eps) * b)) * dy <= dlt
    # with a tenth of the epsilon the hockey stick exceeds delta: the check can fail
    q = np.exp(logq(law, y, t, s))
    assert np.sum(np.maximum(0.0, q - math.exp(eps / 10) * p)) * dy > dlt


@pytest.mark.slow
def test_smooth_sensitivity_meets_the_reduction_on_a_small_universe():
    # lem:reduce of proofs/measurements/smooth_sensitivity/smooth_common.inc: for all neighbours,
    # |w| <= s and |u| <= t_hat (brute force, n = 5)
    n, t, bounds = 5, 0.3, (0.0, 1.0)
    th = t_hat(n, t)
    universe = (0.0, 0.25, 0.5, 0.75, 1.0)
    sets = [np.array(c) for c in itertools.combinations_with_replacement(universe, n)]
    for x in sets:
        gx = dp.smooth_sensitivity_median(x, t, bounds)
        fx = x[(n + 1) // 2 - 1]
        for i, val in itertools.product(range(n), universe):
            y = np.sort(np.concatenate([np.delete(x, i), [val]]))
            gy = dp.smooth_sensitivity_median(y, t, bounds)
            assert abs(y[(n + 1) // 2 - 1] - fx) <= gx
            assert gy <= math.exp(th) * gx


@pytest.mark.slow
def test_end_to_end_audit_on_neighbouring_datasets():
    n, bounds = 9, (0.0, 1.0)
    p = dp.smooth.smooth_parameters("lln", size=n, epsilon=1.0, t=0.2)
    rho = dp.m.make_smooth_median(*space(n), **p).map(1)
    law = D.LaplaceLogNormal(p["sigma"])
    y, wts = grid(40.0, 8001)
    lp = law.logpdf(y)
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.9, 1.0, 1.0])
    for i, val in [(4, 1.0), (4, 0.0), (0, 1.0), (8, 0.0)]:
        x2 = np.sort(np.concatenate([np.delete(x, i), [val]]))
        g1, g2 = (dp.smooth_sensitivity_median(z, p["t"], bounds) for z in (x, x2))
        u, w = math.log(g2 / g1), p["s"] * (x2[4] - x[4]) / g1
        lq = logq(law, y, u, w)
        for alpha in ALPHAS:
            assert renyi(lp, lq, wts, alpha) <= rho * alpha * (1 + 1e-6) + 1e-9


@pytest.mark.slow
@rerun_once(seed=4101)
def test_release_is_statistic_plus_scaled_noise():
    # KS at level 1e-3: false-failure rate 1e-3 per attempt (1e-6 with the rerun).
    n, bounds = 25, (0.0, 1.0)
    x = np.sort(np.linspace(0.0, 1.0, n) ** 2)
    for noise, kw in [("lln", dict(sigma=0.5)), ("student_t", {})]:
        m = dp.m.make_smooth_trimmed_mean(*space(n), m=4, t=0.1, s=0.5, noise=noise, **kw)
        f = float(np.mean(x[4:n - 4]))
        g = dp.smooth_sensitivity_trimmed_mean(x, 0.1, bounds, m=4)
        z = np.array([(m(x) - f) * 0.5 / g for _ in range(1500)])
        law = LAWS[noise](shape_of(noise, kw))
        assert stats.kstest(z, law.cdf).pvalue > 1e-3


# ---- bad input -------------------------------------------------------------------------------

BAD = [
    (dict(t=0.0, s=1.0, noise="student_t"), "t"),
    (dict(t=-1.0, s=1.0, noise="student_t"), "t"),
    (dict(t=0.1, s=0.0, noise="student_t"), "s"),
    (dict(t=0.1, s=-2.0, noise="lln", sigma=1.0), "s"),
    (dict(t=0.1, s=1.0, noise="uln", sigma=1.41), "sigma"),
    (dict(t=0.1, s=1.0, noise="lln"), "sigma"),
    (dict(t=0.1, s=1.0, noise="lln", sigma=0.0), "sigma"),
    (dict(t=0.1, s=1.0, noise="student_t", d=0.5), "d"),
    (dict(t=0.1, s=1.0, noise="polynomial_tail", gamma=1.0), "gamma"),
    (dict(t=0.1, s=1.0, noise="laplace"), "delta"),
    (dict(t=0.1, s=1.0, noise="laplace", delta=0.0), "delta"),
    (dict(t=0.1, s=1.0, noise="laplace", delta=0.2), "delta"),
    (dict(t=0.1, s=1.0, noise="gaussian"), "noise"),
    (dict(t=0.1, s=1.0, noise="lln", sigma=1.0, d=3), "d"),
    (dict(t=math.nan, s=1.0, noise="student_t"), "t"),
]


@pytest.mark.parametrize("kw,name", BAD)
def test_bad_parameters_fail_at_construction(kw, name):
    with pytest.raises((dp.MakeError, dp.MakeTypeError), match=name):
        median(**kw)


@pytest.mark.parametrize("m_", [5, 6, 100, -1])
def test_trimming_must_be_below_half(m_):
    with pytest.raises((dp.MakeError, dp.MakeTypeError), match="m"):
        dp.m.make_smooth_trimmed_mean(*space(10), m=m_, t=0.1, s=1.0, noise="student_t")


@pytest.mark.parametrize("dom", [
    dp.vector_domain(dp.atom_domain(T=float), size=5, sorted=True),                       # no bounds
    dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True),            # no size
    dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=5),                 # not sorted
    dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=0, sorted=True),    # empty
    dp.vector_domain(dp.atom_domain(T=float, bounds=(-1e308, 1e308)), size=5, sorted=True),  # infinite width
])
def test_bad_domains_fail_at_construction(dom):
    with pytest.raises((dp.MakeError, dp.MakeTypeError)):
        dp.m.make_smooth_median(dom, dp.change_one_distance(), t=0.1, s=1.0, noise="student_t")


def test_bad_helper_and_baseline_input():
    with pytest.raises(dp.MakeError, match="t"):
        dp.smooth.smooth_parameters("student_t", size=11, epsilon=0.1, t=1.0)   # t too large for the budget
    with pytest.raises(dp.MakeError, match="rho"):
        dp.smooth.smooth_parameters("student_t", size=11, rho=0.1, t=0.01)
    with pytest.raises(dp.MakeError, match="name"):
        _baselines.make_smooth_median_baseline(*space(), "SMOOTHSENS", epsilon=1.0)
    with pytest.raises(dp.MakeError, match="delta"):
        _baselines.make_smooth_median_baseline(*space(), "LAPLACELN", epsilon=1.0)
    with pytest.raises(dp.MakeError, match="delta"):
        _baselines.make_smooth_median_baseline(*space(), "SMOOTHSENS_eps_delta", epsilon=1.0, delta=0.5)


# ---- releases are never NaN ------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("noise,kw", [("lln", dict(sigma=0.5)), ("uln", {}), ("arsinh_normal", {}),
                                      ("student_t", {}), ("polynomial_tail", {}), ("laplace", dict(delta=1e-6))])
def test_releases_are_finite_on_edge_members(noise, kw):
    with dp.samplers.seeded_rng_for_tests(7):
        for n, bounds, x in [(1, (0.0, 1.0), [0.5]), (1, (0.0, 1.0), [1.0]), (6, (0.0, 1.0), [0.0] * 6),
                             (6, (0.0, 1.0), [1.0] * 6), (5, (0.0, 1.0), [0.0, 0.0, 1.0, 1.0, 1.0]),
                             (4, (2.0, 2.0), [2.0] * 4), (3, (-1e300, 1e300), [-1e300, 0.0, 1e300])]:
            dom, met = space(n, bounds)
            med = dp.m.make_smooth_median(dom, met, t=0.1, s=1e-3, noise=noise, **kw)
            assert all(not math.isnan(med(x)) for _ in range(20))
            tm = dp.m.make_smooth_trimmed_mean(dom, met, m=(n - 1) // 2, t=0.1, s=1e-3, noise=noise, **kw)
            assert all(not math.isnan(tm(x)) for _ in range(20))
        # a == b: the smooth sensitivity is (floored at) ~0 and the release is 2 up to far below an ulp
        assert dp.m.make_smooth_median(*space(4, (2.0, 2.0)), t=0.1, s=1.0, noise=noise, **kw)([2.0] * 4) == 2.0


def test_student_t_as_zcdp_through_the_combinator():
    m = median(t=0.05, s=0.3, noise="student_t")
    z = dp.c.make_pureDP_to_zCDP(m)
    assert Fraction(z.map(1)) >= Fraction(m.map(1)) ** 2 / 2
    assert z.map(1) <= m.map(1) ** 2 / 2 * (1 + 1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("law,L", [
    (D.UniformLogNormal(math.sqrt(2)), math.exp(3.0) * math.sqrt(1 / math.pi)),      # [BS19] Lemma 24 at sigma = sqrt 2
    (D.UniformLogNormal(2.5), math.exp(1.5 * 6.25) * math.sqrt(2 / (math.pi * 6.25))),
    (D.ArsinhNormal(2 / math.sqrt(3)), 2 / math.sqrt(3)),                             # [BS19] Lemma 28
    (D.ArsinhNormal(0.3), 2 / 0.9 + 0.15),
    (D.StudentT(3.0), 4 / (2 * math.sqrt(3))),                                       # [BS19] Theorem 31, shift part
    (D.PolynomialTail(2.0), 2.0),                                                    # smooth_common.inc, thm:poly
    (D.LaplaceLogNormal(0.5), math.exp(1.5 * 0.25)),                                 # [BS19] Lemma 20
])
def test_log_density_lipschitz_constants_used_by_the_proofs(law, L):
    # central differences of log f on a wide grid never exceed the constant the proof uses
    slow = isinstance(law, D.LaplaceLogNormal)  # its density is a quadrature: use fewer points
    z = np.sinh(np.linspace(-12, 12, 3001)) if slow else np.sinh(np.linspace(-25, 25, 40001))
    z, h = z[np.abs(z) > 1e-4], 1e-6
    with np.errstate(all="ignore"):
        slope = (law.logpdf(z * (1 + h)) - law.logpdf(z * (1 - h))) / (2 * h * z)
    slope = slope[np.isfinite(slope)]
    assert slope.size > 1000 and np.abs(slope).max() <= L * (1 + 1e-6)


@settings(max_examples=60, deadline=None)
@given(noise=st.sampled_from(["lln", "uln", "arsinh_normal", "student_t", "polynomial_tail", "laplace"]),
       t=st.floats(1e-6, 3.0), s=st.floats(1e-6, 50.0), u=st.floats(0.0, 1.0), k=st.integers(1, 6))
# exactly representable map (2t + 1): a reference computed with fewer than 53 digits rounds above it
@example(noise="student_t", t=1.4481884353564096, s=1.0, u=0.0, k=1)
def test_one_step_maps_are_upper_bounds_for_random_parameters(noise, t, s, u, k):
    shape = {"lln": 0.05 + 3 * u, "uln": math.sqrt(2) + 3 * u, "arsinh_normal": 0.05 + 3 * u,
             "student_t": 1 + 20 * u, "polynomial_tail": 1.001 + 10 * u, "laplace": 1e-12 + 0.13 * u}[noise]
    got = sm.group_map(sn.NOISES[noise], t, s, shape)(k)
    if noise == "laplace":
        got, exact = got[0], ref_laplace_group(t, s, shape, k) if k > 1 else ref_one_step(noise, t, s, shape)
    elif noise in sn.ZCDP_NOISES:
        exact = k * k * ref_one_step(noise, t, s, shape) ** 2 / 2
    else:
        exact = k * ref_one_step(noise, t, s, shape)
    assert got == math.inf or Dd(got) >= exact


# ---- floating point: exact releases (smooth_common.inc, "The released float") -------------------

@pytest.mark.statistical  # seeded; its false-failure rate is stated below
def test_trimmed_mean_release_uses_the_exact_mean():
    # np.mean of [-1e16, 1, 1, 1e16] is 0, the exact mean is 1/2; the noise scale here is ~5e-15
    # (s = 1e30), so the release is within 1e-6 of 1/2 unless |Z| > 2e8 (probability < 1e-80).
    n, bounds = 4, (-1e16, 1e16)
    x = [-1e16, 1.0, 1.0, 1e16]
    assert np.mean(x) != 0.5
    m = dp.m.make_smooth_trimmed_mean(*space(n, bounds), m=0, t=0.1, s=1e30, noise="laplace", delta=1e-6)
    with dp.samplers.seeded_rng_for_tests(3):
        assert all(abs(m(x) - 0.5) < 1e-6 for _ in range(20))


@pytest.mark.slow
@pytest.mark.parametrize("noise,kw,law", [("uln", {}, D.UniformLogNormal(sn.ULN_SIGMA)),
                                          ("arsinh_normal", {}, D.ArsinhNormal(sn.ARSINH_SIGMA)),
                                          ("polynomial_tail", dict(gamma=3.0), D.PolynomialTail(3.0)),
                                          ("laplace", dict(delta=1e-6), D.Laplace(1.0))])
@rerun_once(seed=4102)
def test_median_releases_follow_the_scaled_noise_law(noise, kw, law):
    # KS at level 1e-3 on (release - f) s / g: false-failure rate 1e-3 per attempt (1e-6 with the rerun).
    n, bounds = 25, (0.0, 1.0)
    x = np.sort(np.linspace(0.0, 1.0, n) ** 3)
    m = dp.m.make_smooth_median(*space(n), t=0.1, s=0.5, noise=noise, **kw)
    g = dp.smooth_sensitivity_median(x, 0.1, bounds)
    z = np.array([(m(x) - x[12]) * 0.5 / g for _ in range(700)])
    assert stats.kstest(z, law.cdf).pvalue > 1e-3


@settings(max_examples=40, deadline=None)
@given(data=st.lists(st.floats(0.0, 1.0), min_size=7, max_size=7), s=st.floats(1e-3, 1e3),
       seed=st.integers(0, 2 ** 32))
def test_median_release_is_the_nearest_float_of_the_exact_value(data, s, seed):
    x = sorted(data)
    meas = dp.m.make_smooth_median(*space(7), t=0.2, s=s, noise="laplace", delta=1e-6)
    rec = Recorder(seed)
    with dp.samplers.byte_source_for_tests(rec):
        got = meas(x)
    g = dp.smooth_sensitivity_median(np.array(x), 0.2, (0.0, 1.0))
    # the first bytes are the entropy check (drawn before the data is read); the release's bytes follow
    release_bytes = rec.log[dp.samplers.ENTROPY_CHECK_BYTES:]
    assert replay_laplace(release_bytes, x[3], (g, s)) == [(got, math.copysign(1.0, got))] * 2


@pytest.mark.parametrize("noise,kw", [("lln", dict(sigma=0.5)), ("uln", {}), ("arsinh_normal", {}),
                                      ("student_t", {}), ("polynomial_tail", dict(gamma=3.0)),
                                      ("laplace", dict(delta=1e-6))])
def test_releases_of_every_noise_are_exact_rounded_floats(noise, kw):
    # every noise goes through the exact sampler: with a scale far below ulp(f) the release is f itself
    # unless |Z| > 2^-53 / 2^-1000 (impossible in practice), on members where the smooth sensitivity is floored
    with dp.samplers.seeded_rng_for_tests(5):
        m = dp.m.make_smooth_median(*space(4, (2.0, 2.0)), t=0.1, s=1.0, noise=noise, **kw)
        assert all(m([2.0] * 4) == 2.0 for _ in range(5))
        med = dp.m.make_smooth_median(*space(5), t=0.1, s=1.0, noise=noise, **kw)
        out = [med([0.1, 0.2, 0.3, 0.4, 0.5]) for _ in range(30)]
        assert all(math.isfinite(v) for v in out) and len(set(out)) == 30
