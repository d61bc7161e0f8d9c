"""Two laws reduced to cells, and the divergences as sums over cells.

A cell carries a log weight and the two log densities (or masses) at it: P(cell) =
exp(log_w + lp), Q(cell) = exp(log_w + lq).  Discrete laws give one cell per value
(log_w = 0), piecewise-constant laws one cell per piece of the merged partition
(log_w = log width), location-scale laws one per quadrature node (log_w = log of the
quadrature weight), with the weights of a coarser rule beside them for the error estimate.
"""
from __future__ import annotations

import math

import attrs
import numpy as np

from .._constants import INF
from ..laws import DiscreteLaw, PiecewiseConstantLaw, log_widths, logsumexp


@attrs.frozen(eq=False)
class Cells:
    """Cells of two laws: log weights, log p, log q; for quadrature also the coarse rule's log
    weights (every other node) and the nodes."""

    log_w: np.ndarray
    lp: np.ndarray
    lq: np.ndarray
    coarse_log_w: np.ndarray | None = None
    z: np.ndarray | None = None

    def flipped(self) -> Cells:
        """The same cells with P and Q exchanged."""
        return attrs.evolve(self, lp=self.lq, lq=self.lp)


def discrete_cells(P: DiscreteLaw, Q: DiscreteLaw) -> Cells:
    """One cell per value in either support."""
    dp_, dq = P.as_dict(), Q.as_dict()
    keys = list(dict.fromkeys(list(dp_) + list(dq)))
    lp = np.array([dp_.get(k, -INF) for k in keys])
    lq = np.array([dq.get(k, -INF) for k in keys])
    return Cells(np.zeros(len(keys)), lp, lq)


def piecewise_cells(P: PiecewiseConstantLaw, Q: PiecewiseConstantLaw) -> Cells:
    """One cell per piece [a, b) of the partition by every end of either law.

    Each density is constant on [a, b), so it is read at a itself (no midpoint to overflow),
    and the log width is exact over the whole float range (:func:`opendp_duff.laws.log_widths`).
    """
    edges = np.unique(np.concatenate([P.left, P.right, Q.left, Q.right]))
    a, b = edges[:-1], edges[1:]
    lp, lq = P.logpdf(a), Q.logpdf(a)
    keep = (lp > -INF) | (lq > -INF)
    return Cells(log_widths(a, b)[keep], lp[keep], lq[keep])


def max_log_ratio(cells: Cells) -> float:
    """max over the cells of mass of lp - lq (inf if P has mass where Q has none)."""
    live = cells.lp > -INF
    if not live.any():
        return 0.0
    if (cells.lq[live] == -INF).any():
        return INF
    return float(np.max(cells.lp[live] - cells.lq[live]))


def renyi(log_w: np.ndarray, lp: np.ndarray, lq: np.ndarray, alpha: float) -> float:
    """D_alpha(P||Q) from cells; alpha = 1 is the KL divergence."""
    live = lp > -INF
    if (lq[live] == -INF).any():
        return INF
    if alpha == 1:
        with np.errstate(under="ignore"):
            return max(0.0, float(np.sum(np.exp(log_w[live] + lp[live]) * (lp[live] - lq[live]))))
    terms = log_w[live] + alpha * lp[live] + (1 - alpha) * lq[live]
    return max(0.0, logsumexp(terms) / (alpha - 1))


def hockey(log_w: np.ndarray, lp: np.ndarray, lq: np.ndarray, eps: float) -> float:
    """delta = sum of P(cell) max(0, 1 - e^(eps + lq - lp))."""
    live = lp > -INF
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        gap = eps + lq[live] - lp[live]
        part = np.where(gap < 0, -np.expm1(np.minimum(gap, 0.0)), 0.0)
        return float(min(1.0, max(0.0, np.sum(np.exp(log_w[live] + lp[live]) * part))))


def with_error(fine: float, coarse: float | None) -> tuple[float, float]:
    """(value, |value - value of the coarse rule|), or error 0 without a coarse rule."""
    if coarse is None or not math.isfinite(fine):
        return fine, 0.0
    return fine, abs(fine - coarse)
