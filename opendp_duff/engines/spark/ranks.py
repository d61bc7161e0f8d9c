"""Rank windows of a Spark column, for one or many public keys in the same passes.

The Duff quantile sampler (:mod:`opendp_duff.measurements.duff`) reads its data only through
a :class:`~opendp_duff.engines.rank_window.RankSource`: n, then one window of ranks
first..last (the records of those ranks sorted, and for each tail outside it the count, the
ties with the window's end and a callable returning the tail sorted).  Here that source is
computed by Spark, for every key of a grouped release at once:

1. **Sizes** (one aggregation): n per key, and an estimate of its number of distinct values
   (HyperLogLog, ``approx_count_distinct``).  From n the driver computes the ranks the sampler
   will ask for (its prediction, :func:`opendp_duff.measurements.duff.sampler_ranks`).
2. **Brackets** (:mod:`opendp_duff.engines.spark._brackets`, none for keys of few distinct
   values, else usually one aggregation, at most four):
   exact histograms over public bins narrow each key's rows to an interval of values that
   holds its window; only the counts of the few bins meeting the window reach the driver.
3. **The window** (one aggregation): per key, the rows are split into below, inside and above
   the bracket; the inside rows are grouped by value and counted, a running sum over the
   values in order gives each value's exact range of ranks, and only the values whose range
   meets [first, last] reach the driver, with their multiplicities, plus the counts below
   and above.  The exact counts pin the ranks: the brackets only choose how much is
   shuffled, never what is returned.  A key whose bracket missed its window is computed
   again with no bracket.
4. **Tails** (only those the sampler opens that are not all ties): the distinct values below
   y_first (above y_last) with their multiplicities, for every key that opened one in the
   same round of a grouped release in one shared pass (:mod:`.rounds`).

The windows and tails returned are a function of each key's multiset of records alone, the
same as :class:`~opendp_duff.engines.selection.SelectedRecords` returns on those
records (``proofs/engines/spark/rank_windows.tex``), so the sampler on the driver draws
from exactly the single-machine law.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ...duff_utility import SamplerRanks, sampler_ranks
from .._base import Predict
from ..rank_window import NO_PAIRS, Pairs, RankWindow, Tail
from . import _pyspark as ps
from . import collection, rounds
from ._brackets import Level, choose_levels, kept, near_values, side, with_levels, with_ranks
from .parts import KID, VAL
from .predicted import predictable, predicted_ranks_sql

__all__ = ["SparkDataChanged", "KeyRanks", "spark_rank_sources", "window_pass", "driver_pairs_bound"]

DISTINCT_RSD = 0.3    # relative error of the sizes pass's estimate of a key's distinct values (cost only)


# [proof:driver_pairs_bound]
def driver_pairs_bound(n: int, scale: float, alpha: Fraction = Fraction(1, 2)) -> int:
    """The most (value, count) pairs of one key's records that a Duff alpha-quantile release
    at ``scale`` sends to the driver in its window pass, for a key of n records: with w the
    width of the sampler's window (``sampler_ranks``; w <= 2k + 2, k = ceil(scale (ln(n + 2)
    + 30)) + 2) and m = ceil(w / 2) its reach (``near_values``), min(n, w + 2m) <= min(n, 4k + 4),
    whatever the ties (``proofs/engines/spark/rank_windows.tex``).  A tail's rest, fetched only
    when the sampler opens it, adds its distinct values."""
    got = sampler_ranks(n, alpha, scale)
    if got is None:
        return 0
    first, last = got
    return min(n, last - first + 1 + 2 * near_values(first, last))
# [end:driver_pairs_bound]


# [proof:SparkDataChanged]
class SparkDataChanged(RuntimeError):
    """The admitted snapshot no longer has its rows, or two passes of one release saw different
    rows: the DataFrame's plan is not deterministic and its cache was recomputed."""

    def __init__(self) -> None:
        super().__init__("the Spark frame gave other rows than those admitted (its snapshot was recomputed, or "
                         "two passes of one release disagreed); make it deterministic (checkpoint it) first")
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
def spark_rank_sources(rows: Any, n_keys: int, predict: Predict, lo: float, hi: float,
                       few: bool = False, small: bool = False,
                       checked: Callable[[Any], Any] | None = None) -> list[KeyRanks]:
    """One rank source per key index 0..n_keys-1 of ``rows`` (columns KID, VAL: finite
    floats of [lo, hi] without -0.0): sizes, brackets, then the windows ``predict(n)``; or, for
    a column of ``few`` distinct values and a prediction Spark can evaluate, sizes and windows in
    one pass (:func:`predicted_pass`; ``small``: few enough rows to move them all; ``checked``:
    the rows with a snapshot check folded in, :func:`predicted_pass`)."""
    n = dict.fromkeys(range(n_keys), 0)
    if few and predictable(predict):
        windows = predicted_pass(rows, n, predict, small, checked)
        ranks = {k: r for k in range(n_keys) if (r := predict(n[k])) is not None}
        missed = {k: (*r, ()) for k, r in ranks.items() if windows.get(k) is None}
    else:
        F = ps.functions()
        distinct = dict.fromkeys(range(n_keys), 0)
        got = rows.groupBy(KID).agg(F.count(F.lit(1)).alias("n"),
                                    F.approx_count_distinct(VAL, DISTINCT_RSD).alias("d"))
        for row in collection.collect(got):
            n[row[KID]], distinct[row[KID]] = int(row["n"]), int(row["d"])
            collection.current().note(row[KID], counts=2)
        ranks = {k: r for k in range(n_keys) if (r := predict(n[k])) is not None}
        levels = choose_levels(rows, n, ranks, lo, hi, distinct)
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


