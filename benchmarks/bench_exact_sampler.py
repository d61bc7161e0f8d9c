"""Exact Gumbel race vs the float race, as ratios measured in the same process.

    python benchmarks/bench_exact_sampler.py [--max-k 1000000]

For k = 10, 1e3, 1e6 candidates with standard-normal log-weights (and with all
weights equal, the hardest common case), times ``exact_gumbel_race`` against
``gumbel_argmax`` (the float path, same bytes) and reports how often each
refinement level ran: level 1 (float interval at both ends of the 52-bit
interval, contenders only) and the decimal levels (more random bits).  Also times
``exact_uniform_float`` against ``uniform_open``.
"""
import argparse
from functools import partial

from _timing import best_time, per_call

import numpy as np

from opendp_duff import samplers
from opendp_duff.samplers import exact as E


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-k", type=int, default=1_000_000)
    max_k = ap.parse_args().max_k
    rng = np.random.default_rng(0)
    for k in (10, 1_000, 1_000_000):
        if k > max_k:
            continue
        calls = 2000 if k <= 1000 else 10
        for name, w in (("normal", rng.normal(size=k)), ("equal", np.zeros(k))):
            st = {}
            t_exact = per_call(partial(E.exact_gumbel_race, stats=st), w, calls=calls)
            t_float = per_call(samplers.gumbel_argmax, w, calls=calls)
            races = 3 * calls
            print(f"k={k:>8} {name:>6}: exact {t_exact * 1e6:9.1f} us, float {t_float * 1e6:9.1f} us, "
                  f"ratio {t_exact / t_float:5.2f}; per race: level-1 refinements "
                  f"{st.get('float_refined', 0) / races:.2f} competitors, decimal refinements "
                  f"{st.get('decimal_refined', 0) / races:.2g}")
    n = 20000
    t_exact = best_time(E.exact_uniform_floats, -1.5, 2.25, n, repeat=3) / n
    t_float = best_time(lambda: -1.5 + 3.75 * samplers.uniform_open(n), repeat=3) / n
    t_one = per_call(E.exact_uniform_float, -1.5, 2.25, calls=2000)
    t_one_f = per_call(samplers.uniform_open, calls=2000)
    print(f"uniform on [-1.5, 2.25]: exact {t_exact * 1e6:.2f} us/draw vectorised "
          f"(float {t_float * 1e6:.3f} us, ratio {t_exact / t_float:.0f}); single draw "
          f"{t_one * 1e6:.1f} us vs uniform_open {t_one_f * 1e6:.1f} us (ratio {t_one / t_one_f:.1f})")


if __name__ == "__main__":
    main()
