"""One verified snapshot of an admitted Spark frame: persisted, counted and fingerprinted in the
admission pass, checked again in the first pass of every release that reads it.

A release reads a Spark frame in several passes, and a context runs many releases on one frame;
each pass re-runs the frame's plan unless it is cached.  Admission therefore takes a *snapshot*:
the declared columns of the frame, persisted (memory and disk), and, in the same aggregation
that checks membership (one Spark job, :func:`~.column.first_refusal`), its row count n and its
*fingerprint* h, the exact sum over the rows of ``pmod(xxhash64(declared columns), 2^31)``
(a long: exact below 2^32 rows; above, Spark's ``try_sum`` gives null and h is not checked),
and an estimate of the number of distinct values of each numeric column (which only chooses
how later statistics read that column: a column of few values is read in one pass).
The snapshot, not the caller's frame, is the admitted member: every pass of every release reads
the cached rows.

A cache is not a guarantee (Spark recomputes a lost or evicted block from the plan, and a
non-deterministic plan then yields other rows), so the first pass of each release carries a
check of the snapshot in the same Spark job: n, h and the membership flags are computed again and
the release raises :class:`~.ranks.SparkDataChanged` when they differ.  The check either rides
on the pass as one more row (:meth:`Check.ride`: a second scan of the cache in the same job), or,
for a pass that groups every row of the snapshot by key, is folded into the pass's own scan
(:meth:`Check.row_terms`, :meth:`Check.verified_by_key`: per-row terms summed with the pass's
groups, one scan).  It
is an integrity check, not a proof of equality: other rows with the same count and hash sum
pass it (a change caught by chance fails it with probability about 2^-31 per changed row set,
for a hash that behaves randomly on the rows).  The release was charged when it started
(the compositor never refunds).

The snapshot is unpersisted when the last reference to it goes: the context (its compositor's
queryable holds it) or the measurement call that admitted it is garbage-collected.

Proof: ``proofs/engines/spark/admission.tex``.
"""
from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

import attrs

from . import _pyspark as ps

__all__ = ["Snapshot", "Check", "aggregates", "estimates", "persist_declared", "record", "discard", "of", "CHECK",
           "FOLD_ROWS"]

CHECK = "__opendp_check"          # the marker column of the check row a riding pass adds
_N, _H, _D = "__opendp_check_n", "__opendp_check_h", "__opendp_distinct"
_B = "__opendp_check_b"                                   # a folded check's per-key flag
ROW_H, ROW_B = "__opendp_row_h", "__opendp_row_b"         # a folded check's per-row terms
FOLD_ROWS = 2 ** 32   # a check is folded only into a pass over a snapshot of fewer rows (no sum can overflow)
ESTIMATE_RSD = 0.05
_BITS = 2 ** 31
_tokens = itertools.count()
_SNAPSHOTS: weakref.WeakKeyDictionary[Any, Snapshot] = weakref.WeakKeyDictionary()
_CHECKS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()   # snapshot -> its check's DataFrame
_TERMS: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()   # snapshot -> its folded check's terms


# [proof:spark_snapshot]
@attrs.frozen(eq=False)
class Snapshot:
    """What admission recorded of a persisted frame: the declared columns, the non-member
    indicators of the admission pass (labelled), the row count and the fingerprint."""

    columns: tuple[str, ...]
    checks: tuple[tuple[str, Any], ...] = attrs.field(repr=False)
    n: int = attrs.field(repr=False)          # private: never shown
    h: int | None = attrs.field(repr=False)
    distinct: dict[str, int] = attrs.field(factory=dict, repr=False)   # private estimates: cost only


def aggregates(columns: tuple[str, ...]) -> list[Any]:
    """The aggregations that record a snapshot: n, and h, the exact sum over the rows of
    ``pmod(xxhash64(columns), 2^31)`` as a long (``try_sum``: exact below 2^32 rows; null, as
    for no row, when it would overflow, so that only n and membership are checked then)."""
    F = ps.functions()
    return [F.count(F.lit(1)).alias(_N), F.try_sum(_hash_term(columns)).alias(_H)]


