"""``bun-steinke-means``: private trimmed means, [BS19] §7, Figures 2–6.

Normalised excess variance n * MSE - 1 of the private m-trimmed mean of n draws from
N(0, 1), truncated to [a, b] = [-50, 1050] ([BS19] §7.1), against the trimming level m, for
n in {201, 501, 1001, 5001} and eps in {1, 0.2} (the eps = 1 row is [BS19] Figures 2–5, the
panel n = 5001, eps = 0.2 is Figure 6).  Lines: LLN, ULN, arsinh-normal (eps^2/2-zCDP; [BS19]
Theorems 18, 22, 25), Student's T with d = 3 (eps-DP; Theorem 31), Laplace ((eps, 1e-6)-DP;
Theorem 34), global sensitivity with Gaussian noise (eps^2/2-zCDP), the non-private trimmed
mean, and the lower bound of [BS19] Prop. 36.  Gaussian noise under truncated CDP ([BS19]
Lemma 33) is not in the library (no tCDP measure), so that line is absent.

How the MSE is computed.  The release is trim(x) + (S^t(x)/s) Z with Z independent, symmetric
and of known variance, so

    n MSE - 1 = n E[(trim(x) - xbar)^2] + n E[S^t(x)^2] Var(Z) / s(t)^2,

using that for Gaussian data trim(x) - xbar is independent of the sample mean xbar (Basu's
theorem: it is location-invariant), whose error has variance exactly 1/n.  (Truncation to
[-50, 1050] never binds for N(0, 1) data at these n.)  The first term is averaged over many
datasets (:func:`trim_excess`), the second over fewer datasets with the library's exact
``smooth_sensitivity_trimmed_mean`` (:func:`mean_square_smooth_sensitivity`), s(t) and the
shape from ``smooth_parameters`` and Var(Z) from :mod:`opendp_duff.distributions`.  No noise is
drawn: this is the expectation the paper estimates with 10^6 repetitions.

Smoothing t, three ways (:func:`panel`).  ``paper_t``: the paper's tuning, the best of 150
log-spaced t in [1e-9, 9] for each (algorithm, m), chosen on the expected variance for this
data distribution — NOT private.  ``library_t``: ``choose_smoothing``, the library's
data-independent default (a uniform reference spread over the public bounds [-50, 1050]).
``reference_t``: ``choose_smoothing`` with ``reference=`` a public N(0, 1) sample drawn
independently of the data (what a user who expects roughly normal data can pass): private.

    python -m opendp_duff.experiments bun-steinke-means [--quick] [--out DIR]
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import MakeError
from ..smooth.parameters import choose_smoothing, smooth_parameters, smooth_variance_lower_bound
from ..smooth.sensitivity import smooth_sensitivity_trimmed_mean
from . import _figures as F
from ._batch import noise_law
from ._common import Progress, fmt, table
from ._runner import Options
from ._runner import run as _run

NAME = "bun_steinke_means"
COMMAND = "bun-steinke-means"
TITLE = "Bun–Steinke trimmed means: [BS19] §7, Figures 2–6"
DRAWS_NOISE = False
BOUNDS = (-50.0, 1050.0)
DELTA_LAPLACE = 1e-6
NOISES = {  # key: (label, privacy, marker)
    "lln": ("LLN", "eps^2/2-zCDP", "o"), "uln": ("ULN", "eps^2/2-zCDP", "v"),
    "arsinh_normal": ("arsinh-normal", "eps^2/2-zCDP", "s"),
    "student_t": ("Student's T (d=3)", "eps-DP", "D"), "laplace": ("Laplace", "(eps, 1e-6)-DP", "^"),
}
FULL: dict[str, Any] = {"ns": (201, 501, 1001, 5001), "epsilons": (1.0, 0.2), "t_grid": 150, "ss_datasets": 100,
        "trim_datasets": 20000,
        "fractions": (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)}
QUICK: dict[str, Any] = {"ns": (201, 501), "epsilons": (1.0, 0.2), "t_grid": 30, "ss_datasets": 5, "trim_datasets": 400,
         "fractions": (0.0, 0.02, 0.1, 0.25, 0.45)}
# [BS19] §7.2, on the best algorithm at eps = 1: n=201 "only a factor of two" (n MSE ~ 2,
# excess ~ 1); n=1001 "excess variance down to 10%".
PAPER_CLAIMS = {(201, 1.0): 1.0, (1001, 1.0): 0.1}
# the paper's figure showing each panel
PAPER_FIGURES = {(201, 1.0): 2, (501, 1.0): 3, (1001, 1.0): 4, (5001, 1.0): 5, (5001, 0.2): 6}
T_CHOICES = {  # key in a panel: (figure title, line style)
    "paper_t": ("t tuned on the data as in [BS19] §7.1 (best of a 150-value grid): NOT private", F.TUNED),
    "library_t": ("library default t (choose_smoothing, data-independent): private", F.PRIVATE),
    "reference_t": ("t from choose_smoothing on a public N(0,1) reference sample: private", F.PRIVATE),
}


def trim_levels(n: int, fractions: Sequence[float]) -> list[int]:
    """The trimming levels m = round(f n) for the fractions f, at most (n - 1) / 2, deduplicated."""
    return sorted({min(int(round(f * n)), (n - 1) // 2) for f in fractions})


def trim_excess(n: int, ms: Sequence[int], count: int, rng: np.random.Generator, chunk: int = 2000) -> np.ndarray:
    """n E[(trim_m(x) - xbar)^2] for each m in ``ms``, averaged over ``count`` N(0, 1) datasets
    of size n drawn from ``rng`` (clipped to ``BOUNDS``).  By Basu's theorem this plus the noise
    term is n MSE - 1."""
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


def mean_square_smooth_sensitivity(data: Sequence[np.ndarray], m: int, t: float) -> float:
    """E[S^t(x)^2] of the m-trimmed mean over the sorted datasets ``data`` (bounds ``BOUNDS``)."""
    return float(np.mean([smooth_sensitivity_trimmed_mean(x, float(t), BOUNDS, m=m) ** 2 for x in data]))


def noise_params(noise: str, n: int, eps: float, t: float) -> dict[str, Any]:
    """``smooth_parameters`` for ``noise`` at budget eps (Laplace: (eps, 1e-6)-DP) and smoothing t."""
    if noise == "laplace":
        return smooth_parameters(noise, size=n, epsilon=eps, delta=DELTA_LAPLACE, t=t)
    return smooth_parameters(noise, size=n, epsilon=eps, t=t)


def noise_coefficient(noise: str, n: int, eps: float, t: float) -> float:
    """Var(Z) / s(t)^2: the noise variance per unit of squared smooth sensitivity (inf where no
    positive s meets the budget at this t)."""
    try:
        p = noise_params(noise, n, eps, float(t))
    except MakeError:
        return float("inf")
    return float(noise_law(p).variance() / p["s"] / p["s"])   # s^2 may underflow: divide twice


def library_t(noise: str, n: int, eps: float, m: int, reference: np.ndarray | None = None) -> float:
    """``choose_smoothing``'s t for the m-trimmed mean: on ``reference`` if given, else on the
    library's data-independent default reference over ``BOUNDS``."""
    kw = {"delta": DELTA_LAPLACE} if noise == "laplace" else {}
    return choose_smoothing(noise, n, BOUNDS, epsilon=eps, statistic="trimmed_mean", m=m,
                            reference=reference, **kw)


