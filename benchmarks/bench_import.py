"""Import time of the package against numpy's (target: ``import opendp_duff`` at most 3x
``import numpy``, which puts it under 0.3 s on an idle machine).

Each round starts two fresh interpreters, one running ``import numpy`` and one running
``import opendp_duff`` (this checkout's package, through PYTHONPATH), in alternating order so
that a change in the machine's load affects both arms alike.  The wall time of a whole
interpreter is measured (start-up included: that is what a user waits for), and the medians
over the rounds are compared.  Also prints, from one more interpreter, which of scipy, pandas,
Polars, pyspark and matplotlib the import loaded (it should load none).

    python benchmarks/bench_import.py [rounds]
    python benchmarks/bench_import.py --smoke     # SMOKE: checks that it runs (figures meaningless)
"""
import os
import statistics
import subprocess
import sys
import time

from _timing import ROOT, benchmark_parser

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
HEAVY = ("scipy", "pandas", "polars", "pyspark", "matplotlib")
SMOKE = {"rounds": 1}   # --smoke: the test that runs every benchmark (tests/system)


def run_once(statement: str) -> float:
    """Wall seconds of a fresh interpreter that runs ``statement`` and exits."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True, env=ENV, cwd=ROOT)
    return time.perf_counter() - t0


def main(rounds: int = 15) -> None:
    numpy_times, package_times = [], []
    run_once("import numpy")                      # warm the file cache before timing
    for i in range(rounds):
        arms = [("import numpy", numpy_times), ("import opendp_duff", package_times)]
        for statement, times in arms if i % 2 == 0 else arms[::-1]:
            times.append(run_once(statement))
    base, pkg = statistics.median(numpy_times), statistics.median(package_times)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, opendp_duff; "
         f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"],
        check=True, env=ENV, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"{rounds} rounds, fresh interpreters, medians; load average {os.getloadavg()[0]:.2f}")
    print(f"  import numpy:        {base * 1000:7.1f} ms (baseline)")
    print(f"  import opendp_duff:  {pkg * 1000:7.1f} ms = {pkg / base:.2f}x numpy  (target <= 3x)")
    print(f"  optional or heavy libraries loaded by the import: {loaded or 'none'}")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    ap.add_argument("rounds", nargs="?", type=int, default=15)
    args = ap.parse_args()
    main(SMOKE["rounds"] if args.smoke else args.rounds)
