"""``real-medians``: the spirit of the Duff paper's §6.2 (file 000, Figure 2): per-class
private medians of one real measurement, Duff against LAPLACELN, at eps = 0.5.

The paper used UCI's vertebral-column data, which we cannot download at run time.  If
scikit-learn is installed (it is NOT a dependency of this library) we use a real dataset it
ships: the Wisconsin diagnostic breast-cancer data (``sklearn.datasets.load_breast_cancer``),
feature "mean radius", classes malignant (n = 212) and benign (n = 357) — like the paper's,
two clinical classes of a few hundred patients.  Otherwise a clearly labelled SYNTHETIC
stand-in is used (two classes of the paper's sizes, 100 and 210).

As in the paper: bounds [a, b] = the range of the two classes combined (a choice that looks at
the data; the paper made it too), eps = 0.5, delta = 1/n per class, 1000 releases per class and
mechanism (100 in quick mode).  LAPLACELN is shown with the paper's tuning of t on the data
(NOT private) and with the library's default t.
"""
import os
import time

import numpy as np

from . import _baselines as B
from ._batch import duff_median_releases, smooth_median_releases
from ._common import Progress, fmt, header, mechanism_randomness, pyplot, save, table

NAME = "real_medians"
EPSILON = 0.5


def load(source="auto", data_seed=5):
    """(description, {class name: values}); ``source`` is "auto", "sklearn" or "synthetic"."""
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


def compute(quick=False, data_seed=5, noise_seed=None, source="auto", progress=None):
    progress = progress or Progress(NAME)
    releases = 100 if quick else 1000
    description, classes = load(source, data_seed)
    allv = np.concatenate(list(classes.values()))
    bounds = (float(allv.min()), float(allv.max()))
    out = {"description": description, "bounds": bounds, "epsilon": EPSILON, "releases": releases,
           "data_seed": data_seed, "noise_seed": noise_seed, "classes": {}}
    with mechanism_randomness(noise_seed):
        for name, x in classes.items():
            n = x.size
            xs = np.sort(x)
            delta = 1.0 / n
            rel = {"Duff": duff_median_releases(xs, bounds, EPSILON, releases),
                   "LAPLACELN, t tuned on the data (NOT private)": smooth_median_releases(
                       xs, bounds, B.laplaceln(n, bounds, EPSILON, delta, reference=xs), releases),
                   "LAPLACELN, library default t": smooth_median_releases(
                       xs, bounds, B.laplaceln(n, bounds, EPSILON, delta), releases)}
            rel = {k: np.clip(v, *bounds) for k, v in rel.items()}
            out["classes"][name] = {"n": n, "median": float(np.median(x)), "data": x, "releases": rel}
            progress(f"{name}: n={n}, {releases} releases per mechanism")
    return out


def markdown(res, command, seconds):
    lines = [header("Per-class private medians: the spirit of file 000 §6.2 (Figure 2)", command,
                    res["releases"] < 1000, res["data_seed"], res["noise_seed"], seconds)]
    lines.append(f"{res['description']}. eps = {res['epsilon']}, delta = 1/n per class, bounds = "
                 f"[{fmt(res['bounds'][0], 4)}, {fmt(res['bounds'][1], 4)}] (the combined range, as in the "
                 f"paper), {res['releases']} releases per class and mechanism, clipped to the bounds.\n")
    rows = []
    for name, c in res["classes"].items():
        for mech, r in c["releases"].items():
            lo, hi = np.quantile(r, [0.05, 0.95])
            rows.append([name, str(c["n"]), fmt(c["median"], 4), mech, fmt(np.mean(np.abs(r - c["median"])), 3),
                         f"[{fmt(lo, 4)}, {fmt(hi, 4)}]"])
    lines += [table(["class", "n", "median", "mechanism", "mean abs error", "5–95% of releases"], rows), ""]
    return "\n".join(lines)


def plot(res, path):
    plt = pyplot()
    if plt is None:
        return False
    mechs = list(next(iter(res["classes"].values()))["releases"])
    panels = [("data", None), (mechs[1], mechs[1]), (mechs[2], mechs[2]), ("Duff", "Duff")]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.0), sharex=True)
    bins = np.linspace(*res["bounds"], 50)
    for ax, (title, key) in zip(axes, panels):
        for k, (name, c) in enumerate(res["classes"].items()):
            v = c["data"] if key is None else c["releases"][key]
            ax.hist(v, bins=bins, density=True, alpha=0.5, color=f"C{k}", label=name)
            ax.axvline(c["median"], color=f"C{k}", lw=1)
        ax.set_title(title, fontsize=8)
    axes[0].legend(fontsize=6)
    fig.suptitle(f"{res['description'][:90]}; eps={res['epsilon']}", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=70)
    plt.close(fig)
    return True


def run(out_dir, quick=False, data_seed=5, noise_seed=None, plots=True, command=None, source="auto"):
    os.makedirs(out_dir, exist_ok=True)
    progress = Progress(NAME)
    start = time.monotonic()
    res = compute(quick, data_seed, noise_seed, source, progress)
    seconds = time.monotonic() - start
    command = command or f"python -m opendp_duff.experiments real-medians{' --quick' if quick else ''}"
    md = markdown(res, command, seconds)
    png = os.path.join(out_dir, f"{NAME}.png")
    drawn = plots and plot(res, png)
    md += f"\n![per-class histograms]({NAME}.png)\n" if drawn else "\n(plot skipped: matplotlib not installed)\n"
    path = save(out_dir, NAME, md, res)
    progress(f"wrote {path}" + (f" and {png}" if drawn else " (plot skipped)"))
    return res
