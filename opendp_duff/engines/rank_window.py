"""Rank windows: the part of a dataset that the Duff quantile sampler reads, and the engines'
API to the samplers (public: every engine's rank source implements :class:`RankSource`).

The sampler of :func:`opendp_duff.measurements.duff.make_duff_quantile` needs, for n records
in [lo, hi], only the records whose ranks lie in a window around its target rank, in sorted
order.  The records below and above the window form two *tails*; the sampler races the gaps
between the distinct values a source hands out with a tail (``near``) as items, and the rest
of the tail as one lazy block of the exact race, bounded without looking inside it, and asks
for that rest only if the bound could win (rarely: the sampler's window and a source's near
values leave about e^-30 of the mass outside on well-spread data).  Proof:
``proofs/measurements/duff/make_duff_quantile.tex``, "Rank windows".

The interface (ranks are 1-based: the record of rank i is the i-th smallest, ties in any order):

``RankSource`` -- what an engine implements (``Engine.rank_source``):

* ``n``: the number of records (an int >= 0);
* ``window(first, last)`` for 1 <= first <= last <= n: a :class:`RankWindow` of the records
  of ranks first..last.  The sampler calls it at most once, before drawing any randomness.

:class:`RankWindow` -- what the sampler consumes:

* ``n``, ``first``: as above;
* ``values``: the records of ranks first..last, sorted (a float64 array of last - first + 1);
* ``left``: a :class:`Tail` for the first - 1 records of rank < first (each <= values[0]);
* ``right``: a :class:`Tail` for the n - last records of rank > last (each >= values[-1]).

:class:`Tail` -- the records outside the window on one side, known by

* ``count``: how many records it holds;
* ``ties``: how many of them equal the window's adjacent end (values[0] for the left tail,
  values[-1] for the right);
* ``near``: a :data:`Pairs` of the tail's distinct values nearest the window other than that
  end, with their multiplicities (any number of them, none included): for the left tail the
  largest distinct values below values[0], for the right the smallest above values[-1];
* ``rest()``: a callable returning the :data:`Pairs` of the remaining records (the distinct
  values beyond ``near``, with their multiplicities), sorted.  The sampler calls it only when
  the block beyond ``near`` is opened, at most once per tail.

Ties travel as blocks: a tail is never a list of repeated values, only (value, count) pairs,
and a gap between two equal records has width zero and no mass, so the sampler races only
the gaps between consecutive distinct values.

The window's content, and a tail's pairs (``near`` followed by ``rest()``), are functions of
the multiset of records alone; a source chooses only how many pairs it hands out ahead, which
moves gaps of a tail between the items and the lazy block, never their masses: every correct
source gives the sampler the same law.  The local engines have two sources: :class:`SortedRecords` (the input is
sorted: slices and binary searches, O(window + log n)) and
:class:`~opendp_duff.engines.selection.SelectedRecords` (any order, optionally clipped: one pass
that counts the records outside a bracket of values [p, q] and gathers those inside, O(n), the
window sorted, a tail sorted only when opened), beside its kernel
:func:`~opendp_duff.engines.selection.select_window`, which builds on the types here.  The Spark engine's source is
a third (:mod:`opendp_duff.engines.spark.ranks`): it counts n, brackets the window by exact
histograms, collects only the window and the nearest distinct values of each tail to the
driver as (value, count) pairs, and fetches the rest of a tail by another pass only if
``rest()`` is called.  Both rest on one fact: a bracket of values with
exact counts below and above it pins the window (``proofs/measurements/duff/``, "Rank windows").
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeAlias

import attrs
import numpy as np

__all__ = ["Pairs", "NO_PAIRS", "pairs_of", "Tail", "RankWindow", "RankSource", "SortedRecords"]


# [proof:tail_pairs]
Pairs: TypeAlias = tuple[np.ndarray, np.ndarray]
"""(values, counts): distinct float64 values in increasing order and their int64 multiplicities."""

NO_PAIRS: Pairs = (np.empty(0, dtype=np.float64), np.empty(0, dtype=np.int64))


def pairs_of(records: np.ndarray) -> Pairs:
    """The (value, count) pairs of sorted records."""
    if records.size == 0:
        return NO_PAIRS
    starts = np.flatnonzero(np.concatenate([[True], records[1:] != records[:-1]]))
    counts = np.diff(np.append(starts, records.size))
    return records[starts].astype(np.float64), counts.astype(np.int64)


@attrs.frozen(eq=False)
class Tail:
    """Records outside the window on one side: their count, how many equal the window's
    adjacent end, the distinct values nearest the window with their counts, and a callable
    returning the pairs beyond those (called only to open the block)."""

    count: int
    ties: int
    rest: Callable[[], Pairs]
    near: Pairs = NO_PAIRS

    @classmethod
    def of_records(cls, count: int, ties: int, end: float, records: Callable[[], np.ndarray]) -> Tail:
        """The tail of ``count`` sorted records, ``ties`` of them equal to the window's end
        ``end``, given by a callable returning them: no pairs known ahead, and ``rest()``
        pairs the records other than ``end`` (none, without calling ``records``, when every
        record ties)."""
        if ties == count:
            return cls(count, ties, lambda: NO_PAIRS)

        def rest() -> Pairs:
            y = records()
            return pairs_of(y[y != end])
        return cls(count, ties, rest)

    def pairs(self) -> Pairs:
        """Every pair of the tail other than its ties with the window's end, sorted (``near``
        and ``rest()`` merged: a function of the records, whatever the source handed out ahead)."""
        (a, ca), (b, cb) = self.near, self.rest()
        v, c = np.concatenate([a, b]), np.concatenate([ca, cb])
        order = np.argsort(v, kind="stable")
        return v[order], c[order]
# [end:tail_pairs]


# [proof:RankWindow]
@attrs.frozen(eq=False)
class RankWindow:
    """The records of ranks first..first + len(values) - 1 of n, sorted, and the two tails."""

    n: int
    first: int
    values: np.ndarray
    left: Tail
    right: Tail
# [end:RankWindow]


class RankSource(Protocol):
    """A dataset that can hand out rank windows (see the module docstring)."""

    # [proof:RankSource.n]
    @property
    def n(self) -> int: ...
    # [end:RankSource.n]

    def window(self, first: int, last: int) -> RankWindow: ...


# [proof:rank_window_sources]
class SortedRecords:
    """A :class:`RankSource` over records already sorted (a float64 array)."""

    def __init__(self, y: np.ndarray) -> None:
        self.y = y
        self.n = int(y.size)

    def window(self, first: int, last: int) -> RankWindow:
        y = self.y
        lo_v, hi_v = float(y[first - 1]), float(y[last - 1])
        below = int(np.searchsorted(y, lo_v, side="left"))      # records < values[0]
        at_most = int(np.searchsorted(y, hi_v, side="right"))   # records <= values[-1]
        left = Tail.of_records(first - 1, first - 1 - below, lo_v, lambda: y[:first - 1])
        right = Tail.of_records(self.n - last, at_most - last, hi_v, lambda: y[last:])
        return RankWindow(self.n, first, y[first - 1:last], left, right)
# [end:rank_window_sources]