# [proof:predicted_pass]
def predicted_pass(rows: Any, n: dict[int, int], predict: SamplerRanks, small: bool = False,
                   checked: Callable[[Any], Any] | None = None) -> dict[int, RankWindow | None]:
    """ONE aggregation for every key: its records grouped by value, its total ``tot`` (written
    into ``n``), and the groups that reach the window Spark predicts from ``tot``
    (:func:`.predicted.predicted_ranks_sql`) with the ranks it used.  Returns the window of each key
    whose ranks are ``predict(n)``, None for a key with records whose ranks differ (the caller
    computes it by :func:`window_pass`).  ``small``: the rows are first moved to their key's
    partition (one shuffle of every row instead of two of partial counts: fewer stages, which
    is faster while the rows are few), into at most as many partitions as the session has cores.
    ``checked(check)``: for the release's pending snapshot check, the rows of ``rows`` and one
    (null, null) row per other row of the snapshot, with the check's row terms, or None; given
    them, the pass reads those and folds the check into its own scan (the null key's group is
    kept for it, and dropped by :meth:`~.snapshot.Check.verified_by_key`)."""
    check = collection.pending()
    every = checked(check) if check is not None and checked is not None else None
    group_terms, key_totals = check.fold_sql() if every is not None else ([], [])
    source = "{groups}"
    if small:
        cores = ps.parallelism(rows.sparkSession)
        source = ("(SELECT * FROM {groups} DISTRIBUTE BY " + KID + ") AS moved" if cores is None
                  else f"(SELECT /*+ REPARTITION({min(cores, max(len(n), 1))}, {KID}) */ * FROM {{groups}}) AS moved")
    by_value = (f"SELECT {KID}, 0 AS s, {VAL} AS v, count(1) AS c{''.join(', ' + t for t in group_terms)} "
                f"FROM {source} GROUP BY {KID}, {VAL}")
    columns = [KID, "s", "v", "c", "cum", "tot", "first", "last"] + (list(check.FOLDED) if every is not None else [])
    # every key of ``rows`` is ranked; the null key of ``every`` (the check's rows alone) is not
    frame = kept(rows if every is None else every, ["v"], f"{KID} IS NOT NULL", columns,
                 functools.partial(predicted_ranks_sql, predict=predict), by_value, key_totals)
    got = collection.collect(frame, folded=None if every is None else (KID, "tot"))
    by_key: dict[int, list[Any]] = {}
    for row in got:
        by_key.setdefault(row[KID], []).append(row)
    out: dict[int, RankWindow | None] = {}
    for k, found in by_key.items():
        n[k] = int(found[0]["tot"])
        ranks = predict(n[k])
        used = {(int(r["first"]), int(r["last"])) for r in found}
        out[k] = _assemble(rows, k, n[k], *ranks, found) if ranks is not None and used == {ranks} else None
    return out
# [end:predicted_pass]


# [proof:window_pass]
def window_pass(rows: Any, plan: Mapping[int, tuple[int, int, tuple[Level, ...]]],
                n: dict[int, int]) -> dict[int, RankWindow | None]:
    """One aggregation: for each key k of ``plan`` = {k: (first, last, levels)}, the window of
    ranks first..last if the inside of its levels holds it, else None (no pass for no key)."""
    if not plan:
        return {}
    F = ps.functions()
    depth = max(len(levels) for _, _, levels in plan.values())
    x = F.col(VAL)
    s = side(x, depth)
    groups = with_ranks(with_levels(rows, plan, depth).groupBy(
        KID, s.alias("s"), F.when(s == 0, x).alias("v")).agg(F.count(F.lit(1)).alias("c")), plan)
    got = collection.collect(kept(groups, ["s", "v"], "s = 0", [KID, "s", "v", "c", "cum", "tot"]))
    by_key: dict[int, list[Any]] = {k: [] for k in plan}
    for row in got:
        by_key[row[KID]].append(row)
    return {k: _assemble(rows, k, n[k], first, last, by_key[k]) for k, (first, last, _) in plan.items()}


