"""Privacy audits: the exact privacy loss of a measurement between two given datasets, and a
black-box, sample-based lower bound on epsilon.

A measurement built by this library may carry ``output_law``: a function data -> an object
describing the EXACT law of its release (idealised arithmetic, before the float rounding of
the sampler).  Three kinds of law cover every mechanism here:

* :class:`DiscreteLaw` (support, log_pmf): report noisy max, Duff mode;
* :class:`PiecewiseConstantLaw` (left, right, log_density): the Duff median, quantiles and
  mean, whose density is exp(u(x)/scale)/Z on the pieces of the utility's step function;
* :class:`LocationScaleLaw` (loc, scale, noise): Laplace and Gaussian mechanisms and the
  smooth-sensitivity releases, loc + scale * Z with Z a law of :mod:`opendp_duff.distributions`.

:func:`exact_privacy_loss` compares the laws on two datasets, in both directions:

* pure DP (``max_divergence``): the largest log density (or mass) ratio;
* zCDP: the Renyi divergences D_alpha for a list of alphas, reported as max_alpha D_alpha/alpha
  (to compare with rho; zCDP asks D_alpha <= rho alpha for EVERY alpha > 1, so a finite list
  can only refute, never prove, a claim);
* (epsilon, delta): the hockey-stick divergence delta(eps) = int max(0, p - e^eps q).

Discrete and piecewise-constant laws are compared by finite sums over the merged pieces: exact
up to float rounding (tolerance 1e-9 absolute plus 1e-9 relative).  Location-scale laws are
integrated numerically: composite Simpson's rule in w on each side of every breakpoint (the
two locations, and for delta(eps) the points where p = e^eps q), with z = b +- s sinh(w), out
to where both densities are below e^-1000 (or |z| ~ 1e300); the reported tolerance is the
difference between that rule and the same rule on every other node (a conservative estimate
of the error of the finer rule), plus 1e-9.  The largest log ratio of two location-scale
densities is the maximum over those nodes refined by a bounded scalar optimisation.

:func:`empirical_epsilon_lower_bound` treats a measurement as a black box: it draws releases
(through the measurement itself, hence through :mod:`opendp_duff.samplers`), chooses an event
on one half of the draws and bounds its two probabilities on the other half with
Clopper-Pearson intervals.

Nothing here is differentially private: an audit reads the data.  Error messages never show data.
"""
import itertools
import math
import numbers

import attrs
import numpy as np
from scipy import optimize, stats

from .core import Measurement
from .errors import MakeError
from .measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence

__all__ = ["DiscreteLaw", "PiecewiseConstantLaw", "LocationScaleLaw", "discrete_law",
           "step_function_law", "location_scale_law", "exact_privacy_loss", "ExactAudit",
           "empirical_epsilon_lower_bound", "EmpiricalAudit", "DEFAULT_ALPHAS"]

INF = math.inf
DEFAULT_ALPHAS = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0)
_EXACT_TOL = 1e-9
_FLOAT_MAX = float(np.finfo(np.float64).max)


def _logsumexp(a):
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    if a.size == 0:
        return -INF
    m = float(np.max(a))
    if m in (-INF, INF):
        return m
    with np.errstate(under="ignore"):
        return m + math.log(float(np.sum(np.exp(a - m))))


def _frozen(a):
    a = np.array(a, dtype=np.float64).reshape(-1)
    a.setflags(write=False)
    return a


# ----------------------------------------------------------------------------- laws

@attrs.frozen(eq=False)
class DiscreteLaw:
    """A law on finitely many values: P(release = support[i]) = exp(log_pmf[i]).

    ``support`` holds distinct hashable values; ``log_pmf`` sums (in exp) to 1 within 1e-9.

    >>> from opendp_duff.audit import DiscreteLaw
    >>> law = DiscreteLaw((0, 1), [math.log(0.25), math.log(0.75)])
    >>> round(law.prob(1), 12)
    0.75
    """

    support: tuple = attrs.field(converter=tuple)
    log_pmf: np.ndarray = attrs.field(converter=_frozen)

    def __attrs_post_init__(self):
        if len(self.support) != self.log_pmf.size or self.log_pmf.size == 0:
            raise ValueError("support and log_pmf must have the same, positive length")
        if np.isnan(self.log_pmf).any() or abs(_logsumexp(self.log_pmf)) > 1e-9:
            raise ValueError("log_pmf must be a normalised log probability vector")

    def as_dict(self):
        """{value: log probability} (values of mass zero included)."""
        return dict(zip(self.support, self.log_pmf.tolist()))

    def prob(self, value):
        """P(release == value)."""
        return math.exp(self.as_dict().get(value, -INF))


