"""The smooth-sensitivity noise distributions: densities, CDFs, variances, samplers.

References are independent of the code under test: scipy.stats (T, Cauchy,
Laplace, normal), adaptive quadrature of the density, a second integration
route (over the other factor of the product), and Monte Carlo.

Statistical tests run under ``rerun_once`` (seeded, one rerun with a fresh seed
before failing).  Each states its false-failure rate per attempt; with the
rerun the rate is that number squared.
"""
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from helpers import rerun_once
from opendp_duff.distributions import (SIGMA_MAX, ArsinhNormal, Gaussian, Laplace,
                                       LaplaceLogNormal, PolynomialTail, StudentT,
                                       UniformLogNormal)
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.samplers import noise, seeded_rng_for_tests

DISTS = [
    LaplaceLogNormal(0.5), LaplaceLogNormal(1.5), UniformLogNormal(math.sqrt(2)),
    UniformLogNormal(0.3), ArsinhNormal(2 / math.sqrt(3)), ArsinhNormal(0.2),
    StudentT(3), StudentT(0.7), StudentT(12.5), PolynomialTail(2), PolynomialTail(1.5),
    PolynomialTail(4), PolynomialTail(40), Laplace(), Laplace(2.5), Gaussian(), Gaussian(0.3),
]
IDS = [repr(d) for d in DISTS]
ZS = np.array([0.0, 1e-9, 0.01, 0.3, 1.0, 2.5, 7.0, 40.0])


def half_integral(f, lo, hi):
    """quad of f on [lo, hi] (hi may be inf), split at 1 and 100 where useful."""
    cuts = [lo] + [c for c in (1.0, 100.0) if lo < c < hi] + [hi]
    return sum(integrate.quad(f, a, b, limit=500, epsabs=1e-13, epsrel=1e-10)[0]
               for a, b in zip(cuts[:-1], cuts[1:], strict=True))


# ------------------------------------------------------------- exact identities