def smooth_sensitivity_grid(data: Sequence[np.ndarray], ms: Sequence[int], t_grid: np.ndarray) -> np.ndarray:
    """E[S^t(x)^2] for every (m, t): an array of shape (len(ms), len(t_grid))."""
    return np.array([[mean_square_smooth_sensitivity(data, m, t) for t in t_grid] for m in ms])


def panel(n: int, eps: float, ms: Sequence[int], trimex: np.ndarray, data: Sequence[np.ndarray],
          reference: np.ndarray, t_grid: np.ndarray, es2: np.ndarray | None = None) -> dict[str, Any]:
    """Every line of one panel (n, eps): n MSE - 1 per trimming level m for each noise and each
    choice of t (``paper_t``, ``library_t``, ``reference_t``), the lower bound, global
    sensitivity with Gaussian noise and the non-private trimmed mean.  ``trimex`` is
    :func:`trim_excess` at ``ms``; ``es2`` is :func:`smooth_sensitivity_grid` (computed if None)."""
    if es2 is None:
        es2 = smooth_sensitivity_grid(data, ms, t_grid)
    lines: dict[str, dict[str, np.ndarray]] = {k: {} for k in T_CHOICES}
    best_t, lib_t = {}, {}
    for noise in NOISES:
        coef = np.array([noise_coefficient(noise, n, eps, t) for t in t_grid])
        with np.errstate(invalid="ignore"):
            noise_term = n * coef[None, :] * es2
        noise_term = np.where(np.isnan(noise_term), np.inf, noise_term)
        j = np.argmin(noise_term, axis=1)
        lines["paper_t"][noise] = trimex + noise_term[np.arange(len(ms)), j]
        best_t[noise] = t_grid[j]
        for key, ref in (("library_t", None), ("reference_t", reference)):
            ts = [library_t(noise, n, eps, m, ref) for m in ms]
            lines[key][noise] = trimex + np.array([n * noise_coefficient(noise, n, eps, t)
                                                   * mean_square_smooth_sensitivity(data, m, t)
                                                   for m, t in zip(ms, ts, strict=True)])
            if ref is None:
                lib_t[noise] = ts
    lb_coef = np.array([smooth_variance_lower_bound(eps, float(t)) for t in t_grid])
    width = BOUNDS[1] - BOUNDS[0]
    return {"n": n, "eps": eps, "m": list(ms), "trim_nonprivate": trimex, **lines, "best_t": best_t,
            "lib_t": lib_t, "lower_bound": trimex + np.min(n * lb_coef[None, :] * es2, axis=1),
            "global_sens_gaussian": trimex + n * (width / (n - 2 * np.array(ms)) / eps) ** 2}


