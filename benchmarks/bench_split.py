"""The split by public keys at scale: many keys over many rows, on pandas and Polars.

    python benchmarks/bench_split.py                 # 1e7 rows, 1e6 integer keys
    python benchmarks/bench_split.py 1e6 1e5         # rows, keys
    python benchmarks/bench_split.py --smoke         # SMOKE: checks that it runs (figures meaningless)

``make_partition_by`` codes the key column against the public keys, groups the rows by a stable
radix sort of the codes (O(rows + keys)) and gathers the declared columns once; each part is a
view.  Prints, for each library, the seconds of each step and its ratio to a baseline measured
in the same run: the non-private group-by floor, ``np.argsort(codes, kind="stable")`` of
precomputed integer codes plus one gather of the value column.

* keys: building the transformation (validating the public keys);
* admission: the frame's membership check (what ``__call__`` runs first);
* split: the function on the admitted frame (coding, grouping, gathering);
* a column of every part: ``make_select_column``'s function on each part (a view each);
* grouped noisy count: ``partition_by >> parallel(select_column >> count >> laplace)``, the whole
  release, whose per-key cost is the exact Laplace sampler's (printed per key).

Data generation uses numpy's generator (public benchmark data); releases use the library's
secure default randomness.
"""
import time

import numpy as np
from _timing import benchmark_parser

import opendp_duff as dp

SMOKE = {"rows": 1e4, "keys": 100}   # --smoke: the test that runs every benchmark (tests/system)


def seconds(f, *args):
    t0 = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - t0, out


def main(rows: float = 1e7, keys: float = 1e6) -> None:
    import pandas as pd
    import polars as pl
    n, k = int(rows), int(keys)
    rng = np.random.default_rng(0)   # benchmark data only
    g, x = rng.integers(0, k, n), rng.normal(size=n)
    base, _ = seconds(lambda: x[np.argsort(g, kind="stable")])
    print(f"{n:.0e} rows, {k:.0e} integer keys; baseline (stable argsort of the codes + one gather) {base:.2f} s")
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)})
    space = dom, dp.symmetric_distance()
    for label, df in (("pandas", pd.DataFrame({"g": g, "x": x})), ("polars", pl.DataFrame({"g": g, "x": x}))):
        t_keys, parts = seconds(lambda: space >> dp.t.then_partition_by("g", keys=list(range(k))))
        t_admit, admitted = seconds(dom.admit, df)
        t_split, split = seconds(parts._function, admitted)
        column = dp.t.make_select_column(parts.output_domain.part_domain, dp.symmetric_distance(), "x")
        t_read, _ = seconds(lambda c=column, s=split: [c._function(p) for p in s])
        count = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("x") \
            >> dp.t.then_count() >> dp.m.then_laplace(1.0)
        t_release, released = seconds(parts >> dp.c.then_parallel_composition(count), df)
        print(f"{label:7s} keys {t_keys:6.2f} s ({t_keys / base:5.1f}x)   admission {t_admit:5.2f} s "
              f"({t_admit / base:4.1f}x)   split {t_split:5.2f} s ({t_split / base:4.1f}x)   "
              f"a column of every part {t_read:5.2f} s ({t_read / base:4.1f}x)")
        print(f"        grouped noisy count {t_release:6.1f} s ({t_release / base:5.1f}x; "
              f"{t_release / k * 1e6:.0f} us per key), {len(released)} releases")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("rows", nargs="?", type=float, default=1e7)
    ap.add_argument("keys", nargs="?", type=float, default=1e6)
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"rows": args.rows, "keys": args.keys}))
