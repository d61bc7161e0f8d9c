"""A group-by walkthrough: private medians of household incomes by region, with a budget.

The data is synthetic (50,000 households, four regions of different sizes and incomes), so the
script can print the true statistics next to the private ones.  It runs on a pandas DataFrame
(the pandas extra: without pandas it says what to install and exits), then on the same data as a
Polars DataFrame when Polars is installed.

What it shows:

1. A context holds the data behind a budget: ``dp.Context.compositor(data=df, ...)``.  Its
   domain is read from the dtypes only (floats, integers, strings), never from the values, so
   a float column may hold missing values and a query on it says how to treat them
   (``.impute(0.0)``).  A query is a data-free plan (``dp.query()...``) that the context runs:
   the same plan serves the pandas and the Polars contexts.
2. ``split_evenly_over=4``: four queries, each taking a quarter of epsilon = 1.  Each query's
   scale is searched so that its cost is its share exactly (never above it); after the four,
   nothing remains and a fifth query is refused before it reads anything.
3. ``.group_by("region", keys=[...])``: one release per public key, returned as a frame of the
   input's library; a key absent from the data (here "Islands") still gets a release, so
   which rows come back never depends on the data.  With one row per household, the grouped
   median costs what one median costs (parallel composition).
4. A zCDP context with per-query budgets: ``ctx.query(rho=...)``; the Duff mechanisms
   (pure DP) are restated in zCDP.
"""
from __future__ import annotations

import sys

import numpy as np

import opendp_duff as dp

REGIONS = ["North", "South", "East", "West"]
KEYS = REGIONS + ["Islands"]          # public keys: "Islands" has no household in the data
BOUNDS = (0.0, 400_000.0)             # public: chosen without looking at the data
INCOME = dp.query().column("income").impute(0.0).clamp(BOUNDS)   # a plan: no data, no context


def households(n: int = 50_000, seed: int = 7) -> dict[str, object]:
    """Synthetic households: region, yearly income (log-normal per region), household size."""
    rng = np.random.default_rng(seed)
    region = rng.choice(REGIONS, size=n, p=[0.35, 0.30, 0.25, 0.10])
    log_mean = np.select([region == r for r in REGIONS], [10.9, 10.6, 10.8, 10.3])
    return {"region": region.tolist(),
            "income": np.round(rng.lognormal(log_mean, 0.65), 2),
            "size": rng.integers(1, 7, size=n)}


def true_medians(data: dict[str, object]) -> dict[str, float]:
    region, income = np.asarray(data["region"]), np.asarray(data["income"])
    out = {}
    for key in KEYS:
        x = np.sort(income[region == key])
        out[key] = float(x[(x.size + 1) // 2 - 1]) if x.size else float("nan")   # lower median
    return out


def walkthrough(df: object, data: dict[str, object], library: str) -> None:
    print(f"=== {library} ===")
    ctx = dp.Context.compositor(
        data=df,
        privacy_unit=dp.unit_of(contributions=1),      # one row per household
        privacy_loss=dp.loss_of(epsilon=1.0),
        split_evenly_over=4)
    print(f"domain from the dtypes: {ctx.domain}")

    income = np.asarray(data["income"])
    median = INCOME.median()
    cost = ctx.resolve(median).map(1)
    print(f"median income          : {ctx.release(median):>12,.0f}   (true {np.median(income):,.0f}; "
          f"epsilon {cost:.6f})")
    p90 = ctx.release(INCOME.quantile(0.9))
    print(f"90th percentile        : {p90:>12,.0f}   (true {np.quantile(income, 0.9):,.0f})")

    grouped = ctx.query().group_by("region", keys=KEYS).column("income").impute(0.0).clamp(BOUNDS).median()
    cost = grouped.resolve().map(1)
    table = grouped.release()
    print(f"median income by region (a {type(table).__module__.split('.')[0]} frame, "
          f"epsilon {cost:.6f} for all regions together):")
    truth = true_medians(data)
    for key, value in zip(list(table["region"]), list(table["income_median"]), strict=True):
        shown = "no data" if np.isnan(truth[key]) else f"{truth[key]:,.0f}"
        print(f"    {key:<8} {value:>12,.0f}   (true {shown})")

    mode = ctx.query().column("region").mode(candidates=KEYS).release()
    print(f"most common region     : {mode}")
    print(f"spent {ctx.spent}, remaining {ctx.remaining}")
    try:
        ctx.query()
    except dp.MakeError as refusal:
        print(f"a fifth query is refused: {refusal}")

    zcdp = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(rho=0.5))
    counts = zcdp.query(rho=0.1).group_by("region", keys=KEYS).column("size").count().release()
    means = zcdp.release(dp.query().group_by("region", keys=KEYS).column("income").impute(0.0).clamp(BOUNDS).mean(),
                         rho=0.2)
    print("households and mean income by region (zCDP, rho = 0.1 and 0.2):")
    for key, n, m in zip(KEYS, list(counts["size_count"]), list(means["income_mean"]), strict=True):
        # A noisy count can come out below zero (Islands has no household: its row is noise
        # alone).  Showing max(count, 0) is post-processing: it costs no privacy.
        print(f"    {key:<8} {max(n, 0.0):>10,.0f} households   mean {m:>10,.0f}")
    print("    (Islands has no household: its row is noise alone.  A count below zero is shown as 0,")
    print("     which is post-processing and costs nothing.)")
    # 0.1 + 0.2 in binary is a hair above 0.3: the context prints 0.3000000000000001, never less
    # than it spent, and 0.19999999999999998 remains.
    print(f"rho spent {zcdp.spent}, remaining {zcdp.remaining}\n")


def main() -> None:
    try:
        import pandas as pd
    except ImportError:
        sys.exit("This walkthrough runs on a pandas DataFrame, and pandas is not installed.\n"
                 "Install it with the pandas extra, from the repository: pip install -e \".[pandas]\"\n"
                 "(add the polars extra for the Polars half: pip install -e \".[pandas,polars]\").")
    data = households()
    walkthrough(pd.DataFrame(data), data, "pandas")
    try:
        import polars as pl
    except ImportError:
        print('(Polars is not installed, so the Polars half is skipped: pip install -e ".[polars]")')
        return
    walkthrough(pl.DataFrame(data), data, "Polars")


if __name__ == "__main__":
    main()
