"""Brackets of the rank windows: which rows a window pass keeps, chosen from exact histograms.

A key's bracket is a chain of *levels*.  Level i maps a value x to the number
``y_i(x) = min(max((x - u_i) c_i, -1), B_i)`` (double arithmetic, c_i >= 0 finite) and keeps
the rows with ``l_i <= y_i(x) < h_i + 1``; a row is *below* (side -1) if it fails a level by
being low, *above* (side +1) if it fails one by being high, at the first level it fails,
and *inside* (side 0) if it passes all.  Each y_i is non-decreasing in x (a correctly rounded
subtraction of a constant, a product by c_i >= 0 and a clip are), so the side is a
non-decreasing function of x: the inside rows are the values of an interval, the below rows
precede them and the above rows follow them.  That is all a window pass needs
(:func:`opendp_duff.engines.spark.ranks.window_pass` checks by exact counts that the inside holds the
window, and recomputes without bracket when it does not).

A key whose rows hold at most ``4 (window width + 2 m) + BINS`` distinct values (estimated
in the sizes pass) gets no bracket: its window pass groups its rows by value, which is as
cheap as a histogram.  Otherwise the levels are chosen by histogram passes: level 1 spreads
[lo, hi] over B_1 bins; a pass counts the inside rows of each key per bin of the next level and
keeps, by running counts, only the bins whose ranks meet the key's window and those holding one of the next m ranks on
each side (:func:`kept`, m = :func:`near_values`: the bin of the window's end holds that end's
whole tie block, so the kept bins reach m records beyond it, and the window pass can hand the
sampler the distinct values there), so only counts reach the driver, a few bins per key.
Their span is the next level.  B is about the square root of the rows to split (between 16
and BINS): finer bins shrink the bracket, coarser ones shuffle fewer partial counts.  A key is
refined while its inside holds more than ``4 (window width + 2 m) + BINS`` rows, at most
MAX_LEVELS levels (ties cannot be split: a key stops when a level no longer narrows its
inside, or no longer halves it after the first, or when each bin it keeps holds one
value).  The choice changes the cost only.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _pyspark as ps
from . import collection
from .parts import KID, VAL

__all__ = ["BINS", "MAX_LEVELS", "Level", "side", "with_levels", "with_ranks", "choose_levels", "near_values",
           "near_values_sql", "kept"]

BINS = 1024
# [proof:MAX_LEVELS]
MAX_LEVELS = 4
# [end:MAX_LEVELS]
Level = tuple[float, float, float, float, float]     # (u, c, l, h, B)
NEUTRAL: Level = (0.0, 0.0, 0.0, 0.0, 0.0)           # y = 0 for every finite x: always inside
FIELDS = "uclhb"


def _y(x: Any, i: int) -> Any:
    F = ps.functions()
    return F.least(F.greatest((x - F.col(f"u{i}")) * F.col(f"c{i}"), F.lit(-1.0)), F.col(f"b{i}"))


# [proof:bracket_side]
def side(x: Any, depth: int) -> Any:
    """The side of a value x (-1, 0, +1) under the levels in columns u_i, c_i, l_i, h_i, b_i, i < depth."""
    F = ps.functions()
    expr = F.lit(0)
    for i in reversed(range(depth)):
        y = _y(x, i)
        expr = F.when(y < F.col(f"l{i}"), -1).when(y >= F.col(f"h{i}") + 1.0, 1).otherwise(expr)
    return expr
# [end:bracket_side]


# [proof:with_levels]
def with_levels(rows: Any, plan: Mapping[int, tuple[int, int, tuple[Level, ...]]], depth: int) -> Any:
    """The rows of the keys of ``plan`` with their key's ``depth`` levels (missing ones neutral)
    as columns, looked up by KID in literal maps: no join, so no broadcast and no Spark job of
    its own."""
    table = {k: [p for lv in levels + (NEUTRAL,) * (depth - len(levels)) for p in lv]
             for k, (_, _, levels) in plan.items()}
    names = [f"{c}{i}" for i in range(depth) for c in FIELDS]
    return rows.where(ps.functions().col(KID).isin(list(table))).selectExpr("*", *_looked(table, names))


def with_ranks(groups: Any, plan: Mapping[int, tuple[int, int, Any]]) -> Any:
    """The groups (rows with a KID of ``plan``, after an aggregation: few) with their key's
    first, last and ``near_values`` as columns, looked up by KID as above."""
    table = {k: [first, last, near_values(first, last)] for k, (first, last, _) in plan.items()}
    return groups.selectExpr("*", *_looked(table, ["first", "last", "m"]))


def _looked(table: Mapping[int, list[Any]], names: list[str]) -> list[str]:
    """SQL of column j of ``table``'s row for each row's KID, named ``names[j]`` (a literal map
    from the key index to its value: integers and finite doubles written exactly)."""
    pairs = [", ".join(f"{k}, {ps.sql_number(row[j])}" for k, row in table.items()) for j in range(len(names))]
    return [f"element_at(map({pairs[j]}), {KID}) AS {name}" for j, name in enumerate(names)]
# [end:with_levels]


def _bins(rows: int) -> float:
    """About sqrt(rows) bins, a power of two in [16, BINS]."""
    return float(min(BINS, max(16, 1 << max(0, math.isqrt(max(rows, 1)).bit_length()))))


# [proof:_first_level]
def _first_level(lo: float, hi: float, rows: int) -> Level | None:
    b = _bins(rows)
    c = b / (hi - lo) if math.isfinite(hi - lo) and hi > lo else math.inf
    return (lo, c, 0.0, 0.0, b) if math.isfinite(c) and c > 0 else None
# [end:_first_level]


# [proof:_next_level]
def _next_level(level: Level, rows: int) -> Level | None:
    u, c, low, high, _ = level
    b = _bins(rows)
    u2, c2 = u + low / c, c * b / (high - low + 1.0)
    return (u2, c2, 0.0, 0.0, b) if math.isfinite(u2) and math.isfinite(c2) and c2 > 0 else None
# [end:_next_level]


# [proof:choose_levels]
def choose_levels(rows: Any, n: dict[int, int], ranks: dict[int, tuple[int, int]], lo: float,
                  hi: float, distinct: dict[int, int] | None = None) -> dict[int, tuple[Level, ...]]:
    """The levels of each key (empty: no bracket), by at most MAX_LEVELS histogram passes.  A key
    of at most its cap rows, or of at most its cap distinct values by the estimate ``distinct``
    (its window pass then groups few values, whatever its rows), gets none."""
    chosen: dict[int, tuple[Level, ...]] = {k: () for k in ranks}
    below = dict.fromkeys(ranks, 0)
    inside = {k: n[k] for k in ranks}
    few = {k for k in ranks if distinct is not None and distinct[k] <= _cap(*ranks[k])}
    pending = {k: lv for k in ranks if k not in few and inside[k] > _cap(*ranks[k])
               and (lv := _first_level(lo, hi, n[k]))}
    while pending:
        got = _histogram(rows, {k: (ranks[k][0] - below[k], ranks[k][1] - below[k], chosen[k], lv)
                                for k, lv in pending.items()})
        nxt = {}
        for k, lv in pending.items():
            bins = sorted(got.get(k, []), key=lambda r: r["bin"])
            if not bins:           # the window is not inside (data changed): stop; the window pass checks
                continue
            start = int(bins[0]["cum"]) - int(bins[0]["c"])
            count = int(bins[-1]["cum"]) - start
            level = (lv[0], lv[1], float(bins[0]["bin"]), float(bins[-1]["bin"]), lv[4])
            if count == inside[k] or (count * 2 > inside[k] and chosen[k]):
                continue           # ties, or few values: this level no longer narrows the inside
            chosen[k], below[k], inside[k] = chosen[k] + (level,), below[k] + start, count
            refined = _next_level(level, count)
            split = any(r["spread"] for r in bins)     # finer bins cannot split a bin of one value
            if refined is not None and split and count > _cap(*ranks[k]) and len(chosen[k]) < MAX_LEVELS:
                nxt[k] = refined
        pending = nxt
    return chosen
# [end:choose_levels]


def _cap(first: int, last: int) -> int:
    return 4 * (last - first + 1 + 2 * near_values(first, last)) + BINS


# [proof:kept_groups]
def near_values(first: int, last: int) -> int:
    """The reach m of a key's passes: beyond the groups (bins or values) that meet the window,
    they keep those holding one of the next m ranks on each side (:func:`kept`): half the
    window's width, rounded up."""
    return (last - first + 2) // 2


