"""diffprivlib's runner for ``bench_peers.py`` (run in diffprivlib's own virtual environment).

diffprivlib has no group-by: a release splits the rows by carrier with numpy (one stable
argsort of the carrier codes, in the timed part) and calls ``diffprivlib.tools.median(x,
epsilon, bounds)`` on each carrier's delays.  The carriers are disjoint, so one release costs
epsilon by parallel composition; diffprivlib's accountant would count epsilon per call, so each
call gets a fresh unlimited ``BudgetAccountant`` and the composition is argued here instead.
"""
import time

import _common


def measure(spec):
    import numpy as np
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.tools import median

    carrier = np.loadtxt(spec["data"], delimiter=",", skiprows=1, usecols=0, dtype=str)
    delay = np.loadtxt(spec["data"], delimiter=",", skiprows=1, usecols=1, dtype=np.float64)
    keys, bounds = spec["carriers"], tuple(spec["bounds"])
    t0 = time.perf_counter()
    codes = np.searchsorted(np.array(keys), carrier)   # the public keys, sorted
    setup = time.perf_counter() - t0

    def groups():
        order = np.argsort(codes, kind="stable")
        ends = np.searchsorted(codes[order], np.arange(len(keys) + 1))
        x = delay[order]
        return [x[ends[i]:ends[i + 1]] for i in range(len(keys))]

    def release():
        return {k: median(g, epsilon=spec["epsilon"], bounds=bounds, accountant=BudgetAccountant())
                for k, g in zip(keys, groups(), strict=True)}

    _common.log(f"diffprivlib on numpy, {delay.size} rows: {spec['releases']} releases")
    seconds, results, _ = _common.time_releases(release, spec["warmup"], spec["releases"])
    baseline = _common.time_calls(lambda: [np.median(g) for g in groups()], spec["baseline_repeats"])
    return _common.run_record("numpy", int(delay.size), "tools.median per carrier (numpy split)", seconds,
                              results, setup, "numpy split + np.median per carrier (exact)", baseline)


def main():
    spec = _common.load_spec()
    runs = [measure(spec)] if any(w["engine"] == "numpy" for w in spec["workloads"]) else []
    _common.emit("diffprivlib", _common.version_of("diffprivlib"), runs)


if __name__ == "__main__":
    main()
