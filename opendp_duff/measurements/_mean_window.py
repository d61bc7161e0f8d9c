"""The sampler of make_duff_mean: the levels near the top only, the rest as two lazy blocks.

The Duff mean's level sets L_1 ⊆ L_2 ⊆ ... ⊆ L_{n+1} = [lo, hi] are nested intervals; the
pieces of level -k (k > k0, the first non-empty set) are [lower_k, lower_{k-1}] on the left
and [upper_{k-1}, upper_k] on the right.  The ends of L_1..L_K depend only on the K - 1
largest and K - 1 smallest records and on the exact sum of all of them (the prefix rule of
:func:`opendp_duff.duff_mean_utility._level_ends_top`).  So a release computes those
ends (O(K) on sorted input, O(n) by selection on input in any order, plus one O(n) pass for
the exact sum of the grid units), races the near pieces (levels -k0..-K) as items, and the
pieces below level -K as two lazy blocks, [lo, lower_K] and [upper_K, hi], each bounded by
its span times exp(-(K + 1) / scale).  A block's pieces are built from the whole step function
(sorting unsorted input first) only if that bound could win: with K at least
scale (log(n + 2) + 30) + 2 levels below the top, about e^-30 of the mass.  The law is that
of the whole step function (the race's law depends only on the exact masses).

Proof: ``proofs/measurements/duff_mean/make_duff_mean.tex``, "The release".
"""
from __future__ import annotations

import math

import numpy as np

from ..samplers.lazy_race import LazyGroup, exact_race_with_lazy_blocks
from ..samplers.uniform import exact_uniform_float
from .. import duff_mean_utility as dm

__all__ = ["MeanSampler"]

_TAIL = 30.0  # the far blocks start this many nats (plus log n) below the top level


# [proof:duff_mean_window]
def _level_window(n: int, scale: float) -> int:
    """How many levels below the first non-empty one are built explicitly (cost only)."""
    if scale == 0:
        return min(n + 1, 2)
    if math.isinf(scale) or scale > n + 2:
        return n + 1
    return int(min(n + 1, max(1, math.ceil(scale * (math.log(n + 2) + _TAIL)) + 2)))


class MeanSampler:
    """The Duff mean mechanism on records y in [lo, hi], lo < hi, 0 <= scale < inf, sampled
    exactly; ``presorted`` says whether y is sorted (otherwise it is selected, not sorted).
    y is not modified unless ``owned`` (the caller's own copy, then reordered in place)."""

    def __init__(self, y: np.ndarray, lo: float, hi: float, scale: float, presorted: bool,
                 owned: bool = False) -> None:
        self.y, self.lo, self.hi, self.scale, self.owned = y, lo, hi, scale, owned
        self.sorted_y = y if presorted else None
        n = self.n = y.size
        self.total = dm.grid_total(y, lo, hi)             # exact sum of the units of all n records
        width = _level_window(n, scale)
        K = min(n + 1, width)
        while True:  # K: the levels 1..K are built; enough once k0 + width - 1 <= K (cost only)
            lower, upper = self._ends(K)
            nonempty = np.flatnonzero(lower <= upper)
            k0 = int(nonempty[0]) + 1 if nonempty.size else None  # the first non-empty level set
            left, right, levels = dm.pieces(lower, upper) if k0 else (np.empty(0),) * 3
            if K == n + 1 or (k0 is not None and K >= k0 - 1 + width and (scale > 0 or left.size)):
                break
            K = min(n + 1, max(2 * K, (k0 or K) - 1 + width))
        self.K, self.lower_K, self.upper_K = K, float(lower[-1]), float(upper[-1])
        self.left, self.right = left, right
        levels = levels.astype(np.float64)
        if scale == 0:  # the top level's pieces (all have positive width), by width
            self.numer, self.denom = np.where(levels >= levels.max(), 0.0, -np.inf), 1.0
        else:
            self.numer, self.denom = levels, scale
        self.blocks: list[LazyGroup] = []
        self._full: tuple[np.ndarray, np.ndarray] | None = None
        if K <= n and scale > 0:  # the pieces of levels -(K+1)..-(n+1), left and right
            self.blocks = [LazyGroup(-(K + 1), lo, self.lower_K, lambda: self._far(0)),
                           LazyGroup(-(K + 1), self.upper_K, hi, lambda: self._far(1))]

    def _sorted(self) -> np.ndarray:
        if self.sorted_y is None:
            self.sorted_y = self.y if self.owned else self.y.copy()
            self.sorted_y.sort()
        return self.sorted_y

    def _ends(self, K: int) -> tuple[np.ndarray, np.ndarray]:
        """The ends of L_1..L_K from the K - 1 smallest and K - 1 largest records."""
        y, n, h = self.y, self.n, K - 1
        if self.sorted_y is not None or 2 * h >= n:
            s = self._sorted()
            small, large = s[:h], s[n - h:][::-1]
        else:  # selection: part[:h] holds the h smallest records, part[n-h:] the h largest
            part = y if self.owned else y.copy()
            if h:
                part.partition([h - 1, n - h])
            small, large = np.sort(part[:h]), np.sort(part[n - h:])[::-1]
        units = dm.grid_units(small, self.lo, self.hi), dm.grid_units(large, self.lo, self.hi)
        return dm.level_sets_top(units[1], units[0], self.total, n, K, self.lo, self.hi)

    def _far(self, side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(numer, left, right) of the pieces of levels -(K+1)..-(n+1) on one side, from the
        whole step function (built once)."""
        if self._full is None:
            self._full = dm.duff_mean_level_sets(self._sorted(), (self.lo, self.hi))
        ends, K = self._full[side], self.K
        numer = -np.arange(K + 1, self.n + 2, dtype=np.float64)
        if side == 0:   # [lower_k, lower_{k-1}] for k = K+1..n+1
            return numer, ends[K:], ends[K - 1:-1]
        return numer, ends[K - 1:-1], ends[K:]       # [upper_{k-1}, upper_k]

    def sample(self) -> float:
        j, i = exact_race_with_lazy_blocks(self.numer, self.denom, self.left, self.right, self.blocks)
        if j is None:
            return exact_uniform_float(self.left[i], self.right[i])
        _, left, right = self._far(j)
        return exact_uniform_float(left[i], right[i])
# [end:duff_mean_window]
