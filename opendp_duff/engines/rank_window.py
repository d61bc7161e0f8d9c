"""Rank windows: the part of a dataset that the Duff quantile sampler reads, and the engines'
API to the samplers (public: every engine's rank source implements :class:`RankSource`).

The sampler of :func:`opendp_duff.measurements.duff.make_duff_quantile` needs, for n records
in [lo, hi], only the records whose ranks lie in a window around its target rank, in sorted
order.  The records below and above the window form two *tails*; the sampler races each tail
as one lazy block of the exact race, bounded without looking inside it, and asks for the
tail's sorted records only if that bound could win (with the sampler's window, rarely: about
e^-30 of the mass lies outside it on well-spread data).  Proof:
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

:class:`Tail` -- a block of records outside the window, known by

* ``count``: how many records it holds;
* ``ties``: how many of them equal the window's adjacent end (values[0] for the left tail,
  values[-1] for the right).  With ``count`` and the window this locates the tail's gap
  nearest the window that has positive width, whose level bounds every gap of the block;
* ``values()``: a callable returning the tail's records sorted.  The sampler calls it only
  when the block is opened, at most once per tail (it caches the result).

The window's content is a function of the multiset of records alone (sorted values and
counts are), so every correct source gives the sampler the same inputs and hence the same
release.  The local engines have two sources: :class:`SortedRecords` here (the input is
sorted: slices and binary searches, O(window + log n)) and
:class:`~opendp_duff.engines.selection.SelectedRecords` (any order, optionally clipped: one pass
that counts the records outside a bracket of values [p, q] and gathers those inside, O(n), the
window sorted, a tail sorted only when opened), beside its kernel
:func:`~opendp_duff.engines.selection.select_window`, which builds on the types here.  The Spark engine's source is
a third (:mod:`opendp_duff.engines.spark.ranks`): it counts n, brackets the window by exact
histograms, collects only the window to the driver with its exact ties, and fetches a tail by
another pass only if ``values()`` is called.  Both rest on one fact: a bracket of values with
exact counts below and above it pins the window (``proofs/measurements/duff/``, "Rank windows").
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs
import numpy as np

__all__ = ["Tail", "RankWindow", "RankSource", "SortedRecords"]


@attrs.frozen(eq=False)
class Tail:
    """Records outside the window on one side: their count, how many equal the window's
    adjacent end, and a callable that returns them sorted (called only to open the block)."""

    count: int
    ties: int
    values: Callable[[], np.ndarray]


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
        left = Tail(first - 1, first - 1 - below, lambda: y[:first - 1])
        right = Tail(self.n - last, at_most - last, lambda: y[last:])
        return RankWindow(self.n, first, y[first - 1:last], left, right)
# [end:rank_window_sources]