def _hash_term(columns: tuple[str, ...]) -> Any:
    """A row's term of the fingerprint: ``pmod(xxhash64(columns), 2^31)``, in [0, 2^31)."""
    F = ps.functions()
    cols = [F.col(ps.quoted(c)) for c in columns] or [F.lit(0)]
    return F.pmod(F.xxhash64(*cols), F.lit(_BITS))


def estimates(names: tuple[str, ...]) -> list[Any]:
    """The aggregations that estimate each numeric column's number of distinct values
    (HyperLogLog, relative error ESTIMATE_RSD).  An estimate is private and never shown; it
    only chooses a statistic's passes (:func:`.ranks.spark_rank_sources`)."""
    F = ps.functions()
    return [F.approx_count_distinct(F.col(ps.quoted(c)), ESTIMATE_RSD).alias(f"{_D}{i}") for i, c in enumerate(names)]


def persist_declared(x: Any, columns: tuple[str, ...]) -> Any:
    """A new DataFrame of the declared ``columns`` of ``x``, persisted (memory and disk), not yet
    materialised: the admission pass that reads it stores it.  Its plan holds a token of its own,
    so no other frame shares its cache entry (and unpersisting it frees that entry only)."""
    F = ps.functions()
    token = next(_tokens)
    frame = x.select(*[F.col(ps.quoted(c)) for c in columns]).where(F.lit(token) == F.lit(token))
    storage = __import__("pyspark", fromlist=["StorageLevel"]).StorageLevel
    return frame.persist(storage.MEMORY_AND_DISK)


def record(frame: Any, columns: tuple[str, ...], checks: list[tuple[str, Any]], row: Any,
           estimated: tuple[str, ...] = ()) -> Snapshot:
    """Register ``frame`` (from :func:`persist_declared`) as a snapshot with the count, fingerprint and
    estimates (of the columns ``estimated``) its admission pass returned in ``row``; it is
    unpersisted when ``frame`` is garbage-collected."""
    snap = Snapshot(columns, tuple(checks), int(row[_N]), None if row[_H] is None else int(row[_H]),
                    {c: int(row[f"{_D}{i}"]) for i, c in enumerate(estimated)})
    _SNAPSHOTS[frame] = snap
    weakref.finalize(frame, _release, getattr(frame, "_jdf", None))
    return snap
# [end:spark_snapshot]


def discard(frame: Any) -> None:
    """Unpersist a snapshot that was refused (no row of it is used)."""
    try:
        frame.unpersist(blocking=False)
    except Exception:  # noqa: BLE001 - the session may be gone: nothing is left to free
        pass


def _release(jdf: Any) -> None:
    """Unpersist a collected snapshot's cache (classic Spark: by its Java DataFrame; a Connect
    frame has none and is left to the session's cache)."""
    if jdf is None:
        return
    try:
        jdf.unpersist(False)
    except Exception:  # noqa: BLE001 - the session may be stopped already
        pass


def of(frame: Any) -> Snapshot | None:
    """The snapshot record of an admitted frame (None for a frame admitted otherwise)."""
    try:
        return _SNAPSHOTS.get(frame)
    except TypeError:   # not weakly referenceable: not a snapshot
        return None


