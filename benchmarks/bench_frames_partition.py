"""Cost of ``make_partition_by`` (group-by over public keys) against sorting each group once.

Target: partitioning a frame of n = 1e6 rows by a column with 100 public keys costs at most
about what sorting every group's values once costs, so that a grouped median stays within 2x
of the sort it needs anyway.  Prints, for pandas and Polars and for string and integer keys,
ratios measured in this run to the baseline "np.sort of each group's float64 values":

* partition: the transformation's function (coding the key column against the keys, a stable
  counting sort of the codes, one gather of the declared columns, one slice per key);
* partition + admission: called as a transformation (the frame's membership check first);
* partition + read: also each part's value column read as an admitted float64 array, as the
  per-key chain does;
* select_columns >> partition: the frame narrowed first to the two columns the query reads;
* grouped Duff median: ``select_columns >> partition_by >> parallel(select_column >> clamp >>
  sort >> duff_median)`` called on the frame, for scale (the per-key Duff sampler included).

    python benchmarks/bench_frames_partition.py [n] [keys]
    python benchmarks/bench_frames_partition.py --smoke   # SMOKE: checks that it runs (figures meaningless)
"""

import numpy as np
from _timing import benchmark_parser, best_time

import opendp_duff as dp
from opendp_duff.samplers import seeded_rng_for_tests

SMOKE = {"n": 2_000, "k": 10, "repeat": 1}   # --smoke: the test that runs every benchmark (tests/system)


def frames(n, k, rng):
    import pandas as pd
    import polars as pl
    codes = rng.integers(0, k + k // 10, n)              # about 10% of rows match no key
    names = np.array([f"region-{i:03d}" for i in range(k + k // 10)], dtype=object)
    cols = {"region": names[codes], "code": codes.astype(np.int64), "income": rng.normal(5e4, 2e4, n),
            "id": np.arange(n)}                          # "id" is not declared: never read
    return pd.DataFrame(cols), pl.DataFrame({c: (v.tolist() if v.dtype == object else v) for c, v in cols.items()})


def main(n=1_000_000, k=100, repeat=5):
    rng = np.random.default_rng(3)   # benchmark data only
    pdf, pldf = frames(n, k, rng)
    dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "code": dp.atom_domain(T=int),
                               "income": dp.atom_domain(T=float)})
    space = dom, dp.symmetric_distance()
    print(f"n = {n:.0e} rows, {k} keys; fastest of {repeat} runs; ratios to sorting each group's values once")
    for label, df in (("pandas", pdf), ("polars", pldf)):
        for by, keys in (("region", [f"region-{i:03d}" for i in range(k)]), ("code", list(range(k)))):
            parts = space >> dp.t.then_partition_by(by, keys=keys)
            groups = [np.asarray(p["income"]) for p in parts._function(df)]
            sort_groups = best_time(lambda g=groups: [np.sort(x) for x in g], repeat=repeat)
            part = best_time(parts._function, df, repeat=repeat)
            admitted = best_time(parts, df, repeat=repeat)
            read = dp.t.make_select_column(parts.output_domain.part_domain, dp.symmetric_distance(), "income")
            part_read = best_time(lambda p=parts, r=read, f=df: [r._function(x) for x in p._function(f)],
                                  repeat=repeat)
            print(f"{label:7s} by {by:6s} ({'str' if by == 'region' else 'int'}):  "
                  f"partition {part / sort_groups:5.2f}x   + admission {admitted / sort_groups:5.2f}x   "
                  f"+ read {part_read / sort_groups:5.2f}x   (sort groups {sort_groups * 1e3:.0f} ms)")
        keys = [f"region-{i:03d}" for i in range(k)]
        narrow = space >> dp.t.then_select_columns(["region", "income"])
        parts = narrow >> dp.t.then_partition_by("region", keys=keys)
        groups = [np.asarray(p["income"]) for p in parts._function(df)]
        sort_groups = best_time(lambda g=groups: [np.sort(x) for x in g], repeat=repeat)
        part = best_time(parts._function, df, repeat=repeat)
        print(f"{label:7s} select_columns(region, income) >> partition by region: {part / sort_groups:5.2f}x")
        median = ((parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("income")
                  >> dp.t.then_clamp((0.0, 1e5)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0))
        grouped = parts >> dp.c.then_parallel_composition(median)
        dp.enable_features("insecure-randomness")   # seeded: a benchmark, not a release (said below)
        with seeded_rng_for_tests(0):
            whole = best_time(grouped, df, repeat=min(repeat, 3))
        print(f"{label:7s} grouped Duff median (that chain), called on the frame:     {whole / sort_groups:5.2f}x"
              "  [noise SEEDED, feature insecure-randomness on: timings only]")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="rows")
    ap.add_argument("keys", nargs="?", type=int, default=100)
    args = ap.parse_args()
    main(**(SMOKE if args.smoke else {"n": args.n, "k": args.keys}))
