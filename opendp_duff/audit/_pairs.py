"""Divergences between the laws P (of x) and Q (of x'), in both directions.

A pair of laws is a product of independent *parts*, one per coordinate that differs: a
:class:`SumPart` (discrete or piecewise-constant laws, finite sums over cells) or a
:class:`QuadraturePart` (two standardised location-scale factors).  :func:`pair_of` builds a
:class:`ProductPair` of parts, or a :class:`SingularPair` when the laws are mutually singular
(an atom against a density, or two families).  Each object answers max_log_ratio, renyi(alpha)
and hockey_stick(eps), with an error estimate for the last two.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

import numpy as np

from .._constants import INF
from ..distributions import Gaussian
from ..laws import DiscreteLaw, LocationScaleLaw, PiecewiseConstantLaw
from . import _cells as C
from ._quadrature import Factor, quadrature_cells, standardised_pair

_DIRECTIONS = (False, True)  # flip = False: P against Q; True: Q against P


class Part(Protocol):
    """One independent coordinate of a pair of laws."""

    def max_log_ratio(self, flip: bool) -> float: ...
    def renyi(self, alpha: float, flip: bool) -> tuple[float, float]: ...
    def hockey(self, eps: float, flip: bool) -> tuple[float, float]: ...


class SumPart:
    """Discrete or piecewise-constant laws: exact finite sums over cells (float rounding only)."""

    def __init__(self, cells: C.Cells):
        self._cells = cells

    def cells(self, flip: bool) -> C.Cells:
        return self._cells.flipped() if flip else self._cells

    def max_log_ratio(self, flip: bool) -> float:
        return C.max_log_ratio(self.cells(flip))

    def renyi(self, alpha: float, flip: bool) -> tuple[float, float]:
        c = self.cells(flip)
        return C.renyi(c.log_w, c.lp, c.lq, alpha), 0.0

    def hockey(self, eps: float, flip: bool) -> tuple[float, float]:
        c = self.cells(flip)
        return C.hockey(c.log_w, c.lp, c.lq, eps), 0.0


class QuadraturePart:
    """Two standardised scalar location-scale laws p and q, integrated numerically."""

    def __init__(self, p: Factor, q: Factor, du: float):
        self.p, self.q, self.du = p, q, du
        self._cache: dict[tuple[bool, tuple[float, ...]], C.Cells] = {}

    def _laws(self, flip: bool) -> tuple[Factor, Factor]:
        return (self.q, self.p) if flip else (self.p, self.q)

    def cells(self, flip: bool, extra_breaks: Sequence[float] = ()) -> C.Cells:
        key = (flip, tuple(extra_breaks))
        if key not in self._cache:
            a, b = self._laws(flip)
            self._cache[key] = quadrature_cells(a, b, [a.loc, b.loc, *extra_breaks], self.du)
        return self._cache[key]

    def max_log_ratio(self, flip: bool) -> float:
        cells = self.cells(flip)
        value = C.max_log_ratio(cells)
        return max(value, self._refine(flip, cells)) if math.isfinite(value) else value

    def _refine(self, flip: bool, cells: C.Cells) -> float:
        """The largest node value of lp - lq refined by a bounded scalar optimisation."""
        a, b = self._laws(flip)
        assert cells.z is not None
        order = np.argsort(cells.z)
        z = cells.z[order]
        d = (cells.lp - cells.lq)[order]
        d = np.where(np.isfinite(d), d, -INF)
        k = int(np.argmax(d))
        lo, hi = z[max(k - 1, 0)], z[min(k + 1, z.size - 1)]
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
            return float(d[k])

        def neg(t: float) -> float:
            v = a.at(t) - b.at(t)
            return -v if math.isfinite(v) else INF
        from scipy import optimize  # imported when used: scipy is slow to load
        with np.errstate(all="ignore"):
            res = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                           options={"xatol": 1e-12 * max(1.0, abs(lo), abs(hi))})
        return max(float(d[k]), -float(res.fun))

    def renyi(self, alpha: float, flip: bool) -> tuple[float, float]:
        c = self.cells(flip)
        if alpha != 1:
            c = self.cells(flip, self._integrand_breaks(flip, c, alpha))
        v = C.renyi(c.log_w, c.lp, c.lq, alpha)
        assert c.coarse_log_w is not None
        return C.with_error(v, C.renyi(c.coarse_log_w, c.lp, c.lq, alpha) if math.isfinite(v) else None)

    def hockey(self, eps: float, flip: bool) -> tuple[float, float]:
        c = self.cells(flip)
        roots = self._crossings(flip, c, eps)  # the points where p = e^eps q, as breakpoints
        if roots:
            c = self.cells(flip, roots)
        assert c.coarse_log_w is not None
        return C.with_error(C.hockey(c.log_w, c.lp, c.lq, eps), C.hockey(c.coarse_log_w, c.lp, c.lq, eps))

    def _integrand_breaks(self, flip: bool, cells: C.Cells, alpha: float) -> tuple[float, ...]:
        """Extra breakpoints for the Renyi integrand p^alpha q^(1 - alpha), alpha > 1.

        The nodes reach where both densities are below e^-1000, but the integrand may still
        rise there (two Gaussians peak at (1 - alpha) times the shift): then a point beyond
        its peak, where it has fallen by e^1000, is added.  Its peak, located by a bounded
        optimisation between the nodes around the largest value, is added if it lies more
        than two scales from both locations (the geometric nodes would be too coarse there).
        """
        a, b = self._laws(flip)

        def g(t: float) -> float:
            return alpha * a.at(t) + (1 - alpha) * b.at(t)

        def neg_g(t: float) -> float:
            v = g(t)
            return -v if math.isfinite(v) else INF
        s = min(self.p.scale, self.q.scale)
        z, v = self._sorted(cells, alpha * cells.lp + (1 - alpha) * cells.lq)
        if z.size == 0:
            return ()
        breaks: tuple[float, ...] = ()
        k = int(np.argmax(v))
        if k in (0, z.size - 1):  # still rising at the edge of the nodes: walk outwards
            direction, top, R = (-1.0 if k == 0 else 1.0), float(v[k]), 30.0
            while R < 1e300 / s:
                t = float(z[k]) + direction * s * R
                gt = g(t)
                if not math.isfinite(gt):
                    break
                top = max(top, gt)
                if gt < top - 1000.0:
                    breaks = (t,)
                    cells = self.cells(flip, breaks)
                    z, v = self._sorted(cells, alpha * cells.lp + (1 - alpha) * cells.lq)
                    k = int(np.argmax(v))
                    break
                R *= 10.0
        lo, hi = float(z[max(k - 1, 0)]), float(z[min(k + 1, z.size - 1)])
        peak = float(z[k])
        if hi > lo:
            from scipy import optimize  # imported when used: scipy is slow to load
            with np.errstate(all="ignore"):
                res = optimize.minimize_scalar(neg_g, bounds=(lo, hi), method="bounded",
                                               options={"xatol": 1e-12 * max(1.0, abs(lo), abs(hi))})
            if math.isfinite(res.fun) and -res.fun > v[k]:
                peak = float(res.x)
        near = min(abs(peak - self.p.loc), abs(peak - self.q.loc)) <= 2 * min(self.p.scale, self.q.scale)
        return breaks if near else (*breaks, peak)

    @staticmethod
    def _sorted(cells: C.Cells, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The nodes in increasing order with their finite values."""
        assert cells.z is not None
        ok = np.isfinite(values)
        order = np.argsort(cells.z[ok])
        return cells.z[ok][order], values[ok][order]

    def _crossings(self, flip: bool, cells: C.Cells, eps: float) -> list[float]:
        a, b = self._laws(flip)
        assert cells.z is not None
        order = np.argsort(cells.z)
        z = cells.z[order]
        g = (cells.lp - cells.lq)[order] - eps
        ok = np.isfinite(g) & np.isfinite(z)
        z, g = z[ok], g[ok]
        idx = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)
        roots = []

        def fn(t: float) -> float:
            return a.at(t) - b.at(t) - eps
        from scipy import optimize  # imported when used: scipy is slow to load
        for i in idx[:16]:
            try:
                roots.append(float(optimize.brentq(fn, z[i], z[i + 1], xtol=1e-14, rtol=1e-14)))
            except (ValueError, RuntimeError):  # pragma: no cover - a sign change vanished
                pass
        return roots