def compute(*, quick: bool = False, data_seed: int = 5, progress: Progress | None = None) -> dict[str, Any]:
    """Run the experiment (no files written, no noise drawn).  Returns ``{"config", "bounds",
    "t_grid", "panels": {"n|eps": panel(...)}, "data_seed"}``."""
    cfg = QUICK if quick else FULL
    progress = progress or Progress(NAME)
    t_grid = np.geomspace(9.0, 1e-9, cfg["t_grid"])
    res: dict[str, Any] = {"config": {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()},
                           "bounds": BOUNDS, "t_grid": t_grid, "panels": {}, "data_seed": data_seed}
    for n in cfg["ns"]:
        ms = trim_levels(n, cfg["fractions"])
        rng = np.random.default_rng([data_seed, n])
        trimex = trim_excess(n, ms, cfg["trim_datasets"], rng)
        data = [np.sort(np.clip(rng.standard_normal(n), *BOUNDS)) for _ in range(cfg["ss_datasets"])]
        # a PUBLIC guess of the data's shape for choose_smoothing: an independent N(0,1) sample
        reference = np.random.default_rng([data_seed, n, 1]).standard_normal(n)
        es2 = smooth_sensitivity_grid(data, ms, t_grid)
        progress(f"n={n}: trimmed-mean term over {cfg['trim_datasets']} datasets, smooth sensitivities "
                 f"over {cfg['ss_datasets']} datasets x {len(ms)} trimming levels x {len(t_grid)} t")
        for eps in cfg["epsilons"]:
            p = res["panels"][f"{n}|{eps}"] = panel(n, eps, ms, trimex, data, reference, t_grid, es2)
            best = min(float(np.min(v)) for v in p["paper_t"].values())
            progress(f"n={n} eps={eps:g}: best excess (paper t) {best:.3g}")
    return res


def markdown(res: dict[str, Any]) -> str:
    """The report's tables: the best line over m for each noise and choice of t beside
    [BS19] §7.2's claims, then every panel by trimming level."""
    cfg = res["config"]
    lines = [f"N(0,1) data truncated to {list(BOUNDS)}; normalised excess variance n*MSE - 1 "
             f"(exact expectation over the noise; data terms averaged over {cfg['trim_datasets']} "
             f"datasets (trimming) and {cfg['ss_datasets']} datasets (smooth sensitivity)). "
             f"t grid: {cfg['t_grid']} log-spaced values in [1e-9, 9]. Gaussian noise with tCDP "
             "([BS19] Lemma 33): not built (the library has no tCDP measure).\n",
             "Smoothing t: *paper t* = best of the grid for the expected variance (NOT private); "
             "*library t* = `choose_smoothing` default (uniform reference on the bounds); "
             "*public N(0,1) reference t* = `choose_smoothing(reference=independent N(0,1) sample)`.\n",
             "## Best over trimming levels: min over m of n*MSE - 1 [best m/n]\n"]
    rows = []
    for p in res["panels"].values():
        ms = np.array(p["m"])
        paper = PAPER_CLAIMS.get((p["n"], p["eps"]))
        for noise, (label, priv, _) in NOISES.items():
            row = [str(p["n"]), f"{p['eps']:g}", f"{label} [{priv}]"]
            for which in T_CHOICES:
                v = np.asarray(p[which][noise])
                i = int(np.argmin(v))
                row.append(f"{fmt(v[i])} [{ms[i] / p['n']:.3f}]")
            rows.append(row)
        for label, k in (("lower bound ([BS19] Prop. 36)", "lower_bound"),
                         ("global sens + Gaussian", "global_sens_gaussian")):
            v = np.asarray(p[k])
            i = int(np.argmin(v))
            rows.append([str(p["n"]), f"{p['eps']:g}", label, f"{fmt(v[i])} [{ms[i] / p['n']:.3f}]", "", ""])
        if paper is not None:
            rows.append([str(p["n"]), f"{p['eps']:g}", "paper's text, best line ([BS19] §7.2)", f"≈{paper:g}",
                         "", ""])
    lines += [table(["n", "eps", "line", "paper t (NOT private)", "library default t",
                     "public N(0,1) reference t"], rows), ""]
    for p in res["panels"].values():
        lines.append(f"### n = {p['n']}, eps = {p['eps']:g}: n*MSE - 1 by trimming level m\n")
        rows = []
        for noise, (label, priv, _) in NOISES.items():
            rows.append([f"{label} [{priv}], paper t"] + [fmt(v) for v in p["paper_t"][noise]])
            rows.append([f"{label}, library t"] + [fmt(v) for v in p["library_t"][noise]])
            rows.append([f"{label}, public-reference t"] + [fmt(v) for v in p["reference_t"][noise]])
        rows.append(["global sens + Gaussian [eps^2/2-zCDP]"] + [fmt(v) for v in p["global_sens_gaussian"]])
        rows.append(["trimmed mean, non-private"] + [fmt(v) for v in p["trim_nonprivate"]])
        rows.append(["lower bound ([BS19] Prop. 36, paper t)"] + [fmt(v) for v in p["lower_bound"]])
        lines += [table(["line \\ m"] + [str(m) for m in p["m"]], rows), ""]
    return "\n".join(lines)


