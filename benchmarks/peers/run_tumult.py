"""Tumult Analytics' runner for ``bench_peers.py`` (run in Tumult's own virtual environment).

A ``Session`` over the cached Spark frame (local Spark, the session settings of the spec, the
same as opendp_duff's Spark runner), ``AddOneRow`` protection, a pure-DP budget of epsilon per
release; per release ``QueryBuilder("flights").groupby(KeySet.from_dict({"carrier": keys}))
.median("arr_delay", low, high)`` evaluated with ``PureDPBudget(epsilon)`` and collected to the
driver.  Creating the session is timed apart.
"""
import time

import _common


def main():
    spec = _common.load_spec()
    from tmlt.analytics import AddOneRow, KeySet, PureDPBudget, QueryBuilder, Session
    from tmlt.analytics.utils import cleanup

    spark = _common.spark_session(spec)
    runs = []
    keys = KeySet.from_dict({"carrier": spec["carriers"]})
    lo, hi = spec["bounds"]
    for work in spec["workloads"]:
        if work["engine"] != "spark":
            continue
        releases = work.get("releases", spec["releases"])
        df, rows = _common.spark_flights(spark, spec, work["copies"])
        _common.log(f"Tumult Analytics on Spark, {rows} rows: {releases} releases")
        n_queries = spec["warmup"] + releases
        t0 = time.perf_counter()
        session = Session.from_dataframe(privacy_budget=PureDPBudget(spec["epsilon"] * n_queries),
                                         source_id="flights", dataframe=df, protected_change=AddOneRow())
        setup = time.perf_counter() - t0
        query = QueryBuilder("flights").groupby(keys).median("arr_delay", low=lo, high=hi, name="median")

        def release(session=session, query=query):
            answer = session.evaluate(query, PureDPBudget(spec["epsilon"]))
            return {row["carrier"]: row["median"] for row in answer.collect()}

        jobs = _common.SparkJobs(spark, f"tumult-{rows}")
        seconds, results, recorded = _common.time_releases(release, spec["warmup"], releases,
                                                           before=jobs.before, after=jobs.after)
        baseline = _common.time_calls(lambda df=df: _common.spark_exact_medians(df), spec["baseline_repeats"])
        runs.append(_common.run_record(
            "spark", rows, "Session (AddOneRow) + groupby(KeySet) median", seconds, results, setup,
            "Spark groupBy percentile(0.5) (exact)", baseline, recorded))
        df.unpersist()
    cleanup()   # Tumult's intermediate tables
    spark.stop()
    _common.emit("Tumult Analytics", _common.version_of("tmlt.analytics"), runs)


if __name__ == "__main__":
    main()
