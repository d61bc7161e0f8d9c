"""Duff mode at scale: make_duff_mode over m candidates and n records, time and peak memory.

    python benchmarks/bench_duff_mode.py                 # m = n = 1e7, 3 alternating runs each
    python benchmarks/bench_duff_mode.py --m 1e6 --repeats 5
    python benchmarks/bench_duff_mode.py --smoke         # SMOKE: checks that it runs (figures meaningless)

Each run is a fresh subprocess (so its peak memory is its own) for one kind of candidates:
``int`` (np.arange(m)), ``int list`` (the same as a Python list) and ``float`` (m distinct
floats in random order); the records are n draws among the candidates and m/10 values that are
none of them.  A run times ``make_duff_mode`` (validation and index of the candidates) and one
release (admission, counting, the race), each as a ratio to ``np.unique(records, return_counts=True)``
timed in the same process, in wall-clock and in CPU time (the CPU ratios move less when other
jobs load the machine); the counting alone (a ``make_count_by_candidates`` made beforehand, then
called) shows what of the release is not the race, and a second release what a repeated release
costs.  The baseline runs after the first release: the first large arrays of a fresh process cost
more (their pages are faulted in; under memory pressure much more), which burdens make and the
first release, not the baseline, the counting alone or the second release.  Then the peak of traced allocations
(``tracemalloc``, numpy's included) over a second make and release, and the process's peak resident
size (``ru_maxrss``) before and after the first.  Runs of the kinds alternate; the figures printed
are medians over the runs.  Releases use the library's secure default randomness; the data
comes from numpy's generator (public benchmark data).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

from _timing import ROOT, benchmark_parser

import numpy as np

KINDS = ("int", "int list", "float")
SMOKE = {"m": 1_000, "repeats": 1}   # --smoke: the test that runs every benchmark (tests/system)


def data(kind, m, n, seed):
    import opendp_duff as dp
    rng = np.random.default_rng(seed)
    if kind == "float":
        cands = rng.permutation(np.linspace(-1.0, 1.0, m))
        pool = np.r_[cands, np.linspace(2.0, 3.0, m // 10)]
        T = float
    else:
        cands = np.arange(m)
        pool = np.arange(m + m // 10)
        T = int
    x = pool[rng.integers(0, pool.size, size=n)]
    space = dp.vector_domain(dp.atom_domain(T=T)), dp.symmetric_distance()
    return space, (cands.tolist() if kind == "int list" else cands), x


def timed(f, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process) of f(*args, **kwargs)."""
    w, c = time.perf_counter(), time.process_time()
    out = f(*args, **kwargs)
    return out, time.perf_counter() - w, time.process_time() - c


def child(kind, m, n, seed):
    import opendp_duff as dp
    space, cands, x = data(kind, m, n, seed)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    meas, make, make_cpu = timed(dp.m.make_duff_mode, *space, candidates=cands, scale=1.0)
    release, call, call_cpu = timed(meas, x)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _, again, again_cpu = timed(meas, x)     # a second release, in a process whose memory is warm
    del meas
    _, unique, unique_cpu = timed(np.unique, x, return_counts=True)
    counting = dp.t.make_count_by_candidates(*space, candidates=cands)
    _, count, count_cpu = timed(counting, x)   # the release's counting alone
    del counting
    tracemalloc.start()
    dp.m.make_duff_mode(*space, candidates=cands, scale=1.0)(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(json.dumps({"make": make, "call": call, "unique": unique, "count": count, "again": again,
                      "make_cpu": make_cpu, "call_cpu": call_cpu, "unique_cpu": unique_cpu, "count_cpu": count_cpu,
                      "again_cpu": again_cpu,
                      "traced_peak": peak, "rss_before": rss0 * 1024, "rss_after": rss1 * 1024,
                      "release_type": type(release).__name__}))


def run(kind, m, n, seed):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--m", str(m), "--n", str(n),
                          "--seed", str(seed)], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = benchmark_parser(__doc__)
    ap.add_argument("--m", type=float, default=1e7, help="number of candidates")
    ap.add_argument("--n", type=float, default=None, help="number of records (default m)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.smoke:
        args.m, args.repeats = SMOKE["m"], SMOKE["repeats"]
    m = int(args.m)
    n = int(args.n) if args.n is not None else m
    if args.child:
        child(args.child, m, n, args.seed)
        return
    kinds = args.kinds.split(",")
    runs = {k: [] for k in kinds}
    for r in range(args.repeats):        # alternate the kinds: load from other processes hits all alike
        for k in kinds:
            runs[k].append(run(k, m, n, args.seed + r))
    MB = 2.0 ** 20
    print(f"make_duff_mode, m = {m:.0e} candidates, n = {n:.0e} records; medians of {args.repeats} "
          "alternating runs, each in its own process")
    for k in kinds:
        med = {key: statistics.median(r[key] for r in runs[k]) for key in runs[k][0] if key != "release_type"}
        total, cpu = med["make"] + med["call"], med["make_cpu"] + med["call_cpu"]
        print(f"  {k:8s}: make + release {total:.2f} s = {total / med['unique']:.2f}x np.unique(records) "
              f"(make {med['make'] / med['unique']:.2f}x, release {med['call'] / med['unique']:.2f}x, "
              f"of which counting {med['count'] / med['unique']:.2f}x; np.unique {med['unique']:.2f} s)")
        print(f"            CPU time: make + release {cpu:.2f} s = {cpu / med['unique_cpu']:.2f}x np.unique's "
              f"(make {med['make_cpu'] / med['unique_cpu']:.2f}x, release {med['call_cpu'] / med['unique_cpu']:.2f}x, "
              f"of which counting {med['count_cpu'] / med['unique_cpu']:.2f}x); a second release "
              f"{med['again_cpu'] / med['unique_cpu']:.2f}x (wall {med['again'] / med['unique']:.2f}x)")
        print(f"            peak traced allocations {med['traced_peak'] / MB:.0f} MB; process peak "
              f"{med['rss_after'] / MB:.0f} MB ({med['rss_before'] / MB:.0f} MB with the data, before make)"
              f"; release a Python {runs[k][0]['release_type']}")


if __name__ == "__main__":
    main()