def _assemble(rows: Any, k: int, n: int, first: int, last: int, got: list[Any]) -> RankWindow | None:
    """The window of ranks first..last of key k from its collected groups, or None if the
    bracket did not contain it.  Each value v of multiplicity c and running count cum holds
    the ranks cum - c + 1 .. cum; the inside values collected before (after) the ones meeting
    [first, last] are the tails' near pairs."""
    below = sum(int(r["c"]) for r in got if r["s"] == -1)
    above = sum(int(r["c"]) for r in got if r["s"] == 1)
    inside = sorted((r for r in got if r["s"] == 0), key=lambda r: r["v"])
    if not got or any(int(r["tot"]) != n for r in got):
        raise SparkDataChanged()   # every key with n >= 1 has a group; all passes see n rows
    collection.current().note(k, values=len(inside), counts=2 * len(got))
    if below > first - 1 or n - above < last or not inside:
        return None
    v = np.array([float(r["v"]) for r in inside], dtype=np.float64)
    c = np.array([int(r["c"]) for r in inside], dtype=np.int64)
    cum = np.array([int(r["cum"]) for r in inside], dtype=np.int64)
    start = cum - c + 1
    if np.any(start[1:] != cum[:-1] + 1) or start[0] > first or cum[-1] < last:
        raise SparkDataChanged()   # the kept groups are consecutive and hold [first, last]
    meets = np.flatnonzero((cum >= first) & (start <= last))
    a, b = int(meets[0]), int(meets[-1]) + 1
    overlap = np.minimum(cum[a:b], last) - np.maximum(start[a:b], first) + 1
    values = np.repeat(v[a:b], overlap)
    lo_ties, hi_ties = int(first - start[a]), int(cum[b - 1] - last)
    rest_left = first - 1 - lo_ties - int(c[:a].sum())
    rest_right = n - last - hi_ties - int(c[b:].sum())
    left = Tail(first - 1, lo_ties, _rest(rows, k, float(v[0]), rest_left, below=True), (v[:a], c[:a]))
    right = Tail(n - last, hi_ties, _rest(rows, k, float(v[-1]), rest_right, below=False), (v[b:], c[b:]))
    return RankWindow(n, first, values, left, right)


def _rest(rows: Any, k: int, edge: float, count: int, below: bool) -> Callable[[], Pairs]:
    """The rest of a tail of key k on demand: the (value, count) pairs of its ``count`` records
    below (above) ``edge``, the tail's near value farthest from the window (or the window's
    end): none when ``count`` is 0, else fetched in the round's shared tail pass
    (:func:`.rounds.request`, :func:`tail_pass`)."""
    if count == 0:
        return lambda: NO_PAIRS
    return lambda: rounds.request(rows, (k, edge, count, below), tail_pass)


def tail_pass(rows: Any, specs: Sequence[tuple[int, float, int, bool]]) -> list[Pairs]:
    """One pass: for each request (k, edge, count, below), the (value, count) pairs of key k's
    records below (above) ``edge``, sorted; SparkDataChanged unless they hold ``count`` records.
    The requests are of distinct (key, side) pairs, so each row meets at most one of them."""
    F = ps.functions()
    x = F.col(VAL)
    which = F.lit(None)
    for i, (k, edge, _, below) in reversed(list(enumerate(specs))):
        which = F.when((F.col(KID) == k) & ((x < edge) if below else (x > edge)), i).otherwise(which)
    picked = rows.select(which.alias("r"), x).where(F.col("r").isNotNull())
    got = collection.collect(picked.groupBy("r", VAL).agg(F.count(F.lit(1)).alias("c")))
    log = collection.current()
    log.tail_passes += 1
    found: list[list[Any]] = [[] for _ in specs]
    for row in got:
        found[row["r"]].append(row)
    out = []
    for (k, _, count, _), pairs_rows in zip(specs, found, strict=True):
        pairs_rows.sort(key=lambda r: r[VAL])
        log.note(k, values=len(pairs_rows), counts=len(pairs_rows))
        log.tails += 1
        pairs = (np.array([float(r[VAL]) for r in pairs_rows], dtype=np.float64),
                 np.array([int(r["c"]) for r in pairs_rows], dtype=np.int64))
        if int(pairs[1].sum()) != count:
            raise SparkDataChanged()
        out.append(pairs)
    return out
# [end:window_pass]