@pytest.mark.slow
@pytest.mark.parametrize("dist", DISTS, ids=IDS)
def test_pdf_integrates_to_one(dist):
    assert 2 * half_integral(dist.pdf, 0.0, np.inf) == pytest.approx(1.0, abs=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("dist", DISTS, ids=IDS)
def test_cdf_is_integral_of_pdf(dist):
    assert dist.cdf(0.0) == 0.5
    for z in (0.05, 0.7, 3.0, 25.0):
        mass = half_integral(dist.pdf, 0.0, z)
        assert dist.cdf(z) - 0.5 == pytest.approx(mass, rel=1e-7, abs=1e-12)
        assert dist.cdf(-z) == pytest.approx(0.5 - mass, rel=1e-7, abs=1e-12)   # symmetry
        assert dist.sf(z) == pytest.approx(0.5 - mass, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("dist", DISTS, ids=IDS)
def test_vectorised_matches_scalar_and_logpdf(dist):
    z = np.concatenate([-ZS, ZS])
    for f in (dist.pdf, dist.cdf, dist.sf, dist.logpdf):
        arr = f(z)
        assert isinstance(arr, np.ndarray) and arr.shape == z.shape
        assert isinstance(f(1.0), float)
        np.testing.assert_allclose(arr, [f(float(x)) for x in z], rtol=1e-12)
    np.testing.assert_allclose(np.exp(dist.logpdf(z)), dist.pdf(z), rtol=1e-12)
    c = dist.cdf(np.sort(z))
    assert np.all(np.diff(c) >= 0) and np.all((0 <= c) & (c <= 1))


@pytest.mark.parametrize("dist", DISTS, ids=IDS)
def test_nan_in_nan_out_and_infinite_arguments(dist):
    for f in (dist.pdf, dist.logpdf, dist.cdf, dist.sf):
        assert math.isnan(f(math.nan))
    assert dist.cdf(math.inf) == 1.0 and dist.cdf(-math.inf) == 0.0 and dist.pdf(math.inf) == 0.0


@pytest.mark.parametrize("d", [0.7, 1.0, 3.0, 12.5])
def test_student_t_matches_scipy(d):
    z = np.concatenate([-ZS, ZS, [-1e6, 1e6]])
    dist = StudentT(d)
    np.testing.assert_allclose(dist.pdf(z), stats.t.pdf(z, d), rtol=1e-10)
    far = np.abs(z) > 1e-6      # scipy's stdtr rounds to 1/2 near 0; there use the density
    np.testing.assert_allclose(dist.cdf(z[far]), stats.t.cdf(z[far], d), rtol=1e-10, atol=1e-300)
    assert dist.cdf(1e-9) - 0.5 == pytest.approx(dist.pdf(0.0) * 1e-9, rel=1e-6)


def test_polynomial_tail_gamma_2_is_cauchy():
    dist, z = PolynomialTail(2), np.concatenate([-ZS, ZS, [1e10]])
    assert dist.normalizer == pytest.approx(1 / math.pi, rel=1e-15)
    np.testing.assert_allclose(dist.pdf(z), stats.cauchy.pdf(z), rtol=1e-13)
    np.testing.assert_allclose(dist.cdf(z), stats.cauchy.cdf(z), rtol=1e-13)


@pytest.mark.parametrize("gamma", [1.1, 1.5, 2.5, 3.5, 8.0, 60.0])
def test_polynomial_tail_normaliser_and_beta_cdf(gamma):
    dist = PolynomialTail(gamma)
    total = 2 * half_integral(lambda z: 1 / (1 + z ** gamma), 0.0, np.inf)
    assert 1 / dist.normalizer == pytest.approx(total, rel=1e-7)
    for x in (1e-4, 0.5, 1.0, 3.0, 1e3):   # the beta-function CDF against direct quadrature
        direct = dist.normalizer * half_integral(lambda z: 1 / (1 + z ** gamma), 0.0, x)
        assert dist.cdf(x) - 0.5 == pytest.approx(direct, rel=1e-7)


def test_polynomial_tail_quantile_inverts_cdf_over_the_grid():
    u = np.array([2.0 ** -53, 1e-9, 1e-3, 0.1, 0.3, 0.49, 0.5 - 2.0 ** -53, 0.6, 0.9, 1 - 2.0 ** -53])
    for gamma in (1.05, 1.5, 2.0, 7.0, 1e3, 1e6):
        z = noise._polynomial_tail_quantile(gamma, u)
        ok = np.abs(z) <= noise.polynomial_tail_cutoff(gamma)
        assert ok[3:-1].all()
        np.testing.assert_allclose(PolynomialTail(gamma).cdf(z[ok]), u[ok], rtol=1e-9)


@pytest.mark.parametrize("sigma", [0.1, 0.8, 2.0, 6.0])
def test_lln_sf_by_a_second_integration_route(sigma):
    # P(|Z| > z) = E_X[P(sigma Y > log(z/|X|))] = int_0^inf e^{-x} Phibar(log(z/x)/sigma) dx:
    # the integral over the Laplace factor instead of the Gaussian one.
    dist = LaplaceLogNormal(sigma)
    for z in (0.02, 0.5, 2.0, 20.0, 300.0):
        def f(x, z=z):
            return math.exp(-x) * special.ndtr(-math.log(z / x) / sigma)
        # Phibar(log(z/x)/sigma) turns from 0 to 1 across x = z e^{+-k sigma}: break there.
        cuts = sorted({0.0, z + 40, z + 800} | {z * math.exp(k * sigma) for k in (-8, -3, -1, 0, 1, 3, 8)})
        other = 0.5 * sum(integrate.quad(f, a, b, limit=500, epsabs=0, epsrel=1e-12)[0]
                          for a, b in zip(cuts[:-1], cuts[1:], strict=True))
        assert dist.sf(z) == pytest.approx(other, rel=1e-7)


@pytest.mark.parametrize("sigma", [0.2, math.sqrt(2), 4.0])
def test_uln_closed_forms_by_integrating_over_the_uniform(sigma):
    # P(|Z| > z) = int_0^1 Phibar(log(z/u)/sigma) du;  f(z) = (1/2) int_0^1 phi(log(z/u)/sigma) / (sigma z) du.
    dist = UniformLogNormal(sigma)
    for z in (0.01, 0.4, 1.0, 3.0, 50.0):
        sf = 0.5 * integrate.quad(lambda u, z=z: special.ndtr(-math.log(z / u) / sigma), 0, 1,
                                  epsabs=0, epsrel=1e-12, limit=200)[0]
        pdf = 0.5 * integrate.quad(lambda u, z=z: stats.norm.pdf(math.log(z / u) / sigma) / (sigma * z),
                                   0, 1, epsabs=0, epsrel=1e-12, limit=200)[0]
        assert dist.sf(z) == pytest.approx(sf, rel=1e-8)
        assert dist.pdf(z) == pytest.approx(pdf, rel=1e-8)
    assert dist.pdf(0.0) == pytest.approx(0.5 * math.exp(sigma ** 2 / 2), rel=1e-14)


@pytest.mark.parametrize("sigma", [0.05, 1.0, 3.0])
def test_lln_density_at_zero_and_tails_are_finite(sigma):
    dist = LaplaceLogNormal(sigma)
    assert dist.pdf(0.0) == pytest.approx(0.5 * math.exp(sigma ** 2 / 2), rel=1e-14)
    assert dist.pdf(1e-12) == pytest.approx(dist.pdf(0.0), rel=1e-6)
    big = dist.sf(np.array([1e10, 1e100, 1e300]))
    assert np.all(np.isfinite(big)) and np.all(big >= 0) and np.all(np.diff(big) <= 0)


# ------------------------------------------------------------- variances

VARIANCE_CASES = [
    (LaplaceLogNormal(0.5), 2 * math.exp(0.5)), (LaplaceLogNormal(1.0), 2 * math.exp(2)),
    (UniformLogNormal(math.sqrt(2)), math.exp(4) / 3), (UniformLogNormal(0.3), math.exp(0.18) / 3),
    (ArsinhNormal(2 / math.sqrt(3)), (math.exp(8 / 3) - 1) / (8 / 3)),
    (StudentT(3), 3.0), (StudentT(12.5), 12.5 / 10.5), (PolynomialTail(4), 1.0),
    (PolynomialTail(7.5), None), (Laplace(2.5), 12.5), (Gaussian(0.3), 0.09),
]


@pytest.mark.parametrize("dist,closed", VARIANCE_CASES, ids=[repr(c[0]) for c in VARIANCE_CASES])
def test_variance_against_numerical_second_moment(dist, closed):
    if closed is not None:                       # [BS19] §3's formula, typed in independently
        assert dist.variance() == pytest.approx(closed, rel=1e-12)
    numeric = 2 * half_integral(lambda z: z * z * dist.pdf(z), 0.0, np.inf)
    assert dist.variance() == pytest.approx(numeric, rel=1e-6)


def test_infinite_variances():
    assert StudentT(2).variance() == math.inf and StudentT(0.5).variance() == math.inf
    assert PolynomialTail(3).variance() == math.inf and PolynomialTail(2).variance() == math.inf
    assert LaplaceLogNormal(SIGMA_MAX).variance() == math.inf
    assert ArsinhNormal(SIGMA_MAX).variance() == math.inf


# E[Z^4] in closed form, for the standard error of the sample variance.
FOURTH = [
    (LaplaceLogNormal(0.5), 24 * math.exp(8 * 0.25)),                       # Gamma(5) e^{8 sigma^2}
    (UniformLogNormal(0.4), math.exp(8 * 0.16) / 5),
    (ArsinhNormal(0.5), (math.exp(2.0) - 4 * math.exp(0.5) + 3) / (8 * 0.5 ** 4)),
    (StudentT(10), 3 * 100 / (8 * 6)),
    (PolynomialTail(8), math.sin(math.pi / 8) / math.sin(5 * math.pi / 8)),
    (Laplace(1.5), 24 * 1.5 ** 4), (Gaussian(2.0), 3 * 16.0),
]


# z-test at 5 standard errors (normal approximation): false-failure rate about 1e-6 per attempt
# (all fourth moments finite; 8th moments finite too, so the approximation is sound at n = 1e5).
@pytest.mark.parametrize("dist,m4", FOURTH, ids=[repr(c[0]) for c in FOURTH])
@rerun_once(seed=401)
def test_sample_variance_matches_formula(dist, m4):
    n = 100_000
    x = dist.sample(n)
    var = dist.variance()
    se = math.sqrt((m4 - var ** 2) / n)
    assert abs(np.mean(x * x) - var) <= 5 * se


# Sharper checks of the product structure, independent of the quadrature: log|Z| is a sum of
# independent terms, log|X| + sigma Y (LLN: |X| ~ Exp(1), mean -gamma_E, variance pi^2/6;
# ULN: |U| ~ U(0, 1), mean -1, variance 1), and arsinh(sigma Z)/sigma is exactly N(0, 1).
# z-tests at 5 standard errors (estimated from the sample): false-failure rate about 1e-6 per attempt.
def _assert_mean_var(w, mean, var):
    n = w.size
    assert abs(w.mean() - mean) <= 5 * math.sqrt(var / n)
    m4 = np.mean((w - w.mean()) ** 4)
    assert abs(w.var() - var) <= 5 * math.sqrt(max(m4 - var ** 2, 0) / n)


@pytest.mark.parametrize("sigma", [0.5, 2.0])
@rerun_once(seed=408)
def test_log_structure_of_log_normal_mixtures(sigma):
    w = np.log(np.abs(LaplaceLogNormal(sigma).sample(100_000)))
    _assert_mean_var(w, -np.euler_gamma, math.pi ** 2 / 6 + sigma ** 2)
    w = np.log(np.abs(UniformLogNormal(sigma).sample(100_000)))
    _assert_mean_var(w, -1.0, 1.0 + sigma ** 2)


@pytest.mark.parametrize("sigma", [0.3, 5.0, 40.0])
@rerun_once(seed=409)
def test_arsinh_normal_maps_back_to_a_standard_normal(sigma):
    y = np.arcsinh(sigma * ArsinhNormal(sigma).sample(100_000)) / sigma
    _assert_mean_var(y, 0.0, 1.0)


def test_student_t_sampler_transform_inverts_cdf():
    u = np.array([2.0 ** -53, 1e-9, 1e-3, 0.1, 0.3, 0.49, 0.6, 0.9, 1 - 1e-6])
    for d in (0.3, 1.0, 3.0, 7.5, 1e3):
        z = special.stdtrit(d, u)
        np.testing.assert_allclose(StudentT(d).cdf(z), u, rtol=1e-8)


def test_inverse_cdf_samplers_replay_the_uniforms():
    # The same seeded uniforms, pushed through scipy's quantile by hand, give the same draws.
    from opendp_duff.samplers import uniform_open
    cases = [(StudentT(3.5), lambda u: special.stdtrit(3.5, u)),
             (PolynomialTail(2), lambda u: stats.cauchy.ppf(u)),
             (Laplace(2.0), lambda u: stats.laplace.ppf(u, scale=2.0)),
             (Gaussian(3.0), lambda u: stats.norm.ppf(u, scale=3.0))]
    for dist, ppf in cases:
        with seeded_rng_for_tests(410):
            u = uniform_open(1000)
        with seeded_rng_for_tests(410):
            x = dist.sample(1000)
        np.testing.assert_allclose(x, ppf(u), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------- samplers: KS

# KS at level 1e-3: false-failure rate 1e-3 per attempt (1e-6 with the rerun).
KS_CASES = [
    (LaplaceLogNormal(0.5), None), (LaplaceLogNormal(3.0), None),
    (UniformLogNormal(math.sqrt(2)), None), (UniformLogNormal(0.2), None),
    (ArsinhNormal(2 / math.sqrt(3)), None), (ArsinhNormal(5.0), None),
    (StudentT(3), stats.t(3).cdf), (StudentT(0.6), stats.t(0.6).cdf), (StudentT(1), stats.cauchy.cdf),
    (PolynomialTail(2), stats.cauchy.cdf), (PolynomialTail(1.3), None), (PolynomialTail(9), None),
    (Laplace(), stats.laplace.cdf), (Laplace(0.1), stats.laplace(scale=0.1).cdf),
    (Gaussian(), stats.norm.cdf), (Gaussian(7.0), stats.norm(scale=7.0).cdf),
]


@pytest.mark.slow
@pytest.mark.parametrize("dist,reference", KS_CASES, ids=[repr(c[0]) for c in KS_CASES])
@rerun_once(seed=402)
def test_sampler_ks(dist, reference):
    x = dist.sample(10_000)
    assert stats.kstest(x, dist.cdf).pvalue > 1e-3
    if reference is not None:
        assert stats.kstest(x, reference).pvalue > 1e-3


# Monte Carlo cross-check of the LLN quadrature at fixed points: binomial z-test at 5 sigma,
# false-failure rate about 1e-6 per attempt.
@rerun_once(seed=403)
def test_lln_cdf_against_monte_carlo():
    dist = LaplaceLogNormal(1.2)
    x = dist.sample(200_000)
    for z in (-10.0, -1.0, -0.1, 0.3, 2.0, 25.0):
        p = dist.cdf(z)
        assert abs(np.mean(x <= z) - p) <= 5 * math.sqrt(p * (1 - p) / x.size)


# ------------------------------------------------------------- samplers: never inf/NaN

@pytest.mark.parametrize("cls", [LaplaceLogNormal, UniformLogNormal, ArsinhNormal])
@pytest.mark.parametrize("sigma", [1e-300, 1e-6, 10.0, 40.0, SIGMA_MAX])
def test_samplers_finite_at_extreme_sigma(cls, sigma):
    with seeded_rng_for_tests(404):
        x = cls(sigma).sample(50_000)
    assert x.dtype == np.float64 and np.all(np.isfinite(x))


@pytest.mark.parametrize("dist", [StudentT(0.01), StudentT(0.003), PolynomialTail(1.01),
                                  PolynomialTail(1.002), PolynomialTail(1e6), Laplace(1e308),
                                  Gaussian(1e308)], ids=repr)
def test_samplers_finite_when_resampling_is_frequent(dist):
    assert 0 <= dist.resample_probability() <= 0.5
    with seeded_rng_for_tests(405):
        x = dist.sample(20_000)
    assert np.all(np.isfinite(x)) and np.all(np.abs(x) <= dist._cutoff())


def test_overflowing_candidates_are_redrawn(monkeypatch):
    calls = []
    real = noise.standard_normal

    def rigged(size):
        y = real(size)
        if not calls:
            y[0] = 1e6          # e^{sigma y} and sinh(sigma y) overflow for this candidate
        calls.append(size)
        return y
    monkeypatch.setattr(noise, "standard_normal", rigged)
    with seeded_rng_for_tests(406):
        for dist in (LaplaceLogNormal(1.0), UniformLogNormal(1.0), ArsinhNormal(1.0)):
            calls.clear()
            x = dist.sample(5)
            assert np.all(np.isfinite(x)) and calls == [5, 1]   # only the bad draw is redrawn


def test_sample_shapes():
    with seeded_rng_for_tests(407):
        for dist in DISTS:
            assert isinstance(dist.sample(), float)
            assert dist.sample(4).shape == (4,)
            assert dist.sample((2, 3)).shape == (2, 3)


def test_resample_probability_matches_gaussian_tail_for_arsinh():
    # P(|sinh(sigma Y)/sigma| > M) = 2 Phibar(arsinh(sigma M)/sigma), arsinh(w) = log(2w) for huge w
    for sigma in (50.0, SIGMA_MAX):
        y = (math.log(2 * sigma) + math.log(noise.FLOAT_MAX)) / sigma
        assert ArsinhNormal(sigma).resample_probability() == pytest.approx(2 * special.ndtr(-y), rel=1e-9)
    assert ArsinhNormal(50.0).sf(1e308) > 0 and np.isfinite(ArsinhNormal(50.0).logpdf(1e308))


def test_resample_probability_is_negligible_for_theorem_parameters():
    for dist in (LaplaceLogNormal(1.0), UniformLogNormal(math.sqrt(2)), ArsinhNormal(2 / math.sqrt(3)),
                 StudentT(1), StudentT(3), PolynomialTail(2), Laplace(), Gaussian()):
        assert dist.resample_probability() < 1e-100


# ------------------------------------------------------------- bad parameters

@pytest.mark.parametrize("make,name,value,err", [
    (LaplaceLogNormal, "sigma", 0.0, MakeError), (LaplaceLogNormal, "sigma", -1.0, MakeError),
    (LaplaceLogNormal, "sigma", math.nan, MakeError), (LaplaceLogNormal, "sigma", math.inf, MakeError),
    (LaplaceLogNormal, "sigma", 101.0, MakeError), (LaplaceLogNormal, "sigma", "1", MakeTypeError),
    (UniformLogNormal, "sigma", -0.5, MakeError), (UniformLogNormal, "sigma", True, MakeTypeError),
    (ArsinhNormal, "sigma", 0.0, MakeError), (ArsinhNormal, "sigma", 1e9, MakeError),
    (StudentT, "d", 0.0, MakeError), (StudentT, "d", -3.0, MakeError), (StudentT, "d", None, MakeTypeError),
    (StudentT, "d", 1e-4, MakeError),                       # mass past the float range
    (PolynomialTail, "gamma", 1.0, MakeError), (PolynomialTail, "gamma", 0.5, MakeError),
    (PolynomialTail, "gamma", 1.0001, MakeError), (PolynomialTail, "gamma", math.inf, MakeError),
    (Laplace, "scale", 0.0, MakeError), (Laplace, "scale", math.inf, MakeError),
    (Gaussian, "sigma", -2.0, MakeError), (Gaussian, "sigma", [1.0], MakeTypeError),
])
def test_bad_parameters(make, name, value, err):
    with pytest.raises(err) as info:
        make(value)
    assert name in str(info.value) and repr(value) in str(info.value)
    assert issubclass(err, (ValueError, TypeError))


def test_frozen_and_comparable():
    d = LaplaceLogNormal(1)
    assert d == LaplaceLogNormal(1.0) and isinstance(d.sigma, float) and hash(d) == hash(LaplaceLogNormal(1.0))
    with pytest.raises(AttributeError):
        d.sigma = 2.0