def near_values_sql() -> str:
    """:func:`near_values` of the columns ``first`` and ``last``, as Spark SQL (on longs)."""
    return "(last - first + 2) div 2"


def kept(groups: Any, order: list[str], ranked: str, columns: list[str],
         ranks: Callable[[str], str] | None = None, source: str = "SELECT * FROM {groups}",
         totals: Sequence[str] = ()) -> Any:
    """The ``columns`` of the rows of the query ``source`` (SQL over the DataFrame ``groups``,
    named ``{groups}``; by default its rows: per key KID, groups with a count ``c`` in the order ``order``, and the
    key's window ranks ``first``, ``last`` and reach ``m``, or, given ``ranks``, the query with
    the columns ``ranks`` adds from the key's ``tot``) that a pass sends to the
    driver, with ``cum``, the running count, and ``tot``, the key's total count (and the
    ``totals``: SQL select items ``agg(x) OVER ({by_key}) AS name``, more totals of each key over
    its window ``by_key``).  Among the
    ``ranked`` rows (a boolean SQL condition; the others are all kept) the groups holding a rank of
    s - m + 1 .. e + m, where s + 1 is the first rank of the first group meeting [first, last]
    and e the last rank of the last one: the window's groups and at most m groups on each side,
    the first of them always (a tie block beyond the window counts once, whatever its size).
    Every window function is partitioned by KID.  One SQL query: Spark analyses it once."""
    by_key = f"PARTITION BY {KID}"
    query = (f"SELECT *, sum(c) OVER ({by_key} ORDER BY {', '.join(order)} ROWS BETWEEN UNBOUNDED PRECEDING "
             f"AND CURRENT ROW) AS cum, sum(c) OVER ({by_key}) AS tot"
             + "".join(", " + t.format(by_key=by_key) for t in totals) + f" FROM ({source}) AS grouped")
    if ranks is not None:
        query = ranks(query)
    meets = f"({ranked}) AND cum >= first AND cum - c < last"
    query = (f"SELECT *, min(CASE WHEN {meets} THEN cum - c END) OVER ({by_key}) AS s0, "
             f"max(CASE WHEN {meets} THEN cum END) OVER ({by_key}) AS e0 FROM ({query}) AS ranked")
    return groups.sparkSession.sql(f"SELECT {', '.join(columns)} FROM ({query}) AS reach "
                                   f"WHERE NOT ({ranked}) OR (cum > s0 - m AND cum - c < e0 + m)", groups=groups)