class SingularPair:
    """Mutually singular laws (one has atoms the other lacks, or they are numerically
    disjoint): every divergence is infinite and delta(eps) = 1."""

    method = "singular"

    def max_log_ratio(self) -> float:
        return INF

    def renyi(self, alpha: float) -> tuple[float, float]:
        return INF, 0.0

    def hockey_stick(self, eps: float) -> tuple[float, float]:
        return 1.0, 0.0


class ProductPair:
    """Independent parts (one per coordinate that differs): log ratios and Renyi divergences
    add up over parts; delta(eps) is computed for one part, or for isotropic Gaussian vectors
    through ``joint`` (the pair seen along the shift, where it is one-dimensional)."""

    def __init__(self, parts: list[Part], method: str, joint: Part | None = None):
        self.parts, self.method, self.joint = parts, method, joint

    def max_log_ratio(self) -> float:
        """max over directions of sup log(p/q); for product laws the sup is the sum of the
        coordinates' sups (independent coordinates)."""
        return max(sum((p.max_log_ratio(flip) for p in self.parts), 0.0) for flip in _DIRECTIONS)

    def renyi(self, alpha: float) -> tuple[float, float]:
        """max over directions of D_alpha, and its numerical error estimate."""
        best, err = 0.0, 0.0
        for flip in _DIRECTIONS:
            total, e = 0.0, 0.0
            for part in self.parts:
                v, ve = part.renyi(alpha, flip)
                total, e = total + v, e + ve
            if total > best or (total == best and e > err):
                best, err = total, e
        return best, err

    def hockey_stick(self, eps: float) -> tuple[float, float]:
        """max over directions of delta(eps), and its numerical error estimate."""
        if not self.parts:
            return 0.0, 0.0
        if len(self.parts) > 1 and self.joint is None:
            raise ValueError("the hockey-stick divergence of product laws is computed only "
                             "for Gaussian noise, or when one coordinate differs")
        part = self.parts[0] if len(self.parts) == 1 else self.joint
        assert part is not None
        best, err = 0.0, 0.0
        for flip in _DIRECTIONS:
            v, e = part.hockey(eps, flip)
            if v > best or (v == best and e > err):
                best, err = v, e
        return best, err


