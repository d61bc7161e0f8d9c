"""Duff median: accuracy ([GM-Duff-short] Table 1) and speed.

    python benchmarks/bench_duff_median.py            # full: 100 datasets x 100 releases
    python benchmarks/bench_duff_median.py --quick    # 20 datasets x 50 releases, n = 1e6 only
    python benchmarks/bench_duff_median.py --no-speed / --no-accuracy
    python benchmarks/bench_duff_median.py --smoke    # SMOKE: checks that it runs (figures meaningless)

(a) Accuracy: n = 1000 N(0, 1) records, true median T (the lower median, the
paper's convention) computed before clipping to [-10, 10]; epsilon in {0.5, 1, 2}
with scale = 2 / epsilon; mean |T - M| x 100 over datasets x releases.  The paper
reports Duff 0.6 (0.1) / 0.3 (0.1) / 0.2 (0.1), the parenthesis being the standard
deviation across datasets.

(b) Speed, as ratios to baselines measured in the same run (medians of interleaved
repeats): ``clamp >> duff_median`` on unsorted input vs one ``np.partition`` of the same
array (target <= 1.5x at 1e7) and vs ``np.clip`` + ``np.sort``: the chain is fused (the
clamp left to the selection, one pass over the raw records, no clamped copy); for reference,
the parts of the unfused composition (the clamp, the selection of the window on the clamped
copy, the rest) as ratios to the partition, and the fused kernel alone (``select_window(x,
..., clip=(lo, hi))`` on the raw array) vs the partition;
``clamp >> sort >> duff_median`` vs ``np.clip`` + ``np.sort`` (target <= 1.5x); the median
step alone on sorted input vs ``np.sort`` (target <= 0.5x); and, when they import, OpenDP's
``make_private_quantile`` (1000 candidates) and diffprivlib's ``median`` (neither is a
dependency; a peer that fails to import is skipped).
Data generation uses numpy's generator (public benchmark data); releases use the
library's secure default randomness.
"""
import statistics
from functools import partial

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp

# --smoke: the test that runs every benchmark (tests/system)
SMOKE = {"datasets": 2, "releases": 3, "sizes": [10_000], "repeats": 1}


def duff_median_chain(lo, hi, scale, sort=True):
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    clamped = space >> dp.t.then_clamp(bounds=(lo, hi))
    return (clamped >> dp.t.then_sort() if sort else clamped) >> dp.m.then_duff_median(scale=scale)


def selection_parts(x, lo, hi, scale):
    """Where the unsorted chain's time goes: the clamp, the selection of the window (one pass,
    the window's sort, its ties), the rest (levels, bounds, the race); and the selection with
    the clamp left to the kernel, on the raw records (fused)."""
    import importlib

    from opendp_duff.measurements import duff_sampler
    from opendp_duff.engines import SelectedRecords
    from opendp_duff.engines.selection import select_window
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    clamp = space >> dp.t.then_clamp(bounds=(lo, hi))
    y = clamp(x)
    n = y.size
    utility = importlib.import_module("opendp_duff.duff_utility")   # the package's duff_utility is a function
    r = utility.quantile_best_gap(n, 1, 2)
    k = utility.quantile_window(n, scale)
    first, last = max(r - k, 1), min(r + k + 1, n)
    sampler = duff_sampler._QuantileSampler(SelectedRecords(y), lo, hi, 0.5, scale)
    parts = {"clamp": lambda: clamp(x), "window selection": lambda: SelectedRecords(y).window(first, last),
             "race and uniform": sampler.sample}
    fused = {"fused clamp and selection": lambda: select_window(x, first, last, clip=(lo, hi))}
    return parts, fused


def exact_mean_abs_error(x_sorted, bounds, scale, t):
    """E|M - t| for the Duff median's law, computed from its step function (no sampling):
    an independent check of the Monte Carlo figure."""
    sf = dp.duff_utility(x_sorted, "median", bounds=bounds)
    keep = sf.right > sf.left
    lo, hi, lev = sf.left[keep], sf.right[keep], sf.levels[keep]
    lw = np.log(hi - lo) + (lev - lev.max()) / scale
    w = np.exp(lw - lw.max())
    a, b = lo - t, hi - t  # E|U - t| for U uniform on [lo, hi]
    e = np.where(a >= 0, (a + b) / 2, np.where(b <= 0, -(a + b) / 2, (a * a + b * b) / (2 * (b - a))))
    return float(w @ e / w.sum())