# [end:kept_groups]


def _histogram(rows: Any, plan: dict[int, tuple[int, int, tuple[Level, ...], Level]]) -> dict[int, list[Any]]:
    """One aggregation: per key, the bins of its next level (the last entry of its plan) that
    meet its window's ranks counted among its inside rows, and those that start within
    ``near_values`` ranks of them, with their counts, running counts and whether they hold
    more than one value (a flag, no value)."""
    F = ps.functions()
    depth = max(len(levels) for _, _, levels, _ in plan.values()) + 1
    full = {k: (first, last, levels + (NEUTRAL,) * (depth - 1 - len(levels)) + (lv,))
            for k, (first, last, levels, lv) in plan.items()}
    x = F.col(VAL)
    inside = with_levels(rows, full, depth).where(side(x, depth - 1) == 0)
    counts = with_ranks(inside.groupBy(KID, F.floor(_y(x, depth - 1)).alias("bin")).agg(
        F.count(F.lit(1)).alias("c"), (F.max(x) > F.min(x)).alias("spread")), full)
    got = collection.collect(kept(counts, ["bin"], "true", [KID, "bin", "c", "cum", "spread"]))
    out: dict[int, list[Any]] = {}
    for row in got:
        out.setdefault(row[KID], []).append(row)
        collection.current().note(row[KID], counts=3)
    return out
