"""``bun-steinke-means``: Bun & Steinke, *Average-Case Averages*, §7, Figures 2-6 (file 004).

Normalised excess variance n * MSE - 1 of the private m-trimmed mean of n draws from
N(0, 1), truncated to [a, b] = [-50, 1050] (file 004 §7.1), against the trimming level m, for
n in {201, 501, 1001, 5001} and eps in {1, 0.2}.  Lines: LLN, ULN, arsinh-normal (eps^2/2-zCDP),
Student's T with d = 3 (eps-DP), Laplace ((eps, 1e-6)-DP, Theorem 34), global sensitivity with
Gaussian noise (eps^2/2-zCDP), the non-private trimmed mean, and the lower bound of
Proposition 36.  Gaussian noise under truncated CDP (Lemma 33) is not in the library (no tCDP
measure), so that line is absent.

How the MSE is computed.  The release is trim(x) + (S^t(x)/s) Z with Z independent, symmetric
and of known variance, so

    n MSE - 1 = n E[(trim(x) - xbar)^2] + n E[S^t(x)^2] Var(Z) / s(t)^2,

using that for Gaussian data trim(x) - xbar is independent of the sample mean xbar (Basu's
theorem: it is location-invariant), whose error has variance exactly 1/n.  (Truncation to
[-50, 1050] never binds for N(0, 1) data at these n.)  The first term is averaged over many
datasets (no smooth sensitivity needed), the second over fewer datasets with the library's
exact :func:`opendp_duff.smooth_sensitivity_trimmed_mean`, s(t) and the shape from
:func:`opendp_duff.smooth.smooth_parameters` and Var(Z) from :mod:`opendp_duff.distributions`.  No
noise is drawn: this is the expectation the paper estimates with 10^6 repetitions.

Smoothing t.  Panel "paper": the paper's tuning, the best of 150 log-spaced t in [1e-9, 9]
for each (algorithm, m), chosen on the expected variance for this data distribution — NOT
private.  Panel "library": :func:`opendp_duff.smooth.choose_smoothing`, the library's
data-independent default (a uniform reference spread over the public bounds [-50, 1050]).
Tables also give a third choice, ``choose_smoothing`` with ``reference=`` a public N(0, 1) sample
drawn independently of the data (what a user who expects roughly normal data can pass): private,
and close to the paper's tuning.
"""
import os
import time

import numpy as np

from ..errors import MakeError
from ..smooth.parameters import choose_smoothing, smooth_parameters, smooth_variance_lower_bound
from ..smooth.sensitivity import smooth_sensitivity_trimmed_mean
from ._batch import noise_law
from ._common import Progress, fmt, header, pyplot, save, table

NAME = "bun_steinke_means"
BOUNDS = (-50.0, 1050.0)
DELTA_LAPLACE = 1e-6
NOISES = {  # key: (label, privacy)
    "lln": ("LLN", "eps^2/2-zCDP"), "uln": ("ULN", "eps^2/2-zCDP"),
    "arsinh_normal": ("arsinh-normal", "eps^2/2-zCDP"), "student_t": ("Student's T (d=3)", "eps-DP"),
    "laplace": ("Laplace", "(eps, 1e-6)-DP"),
}
FULL = {"ns": (201, 501, 1001, 5001), "epsilons": (1.0, 0.2), "t_grid": 150, "ss_datasets": 100,
        "trim_datasets": 20000,
        "fractions": (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)}
QUICK = {"ns": (201, 501), "epsilons": (1.0, 0.2), "t_grid": 30, "ss_datasets": 5, "trim_datasets": 400,
         "fractions": (0.0, 0.02, 0.1, 0.25, 0.45)}
# file 004 §7.2, on the best algorithm at eps = 1: n=201 "only a factor of two" (n MSE ~ 2,
# excess ~ 1); n=1001 "excess variance down to 10%".
PAPER_CLAIMS = {(201, 1.0): 1.0, (1001, 1.0): 0.1}


