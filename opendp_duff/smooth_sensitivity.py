"""Exact, fast t-smooth sensitivity of order statistics (median, quantiles) and trimmed means.

Definitions (Nissim, Raskhodnikova & Smith 2007, "Smooth sensitivity and sampling", Def. 2.2;
Bun & Steinke, "Average-case averages", file 004 §5): for a statistic f on datasets with
values in [a, b] and a neighbour relation with distance d,

    S^t_f(x) = max_y exp(-t d(x, y)) LS_f(y),       LS_f(y) = max_{d(y, z) = 1} |f(y) - f(z)|.

Notation.  x_(1) <= ... <= x_(n) are the records clipped to [a, b] and sorted, padded with
x_(i) = a for i <= 0 and x_(i) = b for i >= n + 1 (file 004, Proposition 40).  Index
conventions, shared with the rest of the library:

* the median is the LOWER median x_(r) with r = ceil(n/2);
* the alpha-quantile is x_(r) with r = max(1, ceil(alpha n));
* the m-trimmed mean is (x_(m+1) + ... + x_(n-m)) / (n - 2m), 0 <= m < n/2.

All three are "window statistics": f depends on the window p..q of order statistics, with
(p, q) = (r, r), width w = 1, for an order statistic and (p, q) = (m+1, n-m), w = n - 2m, for the
trimmed mean.  Under substitution on a public size n (``change_one_distance``), Proposition 40
of file 004 (for w = 1 it is NRS07 §3.1's formula for the median) reads, after substituting
i = p - l and j = q + 1 + k - l for the two indices of its inner maximum,

    S^t(x) = (1/w) max { (x_(j) - x_(i)) e^{-k t} :  0 <= i <= p,  q <= j <= n + 1,
                                                     k = j - i - w >= 0 }.            (*)

Under add/remove (``symmetric_distance``, the Duff paper's Definitions 1, 5, 6) the size
changes and with it the lower median's rank.  For the median we prove (see
:func:`smooth_sensitivity_median`) that

    S^t(x) = max { (x_(j) - x_(i)) e^{-(j - i - 1) t} :  0 <= i < j <= n + 1,  i + j in {n, n+1} },

one pair per k = j - i - 1 = 0..n (the median of the empty dataset is taken to be a, as the
padding convention gives).  The trimmed mean and quantiles are offered under substitution only.

Algorithm.  Every candidate is at most (b - a) e^{-k t}/w, so once the best value found is at
least (b - a) e^{-K t}/w, no pair with k >= K can win (design notes, "Early stopping").  Pairs
with k < K all lie in the window p - K <= i <= p, q <= j <= q + K.  On that window the
row-wise argmax j*(i) of (*) is non-decreasing in i: for i < i', j < j' the ratio
(x_(j') - x_(i))/(x_(j) - x_(i)) grows with x_(i), and the factor e^{-kt} splits as
e^{it} e^{-jt}.  So the maximum over the window is found by divide and conquer over rows
(NRS07 §3.1 sketches the O(n log n) bound), run level by level with numpy:
O((K + 1) log(K + 1)) work.  The window starts at K = ceil(4/t) + 16 (e^{-kt} k peaks at
k = 1/t for well-spread data) and is then set, once, to the K that the best value found proves
sufficient.  Because results below FLOOR = 2^-1000 are rounded up to it (below), K never
exceeds (log(b - a) + 696)/t, so the cost is O(min(n, (log(b - a) + 696)/t) log n) on any data
and never more than O(n log n).  Tied records are merged first (a tied row or column is
dominated by its neighbour), so all-equal data cost O(window); the adversarial case is distinct
records spaced ~1e-300 apart, where no pair is large until k is huge.

Rounding.  Candidates are compared in the log domain, L = log(x_(j) - x_(i)) - k t, which never
underflows; within a row, relative to the row's first column jz with a positive difference, so
that every candidate that can compete (k - k_jz) t <= 1460 and |L| <= 2300.  Each such computed
value is then within ETA = 2000 * 2^-50 of the exact one (one rounding of the difference, numpy's
log within 4 ulp (tested), the rounding of the product and of the subtraction).  A near-tie can
make the divide and conquer keep a column up to 2 ETA worse than the exact argmax; over D
levels the computed maximum is within (2D + 4) ETA of the exact one.  We add that margin, round
exp and the division by w upward, cap at (b - a)/w (the global sensitivity, which S^t never
exceeds) and floor at FLOOR.  The returned S_hat therefore satisfies, for every input,

    max(S^t(x), FLOOR) <= S_hat(x) <= max(S^t(x), FLOOR) e^{rho},   (if a < b)
    rho = smooth_sensitivity_rounding_slack(n) < 1e-9 for n < 2^60.

max(S^t, FLOOR) and min(S^t, cap) are t-smooth whenever S^t is, so S_hat is an upper bound on
the local sensitivity and is (t + rho)-smooth: S_hat(x) <= e^{t + rho} S_hat(x') for
neighbours, which is what a smooth-sensitivity mechanism needs.  If a = b the statistic is
constant and the result is exactly 0.

Proofs of (*), of the add/remove formula, of the algorithm and of the rounding guarantee:
``proofs/smooth_sensitivity/smooth_sensitivity.tex``; tests compare with Proposition 40 evaluated
in 50-digit decimals and with the definition enumerated over a small universe.

Inputs.  ``x_sorted`` must already be sorted in non-decreasing order and free of NaN: this is
the caller's responsibility and is NOT checked (a check would read all n records, while the
algorithm reads only O(K) of them).  Records outside [a, b] are clipped.  On unsorted input
the result is meaningless but finite; these functions never raise on data.
"""
import math
import numbers
from fractions import Fraction