@attrs.frozen(eq=False)
class PiecewiseConstantLaw:
    """A density constant on each of disjoint intervals: exp(log_density[i]) on
    (left[i], right[i]), zero elsewhere.  Pieces have positive width and are sorted.

    >>> from opendp_duff.audit import PiecewiseConstantLaw
    >>> law = PiecewiseConstantLaw([0.0, 1.0], [1.0, 3.0], [math.log(0.5), math.log(0.25)])
    >>> float(law.cdf(2.0))
    0.75
    """

    left: np.ndarray = attrs.field(converter=_frozen)
    right: np.ndarray = attrs.field(converter=_frozen)
    log_density: np.ndarray = attrs.field(converter=_frozen)

    def __attrs_post_init__(self):
        if not (self.left.size == self.right.size == self.log_density.size) or self.left.size == 0:
            raise ValueError("left, right and log_density must have the same, positive length")
        if not (np.all(self.right > self.left) and np.all(self.left[1:] >= self.right[:-1])):
            raise ValueError("pieces must have positive width, be sorted and not overlap")
        if abs(_logsumexp(self.log_masses())) > 1e-9:
            raise ValueError("the density must integrate to 1")

    def log_masses(self):
        """log P(release in piece i)."""
        return np.log(self.right - self.left) + self.log_density

    def logpdf(self, z):
        """log density at z (-inf off the pieces; at a shared end, the right piece's value)."""
        z = np.asarray(z, dtype=np.float64)
        i = np.searchsorted(self.left, z, side="right") - 1
        ok = (i >= 0) & (z < self.right[np.clip(i, 0, None)])
        return np.where(ok, self.log_density[np.clip(i, 0, None)], -INF)

    def cdf(self, z):
        """P(release <= z)."""
        z = np.asarray(z, dtype=np.float64)
        frac = np.clip((z.reshape(-1, 1) - self.left) / (self.right - self.left), 0.0, 1.0)
        return (frac @ np.exp(self.log_masses())).reshape(z.shape)


@attrs.frozen(eq=False)
class LocationScaleLaw:
    """loc + scale * Z, coordinatewise with independent Z from ``noise`` (an object of
    :mod:`opendp_duff.distributions` with ``logpdf``).  ``loc`` is a float or a vector;
    0 < scale < inf.

    >>> from opendp_duff.audit import LocationScaleLaw
    >>> from opendp_duff.distributions import Laplace
    >>> law = LocationScaleLaw(1.0, 2.0, Laplace(1.0))
    >>> round(float(law.logpdf(1.0)), 6) == round(-math.log(4.0), 6)
    True
    """

    loc: object
    scale: float
    noise: object

    def __attrs_post_init__(self):
        if not (0 < self.scale < INF):
            raise ValueError("scale must be positive and finite (use location_scale_law)")
        if not np.all(np.isfinite(np.asarray(self.loc, dtype=np.float64))):
            raise ValueError("loc must be finite (use location_scale_law)")

    @property
    def locs(self):
        """The locations as a 1-d float array."""
        return np.asarray(self.loc, dtype=np.float64).reshape(-1)

    def logpdf(self, z):
        """log density of one coordinate's release at z (scalar law)."""
        if self.locs.size != 1:
            raise ValueError("logpdf is defined here for scalar laws only")
        z = np.asarray(z, dtype=np.float64)
        return np.asarray(self.noise.logpdf((z - self.locs[0]) / self.scale)) - math.log(self.scale)


def discrete_law(support, log_weights):
    """The law P(support[i]) ∝ exp(log_weights[i]) (entries -inf have mass 0; +inf entries
    share all the mass).

    >>> from opendp_duff.audit import discrete_law
    >>> discrete_law(["a", "b"], [0.0, 0.0]).prob("a")
    0.5
    """
    w = np.asarray(log_weights, dtype=np.float64).reshape(-1)
    if np.isposinf(w).any():
        w = np.where(np.isposinf(w), 0.0, -INF)
    return DiscreteLaw(support, w - _logsumexp(w))


