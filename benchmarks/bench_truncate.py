"""Cost of the truncations by identifier against one sort of the frame by (identifier, value).

Any rule that keeps a few rows per person needs the rows grouped by person, so the baseline is
the library's own sort of the same frame by (identifier, delay), measured in this run.  Prints,
for pandas and for Polars (eager, and lazy collected), the ratio of:

* truncate_per_id: ``make_truncate_per_id(contributions=5)``'s function (canonical values,
  keyed hashes, the cut);
* truncate_per_group: ``make_truncate_per_group("airline", max_groups=2, contributions=3)``;
* the pandas row hashes alone (``pandas_hashes``: SipHash-2-4 in numpy and pandas' keyed string
  hash), the part of the pandas kernel that a sort does not do.

The data: n rows, n / 10 persons with a heavy-tailed number of rows each (a few persons hold
thousands), 20 airlines, float delays.

    python benchmarks/bench_truncate.py [n]
    python benchmarks/bench_truncate.py --smoke    # SMOKE: checks that it runs (figures meaningless)
"""

import numpy as np
from _timing import benchmark_parser, best_time

import opendp_duff as dp
from opendp_duff.metrics_id import symmetric_id_distance
from opendp_duff.transformations._truncate_kernels import Truncation, pandas_hashes, truncate_polars

SMOKE = {"n": 2_000, "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def frames(n, rng):
    import pandas as pd
    import polars as pl
    persons = max(1, n // 10)
    weights = 1.0 / np.arange(1, persons + 1) ** 1.1            # heavy-tailed rows per person
    ids = rng.choice(persons, size=n, p=weights / weights.sum()).astype(np.int64)
    airlines = np.array([f"airline-{i:02d}" for i in range(20)], dtype=object)[rng.integers(0, 20, n)]
    delay = np.round(rng.exponential(30.0, n), 1)
    cols = {"id": ids, "airline": airlines, "delay": delay}
    return pd.DataFrame(cols), pl.DataFrame({"id": ids, "airline": airlines.tolist(), "delay": delay})


def main(n=1_000_000, repeat=5):
    rng = np.random.default_rng(5)   # benchmark data only
    pdf, pldf = frames(n, rng)
    dom = dp.dataframe_domain({"id": dp.atom_domain(T=int), "airline": dp.atom_domain(T=str),
                               "delay": dp.atom_domain(T=float)})
    space = dom, symmetric_id_distance("id")
    key = bytes(range(16))
    per_id = dp.t.make_truncate_per_id(*space, contributions=5, key=key)
    per_group = dp.t.make_truncate_per_group(*space, "airline", max_groups=2, contributions=3, key=key)
    spec = Truncation("id", (("id", int), ("airline", str), ("delay", float)), 5, key)
    print(f"n = {n:.0e} rows, {n // 10} persons (the largest holds {np.bincount(pdf['id']).max()} rows); "
          f"fastest of {repeat} runs; ratios to the library's sort by (id, delay) in this run")

    def ratio(f, *args):
        return best_time(f, *args, repeat=repeat) / base

    base = best_time(lambda: pdf.sort_values(["id", "delay"]), repeat=repeat)
    print(f"pandas:  truncate_per_id {ratio(per_id._function, pdf):5.2f}x   "
          f"truncate_per_group {ratio(per_group._function, pdf):5.2f}x   "
          f"row hashes alone {ratio(pandas_hashes, pdf, spec):5.2f}x   (sort {base * 1e3:.0f} ms)")
    base = best_time(lambda: pldf.sort(["id", "delay"]), repeat=repeat)
    lazy = pldf.lazy()
    print(f"polars:  truncate_per_id {ratio(per_id._function, pldf):5.2f}x   "
          f"truncate_per_group {ratio(per_group._function, pldf):5.2f}x   "
          f"lazy per_id, collected {ratio(lambda: truncate_polars(lazy, spec).collect()):5.2f}x   "
          f"(sort {base * 1e3:.0f} ms)")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("n", nargs="?", type=float, default=1e6, help="rows")
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"n": int(args.n)}))
