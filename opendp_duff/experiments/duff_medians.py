"""``duff-medians``: the Duff paper's synthetic median experiment ([GM-Duff] §6.1, Figure 1;
[GM-Duff-short] Table 1), with this library's mechanisms.

Data: n = 1000 draws from N(0, 1) (bounds [-10, 10]), U(0, 1) and Beta(0.5, 0.5) (bounds
[0, 1]); the true median T(S) (``np.median``, the mid-point of the two middle records) is
taken BEFORE clipping to the bounds, as in the paper.  For every epsilon in
{0.1, 0.25, 0.5, 1, 2}, every dataset and every mechanism we draw R releases, clip them to
[a, b] (post-processing, as the paper does: Cauchy noise has no mean otherwise), and record
the mean |T(S) - M(S)| per dataset; the report gives the mean over datasets and the standard
deviation across datasets.  Full scale: 100 datasets x 100 releases.

Mechanisms (delta = 1/n = 0.001 where there is one):

* ``duff``: ``make_duff_median`` at scale 2/eps (eps-DP under add/remove);
* ``ss_eps``: SMOOTHSENS_eps, Cauchy noise, t = eps/6 ([GM-Duff] Prop. 3; eps-DP, substitution);
* ``ss_eps_delta*``: SMOOTHSENS_eps,delta, Laplace noise ([GM-Duff] Prop. 2, [BS19] Thm. 34);
* ``laplaceln*``: LAPLACELN, LLN noise at the rho that [BS19] Lemma 9 turns into (eps, delta)
  ([BS19] §3.1);
* ``ss_nrs*``: [GM-Duff-short] Prop. 2 (the [NRS07] Laplace parameters) at delta = 0.001 and
  at the non-private delta = 0.9 of [GM-Duff-short] Table 1.

A ``_paper`` suffix means t (and sigma) minimise the noise on the dataset being released, as
the papers do: NOT differentially private.  ``_lib`` is the library's data-independent default
(``choose_smoothing`` on evenly spaced points of the bounds).

    python -m opendp_duff.experiments duff-medians [--quick] [--out DIR]
"""
from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

from .. import atom_domain, change_one_distance, symmetric_distance, vector_domain
from .. import m as dpm
from .. import t as dpt
from . import _baselines as B
from . import _figures as F
from ._batch import duff_median_releases, smooth_median_releases
from ._common import Progress, fmt, table
from ._runner import Options
from ._runner import run as _run

NAME = "duff_medians"
COMMAND = "duff-medians"
TITLE = "Duff medians: [GM-Duff] §6.1 Figure 1 and [GM-Duff-short] Table 1"
DRAWS_NOISE = True
N = 1000
DELTA = 1.0 / N
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0)
DISTRIBUTIONS = {  # name: (bounds, generator)
    "N(0,1)": ((-10.0, 10.0), lambda rng, n: rng.standard_normal(n)),
    "U(0,1)": ((0.0, 1.0), lambda rng, n: rng.uniform(0.0, 1.0, n)),
    "Beta(0.5,0.5)": ((0.0, 1.0), lambda rng, n: rng.beta(0.5, 0.5, n)),
}
MECHANISMS = {  # key: (label, privacy)
    "duff": ("Duff", "eps-DP (add/remove)"),
    "ss_eps": ("SMOOTHSENS_eps (Cauchy)", "eps-DP (substitution)"),
    "ss_eps_delta_paper": ("SMOOTHSENS_eps,delta, t tuned on the data", "NOT private (paper's tuning)"),
    "laplaceln_paper": ("LAPLACELN, t tuned on the data", "NOT private (paper's tuning)"),
    "ss_eps_delta_lib": ("SMOOTHSENS_eps,delta, library default t", "(eps, 1/n)-DP"),
    "laplaceln_lib": ("LAPLACELN, library default t", "(eps, 1/n)-DP via [BS19] Lemma 9"),
    "ss_nrs_delta": ("SS, delta=1/n, [GM-Duff-short] Prop. 2 parameters", "(eps, 1/n)-DP"),
    "ss_nrs_delta09": ("SS, delta=0.9, [GM-Duff-short] Prop. 2 parameters", "NOT private (delta = 0.9)"),
    "laplaceln_rho": ("LAPLACELN at rho=eps^2/2, t tuned on the data",
                      "NOT (eps, 1/n)-DP: eps^2/2-zCDP, paper tuning"),
}
# [GM-Duff-short] Table 1: N(0,1), mean |T - M| x 100 (sd across datasets), at eps = 0.5, 1, 2
PAPER_TABLE1 = {
    "SS, delta = 0": ("ss_eps", [(64.3, 17.4), (22.6, 10.8), (7.9, 5.3)]),
    "SS, delta = 0.001": ("ss_nrs_delta", [(14.8, 2.5), (4.0, 0.8), (1.2, 0.3)]),
    "SS, delta = 0.9": ("ss_nrs_delta09", [(2.8, 1.0), (1.1, 0.7), (0.4, 0.2)]),
    "Duff": ("duff", [(0.6, 0.1), (0.3, 0.1), (0.2, 0.1)]),
}
# [GM-Duff] §6.1: error ratio (baseline / Duff) on N(0,1) at eps = 0.1 and eps = 2
PAPER_RATIOS = {"ss_eps": (187, 34), "ss_eps_delta_paper": (130, 4), "laplaceln_paper": (4, 15)}