def step_function_law(left, right, levels, scale):
    """The exponential-mechanism law with density ∝ exp(levels[i] / scale) on
    [left[i], right[i]]: a :class:`PiecewiseConstantLaw` over the positive-width pieces
    (scale 0: uniform on the top-level ones; scale inf: uniform), or a point mass at
    left[0] when no piece has positive width (as the sampler does).

    >>> from opendp_duff.audit import step_function_law
    >>> law = step_function_law([0.0, 1.0], [1.0, 2.0], [0, -1], scale=1.0)
    >>> round(float(law.cdf(1.0)), 6) == round(1 / (1 + math.exp(-1)), 6)
    True
    """
    from .samplers.race import log_widths, relative_levels
    left = np.asarray(left, dtype=np.float64).reshape(-1)
    right = np.asarray(right, dtype=np.float64).reshape(-1)
    levels = np.asarray(levels, dtype=np.float64).reshape(-1)
    lw = log_widths(left, right)
    alive = lw > -INF
    if not alive.any():
        i = int(np.argmax(levels))
        return DiscreteLaw((float(left[i]),), [0.0])
    rel = relative_levels(levels[alive], float(np.max(levels[alive])), float(scale))
    keep = rel > -INF
    lm = lw[alive][keep] + rel[keep]
    order = np.argsort(left[alive][keep], kind="stable")
    return PiecewiseConstantLaw(left[alive][keep][order], right[alive][keep][order],
                                (rel[keep] - _logsumexp(lm))[order])


def location_scale_law(loc, scale, noise):
    """The law of loc + scale * Z as released by the noise mechanisms, edge cases included:
    scale 0 (or a non-finite loc) is a point mass at loc; scale inf releases the noise alone,
    clipped to +-(largest float), so the law does not depend on loc.

    >>> from opendp_duff.audit import location_scale_law
    >>> from opendp_duff.distributions import Gaussian
    >>> location_scale_law(3.0, 0.0, Gaussian(1.0)).support
    (3.0,)
    """
    locs = np.asarray(loc, dtype=np.float64)
    scalar = locs.ndim == 0
    scale = float(scale)
    if scale == INF:
        k = 1 if scalar else locs.size
        if k > 16:
            raise ValueError("the law of an infinite-scale release is only enumerated for <= 16 coordinates")
        sup = [(-_FLOAT_MAX, _FLOAT_MAX)] * k
        support = tuple(s[0] for s in itertools.product(*sup)) if scalar else tuple(itertools.product(*sup))
        return discrete_law(support, np.zeros(len(support)))
    if scale == 0 or not np.all(np.isfinite(locs)):
        if not (scale == 0 or scalar):
            raise ValueError("vector releases with non-finite inputs are not supported")
        return DiscreteLaw((float(locs) if scalar else tuple(locs.tolist()),), [0.0])
    return LocationScaleLaw(float(locs) if scalar else tuple(locs.tolist()), scale, noise)


# ----------------------------------------------------------------------------- cells
# Both laws are reduced to "cells": log weight, log p, log q, with P(cell) = exp(log_w + lp).
# Discrete: one cell per value (log_w = 0).  Piecewise constant: one cell per piece of the
# merged partition (log_w = log width).  Location-scale: quadrature nodes (log_w = log of the
# quadrature weight; lp, lq log densities).

@attrs.frozen(eq=False)
class _Cells:
    log_w: np.ndarray
    lp: np.ndarray
    lq: np.ndarray
    coarse_log_w: object = None   # quadrature only: the rule on every other node
    z: object = None              # quadrature only: the nodes


def _discrete_cells(P, Q):
    dp_, dq = P.as_dict(), Q.as_dict()
    keys = list(dict.fromkeys(list(dp_) + list(dq)))
    lp = np.array([dp_.get(k, -INF) for k in keys])
    lq = np.array([dq.get(k, -INF) for k in keys])
    return _Cells(np.zeros(len(keys)), lp, lq)


def _piecewise_cells(P, Q):
    edges = np.unique(np.concatenate([P.left, P.right, Q.left, Q.right]))
    a, b = edges[:-1], edges[1:]
    mid = a + (b - a) / 2
    lp, lq = P.logpdf(mid), Q.logpdf(mid)
    keep = (lp > -INF) | (lq > -INF)
    return _Cells(np.log(b - a)[keep], lp[keep], lq[keep])


def _simpson(n):
    """Composite Simpson weights on n + 1 nodes (n a multiple of 4), step 1, and the same
    rule with step 2 on the even nodes (zero weight on the odd ones)."""
    fine = np.ones(n + 1)
    fine[1:-1:2], fine[2:-1:2] = 4.0, 2.0
    coarse = np.zeros(n + 1)
    coarse[0:n + 1:2] = 1.0
    coarse[2:-1:4], coarse[4:-1:4] = 4.0, 2.0
    return fine / 3.0, coarse * 2.0 / 3.0


_U0 = -25.0  # segments start at s e^-25 from their anchor; the gap gets one rectangle


