"""Speed of report_noisy_max_gumbel and duff_mode, as ratios to numpy baselines run in the same process.

    python benchmarks/bench_noisy_max.py [--n 1000000]
    python benchmarks/bench_noisy_max.py --smoke     # SMOKE: checks that it runs (figures meaningless)

* report_noisy_max_gumbel on k scores vs. a bare race ``argmax(scores + k secure Gumbels)``
  (the floor: the noise must be drawn) and vs. ``np.argmax`` (the non-private answer).
* duff_mode on n records with 100 candidates vs. ``np.unique(..., return_counts=True)`` (the
  non-private mode): counting is a sort-free searchsorted + bincount.
"""

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp
from opendp_duff import samplers

SMOKE = {"n": 1_000, "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--n", type=int, default=1_000_000)
    args = ap.parse_args()
    n, repeat = (SMOKE["n"], SMOKE["repeat"]) if args.smoke else (args.n, 5)
    rng = np.random.default_rng(0)

    scores = rng.normal(size=n)
    m = dp.m.make_report_noisy_max_gumbel(dp.vector_domain(dp.atom_domain(T=float)),
                                          dp.inf_difference_distance(), scale=1.0)
    base = best_time(lambda: np.argmax(scores), repeat=repeat)
    noise = best_time(lambda: np.argmax(scores + samplers.standard_gumbel(n)), repeat=repeat)
    mech = best_time(lambda: m(scores), repeat=repeat)
    print(f"report_noisy_max_gumbel, k={n}: {mech:.4f} s = {mech / noise:.2f}x a bare Gumbel race "
          f"({noise:.4f} s), {mech / base:.0f}x np.argmax ({base:.4f} s)")

    data = rng.integers(0, 100, size=n)
    mode = dp.m.make_duff_mode(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance(),
                               candidates=list(range(100)), scale=1.0)
    base = best_time(lambda: np.unique(data, return_counts=True), repeat=repeat)
    mech = best_time(lambda: mode(data), repeat=repeat)
    print(f"duff_mode, n={n}, 100 candidates: {mech:.4f} s = {mech / base:.2f}x np.unique ({base:.4f} s)")


if __name__ == "__main__":
    main()