def trim_levels(n, fractions):
    return sorted({min(int(round(f * n)), (n - 1) // 2) for f in fractions})


def _trim_excess(n, ms, count, rng, chunk=2000):
    """n E[(trim_m(x) - xbar)^2] for each m, over ``count`` N(0,1) datasets."""
    acc = np.zeros(len(ms))
    done = 0
    while done < count:
        k = min(chunk, count - done)
        x = np.sort(np.clip(rng.standard_normal((k, n)), *BOUNDS), axis=1)
        csum = np.concatenate([np.zeros((k, 1)), np.cumsum(x, axis=1)], axis=1)
        xbar = csum[:, n] / n
        for i, m in enumerate(ms):
            trim = (csum[:, n - m] - csum[:, m]) / (n - 2 * m)
            acc[i] += np.sum((trim - xbar) ** 2)
        done += k
    return n * acc / count


def _coefficients(noise, n, eps, t_grid):
    """Var(Z)/s(t)^2 for each t (inf where no positive s meets the budget)."""
    out = np.full(len(t_grid), np.inf)
    for i, t in enumerate(t_grid):
        try:
            p = _params(noise, n, eps, float(t))
            out[i] = noise_law(p).variance() / p["s"] / p["s"]   # s^2 may underflow: divide twice
        except MakeError:
            continue
    return out


def _params(noise, n, eps, t):
    if noise == "laplace":
        return smooth_parameters(noise, size=n, epsilon=eps, delta=DELTA_LAPLACE, t=t)
    return smooth_parameters(noise, size=n, epsilon=eps, t=t)


def _library_t(noise, n, eps, m, reference=None):
    kw = {"delta": DELTA_LAPLACE} if noise == "laplace" else {}
    return choose_smoothing(noise, n, BOUNDS, epsilon=eps, statistic="trimmed_mean", m=m,
                            reference=reference, **kw)


def compute(quick=False, data_seed=5, progress=None):
    cfg = QUICK if quick else FULL
    progress = progress or Progress(NAME)
    t_grid = np.geomspace(9.0, 1e-9, cfg["t_grid"])
    res = {"config": {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()},
           "bounds": BOUNDS, "t_grid": t_grid, "panels": {}, "data_seed": data_seed}
    for n in cfg["ns"]:
        ms = trim_levels(n, cfg["fractions"])
        rng = np.random.default_rng([data_seed, n])
        trimex = _trim_excess(n, ms, cfg["trim_datasets"], rng)
        data = [np.sort(np.clip(rng.standard_normal(n), *BOUNDS)) for _ in range(cfg["ss_datasets"])]
        # a PUBLIC guess of the data's shape for choose_smoothing: an independent N(0,1) sample
        reference = np.random.default_rng([data_seed, n, 1]).standard_normal(n)
        es2 = np.array([[np.mean([smooth_sensitivity_trimmed_mean(x, float(t), BOUNDS, m=m) ** 2 for x in data])
                         for t in t_grid] for m in ms])                     # shape (len(ms), len(t_grid))
        progress(f"n={n}: trimmed-mean term over {cfg['trim_datasets']} datasets, smooth sensitivities "
                 f"over {cfg['ss_datasets']} datasets x {len(ms)} trimming levels x {len(t_grid)} t")
        for eps in cfg["epsilons"]:
            lines_paper, lines_lib, lines_ref, best_t, lib_t = {}, {}, {}, {}, {}
            for noise in NOISES:
                coef = _coefficients(noise, n, eps, t_grid)
                with np.errstate(invalid="ignore"):
                    noise_term = n * coef[None, :] * es2
                noise_term = np.where(np.isnan(noise_term), np.inf, noise_term)
                j = np.argmin(noise_term, axis=1)
                lines_paper[noise] = trimex + noise_term[np.arange(len(ms)), j]
                best_t[noise] = t_grid[j]
                for store, ref in ((lines_lib, None), (lines_ref, reference)):
                    vals = []
                    for m in ms:
                        t = _library_t(noise, n, eps, m, ref)
                        p = _params(noise, n, eps, t)
                        s2 = np.mean([smooth_sensitivity_trimmed_mean(x, t, BOUNDS, m=m) ** 2 for x in data])
                        vals.append(n * noise_law(p).variance() / p["s"] / p["s"] * s2)
                        if ref is None:
                            lib_t.setdefault(noise, []).append(t)
                    store[noise] = trimex + np.array(vals)
            lb_coef = np.array([smooth_variance_lower_bound(eps, float(t)) for t in t_grid])
            lower = trimex + np.min(n * lb_coef[None, :] * es2, axis=1)
            width = BOUNDS[1] - BOUNDS[0]
            gs = trimex + n * (width / (n - 2 * np.array(ms)) / eps) ** 2
            res["panels"][f"{n}|{eps}"] = {
                "n": n, "eps": eps, "m": ms, "trim_nonprivate": trimex, "paper_t": lines_paper,
                "library_t": lines_lib, "reference_t": lines_ref, "best_t": best_t, "lib_t": lib_t,
                "lower_bound": lower, "global_sens_gaussian": gs}
            best = min(float(np.min(v)) for v in lines_paper.values())
            progress(f"n={n} eps={eps:g}: best excess (paper t) {best:.3g}")
    return res


def markdown(res, command, seconds):
    cfg = res["config"]
    quick = cfg["ss_datasets"] < FULL["ss_datasets"]
    lines = [header("Bun–Steinke trimmed means: file 004 §7, Figures 2–6", command, quick,
                    res["data_seed"], None, seconds)]
    lines.append(f"N(0,1) data truncated to {list(BOUNDS)}; normalised excess variance n*MSE - 1 "
                 f"(exact expectation over the noise; data terms averaged over {cfg['trim_datasets']} "
                 f"datasets (trimming) and {cfg['ss_datasets']} datasets (smooth sensitivity)). "
                 f"t grid: {cfg['t_grid']} log-spaced values in [1e-9, 9]. No mechanism noise is drawn, "
                 "so the noise randomness line above does not apply. Gaussian noise with tCDP: not "
                 "built (the library has no tCDP measure).\n")
    lines.append("Smoothing t: *paper t* = best of the grid for the expected variance (NOT private); "
                 "*library t* = `choose_smoothing` default (uniform reference on the bounds); "
                 "*public N(0,1) reference t* = `choose_smoothing(reference=independent N(0,1) sample)`.\n")
    lines.append("## Best over trimming levels: min over m of n*MSE - 1 [best m/n]\n")
    rows = []
    for key, p in res["panels"].items():
        ms = np.array(p["m"])
        paper = PAPER_CLAIMS.get((p["n"], p["eps"]))
        for noise, (label, priv) in NOISES.items():
            row = [str(p["n"]), f"{p['eps']:g}", f"{label} [{priv}]"]
            for which in ("paper_t", "library_t", "reference_t"):
                v = np.asarray(p[which][noise])
                i = int(np.argmin(v))
                row.append(f"{fmt(v[i])} [{ms[i] / p['n']:.3f}]")
            rows.append(row)
        for label, k in (("lower bound (Prop 36)", "lower_bound"), ("global sens + Gaussian", "global_sens_gaussian")):
            v = np.asarray(p[k])
            i = int(np.argmin(v))
            rows.append([str(p["n"]), f"{p['eps']:g}", label, f"{fmt(v[i])} [{ms[i] / p['n']:.3f}]", "", ""])
        if paper is not None:
            rows.append([str(p["n"]), f"{p['eps']:g}", "paper's text, best line (§7.2)", f"≈{paper:g}", "", ""])
    lines += [table(["n", "eps", "line", "paper t (NOT private)", "library default t",
                     "public N(0,1) reference t"], rows), ""]
    for key, p in res["panels"].items():
        ms = p["m"]
        lines.append(f"### n = {p['n']}, eps = {p['eps']:g}: n*MSE - 1 by trimming level m\n")
        rows = []
        for noise, (label, priv) in NOISES.items():
            rows.append([f"{label} [{priv}], paper t"] + [fmt(v) for v in p["paper_t"][noise]])
            rows.append([f"{label}, library t"] + [fmt(v) for v in p["library_t"][noise]])
            rows.append([f"{label}, public-reference t"] + [fmt(v) for v in p["reference_t"][noise]])
        rows.append(["global sens + Gaussian [eps^2/2-zCDP]"] + [fmt(v) for v in p["global_sens_gaussian"]])
        rows.append(["trimmed mean, non-private"] + [fmt(v) for v in p["trim_nonprivate"]])
        rows.append(["lower bound (Prop 36, paper t)"] + [fmt(v) for v in p["lower_bound"]])
        lines += [table(["line \\ m"] + [str(m) for m in ms], rows), ""]
    return "\n".join(lines)


def plot(res, path_prefix):
    """Two figures (paper's t; library's t), each a grid of eps (rows) x n (columns)."""
    plt = pyplot()
    if plt is None:
        return []
    ns = res["config"]["ns"]
    epss = res["config"]["epsilons"]
    paths = []
    for which, title in (("paper_t", "t tuned as in the paper (150-value grid, best kept: NOT private)"),
                         ("library_t", "library's data-independent default t (choose_smoothing)")):
        fig, axes = plt.subplots(len(epss), len(ns), figsize=(3.3 * len(ns), 3.0 * len(epss)), squeeze=False)
        for r, eps in enumerate(epss):
            for c, n in enumerate(ns):
                ax, p = axes[r][c], res["panels"][f"{n}|{eps}"]
                x = np.maximum(np.array(p["m"]), 0.5)
                for k, (noise, (label, _)) in enumerate(NOISES.items()):
                    ax.plot(x, p[which][noise], marker=".", color=f"C{k}", label=label)
                ax.plot(x, p["global_sens_gaussian"], color="C6", ls="-.", label="global sens + Gaussian")
                ax.plot(x, p["trim_nonprivate"], color="k", ls="--", label="trim, non-private")
                ax.plot(x, p["lower_bound"], color="grey", ls=":", label="lower bound (Prop 36)")
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_ylim(1e-3, 1e3)
                ax.set_title(f"n={n}, eps={eps:g}", fontsize=9)
                ax.set_xlabel("trimming m (m=0 drawn at 0.5)", fontsize=8)
                if c == 0:
                    ax.set_ylabel("n*MSE - 1")
        axes[0][0].legend(fontsize=6)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        path = f"{path_prefix}_{which}.png"
        fig.savefig(path, dpi=70)
        plt.close(fig)
        paths.append(path)
    return paths


def run(out_dir, quick=False, data_seed=5, noise_seed=None, plots=True, command=None):
    """``noise_seed`` is accepted for a uniform command line; no noise is drawn here."""
    os.makedirs(out_dir, exist_ok=True)
    progress = Progress(NAME)
    start = time.monotonic()
    res = compute(quick, data_seed, progress)
    seconds = time.monotonic() - start
    command = command or f"python -m opendp_duff.experiments bun-steinke-means{' --quick' if quick else ''}"
    md = markdown(res, command, seconds)
    paths = plot(res, os.path.join(out_dir, NAME)) if plots else []
    if paths:
        md += "".join(f"\n![{os.path.basename(p)}]({os.path.basename(p)})\n" for p in paths)
    else:
        md += "\n(plot skipped: matplotlib not installed)\n"
    path = save(out_dir, NAME, md, res)
    progress(f"wrote {path}" + (f" and {', '.join(paths)}" if paths else " (plot skipped)"))
    return res
