"""Quadrature nodes and weights for two scalar location-scale laws.

Composite Simpson's rule in u on each side of every breakpoint b (the two locations, and any
extra point such as where p = e^eps q), with z = b +- s e^u: geometric near the breakpoint,
where a noise density may have a cusp or a singular derivative, out to where both densities
are below e^-1000 (or |z - b| ~ 1e300).  The same rule on every other node gives the coarse
weights whose difference from the fine rule estimates the error.

The audit passes standardised laws (see :class:`Factor`), so the nodes never lose precision
to a large common location and never overflow for scales far from 1.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

import attrs
import numpy as np

from .._constants import INF
from ..laws import Noise, standardise
from ._cells import Cells

_U0 = -25.0  # segments start at s e^-25 from their anchor; the gap gets one rectangle


@attrs.frozen
class Factor:
    """One coordinate's law loc + scale * Z, in the audit's standardised coordinates."""

    loc: float
    scale: float
    noise: Noise

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        """log density at the nodes z."""
        with np.errstate(all="ignore"):
            y = standardise(z, self.loc, self.scale)
            return np.asarray(self.noise.logpdf(y), dtype=np.float64) - math.log(self.scale)

    def logpdf_near(self, anchor: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """log density at the nodes anchor + offset, standardised as ((anchor - loc) + offset)
        / scale: a node keeps its offset even where anchor + offset rounds to the anchor."""
        with np.errstate(all="ignore"):
            y = ((anchor - self.loc) + offset) / self.scale
            return np.asarray(self.noise.logpdf(y), dtype=np.float64) - math.log(self.scale)

    def at(self, t: float) -> float:
        """log density at the single point t."""
        return float(self.logpdf(np.array([t]))[0])


def standardised_pair(m1: Fraction, s1: Fraction, m2: Fraction, s2: Fraction,
                      noise: Noise) -> tuple[Factor, Factor] | None:
    """The laws m1 + s1 Z and m2 + s2 Z mapped by z -> (z - m1) / min(s1, s2), computed
    exactly and rounded once: (Factor(0, s1/s), Factor((m2 - m1)/s, s2/s)).  Divergences are
    invariant under this map.  None when a standardised location or scale exceeds the largest
    float (the laws are then numerically disjoint)."""
    s = min(s1, s2)
    loc, r1, r2 = (m2 - m1) / s, s1 / s, s2 / s
    try:
        p, q = Factor(0.0, float(r1), noise), Factor(float(loc), float(r2), noise)
    except OverflowError:
        return None
    return (p, q) if math.isfinite(q.loc) and math.isfinite(p.scale) and math.isfinite(q.scale) else None


def _simpson(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Composite Simpson weights on n + 1 nodes (n a multiple of 4), step 1, and the same
    rule with step 2 on the even nodes (zero weight on the odd ones)."""
    fine = np.ones(n + 1)
    fine[1:-1:2], fine[2:-1:2] = 4.0, 2.0
    coarse = np.zeros(n + 1)
    coarse[0:n + 1:2] = 1.0
    coarse[2:-1:4], coarse[4:-1:4] = 4.0, 2.0
    return fine / 3.0, coarse * 2.0 / 3.0


def _segment(direction: float, s: float, R: float, du: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets direction s e^u from an anchor, u in [_U0, log R] (geometric near the anchor,
    where noise densities may have a cusp or a singular derivative, and out to distance s R),
    with log Simpson weights (dz included), plus the anchor itself (offset 0) standing for
    [0, s e^_U0]."""
    U = math.log(R)
    if U - _U0 < 8 * du:  # a very short segment: uniform nodes in z
        n = 8
        o = direction * s * R * np.linspace(0.0, 1.0, n + 1)
        fine, coarse = _simpson(n)
        lj = math.log(s * R / n)
        return o, np.log(fine) + lj, np.log(np.maximum(coarse, 1e-300)) + lj - np.where(coarse > 0, 0, INF)
    n = max(8, 4 * int(math.ceil((U - _U0) / du / 4)))
    u = np.linspace(_U0, U, n + 1)
    h = (U - _U0) / n
    fine, coarse = _simpson(n)
    with np.errstate(over="ignore"):
        o = direction * s * np.exp(u)
    log_jac = math.log(s) + u
    first = math.log(s) + _U0
    with np.errstate(divide="ignore"):
        return (np.concatenate([[0.0], o]), np.concatenate([[first], np.log(fine * h) + log_jac]),
                np.concatenate([[first], np.log(coarse * h) + log_jac]))


def _tail_extent(point: float, s: float, direction: float,
                 logpdfs: Iterable[Callable[[np.ndarray], np.ndarray]], floor: float = -1000.0) -> float:
    """R (from a growing list) such that every density is below e^floor at distance s R, or
    the R at which |z| reaches ~1e300."""
    r_max = max(1.0, min(1e300 / s, 1e300))  # |z - point| stays below ~1e300 (and finite)
    R = 30.0
    while R < r_max:
        z = point + direction * s * R
        if all(float(f(np.array([z]))[0]) < floor for f in logpdfs):
            return R
        R *= 10.0
    return r_max


def quadrature_cells(p: Factor, q: Factor, breaks: Iterable[float], du: float) -> Cells:
    """Nodes and weights over the real line for the two scalar laws p and q, with breakpoints
    at ``breaks`` (which include both locations) and step ``du`` in u."""
    s = min(p.scale, q.scale)
    b = np.unique(np.asarray(list(breaks), dtype=np.float64))
    anchors, offsets, fw, cw = [], [], [], []
    pieces = [(b[0], -1.0, _tail_extent(b[0], s, -1.0, (p.logpdf, q.logpdf))),
              (b[-1], 1.0, _tail_extent(b[-1], s, 1.0, (p.logpdf, q.logpdf)))]
    for lo, hi in zip(b[:-1], b[1:], strict=True):
        half = (0.5 * hi - 0.5 * lo) / s  # halves: no overflow between far breakpoints
        pieces += [(lo, 1.0, half), (hi, -1.0, half)]
    for anchor, direction, R in pieces:
        o, a, c = _segment(direction, s, float(R), du)
        anchors.append(np.full(o.size, float(anchor)))
        offsets.append(o)
        fw.append(a)
        cw.append(c)
    anchor_all, offset_all = np.concatenate(anchors), np.concatenate(offsets)
    with np.errstate(over="ignore"):
        z = anchor_all + offset_all
    lp, lq = p.logpdf_near(anchor_all, offset_all), q.logpdf_near(anchor_all, offset_all)
    # Every noise law here has a positive density on the whole line: a -inf is an underflow
    # (mass below e^-745 at that node), so such nodes are dropped rather than read as q = 0.
    ok = (lp > -INF) & (lq > -INF) & np.isfinite(z)
    return Cells(np.concatenate(fw)[ok], lp[ok], lq[ok], np.concatenate(cw)[ok], z[ok])
