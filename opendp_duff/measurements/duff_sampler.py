"""The exact sampler of the Duff quantile release: the window of gaps around the best one,
their levels, the two far blocks, and the race on them.

:func:`duff_quantile_sample` is the sampler behind :func:`~opendp_duff.measurements.duff.make_duff_quantile`
for batches.  Proofs: ``proofs/measurements/duff/make_duff_median.tex`` and ``make_duff_quantile.tex``
(their common body lists this module).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from .. import _validate as v
from ..duff_utility import quantile_best_gap, quantile_gap_levels, quantile_rational, quantile_window
from ..engines.rank_window import NO_PAIRS, RankSource, SortedRecords, Tail
from ..samplers.lazy_race import LazyGroup, exact_race_with_lazy_blocks
from ..samplers.uniform import exact_uniform_float

__all__ = ["duff_quantile_sample"]


# [proof:_Block]
class _Block(NamedTuple):
    """The far gaps of a tail, beyond its near values: their span, their live gap nearest the
    window (None if none has positive width) and their live gaps on demand (index, left, right)."""

    span_lo: float
    span_hi: float
    live: int | None
    members: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]
# [end:_Block]




# [proof:_QuantileSampler]
class _QuantileSampler:
    """The Duff alpha-quantile mechanism on records in [lo, hi], sampled exactly.

    Candidates: the n + 1 gaps, gap j = [e_j, e_{j+1}] with e = (lo, y_1..y_n, hi) (y the
    sorted records), level L_j = quantile_gap_levels(j) and width w_j.  (Records have
    Lebesgue measure zero.)

    Stage 1, the window and the levels (``__init__``): the gaps within ``quantile_window`` of the
    best gap r are items; they need the records of ranks j0..j1 only, which the
    :class:`~opendp_duff.engines.rank_window.RankSource` hands out as a rank window
    (``data``: a sorted array, or any source of that module).  The gaps left and right of
    the window form two lazy blocks, one per tail.  Levels fall away from r, so a block's
    live (positive-width) gaps all have level at most that of its live gap nearest the
    window (located by the tail's count of ties with the window's end), and they are
    disjoint inside the block's span: (span) exp(that level / scale) bounds the block's
    mass, and the tail's records are asked for (sorted) only if that bound could win.

    Stage 2, the race (``sample``): the exact race
    (:func:`opendp_duff.samplers.lazy_race.exact_race_with_lazy_blocks`) chooses gap j with
    probability exactly w_j exp(L_j / scale) / Z (the inputs read as exact rationals), and
    the release is an exact uniform point of it rounded to the nearest float.  scale = 0
    keeps the gaps of the top live level (weight w_j); scale = inf weighs every gap by w_j.

    Work per release: O(window) plus the source's cost of the window (O(log n) sorted,
    O(n) by selection), plus the cost of a tail with tiny probability.  The window depends
    on n (private under add/remove): it changes the cost, never the law.
    """

    def __init__(self, data: np.ndarray | RankSource, lo: float, hi: float, alpha: Fraction | float,
                 scale: float) -> None:
        # [proof:quantile_window]
        src = SortedRecords(data) if isinstance(data, np.ndarray) else data
        self.lo, self.hi, self.scale = lo, hi, scale
        n = self.n = src.n
        self.P, self.Q = quantile_rational(alpha, n)
        r = quantile_best_gap(n, self.P, self.Q)
        k = quantile_window(n, scale)
        j0, j1 = max(0, r - k), min(n + 1, r + k + 1)       # items: gaps j0..j1-1
        win = src.window(max(j0, 1), min(j1, n)) if n else None
        vals = win.values if win is not None else np.empty(0)
        e = np.concatenate([[lo] if j0 == 0 else [], vals, [hi] if j1 == n + 1 else []])
        left, right = e[:-1], e[1:]                           # e_j0..e_j1: the ends of the items
        tails: list[_Block] = []
        near: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []   # live gaps of near values
        if win is not None and j0 > 0:
            block, gaps = _left_tail(win.left, float(vals[0]), lo)
            tails.append(block)
            near.append(gaps)
        if win is not None and j1 <= n:
            block, gaps = _right_tail(win.right, float(vals[-1]), hi, j1, n)
            tails.append(block)
            near.append(gaps)
        idx = np.concatenate([np.arange(j0, j1, dtype=np.int64)] + [g[0] for g in near])
        left = np.concatenate([left] + [g[1] for g in near])
        right = np.concatenate([right] + [g[2] for g in near])
        # the levels of the items, then of each far block's live gap nearest the window (one evaluation)
        lives = np.array([b.live for b in tails if b.live is not None], dtype=np.int64)
        all_levels = quantile_gap_levels(np.concatenate([idx, lives]), n, self.P, self.Q).astype(np.float64)
        levels, live_levels = all_levels[:idx.size], all_levels[idx.size:]
        items_live = levels[right > left]
        tops = live_levels.tolist() + ([float(np.max(items_live))] if items_live.size else [])
        self.top = max(tops) if tops else -1.0  # lo < hi: some gap is live, so tops is not empty
        # [end:quantile_window]
        # [proof:quantile_race_inputs]
        self.near_left, self.near_right = left, right
        numers, self.denom = self._numer(all_levels)           # element by element
        self.near_numer = numers[:idx.size]
        ups = dict(zip(lives.tolist(), numers[idx.size:].tolist(), strict=True))  # each far block's live gap
        self._tails = tails
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.blocks: list[LazyGroup] = []
        self._block_ids: list[int] = []
        for b, block in enumerate(tails):
            if block.live is None:  # no live gap: the block has no mass
                continue
            up = ups[block.live]
            if up == -np.inf:  # scale 0 and below the top level: no mass
                continue
            self.blocks.append(LazyGroup(up, block.span_lo, block.span_hi, self._members_fn(b)))
            self._block_ids.append(b)
        # [end:quantile_race_inputs]

    # [proof:quantile_sampler_helpers]
    def _numer(self, levels: np.ndarray) -> tuple[np.ndarray, float]:
        """(numerators, denominator) of the exact race: weight w exp(numer / denom)."""
        if self.scale == 0:
            return np.where(levels >= self.top, 0.0, -np.inf), 1.0
        if math.isinf(self.scale):
            return np.zeros(levels.shape), 1.0
        return levels, self.scale

    def _members(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(numer, left, right) of every live gap of block b (built once, then cached)."""
        if b not in self._cache:
            idx, left, right = self._tails[b].members()
            levels = quantile_gap_levels(idx, self.n, self.P, self.Q)
            self._cache[b] = (self._numer(levels.astype(np.float64))[0], left, right)
        return self._cache[b]

    def _members_fn(self, b: int) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return lambda: self._members(b)

    def sample(self) -> float:
        j, i = exact_race_with_lazy_blocks(self.near_numer, self.denom, self.near_left,
                                           self.near_right, self.blocks)
        if j is None:
            return exact_uniform_float(self.near_left[i], self.near_right[i])
        _, left, right = self._members(self._block_ids[j])
        return exact_uniform_float(left[i], right[i])


