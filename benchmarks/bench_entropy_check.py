"""Cost of the entropy check every release runs before it reads the data (32 bytes drawn,
refused if all equal), as ratios measured in this run:

* the check / a one-byte draw from the same source (what the check drew before it looked at
  32 bytes);
* the check / a Laplace release (the cheapest release);
* the check / a Duff median on 1e6 sorted records.

    python benchmarks/bench_entropy_check.py
    python benchmarks/bench_entropy_check.py --smoke   # SMOKE: checks that it runs (figures meaningless)
"""

from _timing import benchmark_parser, per_call

import numpy as np

import opendp_duff as dp
from opendp_duff.samplers import check_entropy, current_rng

RECORDS, CALLS, REPEAT = 1_000_000, {"draw": 20_000, "check": 20_000, "laplace": 2_000, "duff": 50}, 5
# --smoke: the test that runs every benchmark (tests/system)
SMOKE = {"records": 1_000, "calls": {"draw": 20, "check": 20, "laplace": 20, "duff": 2}, "repeat": 1}


def main(records=RECORDS, calls=CALLS, repeat=REPEAT):
    laplace = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    x = np.sort(np.random.default_rng(0).uniform(0.0, 1.0, records))   # benchmark data only
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True), dp.symmetric_distance()
    median = space >> dp.m.then_duff_median(scale=1.0)
    one_byte = per_call(lambda: current_rng().random_bytes(1), calls=calls["draw"], repeat=repeat)
    check = per_call(check_entropy, calls=calls["check"], repeat=repeat)
    release = per_call(lambda: laplace(0.5), calls=calls["laplace"], repeat=repeat)
    duff = per_call(lambda: median(x), calls=calls["duff"], repeat=repeat)
    print(f"secure source; fastest of {repeat} loops, ratios within this run")
    print(f"  check_entropy / one-byte draw:           {check / one_byte:.2f}x")
    print(f"  check_entropy / Laplace release:         {check / release:.4f}")
    print(f"  check_entropy / Duff median ({records:.0e}, sorted): {check / duff:.6f}")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    main(**(SMOKE if ap.parse_args().smoke else {}))