def _segment(anchor, direction, s, R, du):
    """Nodes z = anchor + direction s e^u, u in [_U0, log R] (geometric near the anchor, where
    noise densities may have a cusp or a singular derivative, and out to distance s R), with
    log Simpson weights (dz included), plus the anchor itself standing for [0, s e^_U0]."""
    U = math.log(R)
    if U - _U0 < 8 * du:  # a very short segment: uniform nodes in z
        n = 8
        z = anchor + direction * s * R * np.linspace(0.0, 1.0, n + 1)
        fine, coarse = _simpson(n)
        lj = math.log(s * R / n)
        return z, np.log(fine) + lj, np.log(np.maximum(coarse, 1e-300)) + lj - np.where(coarse > 0, 0, INF)
    n = max(8, 4 * int(math.ceil((U - _U0) / du / 4)))
    u = np.linspace(_U0, U, n + 1)
    h = (U - _U0) / n
    fine, coarse = _simpson(n)
    with np.errstate(over="ignore"):
        z = anchor + direction * s * np.exp(u)
    log_jac = math.log(s) + u
    first = math.log(s) + _U0
    with np.errstate(divide="ignore"):
        return (np.concatenate([[anchor], z]), np.concatenate([[first], np.log(fine * h) + log_jac]),
                np.concatenate([[first], np.log(coarse * h) + log_jac]))


def _ls_logpdf(loc, scale, noise, z):
    with np.errstate(all="ignore"):
        return np.asarray(noise.logpdf((z - loc) / scale), dtype=np.float64) - math.log(scale)


def _tail_extent(point, s, direction, logpdfs, floor=-1000.0):
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


def _quadrature_cells(laws, breaks, du):
    """Nodes and weights over the real line for two scalar location-scale laws."""
    (m1, s1, n1), (m2, s2, n2) = laws
    s = min(s1, s2)
    f1 = lambda z: _ls_logpdf(m1, s1, n1, z)  # noqa: E731
    f2 = lambda z: _ls_logpdf(m2, s2, n2, z)  # noqa: E731
    b = np.unique(np.asarray(breaks, dtype=np.float64))
    zs, fw, cw = [], [], []
    pieces = [(b[0], -1.0, _tail_extent(b[0], s, -1.0, (f1, f2))),
              (b[-1], 1.0, _tail_extent(b[-1], s, 1.0, (f1, f2)))]
    for lo, hi in zip(b[:-1], b[1:]):
        half = (hi - lo) / 2 / s
        pieces += [(lo, 1.0, half), (hi, -1.0, half)]
    for anchor, direction, R in pieces:
        z, a, c = _segment(anchor, direction, s, R, du)
        zs.append(z), fw.append(a), cw.append(c)
    z = np.concatenate(zs)
    lp, lq = f1(z), f2(z)
    # Every noise law here has a positive density on the whole line: a -inf is an underflow
    # (mass below e^-745 at that node), so such nodes are dropped rather than read as q = 0.
    ok = (lp > -INF) & (lq > -INF) & np.isfinite(z)
    return _Cells(np.concatenate(fw)[ok], lp[ok], lq[ok], np.concatenate(cw)[ok], z[ok])


def _max_log_ratio(cells):
    """max over the cells of mass of lp - lq (inf if P has mass where Q has none)."""
    live = cells.lp > -INF
    if not live.any():
        return 0.0
    if (cells.lq[live] == -INF).any():
        return INF
    return float(np.max(cells.lp[live] - cells.lq[live]))


def _renyi(log_w, lp, lq, alpha):
    """D_alpha(P||Q) from cells; alpha = 1 is the KL divergence."""
    live = lp > -INF
    if (lq[live] == -INF).any():
        return INF
    if alpha == 1:
        with np.errstate(under="ignore"):
            return max(0.0, float(np.sum(np.exp(log_w[live] + lp[live]) * (lp[live] - lq[live]))))
    terms = log_w[live] + alpha * lp[live] + (1 - alpha) * lq[live]
    return max(0.0, _logsumexp(terms) / (alpha - 1))


def _hockey(log_w, lp, lq, eps):
    """delta = sum of P(cell) max(0, 1 - e^(eps + lq - lp))."""
    live = lp > -INF
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        gap = eps + lq[live] - lp[live]
        part = np.where(gap < 0, -np.expm1(np.minimum(gap, 0.0)), 0.0)
        return float(min(1.0, max(0.0, np.sum(np.exp(log_w[live] + lp[live]) * part))))


# ----------------------------------------------------------------------------- pairs of laws

