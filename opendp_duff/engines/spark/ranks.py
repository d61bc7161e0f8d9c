"""Rank windows of a Spark column, for one or many public keys in the same passes.

The Duff quantile sampler (:mod:`opendp_duff.measurements.duff`) reads its data only through
a :class:`~opendp_duff.engines.rank_window.RankSource`: n, then one window of ranks
first..last (the records of those ranks sorted, and for each tail outside it the count, the
ties with the window's end and a callable returning the tail sorted).  Here that source is
computed by Spark, for every key of a grouped release at once:

1. **Sizes** (one aggregation): n per key.  From n the driver computes the ranks the sampler
   will ask for (its prediction, :func:`opendp_duff.measurements.duff.sampler_ranks`).
2. **Brackets** (:mod:`opendp_duff.engines.spark._brackets`, usually one aggregation, at most four):
   exact histograms over public bins narrow each key's rows to an interval of values that
   holds its window; only the counts of the few bins meeting the window reach the driver.
3. **The window** (one aggregation): per key, the rows are split into below, inside and above
   the bracket; the inside rows are grouped by value and counted, a running sum over the
   values in order gives each value's exact range of ranks, and only the values whose range
   meets [first, last] reach the driver, with their multiplicities, plus the counts below
   and above.  The exact counts pin the ranks: the brackets only choose how much is
   shuffled, never what is returned.  A key whose bracket missed its window is computed
   again with no bracket.
4. **A tail** (one pass, only if the sampler opens it and it is not all ties): the distinct
   values below y_first (above y_last) with their multiplicities.

The windows and tails returned are a function of each key's multiset of records alone, the
same as :class:`~opendp_duff.engines.selection.SelectedRecords` returns on those
records (``proofs/engines/spark/rank_windows.tex``), so the sampler on the driver draws
from exactly the single-machine law.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._base import Predict
from ..rank_window import RankWindow, Tail
from . import _pyspark as ps
from . import collection
from ._brackets import Level, choose_levels, level_table, side
from .parts import KID, VAL

__all__ = ["SparkDataChanged", "KeyRanks", "spark_rank_sources", "window_pass"]


# [proof:SparkDataChanged]
class SparkDataChanged(RuntimeError):
    """Two passes of one release saw different rows: the DataFrame is not deterministic."""

    def __init__(self) -> None:
        super().__init__("the DataFrame gave different rows to two passes of one release; "
                         "make it deterministic (cache or checkpoint it) before releasing")
# [end:SparkDataChanged]


class KeyRanks:
    """The :class:`~opendp_duff.engines.rank_window.RankSource` of one key: n, and
    the window computed in the shared passes (another window costs one more pass)."""

    def __init__(self, n: int, ranks: tuple[int, int] | None, window: RankWindow | None,
                 compute: Callable[[int, int], RankWindow]) -> None:
        self.n = n
        self._ranks, self._window, self._compute = ranks, window, compute

    # [proof:KeyRanks.window]
    def window(self, first: int, last: int) -> RankWindow:
        if (first, last) == self._ranks and self._window is not None:
            return self._window
        return self._compute(first, last)
    # [end:KeyRanks.window]


# [proof:spark_rank_sources]
def spark_rank_sources(rows: Any, n_keys: int, predict: Predict, lo: float, hi: float) -> list[KeyRanks]:
    """One rank source per key index 0..n_keys-1 of ``rows`` (columns KID, VAL: finite
    floats of [lo, hi] without -0.0): sizes, brackets, then the windows ``predict(n)``."""
    F = ps.functions()
    n = dict.fromkeys(range(n_keys), 0)
    for row in collection.collect(rows.groupBy(KID).agg(F.count(F.lit(1)).alias("n"))):
        n[row[KID]] = int(row["n"])
        collection.current().note(row[KID], counts=1)
    ranks = {k: r for k in range(n_keys) if (r := predict(n[k])) is not None}
    levels = choose_levels(rows, n, ranks, lo, hi)
    windows = window_pass(rows, {k: (*r, levels[k]) for k, r in ranks.items()}, n)
    missed = {k: (*ranks[k], ()) for k, w in windows.items() if w is None}
    if missed:
        windows.update(window_pass(rows, missed, n))
    if any(w is None for w in windows.values()):
        raise SparkDataChanged()

    def compute(k: int) -> Callable[[int, int], RankWindow]:
        def one(first: int, last: int) -> RankWindow:
            w = window_pass(rows, {k: (first, last, ())}, n)[k]
            if w is None:
                raise SparkDataChanged()
            return w
        return one
    return [KeyRanks(n[k], ranks.get(k), windows.get(k), compute(k)) for k in range(n_keys)]
# [end:spark_rank_sources]


# [proof:window_pass]
def window_pass(rows: Any, plan: Mapping[int, tuple[int, int, tuple[Level, ...]]],
                n: dict[int, int]) -> dict[int, RankWindow | None]:
    """One aggregation: for each key k of ``plan`` = {k: (first, last, levels)}, the window of
    ranks first..last if the inside of its levels holds it, else None."""
    F, W = ps.functions(), ps.window()
    depth = max(len(levels) for _, _, levels in plan.values())
    table = level_table(rows.sparkSession, plan, depth)
    x = F.col(VAL)
    s = side(x, depth)
    groups = rows.join(F.broadcast(table), KID).groupBy(
        KID, "first", "last", s.alias("s"), F.when(s == 0, x).alias("v")).agg(F.count(F.lit(1)).alias("c"))
    running = W.partitionBy(KID).orderBy("s", "v").rowsBetween(W.unboundedPreceding, W.currentRow)
    groups = groups.withColumn("cum", F.sum("c").over(running)).withColumn(
        "tot", F.sum("c").over(W.partitionBy(KID)))
    meets = (F.col("cum") >= F.col("first")) & (F.col("cum") - F.col("c") < F.col("last"))
    got = collection.collect(groups.where((F.col("s") != 0) | meets).select(KID, "s", "v", "c", "cum", "tot"))
    by_key: dict[int, list[Any]] = {k: [] for k in plan}
    for row in got:
        by_key[row[KID]].append(row)
    return {k: _assemble(rows, k, n[k], first, last, by_key[k]) for k, (first, last, _) in plan.items()}


def _assemble(rows: Any, k: int, n: int, first: int, last: int, got: list[Any]) -> RankWindow | None:
    """The window of ranks first..last of key k from its collected groups, or None if the
    bracket did not contain it.  Each value v of multiplicity c and running count cum holds
    the ranks cum - c + 1 .. cum."""
    if not got or any(int(r["tot"]) != n for r in got):
        raise SparkDataChanged()   # every key with n >= 1 has a group; all passes see n rows
    below = sum(int(r["c"]) for r in got if r["s"] == -1)
    above = sum(int(r["c"]) for r in got if r["s"] == 1)
    inside = sorted((r for r in got if r["s"] == 0), key=lambda r: r["v"])
    collection.current().note(k, values=len(inside), counts=3 * len(got))
    if below > first - 1 or n - above < last or not inside:
        return None
    v = np.array([float(r["v"]) for r in inside], dtype=np.float64)
    c = np.array([int(r["c"]) for r in inside], dtype=np.int64)
    cum = np.array([int(r["cum"]) for r in inside], dtype=np.int64)
    start = cum - c + 1
    if start[0] > first or cum[-1] < last or np.any(start[1:] != cum[:-1] + 1):
        raise SparkDataChanged()   # the groups meeting [first, last] are consecutive ranks
    overlap = np.minimum(cum, last) - np.maximum(start, first) + 1
    values = np.repeat(v, overlap)
    lo_ties, hi_ties = int(first - start[0]), int(cum[-1] - last)
    left = Tail(first - 1, lo_ties, _tail(rows, k, float(v[0]), first - 1, lo_ties, below=True))
    right = Tail(n - last, hi_ties, _tail(rows, k, float(v[-1]), n - last, hi_ties, below=False))
    return RankWindow(n, first, values, left, right)


def _tail(rows: Any, k: int, end: float, count: int, ties: int, below: bool) -> Callable[[], np.ndarray]:
    """The tail of key k on demand, sorted: the records below (above) the window's end
    ``end``, with the ``ties`` records equal to it on the window's side.  One pass, unless
    every record of the tail ties with the end (then the tail is known already)."""
    if ties == count:
        return lambda: np.full(count, end, dtype=np.float64)

    def fetch() -> np.ndarray:
        F = ps.functions()
        x = F.col(VAL)
        strict = rows.where((F.col(KID) == k) & ((x < end) if below else (x > end)))
        got = collection.collect(strict.groupBy(VAL).agg(F.count(F.lit(1)).alias("c")).orderBy(VAL))
        log = collection.current()
        log.note(k, values=len(got), counts=len(got))
        log.tails += 1
        vals = np.repeat(np.array([float(r[VAL]) for r in got], dtype=np.float64),
                         np.array([int(r["c"]) for r in got], dtype=np.int64))
        same = np.full(ties, end, dtype=np.float64)
        out = np.concatenate([vals, same] if below else [same, vals])
        if out.size != count:
            raise SparkDataChanged()
        return out
    return fetch
# [end:window_pass]
