"""Cost of the analyst's row-wise constructors against the library's own operation on the same frame.

Prints, for pandas and Polars frames of n rows, ratios measured in this run (fastest of 5):

* filter: ``make_filter("age >= 18 AND income > 1000.0")``'s function against the library's own
  boolean filter with the same predicate (pandas ``df[(df.age >= 18) & (df.income > 1000)]``,
  Polars ``df.filter(...)``), which ignores NULL semantics and overflow;
* with_column: ``make_with_column("monthly", "income / 12")`` against the library's own column
  assignment (``df.assign``, ``df.with_columns``), which has no zero-divisor rule;
* partition by two columns: ``make_partition_by(("carrier", "origin"), keys)`` (every pair of
  20 x 30 values a key) against the one-column split by a column holding the pair's index.

    python benchmarks/bench_row_wise.py [n]
    python benchmarks/bench_row_wise.py --smoke    # SMOKE: checks that it runs (figures meaningless)
"""

import numpy as np
from _timing import benchmark_parser, best_time

import opendp_duff as dp

SMOKE = {"n": 2_000, "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def frames(n, rng):
    import pandas as pd
    import polars as pl
    carriers = np.array([f"C{i:02d}" for i in range(20)], dtype=object)
    origins = np.array([f"O{i:02d}" for i in range(30)], dtype=object)
    c, o = rng.integers(0, 20, n), rng.integers(0, 30, n)
    cols = {"age": rng.integers(0, 90, n), "income": rng.normal(3e3, 2e3, n), "carrier": carriers[c],
            "origin": origins[o], "pair": (c * 30 + o).astype(np.int64)}
    return (pd.DataFrame(cols), pl.DataFrame({k: (v.tolist() if v.dtype == object else v) for k, v in cols.items()}),
            carriers, origins)


def main(n=1_000_000, repeat=5):
    import polars as pl
    rng = np.random.default_rng(5)   # benchmark data only
    pdf, pldf, carriers, origins = frames(n, rng)
    dom = dp.dataframe_domain({"age": dp.atom_domain(T=int), "income": dp.atom_domain(T=float),
                               "carrier": dp.atom_domain(T=str), "origin": dp.atom_domain(T=str),
                               "pair": dp.atom_domain(T=int)})
    space = dom, dp.symmetric_distance()
    keep = space >> dp.t.then_filter("age >= 18 AND income > 1000.0")
    derive = space >> dp.t.then_with_column("monthly", "income / 12")
    pairs = [(c, o) for c in carriers for o in origins]
    by_two = space >> dp.t.then_partition_by(("carrier", "origin"), keys=pairs)
    by_one = space >> dp.t.then_partition_by("pair", keys=list(range(len(pairs))))
    print(f"n = {n:.0e} rows; fastest of {repeat} runs; ratio = opendp_duff / the library's own operation")
    baselines = {
        "pandas": (lambda: pdf[(pdf["age"] >= 18) & (pdf["income"] > 1000.0)],
                   lambda: pdf.assign(monthly=pdf["income"] / 12), pdf),
        "polars": (lambda: pldf.filter((pl.col("age") >= 18) & (pl.col("income") > 1000.0)),
                   lambda: pldf.with_columns((pl.col("income") / 12).alias("monthly")), pldf),
    }
    for label, (own_filter, own_column, df) in baselines.items():
        f = best_time(keep._function, df, repeat=repeat) / best_time(own_filter, repeat=repeat)
        w = best_time(derive._function, df, repeat=repeat) / best_time(own_column, repeat=repeat)
        p = best_time(by_two._function, df, repeat=repeat) / best_time(by_one._function, df, repeat=repeat)
        print(f"{label:7s} filter {f:6.2f}x   with_column {w:6.2f}x   partition by 2 columns / by 1: {p:5.2f}x")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="rows")
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"n": args.n}))
