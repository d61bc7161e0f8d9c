"""``real-medians``: per-class private medians of one real measurement, Duff against LAPLACELN
at eps = 0.5, in the manner of [GM-Duff] §6.2 (Figure 2).

The paper used UCI's vertebral-column data, which we cannot download at run time.  If
scikit-learn is installed (it is NOT a dependency of this library) we use a real dataset it
ships: the Wisconsin diagnostic breast-cancer data (``sklearn.datasets.load_breast_cancer``),
feature "mean radius", classes malignant (n = 212) and benign (n = 357) — like the paper's,
two clinical classes of a few hundred patients.  Otherwise a clearly labelled SYNTHETIC
stand-in is used (two classes of the paper's sizes, 100 and 210), and the output files are
named ``real_medians_synthetic.*``.

As in the paper: bounds [a, b] = the range of the two classes combined (a choice that looks at
the data; the paper made it too), eps = 0.5, delta = 1/n per class, 1000 releases per class and
mechanism (100 in quick mode).  LAPLACELN is shown with the paper's tuning of t on the data
(NOT private) and with the library's default t.

    python -m opendp_duff.experiments real-medians [--source auto|sklearn|synthetic] [--quick]
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import _baselines as B
from . import _figures as F
from ._batch import duff_median_releases, smooth_median_releases
from ._common import Progress, fmt, table
from ._runner import Options
from ._runner import run as _run

NAME = "real_medians"
COMMAND = "real-medians"
TITLE = "Per-class private medians in the manner of [GM-Duff] §6.2 (Figure 2)"
DRAWS_NOISE = True
EPSILON = 0.5
TUNED = "LAPLACELN, t tuned on the data (NOT private)"
DEFAULT = "LAPLACELN, library default t"
REAL_LABEL = "mean radius of the cell nuclei (the dataset's units)"
SYNTHETIC_LABEL = "synthetic value (arbitrary units)"


def load(source: str = "auto", data_seed: int = 5) -> tuple[str, dict[str, np.ndarray]]:
    """(description, {class name: values}); ``source`` is "auto", "sklearn" or "synthetic".
    A synthetic description starts with ``SYNTHETIC``."""
    if source in ("auto", "sklearn"):
        try:
            from sklearn.datasets import load_breast_cancer
        except ImportError:
            if source == "sklearn":
                raise
        else:
            d = load_breast_cancer()
            col = list(d.feature_names).index("mean radius")
            classes = {str(name): d.data[d.target == k, col].astype(np.float64)
                       for k, name in enumerate(d.target_names)}
            return ("REAL data: Wisconsin diagnostic breast cancer (shipped with scikit-learn), "
                    "feature 'mean radius'", classes)
    rng = np.random.default_rng([data_seed, 62])
    classes = {"class A (synthetic, n=100)": rng.normal(51.7, 12.4, 100),
               "class B (synthetic, n=210)": 40 + rng.lognormal(np.log(25.0), 0.45, 210)}
    why = "scikit-learn not installed" if source == "auto" else "chosen with --source synthetic"
    return (f"SYNTHETIC stand-in ({why}): two skewed classes of the paper's sizes, NOT real data",
            classes)


def compute(*, quick: bool = False, data_seed: int = 5, progress: Progress | None = None,
            source: str = "auto") -> dict[str, Any]:
    """Run the experiment (no files written); the mechanisms draw from the randomness in force.
    Returns ``{"description", "synthetic", "bounds", "classes": {name: {"n", "median", "data",
    "releases": {mechanism: clipped releases}}}, ...}``."""
    progress = progress or Progress(NAME)
    releases = 100 if quick else 1000
    description, classes = load(source, data_seed)
    synthetic = description.startswith("SYNTHETIC")
    allv = np.concatenate(list(classes.values()))
    bounds = (float(allv.min()), float(allv.max()))
    out: dict[str, Any] = {"description": description, "synthetic": synthetic,
                           "value_label": SYNTHETIC_LABEL if synthetic else REAL_LABEL, "bounds": bounds,
                           "epsilon": EPSILON, "releases": releases,
                           "data_seed": data_seed, "classes": {}}
    for name, x in classes.items():
        n = x.size
        xs = np.sort(x)
        delta = 1.0 / n
        rel = {"Duff": duff_median_releases(xs, bounds, EPSILON, releases),
               TUNED: smooth_median_releases(xs, bounds, B.laplaceln(n, bounds, EPSILON, delta, reference=xs),
                                             releases),
               DEFAULT: smooth_median_releases(xs, bounds, B.laplaceln(n, bounds, EPSILON, delta), releases)}
        rel = {k: np.clip(v, *bounds) for k, v in rel.items()}
        out["classes"][name] = {"n": n, "median": float(np.median(x)), "data": x, "releases": rel}
        progress(f"{name}: n={n}, {releases} releases per mechanism")
    return out


def file_suffix(res: dict[str, Any]) -> str:
    """``_synthetic`` when the synthetic stand-in was used, so the two runs never overwrite each other."""
    return "_synthetic" if res["synthetic"] else ""


def markdown(res: dict[str, Any]) -> str:
    """The report's table: per class and mechanism, the mean absolute error and the central 90%."""
    lines = [f"{res['description']}. eps = {res['epsilon']}, delta = 1/n per class, bounds = "
             f"[{fmt(res['bounds'][0], 4)}, {fmt(res['bounds'][1], 4)}] (the combined range, as in the "
             f"paper), {res['releases']} releases per class and mechanism, clipped to the bounds.\n"]
    rows = []
    for name, c in res["classes"].items():
        for mech, r in c["releases"].items():
            lo, hi = np.quantile(r, [0.05, 0.95])
            rows.append([name, str(c["n"]), fmt(c["median"], 4), mech,
                         fmt(np.mean(np.abs(np.asarray(r) - c["median"])), 3), f"[{fmt(lo, 4)}, {fmt(hi, 4)}]"])
    lines += [table(["class", "n", "median", "mechanism", "mean abs error", "5–95% of releases"], rows), ""]
    return "\n".join(lines)


