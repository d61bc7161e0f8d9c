"""OpenDP's runner for ``bench_peers.py`` (run in OpenDP's own virtual environment).

OpenDP's context over a Polars LazyFrame held in memory: ``Context.compositor(...,
split_evenly_over=warm-up + R, margins=[Margin(by=["carrier"], max_length=...)])``, then per
release ``.group_by("carrier").agg(col.dp.median(candidates)).with_keys(public keys)``, the
scale calibrated by the context to epsilon per release.  The candidates are the spec's
``opendp_candidates`` points evenly spaced over the public bounds, so a release is one of them
(OpenDP's exponential mechanism over candidates).  ``max_length``, a public bound on a group's
size that OpenDP's quantile scores need, is the table's row count rounded up to a power of ten.
"""
import math
import time

import _common


def measure(spec):
    import numpy as np
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    lo, hi = spec["bounds"]
    candidates = [float(c) for c in np.linspace(lo, hi, spec["opendp_candidates"])]
    df = pl.read_csv(spec["data"], schema={"carrier": pl.String, "arr_delay": pl.Float64})
    keys = pl.DataFrame({"carrier": spec["carriers"]})
    n_queries = spec["warmup"] + spec["releases"]
    t0 = time.perf_counter()
    ctx = dp.Context.compositor(
        data=df.lazy(), privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=spec["epsilon"] * n_queries), split_evenly_over=n_queries,
        margins=[dp.polars.Margin(by=["carrier"], max_length=10 ** math.ceil(math.log10(df.height)))])
    setup = time.perf_counter() - t0

    def release():
        query = ctx.query().group_by("carrier").agg(pl.col("arr_delay").dp.median(candidates)).with_keys(keys)
        out = query.release().collect()
        return dict(zip(out["carrier"].to_list(), out["arr_delay"].to_list(), strict=True))

    _common.log(f"OpenDP on Polars, {df.height} rows: {spec['releases']} releases")
    seconds, results, _ = _common.time_releases(release, spec["warmup"], spec["releases"])
    baseline = _common.time_calls(lambda: df.group_by("carrier").agg(pl.col("arr_delay").median()),
                                  spec["baseline_repeats"])
    return _common.run_record(
        "polars", df.height, f"Context + Polars group_by, dp.median over {len(candidates)} candidates",
        seconds, results, setup, "polars group_by median (exact)", baseline)


def main():
    spec = _common.load_spec()
    runs = [measure(spec)] if any(w["engine"] == "polars" for w in spec["workloads"]) else []
    _common.emit("OpenDP", _common.version_of("opendp"), runs)


if __name__ == "__main__":
    main()
