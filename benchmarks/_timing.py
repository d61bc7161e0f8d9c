"""Timing helpers shared by the benchmark scripts.

Every benchmark prints its times as ratios to a baseline measured in the same run (``np.sort``
of the same data, the float path, a bare sampler...), so that its numbers mean the same on a
loaded or a quiet machine.  Importing this module also puts the repository root first on
``sys.path``: ``python benchmarks/bench_x.py`` measures the package of this checkout.

Every benchmark also takes ``--smoke``: tiny sizes and one repeat (its ``SMOKE``, at the top of
the script), no files written.  ``tests/system/test_benchmarks_run.py`` runs each one so, to
check that it still runs and prints its figures (``bench_peers.py`` and ``bench_spark.py`` with
small options of their own instead); a smoke run's figures mean nothing.
"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def best_time(f, *args, repeat=5):
    """The fastest of ``repeat`` wall-clock runs of ``f(*args)``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def per_call(f, *args, calls=1, repeat=3):
    """Seconds per call of ``f(*args)``: the fastest of ``repeat`` timings of ``calls``
    consecutive calls, divided by ``calls`` (for calls too short to time one by one)."""
    def batch():
        for _ in range(calls):
            f(*args)
    return best_time(batch, repeat=repeat) / calls


def benchmark_parser(doc):
    """A benchmark's argument parser: the first line of ``doc`` as its description, and the
    ``--smoke`` flag that every benchmark takes (its sizes are the script's ``SMOKE``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat (SMOKE): checks that it runs")
    return parser
