"""Key discovery (``make_threshold_keys``) over many keys, as ratios measured in the same process.

    python benchmarks/bench_threshold_keys.py [--max-keys 10000]
    python benchmarks/bench_threshold_keys.py --smoke     # SMOKE: checks that it runs (figures meaningless)

For 1e3, 1e4 and 1e5 keys (counts drawn from a Zipf law, most of them small), times one
release of ``count_by_key >> threshold_keys`` (Laplace and Gaussian noise, calibrated for
(epsilon, delta) = (1, 1e-6) or (rho, delta) = (0.5, 1e-6)) against two baselines on the same
records: ``np.unique`` with counts (the counting alone) and the float-path noise plus comparison
(``numpy`` Laplace/normal noise on the counts, not exact and not for releases).  Also times the
calibration helper and the accuracy figures, which run once per query.
"""
import time
from functools import partial

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp
from opendp_duff.accuracy import duff_median_accuracy, gaussian_accuracy, threshold_keys_accuracy
from opendp_duff.measurements.threshold_keys import threshold_keys_parameters

KEYS = (1_000, 10_000, 100_000)
SMOKE = {"keys": (100,), "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def float_path(counts, rng):
    """The baseline: float-path Laplace noise on the counts and the comparison (not for releases)."""
    return (counts + rng.laplace(0.0, 1.0, counts.size)) >= 14.0


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--max-keys", type=int, default=10_000)
    args = ap.parse_args()
    sizes, repeat = (SMOKE["keys"], SMOKE["repeat"]) if args.smoke else (KEYS, 3)
    rows = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    rng = np.random.default_rng(0)
    laplace = threshold_keys_parameters((1, 1, 1), 1e-6, epsilon=1.0)
    gaussian = threshold_keys_parameters((1, 1, 1), 1e-6, rho=0.5)
    for keys in sizes:
        if keys > args.max_keys:
            continue
        x = rng.zipf(1.3, 20 * keys) % keys           # about `keys` distinct values, most rare
        distinct = np.unique(x).size
        t_unique = best_time(partial(np.unique, x, return_counts=True), repeat=repeat)
        _, counts = np.unique(x, return_counts=True)
        t_float = best_time(float_path, counts, rng, repeat=repeat)
        for name, (scale, threshold), noise in (("laplace", laplace, "laplace"), ("gaussian", gaussian, "gaussian")):
            meas = rows >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=scale, threshold=threshold,
                                                                                noise=noise)
            t_release = best_time(meas, x, repeat=1)
            released = len(meas(x))
            print(f"{distinct:>7} keys, {x.size:>8} rows, {name:>8}: release {t_release:7.3f} s = "
                  f"{t_release / t_unique:7.1f} x np.unique, {t_release / t_float:8.1f} x float-path noise; "
                  f"{released} keys released")
    t0 = time.perf_counter()
    threshold_keys_parameters((3, 3, 1), 1e-8, rho=0.1)
    t_params = time.perf_counter() - t0
    t0 = time.perf_counter()
    gaussian_accuracy(2.0, 0.05), threshold_keys_accuracy(1.0, 0.05, threshold=14.0, noise="gaussian")
    duff_median_accuracy(2.0, 0.05, bounds=(0.0, 100.0), spread=0.5)
    t_acc = time.perf_counter() - t0
    t_base = best_time(lambda: np.unique(rng.integers(0, 1000, 10_000)), repeat=repeat)
    print(f"once per query: calibration (Gaussian) {t_params / t_base:.0f} x, three accuracy figures "
          f"{t_acc / t_base:.0f} x np.unique of 1e4 integers")


if __name__ == "__main__":
    main()