# [proof:snapshot_ride]
@attrs.frozen(eq=False)
class Check:
    """The check of a snapshot that a release's first action carries: ``frame`` (the snapshot)
    and its record ``snap``; ``changed()`` is the error raised when it fails."""

    frame: Any
    snap: Snapshot
    changed: Callable[[], Exception]

    def ride(self, result: Any) -> Any:
        """``result`` (a statistic's aggregation) with one more row, marked by a non-null CHECK
        column: the count, the fingerprint and the membership flags of the snapshot recomputed,
        in the same Spark job when collected.  The check's own plan is built once per snapshot
        (a DataFrame is immutable: each collect of a union that holds it recomputes it)."""
        check = _CHECKS.get(self.frame)
        if check is None:
            F = ps.functions()
            flags = [F.max(bad.cast("int")).alias(f"__opendp_check_b{i}")
                     for i, (_, bad) in enumerate(self.snap.checks)]
            check = _CHECKS[self.frame] = self.frame.agg(*aggregates(self.snap.columns), *flags).withColumn(
                CHECK, F.lit(1))
        return result.unionByName(check, allowMissingColumns=True)

    def verified(self, rows: list[Any]) -> list[Any]:
        """The rows of a riding action without its check row, after checking it: the snapshot has
        the recorded count and fingerprint and no non-member; else ``changed()`` is raised."""
        checks = [r for r in rows if r[CHECK] is not None]
        if len(checks) != 1:
            raise self.changed()
        c, snap = checks[0], self.snap
        h = None if c[_H] is None else int(c[_H])
        if (int(c[_N]) != snap.n or h != snap.h
                or any(c[f"__opendp_check_b{i}"] == 1 for i in range(len(snap.checks)))):
            raise self.changed()
        return [r for r in rows if r[CHECK] is None]

    def folds(self, frame: Any) -> bool:
        """Whether a pass over every row of ``frame`` can carry this check in its own scan: ``frame``
        is the snapshot itself, with a fingerprint (not empty), of fewer than FOLD_ROWS rows (so no
        sum of the check overflows a long)."""
        return frame is self.frame and self.snap.h is not None and self.snap.n < FOLD_ROWS

    def row_terms(self) -> list[Any]:
        """The per-row columns of a folded check: ROW_H, the row's fingerprint term, and ROW_B, 1 if
        one of admission's non-member indicators holds on the row (null or 0 otherwise)."""
        terms: list[Any] | None = _TERMS.get(self.frame)
        if terms is None:
            bad = ps.functions().lit(False)
            for _, indicator in self.snap.checks:
                bad = bad | indicator
            terms = _TERMS[self.frame] = [_hash_term(self.snap.columns).alias(ROW_H), bad.cast("int").alias(ROW_B)]
        return terms

    #: The columns a folded pass returns for the check (each key's totals, :meth:`fold_sql`).
    FOLDED = (_H, _B)

    @staticmethod
    def fold_sql() -> tuple[list[str], list[str]]:
        """SQL of a folded check, for a pass that groups rows carrying :meth:`row_terms` by
        (key, ...) and then computes each key's totals over its window ``{by_key}``: the group
        aggregates (``__opendp_hs``, ``__opendp_bs``), and the key's totals (the columns FOLDED:
        the fingerprint's sum and the flag), which every row the pass returns for the key carries."""
        return ([f"try_sum({ROW_H}) AS __opendp_hs", f"max({ROW_B}) AS __opendp_bs"],
                [f"try_sum(__opendp_hs) OVER ({{by_key}}) AS {_H}", f"max(__opendp_bs) OVER ({{by_key}}) AS {_B}"])

    def verified_by_key(self, rows: list[Any], key: str, count: str) -> list[Any]:
        """The rows of a pass that folded this check, without those of the null key (the rows of no
        public key), after checking it: each row carries its key's row count (column ``count``) and
        the check's totals h and b (:meth:`fold_sql`) over ALL that key's rows, and every key with a
        row in the snapshot, the null key included, has at least one row here.  The sums over the keys
        are the snapshot's count and fingerprint; else (or if a flag is set, or a sum overflowed to
        null) ``changed()`` is raised."""
        totals: dict[Any, tuple[Any, Any, Any]] = {}
        for r in rows:
            seen = totals.setdefault(r[key], (r[count], r[_H], r[_B]))
            if seen != (r[count], r[_H], r[_B]):
                raise self.changed()
        if any(n is None or h is None for n, h, _ in totals.values()):
            raise self.changed()
        n = sum(int(t[0]) for t in totals.values())
        h = sum(int(t[1]) for t in totals.values())
        if n != self.snap.n or h != self.snap.h or any(b == 1 for _, _, b in totals.values()):
            raise self.changed()
        return [r for r in rows if r[key] is not None]
# [end:snapshot_ride]
