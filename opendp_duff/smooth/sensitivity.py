"""The t-smooth sensitivity S^t of the median, quantiles and trimmed means, computed exactly.

Named ``smooth.sensitivity`` (not ``smooth_sensitivity``) so that it no longer shares a name
with the measurement module :mod:`opendp_duff.measurements.smooth_sensitivity` that uses it.

For a statistic f on datasets in [a, b] and a neighbour relation d ([NRS07] Def. 2.2,
[BS19] Def. 14): S^t(x) = max_y e^{-t d(x, y)} LS(y).  x_(1) <= ... <= x_(n) are the records
clipped to [a, b] and sorted, padded with a below rank 1 and b above rank n ([BS19] Prop. 40).
The median is the LOWER median x_(ceil(n/2)); the alpha-quantile is x_(r), r = max(1,
ceil(alpha n)); the m-trimmed mean is (x_(m+1) + ... + x_(n-m)) / (n - 2m), 0 <= m < n/2.
These are window statistics on ranks p..q of width w = q - p + 1, and under substitution

    S^t(x) = (1/w) max { (x_(j) - x_(i)) e^{-k t} :  0 <= i <= p,  q <= j <= n + 1,
                                                     k = j - i - w >= 0 }.            (*)

Under add/remove (the median only) the pairs are those with i + j in {n, n + 1}.

Every public function takes ``(x_sorted, t, bounds)`` first; a statistic's own parameter
(``alpha``, ``m``) comes by keyword.  ``x_sorted`` must be sorted and NaN-free: NOT checked
(a check would read all n records, the algorithm reads O(K) of them); on unsorted input the
result is meaningless but finite, and these functions never raise on data.

Algorithm: an early-stopped window of K pairs around the statistic's ranks, maximised by a
monotone-argmax divide and conquer in the log domain, O(min(n, (log(b - a) + 696)/t) log n).
Rounding: the result S_hat satisfies max(S^t, FLOOR) <= S_hat <= max(S^t, FLOOR) e^{rho} with
rho = :func:`smooth_sensitivity_rounding_slack` (n) < 1e-9, so S_hat is a (t + rho)-smooth upper
bound on the local sensitivity; a = b gives exactly 0.  Formulas, algorithm and rounding are
proved in ``proofs/smooth/sensitivity/smooth_sensitivity.tex``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .. import _validate as v
from ..arithmetic import MAX, Q, div_up, exp_up, log_up, sub_up, up
from ..errors import MakeError, MakeTypeError
from ..metrics import ChangeOneDistance, SymmetricDistance

__all__ = ["smooth_sensitivity_median", "smooth_sensitivity_trimmed_mean",
           "smooth_sensitivity_quantile", "smooth_sensitivity_rounding_slack"]

# [proof:constants]
# Every computed log-candidate that can matter is within ETA of its exact value (proof,
# "Rounding"); FLOOR is the smallest value we return, LOG_CUT a number below
# log(FLOOR) - 2, under which candidates cannot affect the (floored) result.
ETA = Fraction(2000, 2 ** 50)
FLOOR = 2.0 ** -1000
# Smoothing beyond T_CAP changes nothing: a pair with k >= 1 is at most (b - a) e^{-k t} <=
# MAX e^{-T_CAP} < FLOOR, so S^t = max(S^T_CAP, FLOOR) after the floor, and S^t <= S^T_CAP
# always.  The kernels use min(t, T_CAP), which keeps k t finite (no inf - inf = NaN).
T_CAP = 4096.0
LOG_CUT = -696
# [end:constants]


# ---------------------------------------------------------------- parameter checks

def _data(x_sorted: npt.ArrayLike) -> np.ndarray:
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


def _params(t: float, bounds: tuple[float, float]) -> tuple[float, float, float]:
    t = v.number("t", t, positive=True)
    lo, hi = v.bounds("bounds", bounds)
    if not math.isfinite(hi - lo):
        raise MakeError(f"bounds ({bounds!r}) must have a finite width hi - lo")
    return t, lo, hi


def _metric(metric: object) -> str:
    if metric is None or metric == "change_one" or isinstance(metric, ChangeOneDistance):
        return "change_one"
    if metric == "symmetric" or isinstance(metric, SymmetricDistance):
        return "symmetric"
    raise MakeError(f"metric ({metric!r}) must be change_one_distance() or symmetric_distance()")


# ---------------------------------------------------------------- exact rounding bookkeeping

# [proof:rounding]
def _margin(depth: int) -> Fraction:
    """How far below the exact maximum the computed one can be: (2D + 4) ETA."""
    return (2 * depth + 4) * ETA


def smooth_sensitivity_rounding_slack(n: int) -> float:
    """An upper bound rho on log(S_hat / max(S^t, FLOOR)) for any input of size n.

    The computed smooth sensitivity S_hat is exact up to a factor e^rho (and the floor
    2^-1000), hence (t + rho)-smooth: the privacy maps use t + rho.  rho = (2 D + 6) ETA +
    2^-40 with D = bit_length(n + 2) levels of divide and conquer and ETA = 2000 * 2^-50.

    Args:
        n: the dataset size, an integer >= 1.

    Returns:
        rho, rounded up; below 1e-9 for n < 2^60.

    Proof: ``proofs/smooth/sensitivity/smooth_sensitivity.tex``, "Rounding".

    Example:
        >>> import opendp_duff as dp
        >>> dp.smooth.smooth_sensitivity_rounding_slack(10**7) < 1e-9
        True
    """
    n = v.number("n", n, integer=True, positive=True)
    depth = (n + 2).bit_length()
    return up((2 * depth + 6) * ETA + Fraction(1, 2 ** 40))


def _finish(best: float, margin: Fraction, b_minus_a: tuple[float, float], w: int) -> float:
    """max(FLOOR, min(exp(best + margin) / w, (b - a) / w)), rounded up."""
    if best == -math.inf:
        return FLOOR
    value = div_up(exp_up(up(Q(best) + margin)), w)
    cap = min(div_up(sub_up(b_minus_a[1], b_minus_a[0]), w), MAX)  # >= (b - a)/w = GS
    return max(FLOOR, min(value, cap))


def _window_suffices(best: float, margin: Fraction, log_width: float, K: int, t: float) -> bool:
    """True when no pair with k >= K can change the (floored) result: every such pair is
    at most log(b - a) - K t, which must be <= best - margin (a certain lower bound on the
    exact maximum found) or <= LOG_CUT (below the floor).  Checked exactly."""
    outside = Q(log_width) - Q(K) * Q(t)
    return outside <= LOG_CUT or (best != -math.inf and outside <= Q(best) - margin)


def _needed_window(best: float, margin: Fraction, log_width: float, t: float) -> int:
    """The smallest K that ``best`` (or the floor) proves sufficient."""
    lower = Fraction(LOG_CUT) if best == -math.inf else max(Q(best) - margin, Fraction(LOG_CUT))
    return max(0, math.ceil((Q(log_width) - lower) / Q(t)))


# [end:rounding]


# ---------------------------------------------------------------- the kernel

# [proof:kernel]
def _order_stats(x: np.ndarray, lo: float, hi: float, first: int, last: int) -> np.ndarray:
    """x_(first..last) (1-based, padded with lo/hi, clipped): a float64 array."""
    n = x.size
    inner = np.asarray(x[max(first, 1) - 1:min(last, n)], dtype=np.float64)
    inner = np.clip(inner, lo, hi)
    left = np.full(max(0, min(last, 0) - first + 1), lo)
    right = np.full(max(0, last - max(first, n + 1) + 1), hi)
    return np.concatenate((left, inner, right))


def _log_diff(xi: np.ndarray, xj: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        # fmax turns a negative or NaN difference (unsorted or NaN input) into 0, so the
        # log is -inf and never NaN: garbage in, but never an exception or a NaN out.
        return np.log(np.fmax(xj - xi, 0.0))


def _drop_dominated(rx: np.ndarray, cx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _window_max(rx: np.ndarray, ri: np.ndarray, cx: np.ndarray, cj: np.ndarray, w: int,
                t: float) -> tuple[float, int]:
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


# [end:kernel]


# [proof:window]
def _first_window(K_full: int, t: float) -> int:
    """min(K_full, ceil(4/t) + 16), also for a t so small that 4/t overflows."""
    guess = 4.0 / t
    return K_full if guess >= K_full else min(K_full, int(math.ceil(guess)) + 16)


def _window_statistic(x: np.ndarray, p: int, q: int, t: float, lo: float, hi: float) -> float:
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


def _median_symmetric(x: np.ndarray, t: float, lo: float, hi: float) -> float:
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
# [end:window]


# ---------------------------------------------------------------- public functions

# [proof:smooth_sensitivity_median]
def smooth_sensitivity_median(x_sorted: npt.ArrayLike, t: float, bounds: tuple[float, float],
                              metric: object = None) -> float:
    """The t-smooth sensitivity of the lower median x_(ceil(n/2)) on [a, b]^n.

    Substitution (``metric`` None or ``change_one_distance()``): formula (*) with p = q =
    ceil(n/2), w = 1.  Add/remove (``symmetric_distance()``): the pairs with i + j in
    {n, n + 1}, the empty dataset's median taken as a.

    Args:
        x_sorted: the records, sorted ascending and NaN-free (not checked); a 1-d array.
        t: the smoothing, t > 0 (finite).
        bounds: (a, b), a <= b, of finite width; records outside are clipped.
        metric: None, ``change_one_distance()`` or ``symmetric_distance()``.

    Returns:
        S_hat >= S^t(x), exact to a factor e^rho (:func:`smooth_sensitivity_rounding_slack`).

    Proof: ``proofs/smooth/sensitivity/smooth_sensitivity.tex`` (Propositions "Formula (*)"
    and "add/remove").

    References: [NRS07] §3.1; [BS19] Prop. 40 with n - 2m = 1.

    Example:
        >>> import opendp_duff as dp
        >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
        >>> round(dp.smooth.smooth_sensitivity_median(x, 5.0, (0.0, 10.0)), 9)  # k = 0 wins
        1.0
    """
    arr = _data(x_sorted)
    t, lo, hi = _params(t, bounds)
    # [proof:median_entry]
    n = arr.size
    if _metric(metric) == "symmetric":
        return _median_symmetric(arr, t, lo, hi)
    r = (n + 1) // 2
    return _window_statistic(arr, r, r, t, lo, hi)
    # [end:median_entry]
# [end:smooth_sensitivity_median]


def smooth_sensitivity_quantile(x_sorted: npt.ArrayLike, t: float, bounds: tuple[float, float], *,
                                alpha: object) -> float:
    """The t-smooth sensitivity of the alpha-quantile x_(r), r = max(1, ceil(alpha n)), under
    substitution on a public size n: formula (*) with p = q = r, w = 1.

    Args:
        x_sorted: the records, sorted ascending and NaN-free (not checked); a 1-d array.
        t: the smoothing, t > 0 (finite).
        bounds: (a, b), a <= b, of finite width; records outside are clipped.
        alpha: the level in the open interval (0, 1), read by :func:`opendp_duff._validate.alpha`
            (a float as the decimal it prints as: 0.7 is 7/10).

    Returns:
        S_hat >= S^t(x), exact to a factor e^rho.

    Proof: ``proofs/smooth/sensitivity/smooth_sensitivity.tex``.

    References: [NRS07] §3.1; [BS19] Prop. 40.

    Example:
        >>> import opendp_duff as dp
        >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
        >>> q = dp.smooth.smooth_sensitivity_quantile(x, 1.0, (0.0, 10.0), alpha=0.5)
        >>> q == dp.smooth.smooth_sensitivity_median(x, 1.0, (0.0, 10.0))
        True
    """
    arr = _data(x_sorted)
    a = v.alpha("alpha", alpha)
    t, lo, hi = _params(t, bounds)
    r = max(1, math.ceil(a * arr.size))
    return _window_statistic(arr, r, r, t, lo, hi)


# [proof:smooth_sensitivity_trimmed_mean]
def smooth_sensitivity_trimmed_mean(x_sorted: npt.ArrayLike, t: float, bounds: tuple[float, float], *,
                                    m: int) -> float:
    """The t-smooth sensitivity of the m-trimmed mean (x_(m+1) + ... + x_(n-m)) / (n - 2m) on
    [a, b]^n under substitution on a public size n ([BS19] Prop. 40):

        S^t(x) = 1/(n-2m) max_{k=0..n} e^{-kt} max_{l=0..k+1} x_(n-m+1+k-l) - x_(m+1-l).

    Args:
        x_sorted: the records, sorted ascending and NaN-free (not checked); a 1-d array.
        t: the smoothing, t > 0 (finite).
        bounds: (a, b), a <= b, of finite width; records outside are clipped.
        m: the number trimmed at each end, an integer with 0 <= m < n/2 (m = 0: the mean).

    Returns:
        S_hat >= S^t(x), exact to a factor e^rho.

    Proof: ``proofs/smooth/sensitivity/smooth_sensitivity.tex``.

    References: [BS19] Prop. 40; [NRS07] §3.1.

    Example:
        >>> import opendp_duff as dp
        >>> x = [0.0, 1.0, 2.0, 3.0, 10.0]
        >>> round(dp.smooth.smooth_sensitivity_trimmed_mean(x, 5.0, (0.0, 10.0), m=1), 9)  # 9 / 3
        3.0
    """
    arr = _data(x_sorted)
    m = v.number("m", m, integer=True, nonneg=True)
    t, lo, hi = _params(t, bounds)
    n = arr.size
    if not 2 * m < n:
        raise MakeError(f"m ({m!r}) must satisfy 2 m < len(x_sorted)")
    return _window_statistic(arr, m + 1, n - m, t, lo, hi)
# [end:smooth_sensitivity_trimmed_mean]
