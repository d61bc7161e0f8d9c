"""Timing helpers shared by the benchmark scripts.

Every benchmark prints its times as ratios to a baseline measured in the same run (``np.sort``
of the same data, the float path, a bare sampler...), so that its numbers mean the same on a
loaded or a quiet machine.  Importing this module also puts the repository root first on
``sys.path``: ``python benchmarks/bench_x.py`` measures the package of this checkout.
"""
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
