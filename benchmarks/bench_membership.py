"""Cost of the membership check that ``__call__`` runs before a function (target: the 1e7
``clamp >> sort >> duff_median`` chain within 1.1x of its speed without the check).

Prints ratios measured in this run:

* the chain called as a measurement (membership check, entropy check, function) to its
  function called directly (no check), on a float64 array and on a Python list;
* the check alone (``input_domain.member``) to ``np.sort`` of the same array.

    python benchmarks/bench_membership.py [n]
    python benchmarks/bench_membership.py --smoke     # SMOKE: checks that it runs (figures meaningless)
"""
import time

import numpy as np
from _timing import benchmark_parser

import opendp_duff as dp
from opendp_duff.samplers import seeded_rng_for_tests

# the interleaved runs of each pair; --smoke: the test that runs every benchmark (tests/system)
REPEATS = {"array": 9, "list": 5, "check": 15, "admit": 5}
SMOKE = {"n": 10_000, "repeats": dict.fromkeys(REPEATS, 1)}


def paired_best(f, g, repeat):
    """The fastest of ``repeat`` runs of f and of g, interleaved, so that a change in the
    machine's load affects both arms alike."""
    best_f = best_g = float("inf")
    for _ in range(repeat):
        for fn, which in ((f, 0), (g, 1)):
            t0 = time.perf_counter()
            fn()
            t = time.perf_counter() - t0
            if which == 0:
                best_f = min(best_f, t)
            else:
                best_g = min(best_g, t)
    return best_f, best_g


def main(n=10_000_000, repeats=REPEATS):
    rng = np.random.default_rng(1)  # benchmark data only
    x = rng.normal(5.0, 3.0, n)
    listed = x.tolist()
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    med = space >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=2.0)
    domain = med.input_domain
    # seeded so that the sampler's work is alike in both arms: a benchmark, not a release
    dp.enable_features("insecure-randomness")
    print("randomness: SEEDED (feature insecure-randomness on): timings only, no private release")
    with seeded_rng_for_tests(0):
        checked, unchecked = paired_best(lambda: med(x), lambda: med._function(x), repeats["array"])
        checked_list, unchecked_list = paired_best(lambda: med(listed), lambda: med._function(listed),
                                                   repeats["list"])
    check, sort = paired_best(lambda: domain.member(x), lambda: np.sort(x), repeats["check"])
    admit_list, _ = paired_best(lambda: domain.admit(listed), lambda: None, repeats["admit"])
    print(f"n = {n:.0e}; fastest of interleaved runs, ratios within this run")
    print("float64 array:")
    print(f"  chain with check / without, measured:       {checked / unchecked:.3f}x  (target <= 1.1x)")
    print(f"  check alone / chain without check:          {check / unchecked:.4f}  "
          f"(the overhead: {1 + check / unchecked:.3f}x)")
    print(f"  check alone / np.sort:                      {check / sort:.4f}x")
    print("Python list (admit converts it once and passes the array on):")
    print(f"  chain with check / without, measured:       {checked_list / unchecked_list:.3f}x")
    print(f"  (admit + chain on the array) / chain on the list: {(admit_list + unchecked) / unchecked_list:.3f}x")
    print(f"  check alone / np.sort:                      {admit_list / sort:.3f}x")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("n", nargs="?", type=float, default=1e7)
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"n": int(args.n)}))
