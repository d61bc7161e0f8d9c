"""Tests of opendp_duff.experiments: the quick runs of every experiment (tables written, numbers
finite, with matplotlib absent), the baselines' parameters against the library's own baseline
constructors, and the batched release paths against the mechanisms they stand for.

Statistical tests are seeded (``rerun_once``): KS tests at level 1e-3 (false-failure rate about
1e-6 each) and Monte Carlo checks at 4 standard errors (about 4e-9 after the rerun)."""
import math
import re
import sys

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from opendp_duff.experiments import EXPERIMENTS, _baselines as B, _batch
from opendp_duff.experiments import __main__ as cli
from opendp_duff.experiments import bun_steinke_means, duff_medians, real_medians
from opendp_duff.experiments._common import pyplot
from opendp_duff.experiments._runner import output_stem, render

from helpers import rerun_once

_CELL = re.compile(r"^-?\d+(\.\d+)?(e[+-]\d+)?$")


def _numbers(md):
    """Every numeric table cell (the leading number of cells like '3.2 (0.5)' or '0.7 [0.25]')."""
    out = []
    for line in md.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        for cell in line.strip("|").split("|"):
            head = cell.strip().split(" ")[0].lstrip("≈").rstrip("x")
            if _CELL.match(head):
                out.append(float(head))
    return out


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory):
    """All experiments in --quick mode with matplotlib made unimportable (the `plots` extra absent).
    Noise from the seeded test generator: this is a test."""
    out = tmp_path_factory.mktemp("experiments")
    saved = {k: sys.modules.get(k) for k in ("matplotlib", "matplotlib.pyplot")}
    sys.modules["matplotlib"] = None      # `import matplotlib` now raises ImportError
    sys.modules["matplotlib.pyplot"] = None
    try:
        with dp.samplers.seeded_rng_for_tests(11):
            results = {name: __import__(mod, fromlist=["run"]).run(str(out), quick=True, noise_seed=3)
                       for name, mod in EXPERIMENTS.items()}
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return out, results


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_quick_tables_exist_and_are_finite(quick_results, name):
    out, results = quick_results
    stem = output_stem(__import__(EXPERIMENTS[name], fromlist=["NAME"]), results[name])
    assert stem.endswith("_quick")
    md = (out / f"{stem}.md").read_text()
    assert "QUICK mode" in md and "| ---" not in md
    assert "plot skipped: matplotlib not installed" in md
    assert not (out / f"{stem}.png").exists()
    nums = _numbers(md)
    assert len(nums) >= 12
    assert all(math.isfinite(x) for x in nums)
    assert not re.search(r"\bnan\b", md.lower())
    assert (out / f"{stem}.json").exists()


@pytest.mark.slow  # shares the module-scoped quick runs of every experiment
def test_duff_medians_quick_has_paper_columns(quick_results):
    md = (quick_results[0] / "duff_medians_quick.md").read_text()
    for paper_number in ("64.3", "22.6", "7.9", "14.8", "4.0", "1.2", "0.6", "0.3", "0.2", "187x", "130x", "15x"):
        assert paper_number in md
    res = quick_results[1]["duff-medians"]
    for dname in duff_medians.DISTRIBUTIONS:
        for eps in duff_medians.EPSILONS:
            # the library reports exactly eps for Duff and SMOOTHSENS_eps
            assert res["privacy"][dname][eps]["duff"] <= eps
            assert res["privacy"][dname][eps]["ss_eps"] <= eps


@pytest.mark.slow  # shares the module-scoped quick runs of every experiment
def test_plots_when_matplotlib_present(quick_results, tmp_path):
    if pyplot() is None:
        pytest.skip("matplotlib (the optional plots extra) is not installed")
    res = quick_results[1]
    assert len(render(duff_medians, res["duff-medians"], str(tmp_path))) == 2           # .md and .png
    assert len(render(bun_steinke_means, res["bun-steinke-means"], str(tmp_path))) == 4  # .md, 3 x .png
    assert len(render(real_medians, res["real-medians"], str(tmp_path))) == 2
    assert all(p.stat().st_size > 1000 for p in tmp_path.iterdir())


@pytest.mark.slow
def test_cli_runs_and_reports_progress(tmp_path, capsys):
    with dp.samplers.seeded_rng_for_tests(5):
        assert cli.main(["real-medians", "--quick", "--out", str(tmp_path), "--source", "synthetic",
                         "--no-plots", "--seeded-noise", "9"]) == 0
    err = capsys.readouterr().err
    assert "[real_medians" in err and "wrote" in err
    md = (tmp_path / "real_medians_synthetic_quick.md").read_text()
    assert "SYNTHETIC stand-in" in md and "SEEDED for reproducibility" in md
    with pytest.raises(SystemExit):
        cli.main(["no-such-experiment"])


def test_synthetic_stand_in_has_the_papers_class_sizes():
    desc, classes = real_medians.load("synthetic")
    assert "SYNTHETIC" in desc
    assert sorted(v.size for v in classes.values()) == [100, 210]


# ---- the baselines' parameters are the library's baselines ---------------------------------