class _Pair:
    """Divergences between two laws P (of x) and Q (of x'), in both directions."""

    def __init__(self, P, Q, dw):
        self.dw = dw
        self.kind = "exact"
        self.parts = []        # one entry per independent coordinate that differs
        self._cache = {}
        if isinstance(P, DiscreteLaw) and isinstance(Q, DiscreteLaw):
            self.parts = [("cells", _discrete_cells(P, Q))]
        elif isinstance(P, PiecewiseConstantLaw) and isinstance(Q, PiecewiseConstantLaw):
            self.parts = [("cells", _piecewise_cells(P, Q))]
        elif isinstance(P, LocationScaleLaw) and isinstance(Q, LocationScaleLaw):
            self.kind = "quadrature"
            self._location_scale(P, Q)
        elif type(P) is type(Q):
            raise ValueError(f"unsupported law type {type(P).__name__}")
        else:  # an atom against a density (or two different families): mutually singular
            self.kind = "singular"

    def _location_scale(self, P, Q):
        lp_, lq_ = P.locs, Q.locs
        if lp_.size != lq_.size or type(P.noise) is not type(Q.noise) or P.noise != Q.noise:
            raise ValueError("location-scale laws of different shapes or noise laws")
        for i in range(lp_.size):
            if lp_[i] == lq_[i] and P.scale == Q.scale:
                continue  # identical factors contribute nothing
            self.parts.append(("ls", ((lp_[i], P.scale, P.noise), (lq_[i], Q.scale, Q.noise))))
        self.gauss_l2 = (lp_.size > 1 and P.scale == Q.scale and type(P.noise).__name__ == "Gaussian")
        with np.errstate(all="ignore"):
            self.delta_l2 = float(np.linalg.norm(lp_ - lq_))
        self.scale = P.scale

    def _cells(self, part, flip, extra_breaks=()):
        kind, data = part
        if kind == "cells":
            c = data
            return _Cells(c.log_w, c.lq, c.lp) if flip else c
        key = (data, flip, tuple(extra_breaks))
        if key not in self._cache:
            a, b = data[::-1] if flip else data
            self._cache[key] = _quadrature_cells((a, b), [a[0], b[0], *extra_breaks], self.dw)
        return self._cache[key]

    def max_log_ratio(self):
        """max over directions of sup log(p/q); for product laws the sup is the sum of the
        coordinates' sups (independent coordinates)."""
        if self.kind == "singular":
            return INF
        return max(sum((self._part_max(p, flip) for p in self.parts), 0.0) for flip in (False, True))

    def _part_max(self, part, flip):
        cells = self._cells(part, flip)
        value = _max_log_ratio(cells)
        if part[0] == "ls" and math.isfinite(value):
            value = max(value, self._refine(part, flip, cells))
        return value

    def _refine(self, part, flip, cells):
        a, b = part[1] if not flip else part[1][::-1]
        order = np.argsort(cells.z)
        z = cells.z[order]
        d = (cells.lp - cells.lq)[order]
        d = np.where(np.isfinite(d), d, -INF)
        k = int(np.argmax(d))
        lo, hi = z[max(k - 1, 0)], z[min(k + 1, z.size - 1)]
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
            return float(d[k])

        def neg(t):
            v = float(_ls_logpdf(*a, np.array([t]))[0] - _ls_logpdf(*b, np.array([t]))[0])
            return -v if math.isfinite(v) else INF
        with np.errstate(all="ignore"):
            res = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                           options={"xatol": 1e-12 * max(1.0, abs(lo), abs(hi))})
        return max(float(d[k]), -float(res.fun))

    def renyi(self, alpha):
        """max over directions of D_alpha, and its numerical error estimate."""
        if self.kind == "singular":
            return INF, 0.0
        best, err = 0.0, 0.0
        for flip in (False, True):
            total, e = 0.0, 0.0
            for part in self.parts:
                c = self._cells(part, flip)
                if part[0] == "ls" and alpha != 1:
                    c = self._cells(part, flip, self._far_peak(part, c, alpha * c.lp + (1 - alpha) * c.lq))
                v = _renyi(c.log_w, c.lp, c.lq, alpha)
                if c.coarse_log_w is not None and math.isfinite(v):
                    e += abs(v - _renyi(c.coarse_log_w, c.lp, c.lq, alpha))
                total += v
            if total > best or (total == best and e > err):
                best, err = total, e
        return best, err

    def hockey_stick(self, eps):
        """max over directions of delta(eps), and its numerical error estimate."""
        if self.kind == "singular":
            return 1.0, 0.0
        parts = self.parts
        if len(parts) > 1:
            if not self.gauss_l2:
                raise ValueError("the hockey-stick divergence of product laws is computed only "
                                 "for Gaussian noise, or when one coordinate differs")
            from .distributions import Gaussian
            parts = [("ls", ((0.0, self.scale, Gaussian(1.0)), (self.delta_l2, self.scale, Gaussian(1.0))))]
        if not parts:
            return 0.0, 0.0
        part = parts[0]
        best, err = 0.0, 0.0
        for flip in (False, True):
            c = self._cells(part, flip)
            if part[0] == "ls":  # add the points where p = e^eps q as breakpoints, then redo
                roots = self._crossings(part, flip, c, eps)
                if roots:
                    c = self._cells(part, flip, roots)
            v = _hockey(c.log_w, c.lp, c.lq, eps)
            e = abs(v - _hockey(c.coarse_log_w, c.lp, c.lq, eps)) if c.coarse_log_w is not None else 0.0
            if v > best or (v == best and e > err):
                best, err = v, e
        return best, err

    @staticmethod
    def _far_peak(part, cells, log_integrand):
        """The node where the integrand peaks, as an extra breakpoint if it lies more than two
        scales from both locations (there the geometric nodes would be too coarse for it)."""
        (m1, s1, _), (m2, s2, _) = part[1]
        ok = np.isfinite(log_integrand)
        if not ok.any():
            return ()
        z = float(cells.z[ok][np.argmax(log_integrand[ok])])
        return (z,) if min(abs(z - m1), abs(z - m2)) > 2 * min(s1, s2) else ()

    @staticmethod
    def _crossings(part, flip, cells, eps):
        a, b = part[1] if not flip else part[1][::-1]
        order = np.argsort(cells.z)
        z = cells.z[order]
        g = (cells.lp - cells.lq)[order] - eps
        ok = np.isfinite(g) & np.isfinite(z)
        z, g = z[ok], g[ok]
        idx = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)
        roots = []

        def fn(t):
            return float(_ls_logpdf(*a, np.array([t]))[0] - _ls_logpdf(*b, np.array([t]))[0]) - eps
        for i in idx[:16]:
            try:
                roots.append(optimize.brentq(fn, z[i], z[i + 1], xtol=1e-14, rtol=1e-14))
            except (ValueError, RuntimeError):  # pragma: no cover - a sign change vanished
                pass
        return roots