def accuracy(n_datasets, n_releases, n=1000, seed=0):
    print(f"(a) accuracy: n={n} N(0,1) clipped to [-10, 10], {n_datasets} datasets x "
          f"{n_releases} releases; mean |T - M| x 100 (sd across datasets)")
    paper = {0.5: 0.6, 1.0: 0.3, 2.0: 0.2}
    rng = np.random.default_rng(seed)
    data = [rng.normal(size=n) for _ in range(n_datasets)]
    for eps in (0.5, 1.0, 2.0):
        m = duff_median_chain(-10.0, 10.0, 2.0 / eps)
        per_dataset, exact = [], []
        for x in data:
            t = np.sort(x)[(n + 1) // 2 - 1]  # lower median, before clipping
            releases = np.array([m(x) for _ in range(n_releases)])
            per_dataset.append(np.mean(np.abs(releases - t)))
            exact.append(exact_mean_abs_error(np.sort(np.clip(x, -10, 10)), (-10.0, 10.0), 2.0 / eps, t))
        per_dataset, exact = np.array(per_dataset) * 100, np.array(exact) * 100
        se = per_dataset.std(ddof=1) / np.sqrt(n_datasets)
        print(f"    eps={eps:<4}  Duff {per_dataset.mean():.2f} ({per_dataset.std(ddof=1):.2f})"
              f"  [s.e. {se:.2f}; exact expectation {exact.mean():.2f}]"
              f"   paper {paper[eps]} (0.1)   map(1)={m.map(1)}")


def clip_sort(x):
    """The non-private baseline of the whole chain: np.clip then np.sort."""
    return np.sort(np.clip(x, 0.0, 1.0))


def speed(sizes, repeats):
    print("(b) speed: ratios to baselines measured in this run (medians of "
          f"{repeats} interleaved runs); uniform floats on [0, 1], eps = 1")
    peers = {}
    try:
        import opendp.prelude as odp
        odp.enable_features("contrib")
        dom = odp.vector_domain(odp.atom_domain(T=float, nan=False))
        peers["OpenDP make_private_quantile (1000 candidates)"] = odp.m.make_private_quantile(
            dom, odp.symmetric_distance(), odp.max_divergence(),
            candidates=list(np.linspace(0.0, 1.0, 1000)), alpha=0.5, scale=2.0)
    except Exception as exc:  # noqa: BLE001 - a peer that will not import is skipped
        print(f"    (OpenDP skipped: {type(exc).__name__}: {exc})")
    try:
        import warnings
        from diffprivlib.tools import median as dpl_median

        def dpl(x):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return dpl_median(x, epsilon=1.0, bounds=(0.0, 1.0))
        peers["diffprivlib median"] = dpl
    except Exception as exc:  # noqa: BLE001
        print(f"    (diffprivlib skipped: {type(exc).__name__}: {exc})")

    sorted_space = (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True),
                    dp.symmetric_distance())
    step = dp.m.make_duff_median(*sorted_space, scale=2.0)
    chain = duff_median_chain(0.0, 1.0, 2.0)
    unsorted_chain = duff_median_chain(0.0, 1.0, 2.0, sort=False)
    rng = np.random.default_rng(1)
    for n in sizes:
        x = rng.uniform(0.0, 1.0, size=n)
        xs = np.sort(x)
        parts, fused = selection_parts(x, 0.0, 1.0, 2.0)
        timed = {"np.partition": partial(np.partition, x, n // 2), "np.clip+np.sort": partial(clip_sort, x),
                 "np.sort": partial(np.sort, x), "unsorted chain": partial(unsorted_chain, x),
                 "sorted chain": partial(chain, x), **parts, **fused}
        # interleaved repeats, median of each: load from other processes hits every timing alike
        runs = {name: [] for name in timed}
        step_runs = []
        for _ in range(repeats):
            for name, f in timed.items():
                runs[name].append(best_time(f, repeat=1))
            step_runs.append(best_time(step, xs, repeat=3))
        t = {name: statistics.median(v) for name, v in runs.items()}
        t_step = statistics.median(step_runs)
        t_part, t_clip_sort = t["np.partition"], t["np.clip+np.sort"]
        print(f"    n={n:.0e}: np.partition {t_part:.3f}s, np.clip+np.sort {t_clip_sort:.3f}s, "
              f"np.sort {t['np.sort']:.3f}s")
        print(f"        clamp>>duff_median (fused), unsorted input / np.partition = {t['unsorted chain'] / t_part:.3f}x"
              f"   (target <= 1.5x at 1e7; / (np.clip+np.sort) = {t['unsorted chain'] / t_clip_sort:.3f}x)")
        print("            unfused, for reference: " + ", ".join(f"{name} {t[name] / t_part:.3f}x" for name in parts))
        print(f"        select_window(raw, clip=(lo, hi)), the clamp fused / np.partition = "
              f"{t['fused clamp and selection'] / t_part:.3f}x")
        print(f"        clamp>>sort>>duff_median / (np.clip+np.sort) = {t['sorted chain'] / t_clip_sort:.3f}x"
              f"   (target <= 1.5x)")
        print(f"        duff_median step on sorted input / np.sort   = {t_step / t['np.sort']:.4f}x"
              f"   (target <= 0.5x; {t_step * 1e3:.2f} ms)")
        for name, peer in peers.items():
            try:
                t_peer = best_time(peer, x, repeat=repeats)
                print(f"        {name} / (np.clip+np.sort) = {t_peer / t_clip_sort:.3f}x")
            except Exception as exc:  # noqa: BLE001
                print(f"        {name}: failed ({type(exc).__name__}: {str(exc)[:80]})")
    # degenerate data (all records equal), for the peers too
    ident = np.full(3000, 0.5)
    print(f"    3000 identical values: duff_median -> {chain(ident):.4f}")
    for name, peer in peers.items():
        try:
            print(f"    3000 identical values: {name} -> {float(peer(ident)):.4f}")
        except Exception as exc:  # noqa: BLE001
            print(f"    3000 identical values: {name} raises {type(exc).__name__}: {str(exc)[:60]}")


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="20 datasets x 50 releases; n = 1e6 only")
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    if not args.no_accuracy:
        accuracy(*((SMOKE["datasets"], SMOKE["releases"]) if args.smoke else (20, 50) if args.quick else (100, 100)))
    if not args.no_speed:
        if args.smoke:
            speed(SMOKE["sizes"], SMOKE["repeats"])
        else:
            speed([10 ** 6] if args.quick else [10 ** 6, 10 ** 7], 7)


if __name__ == "__main__":
    main()