_NO_GAPS = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))


def _gaps(ends: np.ndarray, first: int, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index, left, right) of the gaps between consecutive distinct ends e_0 < ... < e_m,
    where gap i (between e_i and e_(i+1)) has index first + counts[0] + ... + counts[i-1]
    (``counts`` holds the multiplicities of e_1..e_(m-1)); a gap of width zero is left out."""
    idx = first + np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    keep = ends[1:] > ends[:-1]
    return idx[keep], ends[:-1][keep], ends[1:][keep]


def _left_tail(tail: Tail, v: float, lo: float) -> tuple[_Block, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The far block and the near gaps of the left tail (records of ranks 1..j0-1, window end
    v = e_j0): R records beyond the near values d_1 < ... < d_p (counts c), then those, then
    the ties with v.  Gap R + c_1 + ... + c_i lies between d_i and d_(i+1) (d_(p+1) = v); the far
    block is gaps 0..R, spanning [lo, d_1], whose gap R ends at d_1 > every far record."""
    d, c = tail.near
    R = tail.count - tail.ties - int(c.sum())
    near = _gaps(np.append(d, v), R + int(c[0]), c[1:]) if d.size else _NO_GAPS
    edge = float(d[0]) if d.size else v
    live = R if R > 0 or lo < edge else None

    def members() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r, cr = tail.rest() if R > 0 else NO_PAIRS
        return _gaps(np.concatenate([[lo], r, [edge]]), 0, cr)
    return _Block(lo, edge, live, members), near


def _right_tail(tail: Tail, v: float, hi: float, j1: int, n: int
                ) -> tuple[_Block, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The far block and the near gaps of the right tail (records of ranks j1+1..n, window end
    v = e_j1): the s ties with v, then the near values d_1 < ... < d_p (counts c), then R
    records beyond.  Gap j1 + s + c_1 + ... + c_(i-1) lies between d_(i-1) and d_i (d_0 = v); the
    far block is gaps j1+s+C..n (C the near records), spanning [d_p, hi]."""
    d, c = tail.near
    s = j1 + tail.ties
    C = int(c.sum())
    R = tail.count - tail.ties - C
    near = _gaps(np.concatenate([[v], d]), s, c[:-1]) if d.size else _NO_GAPS
    edge = float(d[-1]) if d.size else v
    live = s + C if R > 0 or edge < hi else None

    def members() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r, cr = tail.rest() if R > 0 else NO_PAIRS
        return _gaps(np.concatenate([[edge], r, [hi]]), s + C, cr)
    return _Block(edge, hi, live, members), near
# [end:quantile_sampler_helpers]
# [end:_QuantileSampler]


def duff_quantile_sample(x_sorted: Any, bounds: tuple[float, float], alpha: Fraction | float,
                         scale: float, size: int | None = None) -> float | np.ndarray:
    """Releases of the Duff alpha-quantile mechanism: the sampler behind
    :func:`make_duff_quantile`, for batches (``size`` draws share the set-up).

    ``x_sorted`` must be sorted and inside ``bounds`` (it is data, so it is not
    checked: chain ``make_clamp`` and ``make_sort`` or sort and clip it yourself).  The
    public parameters are validated as in :func:`make_duff_quantile`.  Each draw is a
    separate release: k draws cost k times the privacy of one (``make_duff_quantile(...).map``).
    Not a constructor, so not in ``dp.m``: import it from this module.
    """
    lo, hi = v.bounds("bounds", bounds, float)
    alpha = v.alpha("alpha", alpha)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    if size is not None:
        size = v.number("size", size, integer=True, nonneg=True)
    y = np.clip(np.asarray(x_sorted, dtype=np.float64).reshape(-1), lo, hi)
    return _sample(SortedRecords(y), lo, hi, alpha, scale, size)


# [proof:duff_quantile_sample]
def _sample(src: RankSource, lo: float, hi: float, alpha: Fraction | float, scale: float,
            size: int | None = None) -> Any:
    """Draw from validated parameters and a source of records inside [lo, hi]."""
    if not lo < hi:  # the output space is one point
        return lo if size is None else np.full(size, lo)
    sampler = _QuantileSampler(src, lo, hi, alpha, scale)
    if size is None:
        return sampler.sample()
    return np.array([sampler.sample() for _ in range(size)], dtype=np.float64)
# [end:duff_quantile_sample]