# ----------------------------------------------------------------------------- exact audit

@attrs.frozen(eq=False)
class ExactAudit:
    """The exact privacy loss between two datasets (see :func:`exact_privacy_loss`).

    ``value`` is in the units of the measurement's map: epsilon (pure DP), rho
    (zCDP: max over ``alphas`` of D_alpha / alpha) or, for (epsilon, delta), the delta at the
    requested epsilon (None if none was requested).  ``tolerance`` bounds its numerical
    error.  ``max_log_ratio`` (pure DP only, else None) and ``renyi`` (alpha -> D_alpha, zCDP
    only, with ``renyi_error``) are maxima over both directions.  ``delta(eps)`` computes the
    hockey-stick divergence at any eps.  ``method``: "exact" (sums over atoms or pieces),
    "quadrature" or "singular" (one law has atoms the other lacks: infinite loss).

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import exact_privacy_loss
    >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    >>> audit = exact_privacy_loss(g, 0.0, 1.0, alphas=[2.0])
    >>> round(audit.renyi[2.0], 6), audit.within(g.map(1.0)), audit.method   # D_2 = 2 * 1/2
    (1.0, True, 'quadrature')
    """

    measure: object
    value: object
    tolerance: float
    max_log_ratio: float
    renyi: dict
    method: str
    renyi_error: dict = attrs.field(repr=False)
    _pair: object = attrs.field(repr=False)

    def delta(self, epsilon):
        """max over directions of int max(0, p - e^epsilon q), and its error estimate."""
        return self._pair.hockey_stick(float(epsilon))

    def within(self, d_out):
        """True if the loss does not exceed ``d_out`` (a map's output) up to ``tolerance``.

        For (epsilon, delta) pairs: delta(epsilon) <= delta + its tolerance.
        """
        if isinstance(self.measure, ApproximateDivergence):
            eps, delta = d_out
            got, err = self.delta(eps)
            return got <= delta + err + _EXACT_TOL
        if isinstance(self.measure, ZeroConcentratedDivergence):  # D_alpha <= rho alpha at each alpha
            return all(d <= d_out * a + self.renyi_error[a] + _EXACT_TOL * (1 + d) for a, d in self.renyi.items())
        return self.value <= d_out + self.tolerance


def _law_of(meas, data, name):
    if not isinstance(meas, Measurement):
        raise TypeError(f"meas must be a Measurement, not {type(meas).__name__}")
    if meas.output_law is None:
        raise MakeError("meas has no output_law: the exact audit needs a measurement whose "
                        "release law is known (post-processing and measure casts drop it)")
    try:
        return meas.output_law(data)
    except Exception as exc:  # noqa: BLE001 - the message must not echo data
        raise ValueError(f"the output law of {name} could not be computed "
                         f"({type(exc).__name__})") from None


