"""Private trimmed means in the setting of [BS19] §7, Figure 4 (N(0, 1) data, n = 1001, eps = 1):
accuracy from the ``bun-steinke-means`` experiment's own code, and the cost of a release.

    python benchmarks/bench_bun_steinke_means.py [--quick] [--reps 50] [--t-grid 60] [--mc 2000]
    python benchmarks/bench_bun_steinke_means.py --smoke   # SMOKE: checks that it runs (figures meaningless)

Accuracy: one panel of the experiment (:func:`opendp_duff.experiments.bun_steinke_means.panel`)
at the trimming levels below: the normalised excess variance n * MSE - 1 for each noise with t
from ``choose_smoothing`` on a public N(0, 1) reference sample drawn independently of the data
(private), the best over m with the paper's tuning of t on the data (NOT private), the
non-private trimmed mean and the lower bound of [BS19] Prop. 36.  Privacy as in [BS19] §7.1:
LLN, ULN, arsinh-normal at 1/2-zCDP; Student's T (d = 3) at 1-DP; Laplace at (1, 1e-6)-DP.
Then the claims of [BS19] §7.2 are checked, and the noise term n E[S^2] Var(Z)/s^2 is compared
with real releases of ``make_smooth_trimmed_mean`` (Monte Carlo).

Speed, as ratios to ``np.sort`` of the same 1001 records measured in this run: one release of
``make_smooth_trimmed_mean``, and one evaluation of the smooth sensitivity inside the panel.
Data: numpy's generator (public benchmark data); releases use the library's secure randomness.
"""
import sys
import time

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp
from opendp_duff.experiments import bun_steinke_means as bsm

N, EPS = 1001, 1.0
M_LEVELS = [0, 10, 25, 50, 100, 150, 200, 300, 400, 500]
# --smoke: the test that runs every benchmark (tests/system); the checks may then print DIFFERS
SMOKE = {"reps": 2, "trim_reps": 20, "t_grid": 3, "mc": 10, "repeat": 1, "m_levels": [0, 100]}
SHORT = {"lln": "LLN", "student_t": "StudentT", "arsinh_normal": "arsinhN", "laplace": "Laplace", "uln": "ULN"}


def main(argv):
    ap = benchmark_parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="10 datasets, 20 values of t, 300 releases")
    ap.add_argument("--reps", type=int, default=50, help="datasets for E[S^2]")
    ap.add_argument("--trim-reps", type=int, default=20000, help="datasets for the trimming term")
    ap.add_argument("--t-grid", type=int, default=60, help="values of t for the paper's tuning")
    ap.add_argument("--mc", type=int, default=2000, help="Monte Carlo releases for the noise-term check")
    args = ap.parse_args(argv)
    repeat, levels = 20, M_LEVELS
    if args.quick:
        args.reps, args.trim_reps, args.t_grid, args.mc = 10, 2000, 20, 300
    if args.smoke:
        args.reps, args.trim_reps, args.t_grid, args.mc, repeat, levels = (
            SMOKE[k] for k in ("reps", "trim_reps", "t_grid", "mc", "repeat", "m_levels"))
    rng = np.random.default_rng(20191)
    trimex = bsm.trim_excess(N, levels, args.trim_reps, rng)
    data = [np.sort(np.clip(rng.standard_normal(N), *bsm.BOUNDS)) for _ in range(args.reps)]
    reference = np.random.default_rng(20192).standard_normal(N)   # public guess of the data's shape
    t_grid = np.geomspace(9.0, 1e-9, args.t_grid)
    t0 = time.perf_counter()
    p = bsm.panel(N, EPS, levels, trimex, data, reference, t_grid)
    elapsed = time.perf_counter() - t0

    print(f"[BS19] §7, Figure 4 setting: N(0,1), n={N}, [a,b]={bsm.BOUNDS}, eps={EPS}; {args.trim_reps} "
          f"datasets for the trimming term, {args.reps} for E[S^2], {args.t_grid} values of t")
    print("n*MSE - 1 (lower is better), t from choose_smoothing on a public N(0,1) reference:")
    cols = ["trim non-priv", "lower bound"] + [SHORT[k] for k in bsm.NOISES]
    print(f"{'m':>5} " + " ".join(f"{c:>13}" for c in cols))
    rows = {"trim non-priv": p["trim_nonprivate"], "lower bound": p["lower_bound"],
            **{SHORT[k]: p["reference_t"][k] for k in bsm.NOISES}}
    for i, m in enumerate(levels):
        print(f"{m:>5} " + " ".join(f"{rows[c][i]:>13.4g}" for c in cols))
    print(f"global sens (clip + Gaussian, rho=1/2): {min(p['global_sens_gaussian']):.4g} at best")
    best = {c: float(np.min(rows[c])) for c in cols}
    paper = {SHORT[k]: float(np.min(p["paper_t"][k])) for k in bsm.NOISES}
    print("best over m, reference t: " + ", ".join(f"{c}={best[c]:.4g}" for c in cols))
    print("best over m, paper's t (tuned on the data, NOT private): "
          + ", ".join(f"{c}={v:.4g}" for c, v in paper.items()))
    order = sorted(SHORT.values(), key=best.get)
    print("ordering (best first): " + " < ".join(order))
    checks = {
        "LLN lowest among the noises ([BS19] §7.2)": order[0] == "LLN",
        "Student's T close behind LLN (within 2x)": best["StudentT"] <= 2 * best["LLN"],
        "ULN worst of the three new distributions": best["ULN"] >= max(best["LLN"], best["arsinhN"]),
        "every noise above the lower bound ([BS19] Prop. 36)":
            all(best[c] >= best["lower bound"] for c in SHORT.values()),
        "excess variance near 10% at n = 1001 ([BS19] §7.2)": best["LLN"] < 0.2,
    }
    for name, ok in checks.items():
        print(f"  [{'ok' if ok else 'DIFFERS'}] {name}")

    # the noise term against real releases (LLN, best m, reference t)
    i = int(np.argmin(p["reference_t"]["lln"]))
    m = levels[i]
    t = bsm.library_t("lln", N, EPS, m, reference)
    params = bsm.noise_params("lln", N, EPS, t)
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=bsm.BOUNDS), size=N, sorted=True), dp.change_one_distance()
    meas = dp.m.make_smooth_trimmed_mean(*space, m=m, **params)
    idx = np.arange(args.mc) % args.reps
    noise_sq = np.array([(meas(data[j]) - data[j][m:N - m].mean()) ** 2 for j in idx])
    predicted = N * bsm.noise_coefficient("lln", N, EPS, t) * bsm.mean_square_smooth_sensitivity(data, m, t)
    print(f"noise term (LLN, m={m}, t={t:.4g}, {args.mc} releases): n*E[noise^2] = {N * noise_sq.mean():.4g}"
          f" +- {N * noise_sq.std() / np.sqrt(args.mc):.2g} vs n*E[S^2]Var(Z)/s^2 = {predicted:.4g}")

    raw = np.random.default_rng(7).standard_normal(N)
    t_sort = best_time(np.sort, raw, repeat=repeat)
    t_release = best_time(meas, data[0], repeat=repeat)
    evaluations = len(levels) * args.reps * (args.t_grid + 2 * len(bsm.NOISES))
    print(f"speed: np.sort of {N} records {t_sort * 1e6:.0f} us; one make_smooth_trimmed_mean release "
          f"{t_release * 1e3:.2f} ms = {t_release / t_sort:.0f}x np.sort; the panel {elapsed:.1f} s for "
          f"{evaluations} smooth sensitivities = {elapsed / evaluations / t_sort:.1f}x np.sort each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