def _space(n, bounds):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=n), dp.change_one_distance()


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.25, 1.0])
def test_baseline_parameters_match_make_smooth_median_baseline(eps):
    n, bounds, delta = 101, (0.0, 1.0), 0.01
    space = _space(n, bounds)

    def mine(params):
        return space >> dp.t.then_sort() >> dp.m.then_smooth_median(**params)

    def lib(name):
        return space >> dp.t.then_sort() >> B.then_smooth_median_baseline(
            name, epsilon=eps, **({} if name == "SMOOTHSENS_eps" else {"delta": delta}))

    assert mine(B.smoothsens_eps(n, eps)).map(1) == lib("SMOOTHSENS_eps").map(1)
    assert mine(B.smoothsens_eps_delta(n, bounds, eps, delta)).map(1) == lib("SMOOTHSENS_eps_delta").map(1)
    lln = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(mine(B.laplaceln(n, bounds, eps, delta))), delta)
    assert lln.map(1) == lib("LAPLACELN").map(1)
    x = np.linspace(0.2, 0.7, n)    # the two releases agree on data too (same t, same S)
    assert B.smoothsens_eps_delta(n, bounds, eps, delta)["t"] == dp.smooth.choose_smoothing(
        "laplace", n, bounds, epsilon=eps, delta=delta)
    assert B.laplaceln(n, bounds, eps, delta, reference=x)["t"] == dp.smooth.choose_smoothing(
        "lln", n, bounds, rho=B.smooth_median_baseline_parameters(
            "LAPLACELN", eps, delta, size=n, bounds=bounds)["rho"], reference=x)


@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_nrs_parameters_are_private_under_theorem_34(eps):
    """The parameters of [GM-Duff-short] Proposition 2 (after [NRS07]) meet the library's rounded-up
    map of [BS19] Theorem 34."""
    p = B.nrs_laplace(eps, 1e-3)
    e, d = (_space(1000, (-10.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_smooth_median(**p)).map(1)
    assert e <= eps and d == 1e-3


# ---- batched releases follow the mechanisms' laws ------------------------------------------
# Each check is a KS test at level 1e-3 (false-failure rate 1e-3, 1e-6 after the rerun).

@pytest.mark.slow
@rerun_once(2024)
def test_batched_smooth_releases_follow_the_measurement():
    n, bounds = 201, (-10.0, 10.0)
    x = np.sort(np.random.default_rng(1).standard_normal(n))
    params = B.smoothsens_eps_delta(n, bounds, 1.0, 1e-3)
    meas = _space(n, bounds) >> dp.t.then_sort() >> dp.m.then_smooth_median(**params)
    S = dp.smooth_sensitivity_median(x, params["t"], bounds)
    law = _batch.noise_law(params)
    scale = S / params["s"]
    med = _batch.lower_median(x)
    from_measurement = np.array([meas(x) for _ in range(400)])
    batched = _batch.smooth_median_releases(x, bounds, params, 4000)
    for sample in (from_measurement, batched):
        assert stats.kstest((sample - med) / scale, law.cdf).pvalue > 1e-3


@pytest.mark.slow
@rerun_once(77)
def test_batched_duff_releases_follow_the_measurement():
    n, bounds, eps = 301, (-10.0, 10.0), 0.5
    x = np.sort(np.random.default_rng(2).standard_normal(n))
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=bounds)), dp.symmetric_distance()
    meas = space >> dp.t.then_sort() >> dp.m.then_duff_median(scale=2.0 / eps)
    from_measurement = np.array([meas(x) for _ in range(400)])
    batched = _batch.duff_median_releases(x, bounds, eps, 4000)
    assert stats.ks_2samp(from_measurement, batched).pvalue > 1e-3
    # and both agree with the exact step-function CDF of the Duff median
    step = dp.duff_utility(x, "median", bounds=bounds)
    assert stats.kstest(batched, lambda z: step.cdf(z, 2.0 / eps)).pvalue > 1e-3


@pytest.mark.slow
@rerun_once(31)
def test_bun_steinke_variance_decomposition_matches_real_releases():
    """n*MSE - 1 as the experiment computes it (trimming term via Basu's theorem + E[S^2] Var(Z)/s^2)
    agrees with releases of make_smooth_trimmed_mean itself.  Tolerance: 4 standard errors of the
    Monte Carlo mean (false-failure rate ~6e-5 per check, squared after the rerun)."""
    n, m, eps, K = 201, 50, 1.0, 1500
    bounds = bun_steinke_means.BOUNDS
    params = dp.smooth.smooth_parameters("lln", size=n, epsilon=eps, t=0.05)
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=n), dp.change_one_distance()
    meas = space >> dp.t.then_sort() >> dp.m.then_smooth_trimmed_mean(m=m, **params)
    rng = np.random.default_rng(3)
    var_z = _batch.noise_law(params).variance()
    mc, analytic, basu, direct = [], [], [], []
    for _ in range(K):
        x = np.sort(rng.standard_normal(n))
        trim = float(np.mean(x[m:n - m]))
        S = dp.smooth_sensitivity_trimmed_mean(x, params["t"], bounds, m=m)
        mc.append(n * meas(x) ** 2)                                    # true mean is 0
        analytic.append(n * (trim ** 2 + S ** 2 * var_z / params["s"] ** 2))
        basu.append(n * (trim - x.mean()) ** 2 + n * S ** 2 * var_z / params["s"] ** 2)
        direct.append(n * trim ** 2 + n * S ** 2 * var_z / params["s"] ** 2 - 1)
    mc, analytic = np.array(mc), np.array(analytic)
    se = np.std(mc - analytic) / np.sqrt(K)
    assert abs(np.mean(mc) - np.mean(analytic)) < 4 * se
    diff = np.array(direct) - np.array(basu)   # both estimate n*MSE - 1
    assert abs(np.mean(diff)) < 4 * np.std(diff) / np.sqrt(K)
