"""What a Spark release brings to the driver: an instrumented counter, readable by tests.

Every Spark action of the Spark engine goes through :func:`collect`, which counts it,
and the code that turns collected rows into a statistic records how many *data values*
(values of the records, e.g. the records of a rank window) and how
many *counts* (integers: sizes, multiplicities, ranks) it read, per public key.  Each Spark
column carries a log (a grouped release's parts share their split's), and its statistics run
under it: the log of a release is that of the column it read (of the split, for a grouped
release), :func:`last_collection` once the release returns.

The stated bound (proved in ``proofs/engines/spark/rank_windows.tex``): a Duff quantile
release reads, per key, at most ``last - first + 1`` data values (the distinct values of its
rank window, each with its multiplicity), plus the distinct values of a tail only when the
sampler opens that tail and it is not all ties; everything else it reads is counts (sizes,
histogram bins meeting the window).  Counts, candidate counts and sums read no data value.
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
    """

    actions: int = 0
    values: int = 0
    counts: int = 0
    per_key: dict[int, int] = attrs.field(factory=dict)
    tails: int = 0

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


def collect(frame: Any) -> list[Any]:
    """``frame.collect()``, counted as one action of the current release."""
    current().actions += 1
    return list(frame.collect())