def _fixed_params(eps: float) -> dict[str, dict[str, Any]]:
    """Parameters that do not depend on the data (per distribution bounds)."""
    return {"ss_eps": B.smoothsens_eps(N, eps), "ss_nrs_delta": B.nrs_laplace(eps, DELTA),
            "ss_nrs_delta09": B.nrs_laplace(eps, 0.9)}


def _privacy_check(bounds: tuple[float, float], params: dict[str, Any]) -> Any:
    """The library's privacy map at d_in = 1 for a measurement built from ``params``."""
    space = vector_domain(atom_domain(T=float, bounds=bounds), size=N), change_one_distance()
    return (space >> dpt.then_sort() >> dpm.then_smooth_median(**params)).map(1)


def _duff_privacy(bounds: tuple[float, float], eps: float) -> Any:
    space = vector_domain(atom_domain(T=float, bounds=bounds)), symmetric_distance()
    return (space >> dpt.then_sort() >> dpm.then_duff_median(scale=2.0 / eps)).map(1)


def _errors_one_dataset(xs: np.ndarray, truth: float, bounds: tuple[float, float], eps: float,
                        fixed: dict[str, Any], lib: dict[str, Any], releases: int) -> dict[str, float]:
    """Mean |truth - release| per mechanism on one sorted, clipped dataset."""
    a, b = bounds
    out = {}

    def err(r):
        return float(np.mean(np.abs(truth - np.clip(r, a, b))))

    out["duff"] = err(duff_median_releases(xs, bounds, eps, releases))
    for key in ("ss_eps", "ss_nrs_delta", "ss_nrs_delta09"):
        out[key] = err(smooth_median_releases(xs, bounds, fixed[key], releases))
    for key, params in lib.items():
        out[key] = err(smooth_median_releases(xs, bounds, params, releases))
    tuned = {"ss_eps_delta_paper": B.smoothsens_eps_delta(N, bounds, eps, DELTA, reference=xs),
             "laplaceln_paper": B.laplaceln(N, bounds, eps, DELTA, reference=xs),
             "laplaceln_rho": B.laplaceln(N, bounds, eps, DELTA, reference=xs, rho=eps ** 2 / 2)}
    for key, params in tuned.items():
        out[key] = err(smooth_median_releases(xs, bounds, params, releases))
    return out


