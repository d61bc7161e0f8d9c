"""What a Spark release brings to the driver: an instrumented counter for tests and benchmarks.

Not a public report: how many distinct values a window held differs between neighbouring
datasets, and no budget covers it, so the package does not export it and nothing in a
release's output mentions it.  The public facts about a release are fixed before the data is
read: the bound :func:`opendp_duff.engines.spark.driver_pairs_bound` and the passes of
``docs/scaling.md``.

Every Spark action of the Spark engine goes through :func:`collect`, which counts it,
and the code that turns collected rows into a statistic records how many *data values*
(values of the records, e.g. the records of a rank window) and how
many *counts* (integers: sizes, multiplicities, ranks) it read, per public key.  Each Spark
column carries a log (a grouped release's parts share their split's), and its statistics run
under it: the log of a release is that of the column it read (of the split, for a grouped
release), :func:`last_collection` once the release returns.

The stated bound (proved in ``proofs/engines/spark/rank_windows.tex``): a Duff quantile
release reads, per key, at most ``driver_pairs_bound(n, scale)`` (value, count) pairs in its
window pass (the distinct values of its rank window and of the nearest ranks beyond it), plus
the distinct values of a tail's rest only when the sampler opens it; everything else it reads
is counts (sizes, histogram bins near the window).  Counts, candidate counts and sums read no data value.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import attrs

__all__ = ["CollectionLog", "last_collection", "collect"]


@attrs.define
class CollectionLog:
    """The traffic of one release from Spark to the driver.

    Attributes:
        actions: Spark jobs run (each ``collect``), the admission pass included.
        values: data values read on the driver, over all keys.
        counts: integers read on the driver (sizes, multiplicities, ranks, aggregates).
        per_key: data values read per key index (0 for an ungrouped release).
        tails: tails fetched because the sampler opened them.
        tail_passes: Spark passes that fetched them (one per round of a grouped release).
        snapshot: the check (:class:`.snapshot.Check`) of the admitted snapshot this
            release reads, if any: the release's first action carries it.
        verified: whether that check has been made.
    """

    actions: int = 0
    values: int = 0
    counts: int = 0
    per_key: dict[int, int] = attrs.field(factory=dict)
    tails: int = 0
    tail_passes: int = 0
    snapshot: Any = attrs.field(default=None, repr=False)
    verified: bool = False

    def note(self, key: int, values: int = 0, counts: int = 0) -> None:
        """Record ``values`` data values and ``counts`` integers read for key index ``key``."""
        self.values += values
        self.counts += counts
        self.per_key[key] = self.per_key.get(key, 0) + values


_state: dict[str, CollectionLog | None] = {"current": None, "last": None}


def last_collection() -> CollectionLog | None:
    """The log of the last Spark release that finished (or None before the first)."""
    return _state["last"]


def current() -> CollectionLog:
    """The log of the release in progress (a throwaway log outside any release)."""
    log = _state["current"]
    return log if log is not None else CollectionLog()


@contextlib.contextmanager
def release(log: CollectionLog | None = None) -> Iterator[CollectionLog]:
    """Run a release under the enclosing release's log when nested, else under ``log`` (the
    log of a grouped release's batch, shared by its per-key releases) or a fresh one; when it
    ends, that log is the last one."""
    if _state["current"] is not None:
        yield _state["current"]
        return
    log = _state["current"] = log if log is not None else CollectionLog()
    try:
        yield log
    finally:
        _state["current"] = None
        _state["last"] = log
        log.snapshot = None      # the last log must not keep a snapshot (and its cache) alive


def pending() -> Any:
    """The snapshot check (:class:`.snapshot.Check`) the current release's next action must
    make, or None (none registered, or made already)."""
    log = current()
    return log.snapshot if not log.verified else None


_AQE = "spark.sql.adaptive.enabled"


# [proof:spark_collect]
def collect(frame: Any, folded: tuple[str, str] | None = None) -> list[Any]:
    """``frame.collect()``, counted as one action of the current release, run as ONE Spark job.
    The release's first action also checks its snapshot, in the same job
    (:class:`.snapshot.Check`): SparkDataChanged if it changed.  The check rides on the action
    as one more row, unless the action's frame folded it (``folded`` = (key column, count
    column): a pass built on :func:`pending`'s check with its row terms, which
    :meth:`~.snapshot.Check.verified_by_key` reads; a frame that folded no pending check is refused).

    Adaptive query execution runs every shuffle stage of an action as a job of its own (three
    or four per pass of the engine); the engine's passes are aggregations of one scan whose
    shuffles carry partial counts, which it gains little from, so the action runs with it off
    and the session's setting is restored after (a runtime SQL setting of the session: a query
    another thread starts meanwhile on the same session runs without it too)."""
    log = current()
    log.actions += 1
    check = pending()
    if folded is not None and check is None:
        raise RuntimeError("a folded snapshot check must be the release's pending one")
    if check is not None:
        log.verified = True
        frame = frame if folded is not None else check.ride(frame)
    conf = frame.sparkSession.conf
    before = conf.get(_AQE, None)
    conf.set(_AQE, "false")
    try:
        rows = list(frame.collect())
    finally:
        if before is None:
            conf.unset(_AQE)
        else:
            conf.set(_AQE, before)
    if check is None:
        return rows
    verified: list[Any] = check.verified(rows) if folded is None else check.verified_by_key(rows, *folded)
    return verified
# [end:spark_collect]
