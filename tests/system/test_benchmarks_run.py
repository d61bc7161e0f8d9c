"""Every benchmark runs to the end and prints its figures.

Each ``benchmarks/bench_*.py`` (found by a glob: a new benchmark is covered without an edit here)
runs in a subprocess with this interpreter, the checkout first on ``PYTHONPATH`` and a temporary
folder as its working directory, in its smallest mode: ``--smoke`` (tiny sizes, one repeat, no
files; the flag comes from ``benchmarks/_timing.py``, the sizes are the benchmark's ``SMOKE``).
The test fails when the script exits non-zero (a function it calls moved or changed its
signature, a size that no longer fits), prints no figure, prints a NaN or infinite ratio, or
leaves a file in its working folder.  A figure is a ratio (``1.23x``, ``4 x np.sort``,
``ratio 1.2``), unless ``FIGURES`` names the lines that hold the figures of a benchmark that
prints them otherwise.  Nothing is timed: a smoke run's figures mean nothing.

Two benchmarks have no smoke mode and run as their own options allow (``SPECIAL``):
``bench_peers.py`` runs our own runner only, without Spark, on a 600-row flights table written
here; ``bench_spark.py`` runs 1e4 rows over 10 keys in a local Spark of its own (not marked
``spark``: CI's cluster step would only run it again; its JVM costs about 30 s of CPU).  A
benchmark that imports pandas, Polars or matplotlib skips when one is missing
(``helpers.missing_libraries``), and ``bench_spark.py`` without pyspark and Java.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import missing, missing_libraries

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(path.name for path in (ROOT / "benchmarks").glob("bench_*.py"))
# a ratio: a number then "x" ("1.23x", "4 x np.sort"), not a target ("<= 1.5x"); or "ratio 1.2"
RATIO = re.compile(r"(?<![\d.])(?<!< )(?<!<= )\d+(?:\.\d+)?(?:e[+-]?\d+)? ?x\b|\bratio +\d", re.I)
NOT_A_NUMBER = re.compile(r"\b(?:nan|inf) ?x\b|\bratio +-?(?:nan|inf)\b", re.I)
FIGURES = {   # benchmarks whose figures are not written as ratios: every pattern must match a line
    "bench_smooth_sensitivity.py": [r"^ +1000 +median +0\.01 +\S+ +\d+\.\d+ +\S+ +\d",   # time / sort, / brute
                                    r"^ +1000 +median, adv\. +0\.01 +\S+ +\d+\.\d+$"],
    "bench_peers.py": [r"^opendp_duff: done", r"^\| opendp_duff \| .* \| pandas \| 588 \| \d",
                       r"^\| opendp_duff \| .* \| polars \| 588 \| \d"],
    "bench_spark.py": [r"releases: 10 of 10 keys, every key present: True", r"Spark path / baseline = \d"],
}


def flights_table(folder):
    """A small flights table as bench_peers.py reads it: 600 rows, 3 carriers, 12 delays missing."""
    rng = np.random.default_rng(11)   # test data only
    rows = ["year,month,day,arr_delay,carrier,flight"]
    for i in range(600):
        delay = "NA" if i % 50 == 0 else str(int(rng.integers(-60, 400)))
        rows.append(f"2013,1,1,{delay},{rng.choice(['AA', 'DL', 'OO'])},{i}")
    path = folder / "flights.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


SPECIAL = {   # name -> (the options given the data folder, the tools it needs)
    "bench_peers.py": (lambda folder: ["--only", "opendp_duff", "--no-spark", "--quick",
                                       "--flights", str(flights_table(folder))], ("pandas", "polars")),
    "bench_spark.py": (lambda folder: ["--rows", "1e4", "--keys", "10"], ("spark",)),
}


def _param(name):
    marks = [pytest.mark.slow]   # bench_spark.py starts a local Spark of its own: not a test of the cluster
    return pytest.param(name, marks=marks, id=name[:-3])


def test_every_benchmark_has_a_smoke_mode():
    """In the quick loop: a benchmark without ``--smoke`` (the flag of ``_timing.benchmark_parser``)
    would fail below, or run at full size; its sizes are its ``SMOKE``."""
    assert len(BENCHMARKS) >= 20 and set(SPECIAL) <= set(BENCHMARKS)
    for name in sorted(set(BENCHMARKS) - set(SPECIAL)):
        source = (ROOT / "benchmarks" / name).read_text()
        assert all(part in source for part in ("benchmark_parser(__doc__)", ".smoke", "\nSMOKE = ")), \
            f"{name}: no --smoke mode (benchmark_parser, then SMOKE sizes when args.smoke)"
    assert RATIO.search("ratio 2.5") and RATIO.search("= 4 x np.sort") and RATIO.search("(  0.6x)")
    assert not RATIO.search("(target <= 1.5x)") and not RATIO.search("n = 1e+06 rows")


@pytest.mark.parametrize("name", [_param(name) for name in BENCHMARKS])
def test_the_benchmark_runs_and_prints_its_figures(name, tmp_path):
    script = ROOT / "benchmarks" / name
    options, tools = SPECIAL.get(name, (lambda folder: ["--smoke"], ()))
    reason = missing(*tools) or missing_libraries(script.read_text())
    if reason:
        pytest.skip(f"{name} {reason}")
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir()
    work.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               PYTHONDONTWRITEBYTECODE="1", SPARK_LOCAL_IP=os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"))
    done = subprocess.run([sys.executable, str(script), *options(data)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600 if name == "bench_spark.py" else 300)
    out = done.stdout
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{out[-2000:]}\n{done.stderr[-4000:]}"
    patterns = FIGURES.get(name)
    if patterns is None:
        assert RATIO.search(out), f"{name} printed no ratio:\n{out[-2000:]}"
    for pattern in patterns or ():
        assert re.search(pattern, out, re.M), f"{name} printed no line matching {pattern!r}:\n{out[-2000:]}"
    assert not NOT_A_NUMBER.search(out), f"{name} printed a ratio that is not a number:\n{out[-2000:]}"
    assert not any(work.iterdir()), f"{name} wrote {sorted(p.name for p in work.iterdir())} in its working folder"