import numpy as np

from . import _validate as v
from .arithmetic import MAX, Q, div_up, exp_up, log_up, sub_up, up
from .errors import MakeError, MakeTypeError
from .metrics import ChangeOneDistance, SymmetricDistance

__all__ = ["smooth_sensitivity_median", "smooth_sensitivity_trimmed_mean",
           "smooth_sensitivity_quantile", "smooth_sensitivity_rounding_slack"]

# Every computed log-candidate that can matter is within ETA of its exact value (module
# docstring, "Rounding"); FLOOR is the smallest value we return, LOG_CUT a number below
# log(FLOOR) - 2, under which candidates cannot affect the (floored) result.
ETA = Fraction(2000, 2 ** 50)
FLOOR = 2.0 ** -1000
# Smoothing beyond T_CAP changes nothing: a pair with k >= 1 is at most (b - a) e^{-k t} <=
# MAX e^{-T_CAP} < FLOOR, so S^t = max(S^T_CAP, FLOOR) after the floor, and S^t <= S^T_CAP
# always.  The kernels use min(t, T_CAP), which keeps k t finite (no inf - inf = NaN).
T_CAP = 4096.0
LOG_CUT = -696


# ---------------------------------------------------------------- parameter checks

def _data(x_sorted):
    """x_sorted as a 1-d float64 array; messages never show data values."""
    if isinstance(x_sorted, (str, bytes)):
        raise MakeTypeError("x_sorted must be a 1-d array of real numbers, not a string")
    try:
        arr = np.asarray(x_sorted)
    except (TypeError, ValueError):
        raise MakeTypeError("x_sorted must be a 1-d array of real numbers") from None
    if arr.dtype.kind not in "fiu":
        raise MakeTypeError(f"x_sorted must hold real numbers (got dtype kind {arr.dtype.kind!r})")
    if arr.ndim != 1:
        raise MakeError(f"x_sorted must be 1-d (got ndim={arr.ndim})")
    if arr.size == 0:
        raise MakeError("x_sorted must not be empty")
    return arr


