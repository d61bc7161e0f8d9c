"""Cost of the entropy check every release runs before it reads the data (32 bytes drawn,
refused if all equal), as ratios measured in this run:

* the check / a one-byte draw from the same source (what the check drew before it looked at
  32 bytes);
* the check / a Laplace release (the cheapest release);
* the check / a Duff median on 1e6 sorted records.

    python benchmarks/bench_entropy_check.py
"""
import time

import numpy as np

import opendp_duff as dp
from opendp_duff.samplers import check_entropy, current_rng


def per_call(f, k, repeat=5):
    """The fastest of ``repeat`` loops of ``k`` calls, per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(k):
            f()
        best = min(best, (time.perf_counter() - t0) / k)
    return best


def main():
    laplace = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    x = np.sort(np.random.default_rng(0).uniform(0.0, 1.0, 1_000_000))   # benchmark data only
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True), dp.symmetric_distance()
    median = space >> dp.m.then_duff_median(scale=1.0)
    one_byte = per_call(lambda: current_rng().random_bytes(1), 20_000)
    check = per_call(check_entropy, 20_000)
    release = per_call(lambda: laplace(0.5), 2_000)
    duff = per_call(lambda: median(x), 50)
    print("secure source; fastest of 5 loops, ratios within this run")
    print(f"  check_entropy / one-byte draw:           {check / one_byte:.2f}x")
    print(f"  check_entropy / Laplace release:         {check / release:.4f}")
    print(f"  check_entropy / Duff median (1e6, sorted): {check / duff:.6f}")


if __name__ == "__main__":
    main()