def exact_privacy_loss(meas, x, x_prime, *, alphas=DEFAULT_ALPHAS, epsilon=None, resolution=0.02):
    """The exact privacy loss of ``meas`` between the datasets ``x`` and ``x_prime``.

    Uses ``meas.output_law`` (the exact law of the release).  Returns an :class:`ExactAudit`
    whose ``value`` compares with ``meas.map(d_in)`` for the distance d_in between x and x':

    * ``max_divergence``: max_o |log p_x(o) - log p_x'(o)| (densities or masses);
    * ``zero_concentrated_divergence``: max over ``alphas`` and both directions of D_alpha / alpha;
    * ``approximate_divergence``: delta(epsilon) = max over directions of
      int max(0, p - e^epsilon q) (pass ``epsilon``, or use ``audit.within(meas.map(d_in))``).

    Exact (float rounding only) for discrete and piecewise-constant laws; numerical
    quadrature with step ``resolution`` (in the sinh-mapped variable) for location-scale
    laws, with the error estimate in ``tolerance`` (module docstring).

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import exact_privacy_loss
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> m = space >> dp.t.then_clamp(bounds=(0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=2.0)
    >>> audit = exact_privacy_loss(m, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 9.0])
    >>> audit.within(m.map(1)), audit.value <= 1.0
    (True, True)
    """
    P, Q = _law_of(meas, x, "x"), _law_of(meas, x_prime, "x_prime")
    dw = float(resolution)
    if not 0 < dw <= 0.5:
        raise ValueError(f"resolution ({resolution!r}) must lie in (0, 0.5]")
    alphas = tuple(float(a) for a in alphas)
    if not alphas or any(not a >= 1 for a in alphas):
        raise ValueError(f"alphas ({alphas!r}) must be a non-empty list of numbers >= 1")
    pair = _Pair(P, Q, dw)
    measure = meas.output_measure
    renyi, errs = {}, {}
    if isinstance(measure, ZeroConcentratedDivergence):
        for a in alphas:
            renyi[a], errs[a] = pair.renyi(a)
    mlr = pair.max_log_ratio() if not isinstance(measure, (ZeroConcentratedDivergence,
                                                            ApproximateDivergence)) else None
    if isinstance(measure, MaxDivergence):
        value, tol = mlr, _EXACT_TOL * (1 + abs(mlr) if math.isfinite(mlr) else 1)
        if pair.kind == "quadrature":
            tol = max(tol, 1e-8 * (1 + abs(mlr) if math.isfinite(mlr) else 1))
    elif isinstance(measure, ZeroConcentratedDivergence):
        ratios = {a: renyi[a] / a for a in alphas}
        best = max(ratios, key=ratios.get)
        value = ratios[best]
        tol = errs[best] / best + _EXACT_TOL * (1 + (value if math.isfinite(value) else 0))
    elif isinstance(measure, ApproximateDivergence):
        if epsilon is None:
            value, tol = None, 0.0
        else:
            d, err = pair.hockey_stick(float(epsilon))
            value, tol = d, err + _EXACT_TOL
    else:
        raise ValueError(f"unsupported output measure {measure!r}")
    return ExactAudit(measure, value, tol, mlr, renyi, pair.kind, errs, pair)


# ----------------------------------------------------------------------------- empirical audit

@attrs.frozen
class EmpiricalAudit:
    """A lower bound on epsilon from samples (see :func:`empirical_epsilon_lower_bound`).

    ``epsilon_lower_bound`` holds with probability at least ``confidence``; ``event`` says which
    set of releases was used; ``counts`` = (hits under x, hits under x', held-out draws per side).

    >>> from opendp_duff.audit import EmpiricalAudit
    >>> EmpiricalAudit(0.8, 0.95, "y > 1", (500, 180, 1000)).epsilon_lower_bound
    0.8
    """

    epsilon_lower_bound: float
    confidence: float
    event: str
    counts: tuple
    delta: float = 0.0


def _cp_lower(k, n, a):
    return 0.0 if k <= 0 else float(stats.beta.ppf(a, k, n - k + 1))


def _cp_upper(k, n, a):
    return 1.0 if k >= n else float(stats.beta.ppf(1 - a, k + 1, n - k))


def _bound(kp, kq, n, a, delta):
    lo = np.where(kp > 0, stats.beta.ppf(a, np.maximum(kp, 1), n - kp + 1), 0.0)
    hi = np.where(kq < n, stats.beta.ppf(1 - a, kq + 1, np.maximum(n - kq, 1)), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300) / hi), -INF)


def _to_feature(out, feature):
    y = feature(out) if feature is not None else out
    if isinstance(y, np.ndarray):
        if y.size != 1:
            raise ValueError("vector releases need feature= (a function to a scalar)")
        y = y.reshape(-1)[0].item()
    return y


