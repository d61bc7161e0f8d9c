"""Timing helper shared by the benchmark scripts (run them from the repository root)."""
import time


def best_time(f, repeat=5):
    """The fastest of ``repeat`` wall-clock runs of ``f()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best
