"""Cost of the Duff mean's step function (target: under 1 s at n = 1e6).

For n uniform floats on [0, 1], prints the time of ``duff_mean_step_function``
on sorted input as a ratio to ``np.sort`` of the same data (measured in the
same run), the time of one whole release ``make_duff_mean`` (step function +
racing sampler, scale 2/epsilon with epsilon = 1), and the absolute seconds at
n = 1e6 against the 1 s target.  n = 1e7 runs unless ``--quick``.

    python benchmarks/bench_duff_mean.py [--quick]
"""
import sys

from _timing import best_time

import numpy as np

import opendp_duff as dp
from opendp_duff.measurements.duff_mean import duff_mean_step_function


def main(quick):
    sizes = [10 ** 5, 10 ** 6] + ([] if quick else [10 ** 7])
    rng = np.random.default_rng(0)
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True), dp.symmetric_distance()
    release = dp.m.make_duff_mean(*space, scale=2.0)
    at_1e6 = None
    print(f"{'n':>10} {'np.sort s':>10} {'step s':>8} {'step/sort':>9} {'release s':>9} {'release/sort':>12}")
    for n in sizes:
        x = rng.uniform(0.0, 1.0, n)
        repeat = 3 if n <= 10 ** 6 else 1
        t_sort = best_time(np.sort, x, repeat=repeat)
        xs = np.sort(x)
        t_step = best_time(duff_mean_step_function, xs, (0.0, 1.0), repeat=repeat)
        t_rel = best_time(release, xs, repeat=repeat)
        print(f"{n:>10} {t_sort:>10.4f} {t_step:>8.4f} {t_step / t_sort:>9.2f} {t_rel:>9.4f} {t_rel / t_sort:>12.2f}")
        if n == 10 ** 6:
            at_1e6 = t_step
    print(f"step function at n = 1e6: {at_1e6:.3f} s (target < 1 s): {'met' if at_1e6 < 1 else 'NOT met'}")


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
