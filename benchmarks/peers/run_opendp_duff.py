"""opendp_duff's runner for ``bench_peers.py`` (run with this checkout on ``PYTHONPATH``).

Every workload goes through the public context API, in the one function ``grouped_median``:
a context with epsilon per release (``split_evenly_over``), then
``ctx.query().group_by("carrier", keys=carriers).column("arr_delay").clamp(bounds).median()
.release()``, on a pandas DataFrame, a Polars DataFrame and a Spark DataFrame.  A release is
timed until its per-carrier medians are Python floats on the driver (for Spark, the small
result frame collected).  Creating the context (which admits the data) is timed apart.
"""
import time

import _common


def grouped_median(ctx, carriers, bounds):
    """One private release: the Duff median of ``arr_delay`` for every public carrier.  The
    only call of our API in the benchmark: adapt it here if the query API changes."""
    return (ctx.query().group_by("carrier", keys=carriers).column("arr_delay").clamp(tuple(bounds))
            .median().release())


def as_dict(frame):
    """{carrier: value} from the grouped release (a pandas, Polars or Spark frame of two columns:
    the key and the statistic)."""
    if hasattr(frame, "collect") and hasattr(frame, "toPandas"):   # Spark
        return {row[0]: row[1] for row in frame.collect()}
    stat = [c for c in frame.columns if c != "carrier"]
    return dict(zip(list(frame["carrier"]), list(frame[stat[0]]), strict=True))


def spark_counts(jobs, i):
    """(Spark jobs, collects to the driver, tail passes) of release ``i``: the status tracker's
    count, and our Spark engine's own log of what it collected (``opendp_duff.engines.spark.last_collection``)."""
    from opendp_duff.engines.spark import last_collection
    log = last_collection()
    return jobs.after(i), log.actions, log.tails


def context(data, spec, n_queries):
    """The context of the releases.  bench_peers.py writes the flights without a missing delay (a
    row whose delay is missing is dropped for every library alike), so the curator declares the
    frame's columns without NaN (on every engine), which the context checks when it is created."""
    import opendp_duff as dp
    engine = "spark" if dp.engines.engine_for(data).name == "spark" else None
    domain = dp.dataframe_domain({"carrier": dp.atom_domain(T=str), "arr_delay": dp.atom_domain(T=float)},
                                 engine=engine)
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(epsilon=spec["epsilon"] * n_queries),
                                 split_evenly_over=n_queries, domain=domain)


def load(engine, spec, work, spark):
    """The data as the engine's frame, and the non-private exact per-carrier median on it."""
    if engine == "pandas":
        import pandas as pd
        df = pd.read_csv(spec["data"], dtype={"carrier": str, "arr_delay": "float64"})
        return df, len(df), lambda: df.groupby("carrier")["arr_delay"].median(), "pandas groupby median (exact)"
    if engine == "polars":
        import polars as pl
        df = pl.read_csv(spec["data"], schema={"carrier": pl.String, "arr_delay": pl.Float64})
        return (df, df.height, lambda: df.group_by("carrier").agg(pl.col("arr_delay").median()),
                "polars group_by median (exact)")
    df, rows = _common.spark_flights(spark, spec, work["copies"])
    return df, rows, lambda: _common.spark_exact_medians(df), "Spark groupBy percentile(0.5) (exact)"


def measure(spec, work, spark):
    """One workload: the context over the engine's frame, the timed releases, the exact baseline."""
    engine = work["engine"]
    releases = work.get("releases", spec["releases"])
    data, rows, exact, exact_name = load(engine, spec, work, spark)
    _common.log(f"opendp_duff on {engine}, {rows} rows: {releases} releases")
    t0 = time.perf_counter()
    ctx = context(data, spec, spec["warmup"] + releases)
    setup = time.perf_counter() - t0
    jobs = _common.SparkJobs(spark, f"duff-{rows}") if engine == "spark" else None
    seconds, results, recorded = _common.time_releases(
        lambda: as_dict(grouped_median(ctx, spec["carriers"], spec["bounds"])), spec["warmup"], releases,
        before=jobs.before if jobs else None, after=(lambda i: spark_counts(jobs, i)) if jobs else None)
    baseline = _common.time_calls(exact, spec["baseline_repeats"])
    if engine == "spark":
        data.unpersist()
    counts = {"collects": [r[1] for r in recorded], "tail passes": [r[2] for r in recorded]}
    return _common.run_record(engine, rows, "Context: group_by(keys) >> clamp >> Duff median", seconds, results,
                              setup, exact_name, baseline, [r[0] for r in recorded] or None,
                              counts if recorded else None)


def main():
    spec = _common.load_spec()
    import opendp_duff
    spark = None
    runs, skipped = [], []
    for work in spec["workloads"]:
        if work["engine"] not in ("pandas", "polars", "spark"):
            continue
        if work["engine"] == "spark" and spark is None:
            try:
                spark = _common.spark_session(spec)
            except Exception as exc:  # noqa: BLE001 - no Spark here: say so and go on
                skipped.append(f"spark: {type(exc).__name__}: {exc}")
                continue
        runs.append(measure(spec, work, spark))
    if spark is not None:
        spark.stop()
    _common.emit("opendp_duff", opendp_duff.__version__, runs, skipped)


if __name__ == "__main__":
    main()
