"""Exact Gumbel race vs the float race, as ratios measured in the same process.

    python benchmarks/bench_exact_sampler.py [--max-k 1000000]
    python benchmarks/bench_exact_sampler.py --smoke     # SMOKE: checks that it runs (figures meaningless)

For k = 10, 1e3, 1e6 candidates with standard-normal log-weights (and with all
weights equal, the hardest common case), times ``exact_gumbel_race`` against
``gumbel_argmax`` (the float path, same bytes) and reports how often each
refinement level ran: level 1 (float interval at both ends of the 52-bit
interval, contenders only) and the decimal levels (more random bits).  Also times
``exact_uniform_float`` against ``uniform_open``.
"""
from functools import partial

from _timing import benchmark_parser, best_time, per_call

import numpy as np

from opendp_duff import samplers
from opendp_duff.samplers import gumbel_race as E
from opendp_duff.samplers import uniform as U

# --smoke: the test that runs every benchmark (tests/system)
SMOKE = {"max_k": 10, "race_calls": 20, "draws": 200, "single_calls": 20, "repeat": 1}


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--max-k", type=int, default=1_000_000)
    args = ap.parse_args()
    max_k, repeat, n, single = args.max_k, 3, 20000, 2000
    if args.smoke:
        max_k, repeat, n, single = SMOKE["max_k"], SMOKE["repeat"], SMOKE["draws"], SMOKE["single_calls"]
    rng = np.random.default_rng(0)
    for k in (10, 1_000, 1_000_000):
        if k > max_k:
            continue
        calls = SMOKE["race_calls"] if args.smoke else 2000 if k <= 1000 else 10
        for name, w in (("normal", rng.normal(size=k)), ("equal", np.zeros(k))):
            st = {}
            t_exact = per_call(partial(E.exact_gumbel_race, stats=st), w, calls=calls, repeat=repeat)
            t_float = per_call(samplers.gumbel_argmax, w, calls=calls, repeat=repeat)
            races = repeat * calls        # the stats count every timed race
            print(f"k={k:>8} {name:>6}: exact {t_exact * 1e6:9.1f} us, float {t_float * 1e6:9.1f} us, "
                  f"ratio {t_exact / t_float:5.2f}; per race: level-1 refinements "
                  f"{st.get('float_refined', 0) / races:.2f} competitors, decimal refinements "
                  f"{st.get('decimal_refined', 0) / races:.2g}")
    t_exact = best_time(U.exact_uniform_floats, -1.5, 2.25, n, repeat=repeat) / n
    t_float = best_time(lambda: -1.5 + 3.75 * samplers.uniform_open(n), repeat=repeat) / n
    t_one = per_call(U.exact_uniform_float, -1.5, 2.25, calls=single, repeat=repeat)
    t_one_f = per_call(samplers.uniform_open, calls=single, repeat=repeat)
    print(f"uniform on [-1.5, 2.25]: exact {t_exact * 1e6:.2f} us/draw vectorised "
          f"(float {t_float * 1e6:.3f} us, ratio {t_exact / t_float:.0f}); single draw "
          f"{t_one * 1e6:.1f} us vs uniform_open {t_one_f * 1e6:.1f} us (ratio {t_one / t_one_f:.1f})")


if __name__ == "__main__":
    main()