def compute(*, quick: bool = False, data_seed: int = 5, progress: Progress | None = None) -> dict[str, Any]:
    """Run the experiment (no files written).  The mechanisms draw from the randomness in force
    (see :func:`opendp_duff.experiments._common.mechanism_randomness`).

    Returns ``{"errors": {distribution: {eps: {mechanism: [mean |T - M| per dataset]}}},
    "privacy": {distribution: {eps: maps}}, "timing": ..., "datasets", "releases", "n", ...}``."""
    datasets, releases = (3, 20) if quick else (100, 100)
    progress = progress or Progress(NAME)
    errors: dict[str, dict[float, dict[str, list[float]]]] = {
        d: {e: {k: [] for k in MECHANISMS} for e in EPSILONS} for d in DISTRIBUTIONS}
    privacy: dict[str, dict[float, dict[str, Any]]] = {d: {} for d in DISTRIBUTIONS}
    timing: dict[str, float] = {}
    for di, (dname, (bounds, gen)) in enumerate(DISTRIBUTIONS.items()):
        rng = np.random.default_rng([data_seed, di])
        raw = [gen(rng, N) for _ in range(datasets)]
        truths = [float(np.median(x)) for x in raw]            # before clipping (paper)
        sorted_clipped = [np.sort(np.clip(x, *bounds)) for x in raw]
        for eps in EPSILONS:
            t0 = time.monotonic()
            fixed = _fixed_params(eps)
            lib = {"ss_eps_delta_lib": B.smoothsens_eps_delta(N, bounds, eps, DELTA),
                   "laplaceln_lib": B.laplaceln(N, bounds, eps, DELTA)}
            privacy[dname][eps] = {
                "duff": _duff_privacy(bounds, eps),
                "ss_eps": _privacy_check(bounds, fixed["ss_eps"]),
                "ss_nrs_delta": _privacy_check(bounds, fixed["ss_nrs_delta"]),
                "ss_eps_delta_lib": _privacy_check(bounds, lib["ss_eps_delta_lib"]),
                "laplaceln_lib": _privacy_check(bounds, lib["laplaceln_lib"]),
                "t_lib": {k: p["t"] for k, p in lib.items()}}
            for xs, truth in zip(sorted_clipped, truths, strict=True):
                one = _errors_one_dataset(xs, truth, bounds, eps, fixed, lib, releases)
                for k, e in one.items():
                    errors[dname][eps][k].append(e)
            timing[f"{dname} eps={eps}"] = time.monotonic() - t0
            progress(f"{dname:14s} eps={eps:<5g} {datasets} datasets x {releases} releases: "
                     f"Duff {np.mean(errors[dname][eps]['duff']):.4g}, "
                     f"SMOOTHSENS_eps {np.mean(errors[dname][eps]['ss_eps']):.4g}")
    return {"datasets": datasets, "releases": releases, "n": N, "delta": DELTA,
            "epsilons": list(EPSILONS), "errors": errors, "privacy": privacy, "timing": timing,
            "data_seed": data_seed}


def _stat(res: dict[str, Any], dname: str, eps: float, key: str) -> tuple[float, float]:
    """Mean over datasets and standard deviation across datasets of one cell's errors."""
    v = np.asarray(res["errors"][dname][eps][key], dtype=np.float64)
    return float(np.mean(v)), float(np.std(v))


def markdown(res: dict[str, Any]) -> str:
    """The report's tables: every mechanism per distribution, [GM-Duff-short] Table 1 and
    [GM-Duff] §6.1's ratios beside ours, and the privacy maps the library reports."""
    lines = [f"n = {res['n']}, delta = {res['delta']:g}, {res['datasets']} datasets x "
             f"{res['releases']} releases per (distribution, epsilon, mechanism). "
             "Entries: mean over datasets of the per-dataset mean |T(S) - M(S)|, x 100, "
             "with the standard deviation across datasets (x 100) in parentheses. "
             "Releases are clipped to [a, b].\n"]
    eps_list = res["epsilons"]
    for dname in DISTRIBUTIONS:
        rows = []
        for key, (label, priv) in MECHANISMS.items():
            cells = []
            for eps in eps_list:
                mu, sd = _stat(res, dname, eps, key)
                cells.append(f"{fmt(100 * mu)} ({fmt(100 * sd, 2)})")
            rows.append([f"{label} [{priv}]"] + cells)
        lines += [f"## {dname}\n", table(["mechanism"] + [f"eps={e:g}" for e in eps_list], rows), ""]

    lines += ["## Beside [GM-Duff-short] Table 1 (N(0,1), x 100)\n"]
    rows = []
    for name, (key, paper) in PAPER_TABLE1.items():
        for eps, (pm, psd) in zip((0.5, 1.0, 2.0), paper, strict=True):
            mu, sd = _stat(res, "N(0,1)", eps, key)
            rows.append([name, f"{eps:g}", f"{pm} (±{psd})", f"{fmt(100 * mu)} (±{fmt(100 * sd, 2)})",
                         fmt(100 * mu / pm, 3)])
    lines += [table(["row of Table 1", "eps", "paper", "ours", "ours / paper"], rows), ""]

    lines += ["## Headline ratios ([GM-Duff] §6.1): baseline error / Duff error on N(0,1)\n"]
    rows = []
    variants = {"ss_eps": ["ss_eps"], "ss_eps_delta_paper": ["ss_eps_delta_paper", "ss_eps_delta_lib"],
                "laplaceln_paper": ["laplaceln_paper", "laplaceln_lib", "laplaceln_rho"]}
    for pkey, (r01, r2) in PAPER_RATIOS.items():
        for key in variants[pkey]:
            ours = [_stat(res, "N(0,1)", e, key)[0] / _stat(res, "N(0,1)", e, "duff")[0] for e in (0.1, 2.0)]
            rows.append([MECHANISMS[key][0], f"{r01}x", fmt(ours[0]) + "x", f"{r2}x", fmt(ours[1]) + "x"])
    lines += [table(["baseline", "paper eps=0.1", "ours eps=0.1", "paper eps=2", "ours eps=2"], rows), ""]

    lines += ["## Privacy maps reported by the library (d_in = 1)\n"]
    rows = []
    for dname in DISTRIBUTIONS:
        for eps in eps_list:
            p = res["privacy"][dname][eps]
            rows.append([dname, f"{eps:g}", fmt(p["duff"]), fmt(p["ss_eps"]), str(_pair(p["ss_nrs_delta"])),
                         str(_pair(p["ss_eps_delta_lib"])), str(_pair(p["laplaceln_lib"])),
                         ", ".join(f"{fmt(t)}" for t in p["t_lib"].values())])
    lines += [table(["data", "eps", "Duff", "SS_eps", "SS NRS delta=1/n", "SS_eps,delta lib",
                     "LAPLACELN lib (zCDP rho; [BS19] Lemma 9 gives (eps, 1/n))",
                     "library t (SS_eps,delta, LLN)"], rows), ""]
    tm = res["timing"]
    lines += [f"Time per (distribution, epsilon) for all mechanisms: "
              f"{fmt(min(tm.values()), 2)}–{fmt(max(tm.values()), 2)} s.", ""]
    return "\n".join(lines)


