"""The Duff utility of the mean as a step function ([GM-Duff] Definition 8, §4.1 "Means"),
computed in O(n) after sorting, vectorised, with exact integer arithmetic.

Used by :func:`opendp_duff.measurements.duff_mean.make_duff_mean` (and its window sampler,
:mod:`opendp_duff.measurements._mean_window`, which reads ``grid_total``, ``grid_units``,
``level_sets_top`` and ``pieces``) and by :func:`opendp_duff.duff_utility`.  Proof:
``proofs/measurements/duff_mean/make_duff_mean.tex``.

Structure used (proved in the document):

* With r removals and a >= 1 additions the reachable means form the interval
  I(r, a) = [(P_{n-r} + a lo)/(n-r+a), (Q_{n-r} + a hi)/(n-r+a)], P_m (Q_m) the
  sum of the m smallest (largest) records.  Every I(r, a) contains the mean and
  I(r, a) is inside I(r, a+1), so the level set {u >= -k} is the interval
  L_k = union over r of I(r, k-r): nested intervals around the mean.
* Shifting to lo = 0, the lower end of L_k is min_r p(r)/(n+k-2r), p(r) the
  sum of all but the r largest records.  Trading one addition (at lo) for the
  removal of the (r+1)-th largest record w lowers the ratio exactly when
  w (n+k-2r) > 2 p(r); these improving trades form a prefix in r (no binary
  search is needed), and each trade's threshold in k is an integer c_r, so
  the optimal r for every k is #{r : cummax(c)_r <= k} (one bincount).

Exactness: records are first mapped to integers j = round((y-lo)/(hi-lo) 2^32)
(a fixed, public, monotone map of each record, so neighbours stay neighbours);
the step function of those exact grid values is then computed in exact
integer arithmetic, and each endpoint is turned into a float by a fixed
monotone function of its exact value.  Monotone maps preserve every inclusion
between level sets, and the inclusions are exactly what sensitivity 1 means,
so the computed utility has sensitivity 1 with no floating-point caveat.
The cost is a bias of at most (hi - lo) 2^-33 in the statistic.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["duff_mean_step_function", "duff_mean_level_sets", "grid_total", "grid_units", "level_sets_top",
           "pieces", "GRID_BITS"]

GRID_BITS = 32
_W = 1 << GRID_BITS              # the grid has _W + 1 points lo + j (hi - lo) / _W
_SCALE = float(_W)
_INV_SCALE = 1.0 / _SCALE
_INT64_MAX_N = 1 << 28           # int64 arithmetic is overflow-free below this n (see _level_ends)
_CHUNK = 1 << 16                 # records per chunk of the exact float sum of units (grid_total)
_INT64_SUM = 1 << 30             # integer units per int64 partial sum (2^30 2^32 < 2^63)


# [proof:duff_mean_grid]
def _grid_floats(y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Each record as an integer j in [0, 2^32] held in a float: round((y - lo) / (hi - lo) * 2^32).

    A fixed monotone function of one record (IEEE operations are monotone),
    so sorted records give sorted units and neighbours give neighbours."""
    span = hi - lo
    if np.isfinite(span):
        t = np.subtract(y, lo)
        t /= span
    else:  # hi - lo overflows: halve everything first (still monotone)
        t = np.multiply(y, 0.5)
        t -= lo * 0.5
        t /= hi * 0.5 - lo * 0.5
    np.clip(t, 0.0, 1.0, out=t)
    t *= _SCALE
    return np.rint(t, out=t)


