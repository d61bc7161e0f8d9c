"""One-pass exact selection of a rank window from records in any order, optionally clipped.

:func:`select_window` is the kernel behind
:class:`SelectedRecords`, and the entry point for a
column whose clamp is still lazy: called with ``clip=(lo, hi)`` on the raw admitted array it
returns the window of the records *as if* clamped, without materialising the clamped array.

How (``proofs/measurements/duff/make_duff_quantile.tex``, "Rank windows"):

1. **Pivots.** A fixed, evenly spread sample of the records (a stride with a deterministic
   jitter, no randomness) gives two values p <= q whose ranks should bracket the window with a
   margin of a few standard deviations of the sample's rank error (sampling-based selection).
   The sample decides the cost only.
2. **One pass** over the records in cache-sized chunks (the few numpy operations on a chunk
   touch memory once): exact counts of the records below p and of those at most q, and the
   records of [p, q] gathered (only counted when p = q: all-equal and tie-heavy data).
3. **The bracket check.** If fewer than ``first`` records lie below p and at least ``last``
   lie at most q, the window's ranks all fall in [p, q], and the records there (partitioned
   at the window's ends, the window sorted) give the window and the ties of the tails with its
   ends exactly.  Otherwise (the sample missed: an adversarial order) the side that missed is
   opened (p = lo or q = hi) and the pass is repeated once, which cannot miss.
4. **Tails** are sorted only when the sampler opens them (rare): one more pass gathers the
   records below p (above q).

Whatever the pivots, the window returned is the one of the multiset of (clipped) records,
exactly what sorting them and slicing would give.  The input is never modified.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .rank_window import RankWindow, SortedRecords, Tail

__all__ = ["select_window", "SelectedRecords"]

# [proof:_CHUNK]
_CHUNK = 1 << 16    # cost only: records per chunk of the pass (512 KiB of float64 and its masks: cache-sized)
# [end:_CHUNK]
# [proof:_DIRECT]
_DIRECT = 1 << 13   # cost only: up to this many records, sort them (the pass would not pay off)
# [end:_DIRECT]
_MARGIN = 3.0       # cost only: the pivots lie this many sqrt(sample) sample ranks outside the window
_SAMPLE = 0.7       # cost only: the sample holds about n^_SAMPLE records


# [proof:select_window]
def select_window(x: np.ndarray, first: int, last: int,
                  clip: tuple[float, float] | None = None) -> RankWindow:
    """The :class:`RankWindow` of ranks first..last (1-based, 1 <= first <= last <= n) of the
    records of ``x``, each taken as min(max(x_i, lo), hi) when ``clip = (lo, hi)``.

    ``x`` is a 1-d float64 array in any order without NaN (infinities are records; with
    ``clip`` they become lo or hi); it is never modified.  ``clip`` is a pair of floats with
    lo <= hi, the bounds of the clamp.  The values returned (window and tails) are the clipped
    records with every -0.0 turned into +0.0.  The result is a function of the multiset of
    clipped records alone.  Cost: O(n) in one pass, plus the window's sort; a tail costs one
    more pass when the sampler asks for it.
    """
    lo, hi = (-math.inf, math.inf) if clip is None else (clip[0] + 0.0, clip[1] + 0.0)   # -0.0 -> +0.0
    n = int(x.size)
    if n <= _DIRECT:
        y = np.sort(x if clip is None else np.clip(x, lo, hi)) + 0.0
        return SortedRecords(y).window(first, last)
    p, q = _pivots(x, first, last, lo, hi)
    b = _bracket(x, p, q, lo, hi)
    if b.below > first - 1 or n - b.above < last:   # the sample missed: open that side
        p = lo if b.below > first - 1 else p
        q = hi if n - b.above < last else q
        b = _bracket(x, p, q, lo, hi)
    f, ll = first - b.below, last - b.below          # the window's ranks inside the bracket
    values = b.sorted_range(f - 1, ll)
    left_ties = first - 1 - (b.below + b.count_lt(float(values[0])))
    right_ties = b.below + b.count_le(float(values[-1])) - last
    left = _tail(first - 1, left_ties, values[0],
                 lambda: np.concatenate([_outside(x, p, lo, hi, below=True), b.sorted_range(0, f - 1)]))
    right = _tail(n - last, right_ties, values[-1],
                  lambda: np.concatenate([b.sorted_range(ll, b.size), _outside(x, q, lo, hi, below=False)]))
    return RankWindow(n, first, values, left, right)


def _pivots(x: np.ndarray, first: int, last: int, lo: float, hi: float) -> tuple[float, float]:
    """Two clipped record values p <= q whose ranks should bracket first..last, chosen from
    about n^0.7 records sampled at a stride with a deterministic jitter (so that a pattern in
    the order with the stride's period does not fool it).  lo (hi) means no cut on that side.
    Cost only: any lo <= p <= q <= hi gives the same window."""
    n = int(x.size)
    s = min(n, max(1024, int(n ** _SAMPLE)))
    stride = n // s
    i = np.arange(s, dtype=np.int64)
    sample = np.clip(x[i * stride + (i * 40503) % stride], lo, hi)
    margin = _MARGIN * math.sqrt(s)
    i_p = math.floor((first - 1) * s / n - margin)
    i_q = math.ceil(last * s / n + margin)
    kth = [i for i in (i_p, i_q) if 0 <= i < s]
    if kth:
        sample.partition(kth)
    p = float(sample[i_p]) + 0.0 if i_p >= 0 else lo
    q = float(sample[i_q]) + 0.0 if i_q < s else hi
    return p, q


class _Bracket:
    """The clipped records of one pass split by the pivots: ``below`` of them lie below the
    bracket, ``above`` above it, and the ``size`` records inside are ``ties`` copies of p
    (counted, not gathered, when p = q) and the records gathered (``inner``, unsorted, owned)."""

    def __init__(self, p: float, below: int, ties: int, inner: np.ndarray, above: int) -> None:
        self.p, self.below, self.ties, self.inner, self.above = p, below, ties, inner, above
        self.size = ties + int(inner.size)

    def count_lt(self, v: float) -> int:
        """How many records of the bracket are < v."""
        return (self.ties if v > self.p else 0) + int(np.count_nonzero(self.inner < v))

    def count_le(self, v: float) -> int:
        """How many records of the bracket are <= v."""
        return (self.ties if v >= self.p else 0) + int(np.count_nonzero(self.inner <= v))

    def sorted_range(self, i: int, j: int) -> np.ndarray:
        """Entries i..j-1 (0-based, 0 <= i <= j <= size) of the bracket's sorted listing."""
        if self.ties:   # then inner is empty: p = q
            return np.full(j - i, self.p)
        if i == j:
            return np.empty(0)
        self.inner.partition(sorted({i, j - 1}))   # reorders only inner (owned): ranks i..j-1 land in inner[i:j]
        return np.sort(self.inner[i:j])


def _bracket(x: np.ndarray, p: float, q: float, lo: float, hi: float) -> _Bracket:
    """One pass over x in chunks: the counts of clipped records < p and <= q, and the clipped
    records of [p, q] gathered (only counted when p = q).  lo <= p <= q <= hi, and for a
    threshold t of [lo, hi] the clipped record x' = min(max(x, lo), hi) has x' < t iff
    (t > lo and x < t), and x' <= t iff (t >= hi or x <= t)."""
    n = int(x.size)
    below = at_most = 0
    parts: list[np.ndarray] = []
    size = min(n, _CHUNK)
    lt, le, inside = np.zeros(size, dtype=bool), np.ones(size, dtype=bool), np.empty(size, dtype=bool)
    for s in range(0, n, _CHUNK):
        c = x[s:s + _CHUNK]
        a, b = lt[:c.size], le[:c.size]         # stay all False / all True unless that cut is set
        if p > lo:
            below += int(np.count_nonzero(np.less(c, p, out=a)))
        if q < hi:
            at_most += int(np.count_nonzero(np.less_equal(c, q, out=b)))
        else:
            at_most += c.size
        if p < q:
            parts.append(c[np.not_equal(a, b, out=inside[:c.size])])   # p <= x' <= q: not below, at most q
    if p == q:   # the bracket is at_most - below copies of p
        return _Bracket(p, below, at_most - below, np.empty(0), n - at_most)
    inner = np.concatenate(parts) if parts else np.empty(0)
    inner = (inner if math.isinf(lo) and math.isinf(hi) else np.clip(inner, lo, hi, out=inner)) + 0.0
    return _Bracket(p, below, 0, inner, n - at_most)


def _outside(x: np.ndarray, t: float, lo: float, hi: float, below: bool) -> np.ndarray:
    """The clipped records < t (``below``) or > t, sorted, -0.0 as +0.0 (one more pass)."""
    if (t <= lo) if below else (t >= hi):    # no clipped record lies beyond lo or hi
        return np.empty(0)
    out = x[x < t] if below else x[x > t]
    return np.sort(np.clip(out, lo, hi)) + 0.0


def _tail(count: int, ties: int, end: np.floating, values: Callable[[], np.ndarray]) -> Tail:
    """A tail: ``count`` records, ``ties`` of them equal to the window's end; a tail of copies
    of that end needs no pass."""
    if ties == count:
        return Tail(count, ties, lambda: np.full(count, float(end)))
    return Tail(count, ties, values)


class SelectedRecords:
    """A :class:`~opendp_duff.engines.rank_window.RankSource` over records in any order (a
    float64 array without NaN, never modified), each taken as min(max(x_i, lo), hi) when
    ``clip = (lo, hi)`` is given: the windows come from :func:`select_window` (one pass)."""

    def __init__(self, x: np.ndarray, clip: tuple[float, float] | None = None) -> None:
        self.x, self.clip = x, clip
        self.n = int(x.size)

    def window(self, first: int, last: int) -> RankWindow:
        return select_window(self.x, first, last, self.clip)
# [end:select_window]