def figures(res: dict[str, Any], plt: Any) -> dict[str, tuple[Any, str]]:
    """One figure per choice of t (``_paper_t``, ``_library_t``, ``_reference_t``), each a grid
    of eps (rows) x n (columns) in the layout of [BS19] Figures 2–6."""
    ns, epss = res["config"]["ns"], res["config"]["epsilons"]
    out = {}
    for which, (title, style) in T_CHOICES.items():
        fig, axes = F.subplots(plt, len(epss), len(ns), 3.3 * len(ns), 2.9 * len(epss) + 0.4,
                               sharex="col", sharey=True)
        for r, eps in enumerate(epss):
            for c, n in enumerate(ns):
                ax, p = axes[r][c], res["panels"][f"{n}|{eps}"]
                x = np.maximum(np.array(p["m"]), 0.5)
                for k, (noise, (label, priv, marker)) in enumerate(NOISES.items()):
                    ax.plot(x, p[which][noise], color=f"C{k}", marker=marker, label=f"{label} ({_greek(priv)})",
                            **style)
                ax.plot(x, p["global_sens_gaussian"], color="C6", marker="x", ms=4, ls="-", lw=1.2,
                        label="global sensitivity + Gaussian (ε²/2-zCDP)")
                ax.plot(x, p["trim_nonprivate"], label="trimmed mean, no noise (non-private reference)",
                        **F.REFERENCE)
                ax.plot(x, p["lower_bound"], label="lower bound for smooth-sensitivity noise ([BS19] Prop. 36)",
                        **F.BOUND)
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_ylim(1e-3, 1e3)
                fig_no = PAPER_FIGURES.get((n, eps))
                ax.set_title(f"n = {n}, ε = {eps:g}" + (f"  ([BS19] Fig. {fig_no})" if fig_no else ""),
                             fontsize=9)
                ax.grid(True, which="major", alpha=0.3)
                if r == len(epss) - 1:
                    ax.set_xlabel("trimming level m (records; m = 0 at 0.5)", fontsize=8)
                if c == 0:
                    ax.set_ylabel("n·MSE − 1 (unitless)", fontsize=9)
        F.legend_below(fig, axes[0][0], ncol=min(3, len(ns)))
        out[f"_{which}"] = (fig, f"Private trimmed means of N(0,1) data, normalised excess variance; {title}")
    return out


def _greek(privacy: str) -> str:
    return privacy.replace("eps^2", "ε²").replace("eps", "ε")


def run(out_dir: str = "results", quick: bool = False, data_seed: int = 5, noise_seed: int | None = None,
        plots: bool = True, command: str | None = None) -> dict[str, Any]:
    """Run the experiment and write ``bun_steinke_means[_quick].{json,md}`` and three figures into
    ``out_dir``; return the results as saved.  ``noise_seed`` is accepted for a uniform command
    line; no noise is drawn here."""
    return _run(sys.modules[__name__], Options(out_dir, quick, data_seed, noise_seed, plots, command))