def figures(res: dict[str, Any], plt: Any) -> dict[str, tuple[Any, str]]:
    """[GM-Duff] Figure 2's layout: normalised histograms of the data and of each mechanism's
    releases per class, with each class's (non-private) median as a vertical line."""
    panels = [("the data (non-private)", None), (TUNED, TUNED), (DEFAULT + " ((ε, 1/n)-DP)", DEFAULT),
              ("Duff (ε-DP)", "Duff")]
    fig, axes = F.subplots(plt, 1, len(panels), 3.3 * len(panels), 3.3, sharex=True)
    bins = np.linspace(float(res["bounds"][0]), float(res["bounds"][1]), 50)
    for ax, (title, key) in zip(axes[0], panels, strict=True):
        for k, (name, c) in enumerate(res["classes"].items()):
            v = c["data"] if key is None else c["releases"][key]
            label = name if f"n={c['n']}" in name else f"{name} (n = {c['n']})"
            ax.hist(v, bins=bins, density=True, alpha=0.5, color=f"C{k}", label=label)
            ax.axvline(c["median"], color=f"C{k}", lw=1.2, ls=":",
                       label=f"{name}: median of the data (non-private reference)")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(res["value_label"], fontsize=8)
    axes[0][0].set_ylabel("density (per unit of the x axis)", fontsize=8)
    F.legend_below(fig, axes[0][0], ncol=2)
    what = "synthetic stand-in (NOT real data)" if res["synthetic"] else "breast-cancer data, 'mean radius'"
    title = (f"Per-class private medians, {what}: ε = {res['epsilon']:g}, δ = 1/n, "
             f"{res['releases']} releases per class ([GM-Duff] Figure 2's layout)")
    return {"": (fig, title)}


def run(out_dir: str = "results", quick: bool = False, data_seed: int = 5, noise_seed: int | None = None,
        plots: bool = True, command: str | None = None, source: str = "auto") -> dict[str, Any]:
    """Run the experiment and write ``real_medians[_synthetic][_quick].{json,md,png}`` into
    ``out_dir``; return the results as saved."""
    return _run(sys.modules[__name__],
                Options(out_dir, quick, data_seed, noise_seed, plots, command, {"source": source}))