def grid_units(y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The units as int64, computed chunk by chunk (no float temporary of the full size)."""
    z = np.empty(y.size, dtype=np.int64)
    for s in range(0, y.size, _CHUNK):
        z[s:s + _CHUNK] = _grid_floats(y[s:s + _CHUNK], lo, hi)
    return z


def grid_total(y: np.ndarray, lo: float, hi: float) -> int:
    """The exact sum of the units of all records, in chunks of 2^16: a chunk's units are
    integers <= 2^32, so every partial sum of a chunk is an integer < 2^53, exact in floats."""
    return sum(int(np.sum(_grid_floats(y[s:s + _CHUNK], lo, hi))) for s in range(0, y.size, _CHUNK))
# [end:duff_mean_grid]


# [proof:duff_mean_level_ends]
def _level_ends(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact lower ends of the level sets L_1..L_{n+1} for sorted integers z in [0, 2^32], as
    floats (A, F): see :func:`_level_ends_top`."""
    a, f = _level_ends_top(z[::-1], _int_total(z), z.size, z.size + 1)
    return a.astype(np.float64), f.astype(np.float64)


def _int_total(z: np.ndarray) -> int:
    """The exact sum of integers in [0, 2^32], by int64 partial sums of 2^30 terms (< 2^63)."""
    return sum(int(np.sum(z[s:s + _INT64_SUM])) for s in range(0, z.size, _INT64_SUM))


def _level_ends_top(w: np.ndarray, total: int, n: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact lower ends of L_1..L_K, 1 <= K <= n + 1, from the largest records only: w[r] is
    the (r+1)-th largest of the n integer records (at least K - 1 of them, in non-increasing
    order) and ``total`` the exact sum of all n.

    Returns integer arrays (A, F): the lower end of L_k is t_k = N_k / D_k grid units with
    A_k = floor(t_k) and F_k = floor(frac(t_k) 2^32), so floor(t_k 2^32) = A_k 2^32 + F_k.
    Arrays are reused in place (p, then c, then run); the comments name what each holds.
    """
    dtype = np.int64 if n < _INT64_MAX_N else object  # object: exact Python ints (huge n only)
    w = w[:K - 1] if dtype is not object else w[:K - 1].astype(object)  # K - 1 <= n
    p = np.empty(K, dtype=dtype)
    p[0] = 0
    np.cumsum(w, out=p[1:])
    np.subtract(total, p, out=p)                       # p[r] = sum of all but the r largest, r < K
    # c[r]: the least level k at which removing w[r] (instead of adding a record at lo) lowers
    # the ratio, i.e. the least integer k with w[r] (n + k - 2r) > 2 p[r].  w is non-increasing,
    # so w > 0 on a prefix; beyond it removal never helps (c = infinity).  Only r < K - 1 matter
    # for k <= K (at most k - 1 removals).
    m = int(np.count_nonzero(w))
    buf = np.empty(K, dtype=dtype)
    c = np.multiply(p[:m], 2, out=buf[:m])
    np.floor_divide(c, w[:m], out=c)
    ks = np.arange(K + 1, dtype=np.int64)              # ks[k] = k
    c += ks[:m]
    c += ks[:m]
    c += 1 - n                                         # c[r] = floor(2 p[r] / w[r]) + 2r + 1 - n
    np.maximum.accumulate(c, out=c)                    # removal r helps iff all earlier ones do
    np.clip(c, 0, K + 1, out=c)                        # only the comparisons with k in 1..K matter
    # run[k] = #{r : cmax[r] <= k}, the length of the prefix of helpful removals at level k
    run = np.bincount(c.astype(np.int64, copy=False), minlength=K + 2)
    np.cumsum(run, out=run)
    rstar = np.minimum(run[1:K + 1], ks[:K], out=run[1:K + 1])  # at most k - 1 removals (a >= 1)
    num = np.take(p, rstar, out=buf, mode="clip")      # N_k = p[rstar_k] (0 <= rstar_k < K: no clipping)
    den = rstar.astype(dtype) if dtype is object else rstar
    den *= -2
    den += ks[1:]
    den += n                                           # D_k = n + k - 2 rstar_k >= 1
    if dtype is object:  # no divmod ufunc for Python ints
        a = num // den
        num -= a * den
    else:
        a = p                                          # p is no longer needed
        np.divmod(num, den, out=(a, num))              # a = floor(N/D), num = N mod D
    num *= _W
    num //= den                                        # floor(frac(N/D) 2^32)
    return a, num
# [end:duff_mean_level_ends]


# [proof:duff_mean_endpoints]
def _fraction(a: np.ndarray, f: np.ndarray) -> np.ndarray:
    """floor(t 2^32) 2^-32 / 2^32 as a float in [0, 1]: one rounding of an exact dyadic,
    hence a non-decreasing function of the exact t.  (A and F are integers below 2^33, so
    converting them to floats is exact.)"""
    if f.dtype == object:
        a, f = a.astype(np.float64), f.astype(np.float64)
    t = np.multiply(f, _INV_SCALE)
    t += a
    t *= _INV_SCALE
    return t


# The end maps: lo + frac (hi - lo) and hi - frac (hi - lo) in floats, then clipped to
# [lo, hi].  Each IEEE operation is non-decreasing in frac.  When hi - lo overflows, the
# computation runs on halved operands (exact: |lo|, |hi| >= 2^970 there) and is doubled
# after the clip, so no intermediate overflows and the result is what unbounded-exponent
# floats would give.  Otherwise the only overflow is of a sum whose exact value lies
# beyond the bound; it gives +-inf, which the clip maps to that bound, as it would the
# unbounded result: that overflow (and gradual underflow) is expected, not reported.
# Each map works in place on frac, which it owns.
def _from_lo(frac: np.ndarray, lo: float, hi: float) -> np.ndarray:
    span = hi - lo
    if not np.isfinite(span):
        frac *= hi * 0.5 - lo * 0.5
        frac += lo * 0.5
        return 2.0 * np.clip(frac, lo * 0.5, hi * 0.5, out=frac)
    with np.errstate(over="ignore", under="ignore"):
        frac *= span
        frac += lo
    return np.clip(frac, lo, hi, out=frac)


def _from_hi(frac: np.ndarray, lo: float, hi: float) -> np.ndarray:
    span = hi - lo
    if not np.isfinite(span):
        frac *= -(hi * 0.5 - lo * 0.5)
        frac += hi * 0.5
        return 2.0 * np.clip(frac, lo * 0.5, hi * 0.5, out=frac)
    with np.errstate(over="ignore", under="ignore"):
        frac *= -span
        frac += hi
    return np.clip(frac, lo, hi, out=frac)


def level_sets_top(largest: np.ndarray, smallest: np.ndarray, total: int, n: int, K: int,
                    lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """The ends of L_1..L_K from the units of the min(K - 1, n) (or more) largest records in
    non-increasing order, of as many smallest in non-decreasing order, and the exact total of
    all n units.  The upper ends are the lower ends of the reflected units 2^32 - j."""
    lower = _from_lo(_fraction(*_level_ends_top(largest, total, n, K)), lo, hi)
    upper = _from_hi(_fraction(*_level_ends_top(_W - smallest, n * _W - total, n, K)), lo, hi)
    return lower, upper


def duff_mean_level_sets(x_sorted: Any, bounds: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The nested level sets of the Duff mean utility: ``(lower, upper)``, float arrays of
    length n + 1, with {x : u(x) >= -k} = [lower[k-1], upper[k-1]] for k = 1..n+1
    (the last is [lo, hi]).  See :func:`duff_mean_step_function`."""
    lo, hi = float(bounds[0]), float(bounds[1])
    y = np.asarray(x_sorted, dtype=np.float64).reshape(-1)
    if not hi > lo:
        return np.full(y.size + 1, lo), np.full(y.size + 1, lo)
    z = grid_units(y, lo, hi)
    return level_sets_top(z[::-1], z, _int_total(z), z.size, z.size + 1, lo, hi)
# [end:duff_mean_endpoints]


# [proof:duff_mean_step_function.def]
def duff_mean_step_function(x_sorted: Any, bounds: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Duff utility of the mean as disjoint pieces ``(left, right, levels)``.

    u(x) = -(fewest additions and removals of records in [lo, hi] after which
    the mean is x), [GM-Duff] Definition 8 and §4.1 ("Means").
    ``x_sorted`` is a sorted sequence of floats in ``bounds = (lo, hi)``.

    Returns numpy arrays: float ``left <= right`` and int64 ``levels <= 0``,
    sorted by ``left``; the pieces [left_i, right_i] have disjoint interiors,
    cover [lo, hi], and u(x) = levels_i for x inside piece i.  Zero-length
    pieces are dropped (unless lo == hi, when there is the one piece [lo, lo]).

    Almost everywhere, i.e. up to finitely many points: u(mean) = 0 and a mean
    reachable by removals alone can cost less than its piece says; neither
    changes an exponential mechanism with a density.  The records are first
    rounded to the grid lo + j (hi - lo) / 2^32 (a shift of the mean by at
    most (hi - lo) 2^-33); the step function of the rounded data is exact and
    its endpoints are rounded by fixed monotone maps, which keeps sensitivity 1
    (proof: ``proofs/measurements/duff_mean/make_duff_mean.tex``).  An inspection
    tool, not a constructor (so not in ``dp.m``): import it from this module.

    >>> left, right, levels = duff_mean_step_function([1.0, 3.0], (0.0, 4.0))
    >>> [(round(float(a), 4), round(float(b), 4), int(k)) for a, b, k in zip(left, right, levels)]
    [(0.0, 0.5, -3), (0.5, 1.3333, -2), (1.3333, 2.6667, -1), (2.6667, 3.5, -2), (3.5, 4.0, -3)]

    Here the mean 2 moves anywhere in [4/3, 8/3] by adding one record; [1/2, 7/2]
    needs two edits (e.g. remove 3 and add a record at 0), and the rest three.
    """
    # [proof:duff_mean_step_function]
    lo, hi = float(bounds[0]), float(bounds[1])
    n = np.asarray(x_sorted).size
    if not hi > lo:  # one point: u = 0 there if the data has a mean, else -1 (add one record)
        return np.array([lo]), np.array([lo]), np.array([0 if n else -1], dtype=np.int64)
    lower, upper = duff_mean_level_sets(x_sorted, bounds)
    return pieces(lower, upper)


def pieces(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint pieces of the function x -> -min{k : lower[k-1] <= x <= upper[k-1]}.

    lower is non-increasing and upper non-decreasing; the first sets may be
    empty (lower > upper) after rounding; the last is non-empty."""
    k0 = int(np.argmax(lower <= upper))          # first non-empty level set
    lo_k, up_k = lower[k0:], upper[k0:]
    m = lo_k.size                                 # pieces: m - 1 left, the centre, m - 1 right
    left, right = np.empty(2 * m - 1), np.empty(2 * m - 1)
    level = np.empty(2 * m - 1, dtype=np.int64)
    left[:m - 1], right[:m - 1] = lo_k[:0:-1], lo_k[-2::-1]
    left[m - 1], right[m - 1] = lo_k[0], up_k[0]
    left[m:], right[m:] = up_k[:-1], up_k[1:]
    ks = np.arange(k0 + 1, k0 + m + 1, dtype=np.int64)
    np.negative(ks[:0:-1], out=level[:m - 1])
    level[m - 1] = -ks[0]
    np.negative(ks[1:], out=level[m:])
    keep = right > left
    if keep.all():
        return left, right, level
    return left[keep], right[keep], level[keep]
    # [end:duff_mean_step_function]
# [end:duff_mean_step_function.def]