Pair = SingularPair | ProductPair


def pair_of(P: object, Q: object, du: float) -> Pair:
    """The pair of laws P, Q; ``du`` is the quadrature step for location-scale laws."""
    if isinstance(P, DiscreteLaw) and isinstance(Q, DiscreteLaw):
        return ProductPair([SumPart(C.discrete_cells(P, Q))], "exact")
    if isinstance(P, PiecewiseConstantLaw) and isinstance(Q, PiecewiseConstantLaw):
        return ProductPair([SumPart(C.piecewise_cells(P, Q))], "exact")
    if isinstance(P, LocationScaleLaw) and isinstance(Q, LocationScaleLaw):
        return _location_scale_pair(P, Q, du)
    if type(P) is type(Q):
        raise ValueError(f"unsupported law type {type(P).__name__}")
    return SingularPair()  # an atom against a density (or two different families)


def _location_scale_pair(P: LocationScaleLaw, Q: LocationScaleLaw, du: float) -> Pair:
    mp, mq = P.exact_locs, Q.exact_locs
    if len(mp) != len(mq) or type(P.noise) is not type(Q.noise) or P.noise != Q.noise:
        raise ValueError("location-scale laws of different shapes or noise laws")
    sp, sq = Fraction(P.scale), Fraction(Q.scale)
    parts: list[Part] = []
    for m1, m2 in zip(mp, mq, strict=True):
        if m1 == m2 and sp == sq:
            continue  # identical factors contribute nothing
        factors = standardised_pair(m1, sp, m2, sq, P.noise)
        if factors is None:
            return SingularPair()
        parts.append(QuadraturePart(*factors, du))
    joint = None
    if len(parts) > 1 and sp == sq and isinstance(P.noise, Gaussian):
        # isotropic Gaussian vectors: rotate the shift onto one axis (exact shifts, then hypot)
        shift = math.hypot(*[float((m2 - m1) / sp) for m1, m2 in zip(mp, mq, strict=True)])
        if not math.isfinite(shift):
            return SingularPair()
        joint = QuadraturePart(Factor(0.0, 1.0, P.noise), Factor(shift, 1.0, P.noise), du)
    return ProductPair(parts, "quadrature", joint)