def _pair(p: Any) -> str:
    if isinstance(p, (tuple, list)):
        return f"({fmt(p[0])}, {fmt(p[1])})"
    return fmt(p)


# Figure 1's lines: key -> (legend label, colour, marker, style)
FIGURE_LINES = {
    "duff": ("Duff (ε-DP)", "C0", "o", F.PRIVATE),
    "ss_eps": ("SMOOTHSENS_ε, Cauchy (ε-DP)", "C1", "s", F.PRIVATE),
    "ss_eps_delta_lib": ("SMOOTHSENS_ε,δ, default t ((ε, 1/n)-DP)", "C2", "^", F.PRIVATE),
    "ss_eps_delta_paper": ("SMOOTHSENS_ε,δ (t tuned on the data, NOT private)", "C2", "^", F.TUNED),
    "laplaceln_lib": ("LAPLACELN, default t ((ε, 1/n)-DP)", "C3", "D", F.PRIVATE),
    "laplaceln_paper": ("LAPLACELN (t tuned on the data, NOT private)", "C3", "D", F.TUNED),
}


def figures(res: dict[str, Any], plt: Any) -> dict[str, tuple[Any, str]]:
    """[GM-Duff] Figure 1 in the paper's layout: one panel per distribution, log-log axes, error
    bars = standard deviation across datasets; Duff drawn last, on top."""
    fig, axes = F.subplots(plt, 1, 3, 12.5, 4.0)
    eps = np.asarray(res["epsilons"])
    for ax, dname in zip(axes[0], DISTRIBUTIONS, strict=True):
        for key in [k for k in FIGURE_LINES if k != "duff"] + ["duff"]:
            label, colour, marker, style = FIGURE_LINES[key]
            stats = np.array([_stat(res, dname, e, key) for e in res["epsilons"]])
            extra = {"lw": 2.4, "zorder": 5} if key == "duff" else {}
            ax.errorbar(eps, stats[:, 0], yerr=stats[:, 1], color=colour, marker=marker, capsize=2,
                        label=label, **{**style, **extra})
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(eps)
        ax.set_xticklabels([f"{e:g}" for e in eps])
        ax.minorticks_off()
        ax.set_xlabel("privacy parameter ε")
        a, b = DISTRIBUTIONS[dname][0]
        ax.set_title(f"{dname}, bounds [{a:g}, {b:g}]", fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("mean |T(S) − M(S)| (data units)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    order = [labels.index(FIGURE_LINES[k][0]) for k in FIGURE_LINES]   # Duff first in the legend
    fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper center",
               bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8, frameon=False)
    title = (f"Private medians, n = {res['n']}, δ = 1/n: {res['datasets']} datasets × {res['releases']} "
             "releases per point ([GM-Duff] Figure 1)")
    return {"": (fig, title)}


def run(out_dir: str = "results", quick: bool = False, data_seed: int = 5, noise_seed: int | None = None,
        plots: bool = True, command: str | None = None) -> dict[str, Any]:
    """Run the experiment and write ``duff_medians[_quick].{json,md,png}`` into ``out_dir``;
    return the results as saved in the JSON file."""
    return _run(sys.modules[__name__], Options(out_dir, quick, data_seed, noise_seed, plots, command))