def _params(t, bounds):
    t = v.number("t", t, positive=True)
    lo, hi = v.bounds("bounds", bounds)
    if not math.isfinite(hi - lo):
        raise MakeError(f"bounds ({bounds!r}) must have a finite width hi - lo")
    return t, lo, hi


def _metric(metric):
    if metric is None or metric == "change_one" or isinstance(metric, ChangeOneDistance):
        return "change_one"
    if metric == "symmetric" or isinstance(metric, SymmetricDistance):
        return "symmetric"
    raise MakeError(f"metric ({metric!r}) must be change_one_distance() or symmetric_distance()")


def _alpha(alpha):
    """alpha as an exact rational.  A float is read as its shortest decimal repr, the number
    the user typed (so 0.7 * 10 gives rank 7, not 8)."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real):
        raise MakeTypeError(f"alpha ({alpha!r}) must be a real number")
    if isinstance(alpha, numbers.Rational):
        a = Fraction(alpha)
    else:
        f = float(alpha)
        if not math.isfinite(f):
            raise MakeError(f"alpha ({alpha!r}) must be finite")
        a = Fraction(repr(f))  # f is a Python float: repr is its shortest round-trip decimal
    if not 0 <= a <= 1:
        raise MakeError(f"alpha ({alpha!r}) must lie in [0, 1]")
    return a


# ---------------------------------------------------------------- exact rounding bookkeeping

def _margin(depth):
    """How far below the exact maximum the computed one can be: (2D + 4) ETA."""
    return (2 * depth + 4) * ETA


def smooth_sensitivity_rounding_slack(n):
    """An upper bound rho on log(S_hat / max(S^t, FLOOR)) for any input of size n: the computed
    smooth sensitivity S_hat is exact up to a factor e^rho (and the floor 2^-1000), hence
    (t + rho)-smooth.  rho = (2 D + 6) ETA + 2^-40 with D = bit_length(n + 2) levels of
    divide and conquer and ETA = 2000 * 2^-50.

    >>> import opendp_duff as dp
    >>> dp.smooth_sensitivity_rounding_slack(10**7) < 1e-9
    True
    """
    n = v.number("n", n, integer=True, positive=True)
    depth = (n + 2).bit_length()
    return up((2 * depth + 6) * ETA + Fraction(1, 2 ** 40))


def _finish(best, margin, b_minus_a, w):
    """max(FLOOR, min(exp(best + margin) / w, (b - a) / w)), rounded up."""
    if best == -math.inf:
        return FLOOR
    value = div_up(exp_up(up(Q(best) + margin)), w)
    cap = min(div_up(sub_up(b_minus_a[1], b_minus_a[0]), w), MAX)  # >= (b - a)/w = GS
    return max(FLOOR, min(value, cap))


def _window_suffices(best, margin, log_width, K, t):
    """True when no pair with k >= K can change the (floored) result: every such pair is
    at most log(b - a) - K t, which must be <= best - margin (a certain lower bound on the
    exact maximum found) or <= LOG_CUT (below the floor).  Checked exactly."""
    outside = Q(log_width) - Q(K) * Q(t)
    return outside <= LOG_CUT or (best != -math.inf and outside <= Q(best) - margin)


def _needed_window(best, margin, log_width, t):
    """The smallest K that ``best`` (or the floor) proves sufficient."""
    lower = Fraction(LOG_CUT) if best == -math.inf else max(Q(best) - margin, Fraction(LOG_CUT))
    return max(0, math.ceil((Q(log_width) - lower) / Q(t)))


# ---------------------------------------------------------------- the kernel

def _order_stats(x, lo, hi, first, last):
    """x_(first..last) (1-based, padded with lo/hi, clipped): a float64 array."""
    n = x.size
    inner = np.asarray(x[max(first, 1) - 1:min(last, n)], dtype=np.float64)
    inner = np.clip(inner, lo, hi)
    left = np.full(max(0, min(last, 0) - first + 1), lo)
    right = np.full(max(0, last - max(first, n + 1) + 1), hi)
    return np.concatenate((left, inner, right))


def _log_diff(xi, xj):
    with np.errstate(divide="ignore", invalid="ignore"):
        # fmax turns a negative or NaN difference (unsorted or NaN input) into 0, so the
        # log is -inf and never NaN: garbage in, but never an exception or a NaN out.
        return np.log(np.fmax(xj - xi, 0.0))


def _drop_dominated(rx, cx):
    """Row and column positions that can hold the maximum of (*).

    Among tied row values the last index dominates (same differences, smaller k); among tied
    column values the first.  The one exception is the corner (p, q), which is not a
    candidate: a pair mapped onto it is dominated by (p, q + 1) instead (k = 0, difference
    x_(q+1) - x_(p) >= the pair's), so column q + 1 is always kept.  This makes all-tied
    data, where early stopping cannot help, cost O(window) instead of O(window log window)."""
    keep_r = np.ones(rx.size, bool)
    keep_r[:-1] = rx[1:] != rx[:-1]
    keep_c = np.ones(cx.size, bool)
    keep_c[2:] = cx[2:] != cx[1:-1]
    return np.flatnonzero(keep_r), np.flatnonzero(keep_c)


def _window_max(rx, ri, cx, cj, w, t):
    """max over rows (values rx at indices ri) and columns (cx at cj), both sorted, of
    L = log(x_j - x_i) - (j - i - w) t, the corner pair (last row, first column; k = -1)
    excluded, by level-synchronous monotone-argmax divide and conquer.

    Within a row, candidates are compared as L' = log(x_j - x_i) - (j - jz) t, where jz is the
    row's first column with x_j > x_i: L' differs from L by a constant of the row, and every L'
    that can compete with L'(jz) >= -745 has (j - jz) t <= 1460, so its rounding error is
    within ETA whatever the window size.  Returns (computed maximum, number of levels)."""
    R, C = rx.size, cx.size
    jz = np.searchsorted(cx, rx, side="right")  # garbage on unsorted input, but in [0, C]
    jz[-1] = max(int(jz[-1]), 1)  # the last row's first column is the corner
    jz_index = cj[np.minimum(jz, C - 1)]
    row_shift = (jz_index - ri - w).astype(np.float64) * t  # k of (i, jz), times t
    slo = np.zeros(1, np.int64)
    shi = np.full(1, R - 1, np.int64)
    clo = np.zeros(1, np.int64)
    chi = np.full(1, C - 1, np.int64)
    best = -math.inf
    depth = 0
    while slo.size:
        depth += 1
        mid = (slo + shi) // 2
        lens = chi - clo + 1
        starts = np.zeros(lens.size, np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        total = int(starts[-1] + lens[-1])
        pos = np.arange(total, dtype=np.int64)
        col = pos + np.repeat(clo - starts, lens)
        Lp = _log_diff(np.repeat(rx[mid], lens), cx[col])
        if mid[-1] == R - 1 and clo[-1] == 0:
            Lp[starts[-1]] = -np.inf  # the corner; the last segment holds the last row
        Lp -= (cj[col] - np.repeat(jz_index[mid], lens)).astype(np.float64) * t
        segmax = np.maximum.reduceat(Lp, starts)
        hit = np.where(Lp == np.repeat(segmax, lens), pos, total)
        jhat = col[np.minimum.reduceat(hit, starts)]
        best = max(best, float(np.max(segmax - row_shift[mid])))
        left = slo <= mid - 1
        right = mid + 1 <= shi
        slo = np.concatenate((slo[left], mid[right] + 1))
        shi = np.concatenate((mid[left] - 1, shi[right]))
        clo = np.concatenate((clo[left], jhat[right]))
        chi = np.concatenate((jhat[left], chi[right]))
    return best, depth


def _first_window(K_full, t):
    """min(K_full, ceil(4/t) + 16), also for a t so small that 4/t overflows."""
    guess = 4.0 / t
    return K_full if guess >= K_full else min(K_full, int(math.ceil(guess)) + 16)


def _window_statistic(x, p, q, t, lo, hi):
    """S^t of a window statistic under substitution, formula (*) of the module docstring."""
    n = x.size
    w = q - p + 1
    if hi == lo:
        return 0.0  # a constant statistic: S is exactly 0
    log_width = log_up(sub_up(hi, lo))
    t = min(t, T_CAP)
    K_full = max(p, n + 1 - q)  # the window with this K holds every pair
    K = _first_window(K_full, t)
    while True:
        i0, j1 = max(0, p - K), min(n + 1, q + K)
        rx = _order_stats(x, lo, hi, i0, p)
        cx = _order_stats(x, lo, hi, q, j1)
        r_keep, c_keep = _drop_dominated(rx, cx)
        best, depth = _window_max(rx[r_keep], r_keep + i0, cx[c_keep], c_keep + q, w, t)
        margin = _margin(depth)
        if K >= K_full or _window_suffices(best, margin, log_width, K, t):
            return _finish(best, margin, (lo, hi), w)
        K = min(K_full, max(2 * K, _needed_window(best, margin, log_width, t)))


def _median_symmetric(x, t, lo, hi):
    """S^t of the lower median under add/remove: pairs (i_k, j_k), k = 0..n, with
    j - i = k + 1 and i + j in {n, n + 1} (the one of matching parity).  Every candidate
    that can matter (L >= LOG_CUT - 1) has k t <= 1460, so its error is within ETA."""
    n = x.size
    if hi == lo:
        return 0.0  # a constant statistic: S is exactly 0
    log_width = log_up(sub_up(hi, lo))
    t = min(t, T_CAP)
    K = _first_window(n, t)
    while True:
        k = np.arange(K + 1, dtype=np.int64)
        s = np.where((n - k - 1) % 2 == 0, n, n + 1)
        i = (s - k - 1) // 2
        j = (s + k + 1) // 2
        base = int(i.min())
        xs = _order_stats(x, lo, hi, base, int(j.max()))
        L = _log_diff(xs[i - base], xs[j - base]) - k.astype(np.float64) * t
        best = float(L.max())
        margin = _margin(0)
        if K >= n or _window_suffices(best, margin, log_width, K + 1, t):
            return _finish(best, margin, (lo, hi), 1)
        K = min(n, max(2 * K, _needed_window(best, margin, log_width, t)))


# ---------------------------------------------------------------- public functions

def smooth_sensitivity_median(x_sorted, t, bounds, metric=None):
    """The t-smooth sensitivity of the lower median x_(ceil(n/2)) on [a, b]^n, exactly.

    ``metric``: ``None``/``change_one_distance()`` (substitution on a public size n, Bun &
    Steinke; the main case) or ``symmetric_distance()`` (add/remove, Duff paper Def. 1, 6).

    Substitution: formula (*) of the module docstring with p = q = r = ceil(n/2), w = 1,

        S^t(x) = max_{0 <= i <= r <= j <= n+1, i < j} (x_(j) - x_(i)) e^{-(j - i - 1) t},

    which is NRS07 §3.1 and file 004 Proposition 40 with n - 2m = 1 (there the rank is
    m + 1; here it is ceil(n/2), so even n is covered by the same derivation of an order
    statistic's local sensitivity at distance k: LS^k = max_{l=0..k+1} x_(r+k+1-l) - x_(r-l)).

    Add/remove: a dataset y of size n' has LS(y) = y_(g+1) - y_(g), g = floor(n'/2) (adding
    or removing one record moves the lower median between these two neighbours of it).
    For the gap to run from x_(i) to x_(j) (i < j) the j - i - 1 records between must go,
    and the counts below (i) and above (n + 1 - j) must then be balanced to within one,
    costing |n + 1/2 - i - j| - 1/2 more steps; so LS at distance k is the best such gap.
    For i + j <= n the cost is n - 1 - 2i whatever j, best with j = n - i; for
    i + j >= n + 1 it is 2j - n - 2 whatever i, best with i = n + 1 - j.  Hence

        S^t(x) = max_{i + j in {n, n+1}, 0 <= i < j <= n+1} (x_(j) - x_(i)) e^{-(j - i - 1) t},

    with the empty dataset's median taken as a (so the last term is (b - a) e^{-n t}).

    The result is an upper bound, exact to a factor e^rho
    (:func:`smooth_sensitivity_rounding_slack`).  ``x_sorted`` must be sorted and NaN-free
    (not checked).  Errors name the parameter and never show data.

    >>> import opendp_duff as dp
    >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
    >>> s = dp.smooth_sensitivity_median(x, t=5.0, bounds=(0.0, 10.0))
    >>> round(s, 9)   # k = 0: the median 2 can move to 1 or 3; k >= 1 is damped by e^-5
    1.0
    >>> dp.smooth_sensitivity_median(x, 0.01, (0.0, 10.0)) > 7
    True
    """
    arr = _data(x_sorted)
    t, lo, hi = _params(t, bounds)
    n = arr.size
    if _metric(metric) == "symmetric":
        return _median_symmetric(arr, t, lo, hi)
    r = (n + 1) // 2
    return _window_statistic(arr, r, r, t, lo, hi)


def smooth_sensitivity_quantile(x_sorted, alpha, t, bounds):
    """The t-smooth sensitivity of the alpha-quantile x_(r), r = max(1, ceil(alpha n)), under
    substitution on a public size n (formula (*) of the module docstring with p = q = r, w = 1).

    ``alpha`` in [0, 1]; a float is read as the decimal it prints as (0.7 is 7/10), a
    ``fractions.Fraction`` exactly.  alpha = 1/2 gives :func:`smooth_sensitivity_median`.

    >>> import opendp_duff as dp
    >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
    >>> q = dp.smooth_sensitivity_quantile(x, 0.5, 1.0, (0.0, 10.0))
    >>> q == dp.smooth_sensitivity_median(x, 1.0, (0.0, 10.0))
    True
    """
    arr = _data(x_sorted)
    a = _alpha(alpha)
    t, lo, hi = _params(t, bounds)
    n = arr.size
    r = max(1, math.ceil(a * n))
    return _window_statistic(arr, r, r, t, lo, hi)


def smooth_sensitivity_trimmed_mean(x_sorted, m, t, bounds):
    """The t-smooth sensitivity of the m-trimmed mean (x_(m+1) + ... + x_(n-m))/(n - 2m) on
    [a, b]^n under substitution on a public size n: file 004, Proposition 40,

        S^t(x) = 1/(n-2m) max_{k=0..n} e^{-kt} max_{l=0..k+1} x_(n-m+1+k-l) - x_(m+1-l),

    computed exactly (up to the outward rounding described in the module docstring) by the
    early-stopped divide and conquer.  ``m`` is an integer, 0 <= m < n/2; m = 0 is the mean.

    >>> import opendp_duff as dp
    >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
    >>> s = dp.smooth_sensitivity_trimmed_mean(x, 1, 5.0, (0.0, 10.0))
    >>> round(s, 9)  # k = 0: max(x_(5) - x_(2), x_(4) - x_(1)) / 3 = 9 / 3
    3.0
    """
    arr = _data(x_sorted)
    m = v.number("m", m, integer=True, nonneg=True)
    t, lo, hi = _params(t, bounds)
    n = arr.size
    if not 2 * m < n:
        raise MakeError(f"m ({m!r}) must satisfy 2 m < len(x_sorted)")
    return _window_statistic(arr, m + 1, n - m, t, lo, hi)
