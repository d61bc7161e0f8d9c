"""Smooth sensitivity: time as a ratio to np.sort and to the O(n^2) brute force, same run.

    python benchmarks/bench_smooth_sensitivity.py            # n = 1e3 .. 1e7
    python benchmarks/bench_smooth_sensitivity.py --max-n 1e6
    python benchmarks/bench_smooth_sensitivity.py --smoke    # SMOKE: checks that it runs (figures meaningless)

Data: N(0, 1), sorted, bounds [-10, 10].  "sort" is np.sort of the same data (unsorted copy);
"brute" is the quadratic evaluation of [BS19] Prop. 40 over every (k, l), numpy-
vectorised, run where n <= 1e4.  Target: ratio to sort < 0.1 at n = 1e7, t >= 0.01.
The adversarial rows use distinct records spaced 1e-300 apart around 0 (local sensitivity
~1e-300, so early stopping cannot help): the window grows to min(n, ~1400/t) and the divide
and conquer costs O(window log window); t = 1e-5 makes the window all of n, the O(n log n)
fallback.  (All-equal records are cheap: tied rows and columns are merged first.)
"""
import functools
import time

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp

SMOKE = {"max_n": 1e3, "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def brute_force(x, p, q, t, lo, hi):
    """max over 0 <= i <= p, q <= j <= n+1 with k = j - i - w >= 0 of (x_j - x_i) e^{-kt} / w."""
    n, w = x.size, q - p + 1
    xp = np.concatenate(([lo], np.clip(x, lo, hi), [hi]))
    out = 0.0
    for i in range(p + 1):  # row by row to bound memory: O(n^2) time
        j = np.arange(max(q, i + w), n + 2)
        if j.size:
            out = max(out, float(np.max((xp[j] - xp[i]) * np.exp(-(j - i - w) * t))))
    return out / w


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--max-n", type=float, default=1e7)
    args = ap.parse_args()
    if args.smoke:
        args.max_n = SMOKE["max_n"]
    rng = np.random.default_rng(0)
    bounds = (-10.0, 10.0)
    print(f"{'n':>9} {'statistic':>13} {'t':>6} {'ss time':>9} {'/ sort':>8} {'/ brute':>9}  value")
    n = 1000
    while n <= args.max_n:
        raw = rng.normal(size=n)
        repeat = SMOKE["repeat"] if args.smoke else 5 if n <= 10**6 else 2
        t_sort = best_time(np.sort, raw, repeat=repeat)
        x = np.sort(raw)
        m = n // 10
        for name, fn, fargs, (p, q) in (
                ("median", dp.smooth_sensitivity_median, (x,), ((n + 1) // 2, (n + 1) // 2)),
                ("trimmed 10%", functools.partial(dp.smooth_sensitivity_trimmed_mean, m=m), (x,), (m + 1, n - m))):
            for t in (0.01, 0.1):
                t_ss = best_time(fn, *fargs, t, bounds, repeat=repeat)
                value = fn(*fargs, t, bounds)
                brute = ""
                if n <= 10**4:
                    t0 = time.perf_counter()
                    ref = brute_force(x, p, q, t, *bounds)
                    t_bf = time.perf_counter() - t0
                    assert ref <= value <= ref * (1 + 1e-9), (ref, value)
                    brute = f"{t_ss / t_bf:9.2e}"
                print(f"{n:>9} {name:>13} {t:>6} {t_ss:9.2e} {t_ss / t_sort:8.4f} {brute:>9}  {value:.4g}")
        n *= 10
    print("\nadversarial: distinct records spaced 1e-300 apart, median")
    n = 1000
    while n <= args.max_n:
        raw = rng.normal(size=n)
        t_sort = best_time(np.sort, raw, repeat=SMOKE["repeat"] if args.smoke else 2)
        x = (np.arange(n) - n // 2) * 1e-300
        for t in (0.01, 1e-5):
            t_ss = best_time(dp.smooth_sensitivity_median, x, t, bounds, repeat=1)
            print(f"{n:>9} {'median, adv.':>13} {t:>6} {t_ss:9.2e} {t_ss / t_sort:8.4f}")
        t_ss = best_time(dp.smooth_sensitivity_median, np.zeros(n), 1e-5, bounds, repeat=1)
        print(f"{n:>9} {'median, ties':>13} {1e-5:>6} {t_ss:9.2e} {t_ss / t_sort:8.4f}")
        n *= 10


if __name__ == "__main__":
    main()
