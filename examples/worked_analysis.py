"""A worked analysis: arrival delays by airline, from a table where travellers fly many times.

The table is generated (so the script can show what the private figures estimate): 20,000
travellers and about 150,000 flights, a few frequent flyers with thousands of rows each, five
large airlines and a handful of charter codes flown by one traveller each, flights from three
airports, and cancelled flights whose delays are missing.  The analyst's question: for flights
from JFK, per airline, how many flights, the median arrival delay and the 90th percentile.

What it shows, in the order an analyst meets it:

1. The privacy unit is the traveller, with all their rows: ``dp.unit_of(identifier="traveller",
   contributions=3, max_groups=2)`` keeps at most 3 flights of each traveller in at most 2
   airlines (a keyed hash, with a secret key drawn per context, picks which), so a frequent
   flyer counts no more than an occasional one.
2. The airlines are not listed in advance: ``group_by("carrier")`` discovers them from the data
   with part of the budget (an (epsilon, delta) context); a charter flown by one traveller is
   released only with a probability within delta.
3. A filter (``arr_delay IS NOT NULL AND origin = 'JFK'``) keeps JFK's flights that arrived;
   the statistics then read ``arr_delay`` without missing values.
4. Several statistics per airline in one query, the budget split as the plan states.
5. Accuracy before release: ``query.summarize(alpha)``, one row per statistic.  The medians'
   rank bound holds only under a stated condition (the spread of the delays around the
   median: delays 40 ranks apart differ by at least 0.05 minutes), which the analyst gives;
   the summary repeats it, and the script checks it on the generated table.
6. The release, and a figure of the airlines' private medians with the rank window the summary
   promised, drawn from the generated data (possible here only because the data is generated).

    python examples/worked_analysis.py                  # prints the summary and the release
    python examples/worked_analysis.py --figure out.png # also draws the figure (needs matplotlib)
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

import opendp_duff as dp

AIRLINES = ["AA", "B6", "DL", "UA", "WN"]
CHARTERS = ["C01", "C02", "C03", "C04"]         # each flown by one traveller, once
BOUNDS = (-60.0, 600.0)                         # public: minutes, chosen without the data
ALPHA = 0.05
# assumed (delays are recorded to the hundredth of a minute, so neighbours tie): around each
# airline's median and 90th percentile, the delays 40 ranks below and 40 ranks above the target
# differ by at least 0.05 minutes
SPREAD, WITHIN = 0.05, 40


def flights(travellers: int = 20_000, seed: int = 2026) -> dict[str, object]:
    """The generated table: one row per flight, several per traveller."""
    rng = np.random.default_rng(seed)
    trips = np.minimum(rng.zipf(1.9, travellers), 4_000)          # a few fly thousands of times
    traveller = np.repeat(np.arange(travellers), trips)
    n = len(traveller)
    carrier = rng.choice(AIRLINES, size=n, p=[0.3, 0.1, 0.25, 0.25, 0.1]).astype(object)
    carrier[rng.choice(n, size=len(CHARTERS), replace=False)] = CHARTERS
    origin = rng.choice(["JFK", "LGA", "EWR"], size=n, p=[0.5, 0.3, 0.2])
    lateness = {"AA": 8.0, "B6": 14.0, "DL": 5.0, "UA": 9.0, "WN": 11.0}
    mean = np.array([lateness.get(c, 10.0) for c in carrier])
    arr_delay = np.round(rng.gamma(2.0, mean) - mean + rng.normal(0.0, 4.0, size=n), 2)
    arr_delay[rng.random(n) < 0.02] = np.nan                      # cancelled: no arrival
    return {"traveller": traveller, "carrier": carrier.astype(str), "origin": origin, "arr_delay": arr_delay}


def analysis(df: object) -> tuple[object, object, object]:
    """The summary before release, the release, and the plan."""
    ctx = dp.Context.compositor(
        data=df,
        privacy_unit=dp.unit_of(identifier="traveller", contributions=3, max_groups=2),
        privacy_loss=dp.loss_of(epsilon=2.0, delta=1e-6))
    plan = (ctx.query(epsilon=1.0, delta=1e-6)
            .filter("arr_delay IS NOT NULL AND origin = 'JFK'")
            .group_by("carrier", key_share=0.3)
            .agg(flights=dp.count(), median=dp.median("arr_delay", bounds=BOUNDS),
                 p90=dp.quantile("arr_delay", 0.9, bounds=BOUNDS), weights=[1, 2, 2]))
    summary = plan.summarize(ALPHA, spread=SPREAD, within=WITHIN)     # nothing is spent here
    assert ctx.spent == (0.0, 0.0)
    return summary, plan.release(), plan


def rank_windows(data: dict[str, object], release: object, summary: object) -> dict[str, tuple[float, float]]:
    """For each airline released, the values at ranks R - k and R + k of its JFK arrival delays
    in the generated table (R its median rank, k the summary's rank figure).  A check that only
    generated data allows: on real data these order statistics are private."""
    k = int(next(r["accuracy"] for r in summary.to_dict("records") if r["statistic"] == "median"))
    arr, carrier, origin = (np.asarray(data[c]) for c in ("arr_delay", "carrier", "origin"))
    windows = {}
    for name in release["carrier"]:
        x = np.sort(np.clip(arr[(carrier == name) & (origin == "JFK") & ~np.isnan(arr)], *BOUNDS))
        rank = math.ceil(len(x) / 2)
        windows[name] = (float(x[max(rank - k, 1) - 1]), float(x[min(rank + k, len(x)) - 1]))
    return windows


def spread_holds(data: dict[str, object]) -> bool:
    """Whether, in the generated table, every airline's JFK arrival delays at ranks R - WITHIN and
    R + WITHIN around the median and the 90th percentile differ by at least SPREAD."""
    arr, carrier, origin = (np.asarray(data[c]) for c in ("arr_delay", "carrier", "origin"))
    for name in AIRLINES:
        x = np.sort(arr[(carrier == name) & (origin == "JFK") & ~np.isnan(arr)])
        for q in (0.5, 0.9):
            rank = math.ceil(q * len(x))
            if x[rank + WITHIN - 1] - x[rank - WITHIN - 1] < SPREAD:
                return False
    return True


def figure(release: object, windows: dict[str, tuple[float, float]], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(release["carrier"])
    medians = np.asarray(release["median"], dtype=float)
    lo = medians - np.array([windows[n][0] for n in names])
    hi = np.array([windows[n][1] for n in names]) - medians
    fig, ax = plt.subplots(figsize=(6.0, 3.8), dpi=150)
    ax.errorbar(names, medians, yerr=[np.maximum(lo, 0), np.maximum(hi, 0)], fmt="o", capsize=4,
                label="private median, and the values at ranks R ± k (generated data)")
    ax.set_xlabel("airline (discovered)")
    ax.set_ylabel("arrival delay at JFK (minutes)")
    ax.set_title(f"Median arrival delay by airline, with the {1 - ALPHA:.0%} rank window")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figure", help="where to save the figure (PNG; needs matplotlib)")
    args = parser.parse_args()
    try:
        import pandas as pd
    except ImportError:
        print('this example needs pandas: pip install -e ".[pandas]"', file=sys.stderr)
        return 1
    pd.set_option("display.width", 120)
    pd.set_option("display.max_colwidth", 200)
    data = flights()
    df = pd.DataFrame(data)
    print(f"{len(df):,} flights of {df['traveller'].nunique():,} travellers; the most frequent flyer has "
          f"{df['traveller'].value_counts().iloc[0]:,} rows")
    summary, release, plan = analysis(df)
    print("\nThe plan:", plan)
    print("\nBefore release, what each statistic promises (alpha = 0.05):")
    for row in summary.to_dict("records"):
        print(f"  {row['statistic']:>16}: {row['mechanism']} scale {row['scale']:.4g}, accuracy "
              f"{row['accuracy']:g} ({row['unit']}); budget {row['budget']}")
    print("\n  median:", next(r["statement"] for r in summary.to_dict("records") if r["statistic"] == "median"))
    print("\nThe release (one row per airline discovered):")
    print(release.to_string(index=False))
    jfk = df[(df["origin"] == "JFK") & df["arr_delay"].notna()]
    print("\nThe generated table's medians, for comparison:",
          {c: round(float(v), 2) for c, v in jfk.groupby("carrier")["arr_delay"].median().items()
           if c in set(release["carrier"])})
    print(f"The spread condition on the generated table (all JFK arrivals): {spread_holds(data)}")
    windows = rank_windows(data, release, summary)
    inside = sum(lo <= m <= hi for m, (lo, hi) in zip(release["median"], windows.values(), strict=True))
    print(f"{inside} of {len(windows)} private medians lie in their promised rank window")
    if args.figure:
        try:
            figure(release, windows, args.figure)
        except ImportError:
            print("no figure: matplotlib is not installed (pip install -e \".[plots]\")", file=sys.stderr)
        else:
            print(f"figure saved to {args.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
