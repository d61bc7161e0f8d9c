"""The Duff step-density sampler, exact ([GM-Duff] §5).

A *step density* on disjoint intervals ``[left_i, right_i]`` is

    p(x) ∝ exp(level_i / scale)   for x inside interval i,

so interval i carries mass ∝ (right_i - left_i) exp(level_i / scale).  The
exponential mechanism with a Duff utility (Gillenwater & Muñoz Medina, *Duff*,
§5, Algorithm 1 and Proposition 5) is such a density.

:func:`sample_step_function` samples it EXACTLY: the interval by the exact Gumbel
race of :mod:`opendp_duff.samplers.gumbel_race` (weights read as exact rationals, float
keys with rigorous error bounds, refined with fresh random bits only when floats
cannot decide), the intervals far below the top in one lazy block built only when
its bound could win; then an exact uniform point of the interval, rounded to the
nearest float.  The release is the idealised law rounded to the nearest float
(``proofs/samplers/gumbel_race.tex``, ``proofs/samplers/uniform.tex``).

:func:`relative_levels` is the log-space helper the race uses to split the intervals into
near and far ones (a cost decision only).  :func:`log_widths` is
:func:`opendp_duff.laws.log_widths`, re-exported: the float log of the correctly rounded width
``right - left`` (a width of one subnormal kept; a width beyond the largest float through the
halves of the ends), -inf where right <= left; the audit describes the same law with
:func:`opendp_duff.laws.step_function_law`.
"""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..errors import MakeError
from ..laws import log_widths

from .gumbel_race import exact_gumbel_race
from .lazy_race import LazyGroup, exact_race_with_lazy_blocks
from .uniform import exact_uniform_float

__all__ = ["sample_step_function", "log_widths", "relative_levels"]

def relative_levels(levels: npt.ArrayLike, top: float, scale: float) -> npt.NDArray[np.float64]:
    """(level - top) / scale, capped at 0: the log-weight of a level relative to ``top``.

    Callers take ``top`` = the highest level of a positive-width interval, so the cap
    only touches zero-width intervals (mass 0 anyway) and keeps -inf + inf from arising.
    ``scale = 0`` keeps only levels >= top (0, others -inf); ``scale = inf`` gives 0.
    Underflow to -inf is intended; never NaN for finite levels."""
    gap = np.asarray(levels, dtype=np.float64) - top
    if scale == 0:
        return np.where(gap >= 0, 0.0, -np.inf)
    if math.isinf(scale):
        return np.zeros_like(gap)
    with np.errstate(over="ignore", under="ignore"):
        return np.minimum(gap / scale, 0.0)


def _validate(left: npt.ArrayLike, right: npt.ArrayLike, levels: npt.ArrayLike, scale: float
              ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    left = np.asarray(left, dtype=np.float64).reshape(-1)
    right = np.asarray(right, dtype=np.float64).reshape(-1)
    levels = np.asarray(levels, dtype=np.float64).reshape(-1)
    if not (left.size == right.size == levels.size):
        raise MakeError(f"left, right and levels must have equal lengths, not "
                         f"{left.size}, {right.size}, {levels.size}")
    if left.size == 0:
        raise MakeError("sample_step_function needs at least one interval")
    if not (np.all(np.isfinite(left)) and np.all(np.isfinite(right))):
        raise MakeError("interval endpoints (left, right) must be finite")
    if np.any(right < left):
        raise MakeError("each interval must have left <= right")
    if not np.all(np.isfinite(levels)):
        raise MakeError("levels must be finite")
    scale = float(scale)
    if math.isnan(scale) or scale < 0:
        raise MakeError(f"scale ({scale!r}) must be non-negative")
    return left, right, levels, scale


_NEAR = 60.0  # log-mass margin: intervals this far below the top go to the lazy far block


def _exact_index(left: npt.NDArray[np.float64], right: npt.NDArray[np.float64], levels: npt.NDArray[np.float64],
                 scale: float) -> int | None:
    """Index of the chosen interval, with probability EXACTLY proportional to
    (right_i - left_i) exp(levels_i / scale) (inputs read as exact rationals), or
    None when every interval has zero width.

    0 < scale < inf: the intervals within ``_NEAR`` nats of the top (relative level
    computed in floats: this only decides the cost) race as items; the others form
    one :class:`~opendp_duff.samplers.lazy_race.LazyGroup` bounded by the span
    [min left, max right] at their highest level (valid: the intervals are
    disjoint), materialised only if that bound could win.  scale = 0: weight
    (right - left) on the top-level intervals, 0 elsewhere; scale = inf: weight
    (right - left).  See ``proofs/samplers/gumbel_race.tex``."""
    alive = right > left  # exact comparison (no half-width underflow)
    if not alive.any():
        return None
    top = float(np.max(levels[alive]))
    if scale == 0 or math.isinf(scale):
        numer = (np.zeros(levels.shape) if scale != 0 else np.where(levels >= top, 0.0, -np.inf))
        return exact_gumbel_race(numer, 1.0, left, right)
    rel = relative_levels(levels, top, scale)
    near_mask = ~alive | (rel >= -_NEAR)
    far = np.flatnonzero(~near_mask)
    if far.size == 0:
        return exact_gumbel_race(levels, scale, left, right)
    near = np.flatnonzero(near_mask)
    blk = LazyGroup(float(np.max(levels[far])), float(np.min(left[far])), float(np.max(right[far])),
                    lambda: (levels[far], left[far], right[far]))
    j, i = exact_race_with_lazy_blocks(levels[near], scale, left[near], right[near], [blk])
    return int(near[i]) if j is None else int(far[i])


def sample_step_function(left: npt.ArrayLike, right: npt.ArrayLike, levels: npt.ArrayLike, scale: float,
                         size: int | None = None) -> float | npt.NDArray[np.float64]:
    """Draw EXACTLY from the density ∝ exp(levels_i / scale) on disjoint intervals, rounded to a float.

    The interval is chosen with probability exactly ∝ (right_i - left_i) exp(levels_i / scale)
    (inputs read as exact rationals) by the exact Gumbel race of
    :mod:`opendp_duff.samplers.gumbel_race`, the intervals far below the top in one lazy block
    ([GM-Duff] §5, Algorithm 1, with the block race); then an exact uniform point of it, rounded
    to the nearest float, is returned (:func:`~opendp_duff.samplers.uniform.exact_uniform_float`).

    Args:
        left, right: the interval ends, finite, left <= right, the intervals disjoint.
        levels: the finite level of each interval.
        scale: >= 0; 0 samples uniformly on the top-level intervals, inf ignores the levels.
        size: None for one draw, k for an array of k independent draws.

    Returns:
        A float (or an array of floats) inside the union of the intervals.  Zero-width intervals
        never win unless every interval has zero width; then the left end of a highest-level
        interval is returned.

    Raises:
        MakeError: on malformed parameters (before any byte is drawn).

    Cost: O(N) cheap arithmetic to find the near set, one exact race among the near intervals
    and the lazy far block, and O(N) more only in the (rare) event that the far block's bound
    could win.  Proof: ``proofs/samplers/gumbel_race.tex``, ``proofs/samplers/uniform.tex``.
    """
    left, right, levels, scale = _validate(left, right, levels, scale)

    def one() -> float:
        i = _exact_index(left, right, levels, scale)
        if i is None:
            return float(left[int(np.argmax(levels))])
        return exact_uniform_float(left[i], right[i])

    if size is None:
        return one()
    return np.array([one() for _ in range(int(size))], dtype=np.float64)