def empirical_epsilon_lower_bound(meas, x, x_prime, n_samples, confidence=0.95, *, delta=0.0,
                                  feature=None, n_thresholds=64):
    """A black-box lower bound on the epsilon of ``meas`` from ``n_samples`` releases on each of
    ``x`` and ``x_prime``: with probability >= ``confidence``, the true (epsilon, ``delta``)
    curve has epsilon >= the returned bound (so a pure-DP map below it is refuted).

    The first half of the draws chooses an event E (a threshold {y <= t} or {y > t}, a bin
    between two thresholds, or for discrete releases a single value) and a direction; the
    held-out half gives one-sided Clopper-Pearson bounds p_lo on P[M(x) in E] and q_hi on
    P[M(x') in E], each at level (1 - confidence)/2, and the bound is
    log((p_lo - delta) / q_hi), or 0.  ``feature`` maps a release to a scalar or a hashable
    value (needed for vector releases).  All randomness is the measurement's own.

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import empirical_epsilon_lower_bound
    >>> from opendp_duff.samplers import seeded_rng_for_tests
    >>> m = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    >>> with seeded_rng_for_tests(1):
    ...     res = empirical_epsilon_lower_bound(m, 0.0, 1.0, n_samples=4000)
    >>> 0.3 < res.epsilon_lower_bound <= m.map(1.0)
    True
    """
    if not isinstance(meas, Measurement):
        raise TypeError(f"meas must be a Measurement, not {type(meas).__name__}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or n_samples < 20:
        raise ValueError(f"n_samples ({n_samples!r}) must be an integer >= 20")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence ({confidence!r}) must lie in (0, 1)")
    if not 0 <= delta < 1:
        raise ValueError(f"delta ({delta!r}) must lie in [0, 1)")
    n = int(n_samples)
    ys = [_to_feature(meas(x), feature) for _ in range(n)]
    yq = [_to_feature(meas(x_prime), feature) for _ in range(n)]
    h = n // 2
    a = (1 - confidence) / 2
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in ys + yq)
    if numeric:
        ys, yq = np.asarray(ys, dtype=np.float64), np.asarray(yq, dtype=np.float64)
        pool = np.concatenate([ys[:h], yq[:h]])
        t = np.unique(np.quantile(pool, np.linspace(0, 1, n_thresholds + 2)[1:-1]))
        if np.unique(pool).size <= 2 * n_thresholds:  # few values: every value is its own bin
            vals = np.unique(pool)
            t = np.unique(np.concatenate([t, vals, vals[:-1] + np.diff(vals) / 2]))

        def counts(sample):
            c = np.searchsorted(np.sort(sample), t, side="right")  # #{y <= t_k}
            m = sample.size
            bins = np.diff(np.concatenate([[0], c, [m]]))            # (t_{k-1}, t_k]
            return np.concatenate([c, m - c, bins])

        names = ([f"y <= {v:.6g}" for v in t] + [f"y > {v:.6g}" for v in t]
                 + [f"{lo:.6g} < y <= {hi:.6g}" for lo, hi in zip(np.r_[-INF, t], np.r_[t, INF])])
        sel = counts(ys[:h]), counts(yq[:h])
        held = counts(ys[h:]), counts(yq[h:])
    else:
        keys = list(dict.fromkeys(ys[:h] + yq[:h]))

        def counts(sample):
            idx = {k: i for i, k in enumerate(keys)}
            c = np.zeros(len(keys), dtype=np.int64)
            for v in sample:
                if v in idx:
                    c[idx[v]] += 1
            return c
        names = [f"y == {k!r}" for k in keys]
        sel = counts(ys[:h]), counts(yq[:h])
        held = counts(ys[h:]), counts(yq[h:])
    m_held = n - h
    s1 = _bound(sel[0], sel[1], h, a, delta)
    s2 = _bound(sel[1], sel[0], h, a, delta)
    if max(s1.max(initial=-INF), s2.max(initial=-INF)) == -INF:
        return EmpiricalAudit(0.0, confidence, "none", (0, 0, m_held), delta)
    flip = s2.max() > s1.max()
    k = int(np.argmax(s2 if flip else s1))
    kp, kq = (held[1][k], held[0][k]) if flip else (held[0][k], held[1][k])
    lo, hi = _cp_lower(int(kp), m_held, a), _cp_upper(int(kq), m_held, a)
    eps = math.log((lo - delta) / hi) if lo > delta else 0.0
    event = names[k] + (" (x' over x)" if flip else " (x over x')")
    return EmpiricalAudit(max(0.0, eps), confidence, event, (int(kp), int(kq), m_held), delta)
