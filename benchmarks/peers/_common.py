"""What every runner of ``bench_peers.py`` shares: the workload it reads, the timing loop, the
JSON it prints, and the Spark session and data frame.

Each runner runs in its library's own virtual environment, so this module imports only the
standard library at the top; pyspark is imported inside the Spark helpers.  A runner is called
as ``python run_x.py SPEC.json`` and prints one JSON object on its last line of stdout:
``{"library", "version", "runs": [...], "skipped": [...]}``; its progress goes to stderr.
"""
import json
import sys
import time


def load_spec(argv=None):
    """The workload written by ``bench_peers.py``: the data file, carriers, bounds, epsilon,
    releases, the workloads to run and the Spark settings."""
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as f:
        return json.load(f)


def version_of(distribution):
    """The installed version of ``distribution`` (its package metadata)."""
    from importlib.metadata import version
    return version(distribution)


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def time_releases(release, warmup, releases, before=None, after=None):
    """Run ``release()`` ``warmup`` times untimed (first-call costs: imports, JIT, Spark's first
    jobs), then ``releases`` times, each timed alone.  ``before(i)``/``after(i)`` frame each
    timed release outside the timer (``after`` returns something recorded per release, e.g.
    the Spark jobs it ran).  Returns (seconds, results, recorded)."""
    for _ in range(warmup):
        release()
    seconds, results, recorded = [], [], []
    for i in range(releases):
        if before is not None:
            before(i)
        t0 = time.perf_counter()
        out = release()
        seconds.append(time.perf_counter() - t0)
        results.append({str(k): float(v) for k, v in out.items()})
        if after is not None:
            recorded.append(after(i))
    return seconds, results, recorded


def time_calls(f, repeats):
    """Wall-clock seconds of ``repeats`` calls of ``f()``, after one untimed call."""
    f()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return out


def run_record(engine, rows, method, seconds, results, setup_seconds, baseline, baseline_seconds,
               jobs=None, extra=None):
    """One workload's measurements, as ``bench_peers.summarize`` reads them.  ``jobs``: Spark
    jobs per release; ``extra``: other per-release counts a library reports, by name."""
    return {"engine": engine, "rows": rows, "method": method, "seconds": seconds, "releases": results,
            "setup_seconds": setup_seconds, "baseline": baseline, "baseline_seconds": baseline_seconds,
            "jobs": jobs, "extra": extra or {}}


def emit(library, version, runs, skipped=()):
    print(json.dumps({"library": library, "version": version, "runs": runs, "skipped": list(skipped)}),
          flush=True)


def spark_session(spec):
    """A local Spark session with the settings every Spark runner uses (``spec["spark"]``)."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.master(spec["spark"]["master"]).appName("bench_peers")
    for key, value in spec["spark"]["conf"].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_flights(spark, spec, copies):
    """The data file as a Spark frame, repeated ``copies`` times (every copy whole, so the
    per-carrier medians are those of the file), cached and counted before any timing."""
    df = spark.read.csv(spec["data"], header=True, schema="carrier STRING, arr_delay DOUBLE")
    if copies > 1:
        df = df.crossJoin(spark.range(copies).withColumnRenamed("id", "copy")).drop("copy")
    df = df.repartition(spec["spark"]["partitions"]).cache()
    rows = df.count()
    return df, rows


def spark_exact_medians(df):
    """The non-private baseline on Spark: the exact per-carrier median (``percentile``), collected."""
    from pyspark.sql import functions as F
    return {r[0]: r[1] for r in df.groupBy("carrier").agg(F.expr("percentile(arr_delay, 0.5)")).collect()}


class SparkJobs:
    """Spark jobs per release, from the status tracker: each release runs in its own job group."""

    def __init__(self, spark, label):
        self.sc, self.label = spark.sparkContext, label

    def before(self, i):
        self.sc.setJobGroup(f"{self.label}-{i}", "one release", interruptOnCancel=False)

    def after(self, i):
        jobs = len(self.sc.statusTracker().getJobIdsForGroup(f"{self.label}-{i}"))
        self.sc.setJobGroup(f"{self.label}-idle", "between releases", interruptOnCancel=False)
        return jobs
