"""Cost of the Duff mean, as ratios to ``np.sort`` of the same data measured in the same run.

For n uniform floats on [0, 1] and scale 2 (epsilon = 1), best of interleaved repeats:

* the mean step alone on sorted input: one release of ``make_duff_mean`` on a sorted
  domain (the levels near the top from the few largest and smallest records and the exact
  sum of all, the race; target <= 1.5x at 1e7);
* the whole step function ``duff_mean_step_function`` on sorted input (the inspection
  tool, also what a lazy block builds in the rare event that it is opened);
* the chain ``clamp >> sort >> duff_mean`` on raw input;
* the chain ``clamp >> duff_mean`` on raw input (unsorted: the records selected, not sorted).

Also the absolute seconds of the step function at n = 1e6 against a 1 s target.

    python benchmarks/bench_duff_mean.py [--quick]      # --quick: n = 1e5 and 1e6 only
    python benchmarks/bench_duff_mean.py --smoke        # SMOKE: checks that it runs (figures meaningless)
"""

from _timing import benchmark_parser, best_time

import numpy as np

import opendp_duff as dp
from opendp_duff.duff_mean_utility import duff_mean_step_function

SMOKE = {"sizes": [1_000], "repeats": 1}   # --smoke: the test that runs every benchmark (tests/system)


def main(sizes, repeats=None):
    """The table over ``sizes``; ``repeats`` interleaved repeats (None: 5 up to 1e6 records, 3 above)."""
    rng = np.random.default_rng(0)
    sorted_space = (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True),
                    dp.symmetric_distance())
    raw = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    step = dp.m.make_duff_mean(*sorted_space, scale=2.0)
    chain = raw >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_duff_mean(scale=2.0)
    unsorted_chain = raw >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.m.then_duff_mean(scale=2.0)
    at_1e6 = None
    print("ratios to np.sort of the same data (best of interleaved repeats); uniform floats on [0, 1], scale 2")
    print(f"{'n':>10} {'np.sort s':>10} {'mean step':>10} {'step fn':>8} {'clamp>>sort>>mean':>18}"
          f" {'clamp>>mean (unsorted)':>23}")
    for n in sizes:
        x = rng.uniform(0.0, 1.0, n)
        xs = np.sort(x)
        runs = repeats or (5 if n <= 10 ** 6 else 3)
        t = dict.fromkeys(("sort", "step", "fn", "chain", "unsorted"), float("inf"))
        for _ in range(runs):
            t["sort"] = min(t["sort"], best_time(np.sort, x, repeat=1))
            t["step"] = min(t["step"], best_time(step, xs, repeat=1))
            t["fn"] = min(t["fn"], best_time(duff_mean_step_function, xs, (0.0, 1.0), repeat=1))
            t["chain"] = min(t["chain"], best_time(chain, x, repeat=1))
            t["unsorted"] = min(t["unsorted"], best_time(unsorted_chain, x, repeat=1))
        s = t["sort"]
        print(f"{n:>10} {s:>10.4f} {t['step'] / s:>9.3f}x {t['fn'] / s:>7.2f}x {t['chain'] / s:>17.2f}x"
              f" {t['unsorted'] / s:>22.2f}x")
        if n == 10 ** 6:
            at_1e6 = t["fn"]
    print("target: the mean step on sorted input <= 1.5x np.sort at 1e7")
    if at_1e6 is not None:
        print(f"step function at n = 1e6: {at_1e6:.3f} s (target < 1 s): {'met' if at_1e6 < 1 else 'NOT met'}")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="n = 1e5 and 1e6 only")
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"sizes": [10 ** 5, 10 ** 6] + ([] if args.quick else [10 ** 7])}))
