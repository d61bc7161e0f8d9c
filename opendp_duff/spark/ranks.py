"""Rank windows of a Spark column, for one or many public keys in the same passes.

The Duff quantile sampler (:mod:`opendp_duff.measurements.duff`) reads its data only through
a :class:`~opendp_duff.measurements._rank_window.RankSource`: n, then one window of ranks
first..last (the records of those ranks sorted, and for each tail outside it the count, the
ties with the window's end and a callable returning the tail sorted).  Here that source is
computed by Spark, for every key of a grouped release at once:

1. **Sizes and a ladder of approximate quantiles** (one aggregation): per key, n and
   ``percentile_approx`` at the fixed fractions alpha +- 2^-j, whose rank error is at most
   n / accuracy [GK01].  From n the driver computes the ranks the sampler will ask for
   (:func:`sampler_ranks`) and picks, per key, the ladder values a <= y_first and
   b >= y_last (the widest fractions whose guarantee still brackets the window), or
   -inf / +inf when no fraction does.
2. **The window** (one aggregation): per key, the rows are split into below a, within
   [a, b], above b; those within are grouped by value and counted, a running sum over
   the values in order gives each value's exact range of ranks, and only the values whose
   range meets [first, last] reach the driver, with their multiplicities, plus the counts
   below and above.  The exact counts pin the ranks: the approximate quantiles only choose
   how much is shuffled, never what is returned.  A key whose bracket missed its window
   (the approximation's guarantee failed) is computed again with no bracket.
3. **A tail** (one pass, only if the sampler opens it): the distinct values below y_first
   (above y_last) with their multiplicities, and the ties with the window's end.

The windows and tails returned are a function of each key's multiset of records alone, the
same as :class:`~opendp_duff.measurements._rank_window.SelectedRecords` returns on those
records (``proofs/spark/ranks/spark_rank_windows.tex``), so the sampler on the driver draws
from exactly the single-machine law.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..duff_utility import quantile_best_gap, quantile_rational
from ..measurements._rank_window import RankWindow, Tail
from ..measurements.duff import _window
from . import _pyspark as ps
from . import collection
from ._parts import KID, VAL

__all__ = ["ACCURACY", "SparkDataChanged", "KeyRanks", "ladder", "sampler_ranks", "spark_rank_sources"]

ACCURACY = 10_000   # percentile_approx accuracy: rank error at most n / ACCURACY


class SparkDataChanged(RuntimeError):
    """Two passes of one release saw different rows: the DataFrame is not deterministic."""

    def __init__(self) -> None:
        super().__init__("the DataFrame gave different rows to two passes of one release; "
                         "make it deterministic (cache or checkpoint it) before releasing")


def ladder(alpha: Fraction, accuracy: int) -> list[float]:
    """alpha and the fixed fractions alpha - alpha 2^-j and alpha + (1 - alpha) 2^-j for
    j = 1 .. ceil(log2 accuracy) + 1: each side halves its distance to alpha at every step,
    so their quantiles bracket a window of any width within a factor 2 of its width plus
    the rank error (or the bracket is open on that side)."""
    a = float(alpha)
    steps = [2.0 ** -j for j in range(1, math.ceil(math.log2(accuracy)) + 2)]
    return sorted({a} | {p for d in steps for p in (a - a * d, a + (1 - a) * d) if 0.0 < p < 1.0})


def sampler_ranks(n: int, alpha: Fraction, scale: float) -> tuple[int, int] | None:
    """The ranks (first, last) the Duff sampler asks its source for, None for n = 0.

    The same arithmetic as ``_QuantileSampler.__init__`` (best gap r, half-width
    ``_window``); if the two ever differ, :class:`KeyRanks` computes the asked window by an
    extra pass, so this prediction changes the cost, never the window."""
    if n == 0:
        return None
    P, Q = quantile_rational(alpha, n)
    r = quantile_best_gap(n, P, Q)
    k = _window(n, scale)
    return max(r - k, 1), min(r + k + 1, n)


def bracket(n: int, first: int, last: int, fractions: list[float], quantiles: list[float],
            accuracy: int) -> tuple[float, float]:
    """(a, b) with a <= b: the approximate quantiles of the widest ladder fractions p whose
    rank guarantee |rank - p n| <= n / accuracy puts a at a rank < first and b at a rank
    >= last (so a <= y_first and y_last <= b when the guarantee holds); -inf / +inf if none
    (and both, should the approximation be out of order)."""
    err = n / accuracy + 1.0
    below = [q for p, q in zip(fractions, quantiles, strict=True) if p * n + err <= first - 1]
    above = [q for p, q in zip(fractions, quantiles, strict=True) if p * n - err >= last]
    a, b = (below[-1] if below else -math.inf), (above[0] if above else math.inf)
    return (a, b) if a <= b else (-math.inf, math.inf)


class KeyRanks:
    """The :class:`~opendp_duff.measurements._rank_window.RankSource` of one key: n, and
    the window computed in the shared passes (another window costs one more pass)."""

    def __init__(self, n: int, ranks: tuple[int, int] | None, window: RankWindow | None,
                 compute: Callable[[int, int], RankWindow]) -> None:
        self.n = n
        self._ranks, self._window, self._compute = ranks, window, compute

    def window(self, first: int, last: int) -> RankWindow:
        if (first, last) == self._ranks and self._window is not None:
            return self._window
        return self._compute(first, last)


# [proof:spark_rank_sources]
def spark_rank_sources(rows: Any, n_keys: int, alpha: Fraction, scale: float,
                       accuracy: int = ACCURACY) -> list[KeyRanks]:
    """One rank source per key index 0..n_keys-1 of ``rows`` (columns KID, VAL: finite
    floats without -0.0), in two passes: sizes and ladder, then the windows."""
    F = ps.functions()
    fractions = ladder(alpha, accuracy)
    stats = collection.collect(rows.groupBy(KID).agg(
        F.count(F.lit(1)).alias("n"), F.percentile_approx(VAL, fractions, accuracy).alias("q")))
    n = dict.fromkeys(range(n_keys), 0)
    quantiles: dict[int, list[float]] = {}
    for row in stats:
        n[row[KID]], quantiles[row[KID]] = int(row["n"]), [float(q) for q in row["q"]]
        collection.current().note(row[KID], values=len(fractions), counts=1)
    ranks = {k: sampler_ranks(n[k], alpha, scale) for k in range(n_keys)}
    plan = {k: (*r, *bracket(n[k], *r, fractions, quantiles[k], accuracy))
            for k, r in ranks.items() if r is not None}
    windows = window_pass(rows, plan, n)
    missed = {k: (*plan[k][:2], -math.inf, math.inf) for k, w in windows.items() if w is None}
    if missed:
        windows.update(window_pass(rows, missed, n))
    if any(w is None for w in windows.values()):
        raise SparkDataChanged()

    def compute(k: int) -> Callable[[int, int], RankWindow]:
        def one(first: int, last: int) -> RankWindow:
            w = window_pass(rows, {k: (first, last, -math.inf, math.inf)}, n)[k]
            if w is None:
                raise SparkDataChanged()
            return w
        return one
    return [KeyRanks(n[k], ranks[k], windows.get(k), compute(k)) for k in range(n_keys)]
# [end:spark_rank_sources]


# [proof:window_pass]
def window_pass(rows: Any, plan: dict[int, tuple[int, int, float, float]],
                n: dict[int, int]) -> dict[int, RankWindow | None]:
    """One aggregation: for each key k of ``plan`` = {k: (first, last, a, b)}, the window of
    ranks first..last if [a, b] contains it, else None."""
    F, W, t = ps.functions(), ps.window(), ps.types()
    schema = t.StructType([t.StructField(KID, t.IntegerType(), False)] + [
        t.StructField(c, t.DoubleType() if c in "ab" else t.LongType(), False)
        for c in ("first", "last", "a", "b")])
    table = rows.sparkSession.createDataFrame(
        [(k, first, last, a, b) for k, (first, last, a, b) in plan.items()], schema)
    x = F.col(VAL)
    side = F.when(x < F.col("a"), -1).when(x > F.col("b"), 1).otherwise(0)
    groups = rows.join(F.broadcast(table), KID).groupBy(
        KID, "first", "last", side.alias("s"), F.when(side == 0, x).alias("v")).agg(
        F.count(F.lit(1)).alias("c"))
    running = W.partitionBy(KID).orderBy("s", "v").rowsBetween(W.unboundedPreceding, W.currentRow)
    groups = groups.withColumn("cum", F.sum("c").over(running)).withColumn(
        "tot", F.sum("c").over(W.partitionBy(KID)))
    meets = (F.col("cum") >= F.col("first")) & (F.col("cum") - F.col("c") < F.col("last"))
    got = collection.collect(groups.where((F.col("s") != 0) | meets).select(KID, "s", "v", "c", "cum", "tot"))
    by_key: dict[int, list[Any]] = {k: [] for k in plan}
    for row in got:
        by_key[row[KID]].append(row)
    return {k: _assemble(rows, k, n[k], first, last, by_key[k]) for k, (first, last, _, _) in plan.items()}


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
