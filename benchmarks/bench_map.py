"""Cost of ``map`` on a five-step chain (target: under 50 microseconds).

Prints the absolute time per call and, as a same-process baseline, the ratio to
one ``fractions.Fraction`` division (the unit of work an outward-rounded map
is built from).

    python benchmarks/bench_map.py
    python benchmarks/bench_map.py --smoke     # SMOKE: checks that it runs (figures meaningless)
"""
from fractions import Fraction

from _timing import benchmark_parser, per_call

import opendp_duff as dp

CALLS, REPEAT = {"map": 20_000, "division": 200_000}, 5
# --smoke: the test that runs every benchmark (tests/system)
SMOKE = {"calls": {"map": 200, "division": 2_000}, "repeat": 1}


def five_step_chain():
    space = dp.vector_domain(dp.atom_domain(T=float), size=1000), dp.symmetric_distance()
    return (space >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_sort()
            >> dp.t.then_clamp(bounds=(0.0, 0.5)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0))


def main(calls=CALLS, repeat=REPEAT):
    chain = five_step_chain()
    t_map = per_call(chain.map, 2, calls=calls["map"], repeat=repeat)
    a, b = Fraction(0.3), Fraction(0.7)
    t_frac = per_call(Fraction.__truediv__, a, b, calls=calls["division"], repeat=repeat)
    print(f"map on a 5-step chain: {t_map * 1e6:.2f} us per call (target < 50 us)")
    print(f"ratio to one Fraction division: {t_map / t_frac:.1f}x")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    main(**(SMOKE if ap.parse_args().smoke else {}))
