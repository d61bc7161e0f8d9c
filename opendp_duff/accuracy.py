"""Accuracy before release: what each mechanism promises, from public parameters only.

One function per mechanism family returns an :class:`Accuracy` record: the mechanism, its scale
(or temperature), an accuracy figure, its unit and the exact statement it stands for.  Every
figure is computed with outward rounding in the safe direction (a reported error is never
smaller than the truth) and is proved in ``proofs/accuracy/accuracy.tex``:

* :func:`laplace_accuracy`, :func:`gaussian_accuracy`: the half-width h with
  P(|noisy - true| > h) <= alpha, unit ``"value"``.
* :func:`duff_quantile_accuracy`, :func:`duff_median_accuracy`: a rank error k, unit ``"rank"``.
  No data-independent rank bound exists (Theorem "No rank bound holds for all data": with ties at
  the target the release misses the tied value with probability 1), so the statement holds for
  every dataset whose order statistics of ranks R - ``within`` and R + ``within`` are at least
  ``spread`` apart, R the target rank: a public condition the analyst states.
* :func:`duff_mean_accuracy`: a half-width in value for every dataset of n records (n public).
* :func:`duff_mode_accuracy`: a count gap to the most frequent candidate, unit ``"count"``.
* :func:`threshold_keys_accuracy`: the count from which a key is released with probability at
  least 1 - alpha, unit ``"count"``.
* :func:`smooth_sensitivity_accuracy`: no data-independent statement (the noise is scaled by the
  data's smooth sensitivity), stated explicitly with an infinite figure.

References: [MT07] and [Wu-EM] Proposition 1.4 (the exponential mechanism's utility);
[GM-Duff] Theorem 1 and Corollary 1 (which assume a lower bound on the mass near the target).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import attrs

from . import _validate as v
from . import arithmetic as ar
from .tails import normal_isf_up
from .errors import MakeError

__all__ = ["Accuracy", "laplace_accuracy", "gaussian_accuracy", "duff_quantile_accuracy",
           "duff_median_accuracy", "duff_mean_accuracy", "duff_mode_accuracy",
           "threshold_keys_accuracy", "smooth_sensitivity_accuracy"]

Q = ar.Q
INF = ar.INF


@attrs.frozen
class Accuracy:
    """What a mechanism promises before it runs, from public parameters only.

    Attributes:
        mechanism: the mechanism's name (``"laplace"``, ``"duff_median"``, ...).
        scale: its noise scale or temperature.
        accuracy: the figure (a half-width, a rank error, a count), never smaller than the
            truth; ``inf`` when nothing finite can be promised.
        unit: ``"value"`` (the statistic's units), ``"rank"`` (order statistics) or ``"count"``.
        statement: the exact promise, in words, with its conditions.
    """

    mechanism: str
    scale: float
    accuracy: float
    unit: str
    statement: str


def _alpha(alpha: Any) -> Fraction:
    return Q(v.probability("alpha", alpha))


def _scale(scale: Any) -> float:
    return v.number("scale", scale, nonneg=True, allow_inf=True)


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


# [proof:_scaled_log_up]
def _scaled_log_up(scale: float, ratio: Fraction) -> float:
    """A float >= scale ln(ratio), for 0 < scale < inf and ratio > 0 (``inf`` if the ratio
    overflows a float: a safe, vacuous bound)."""
    log_ratio = ar.log_up(ratio)
    return INF if log_ratio == INF else ar.up(Q(scale) * Q(log_ratio))
# [end:_scaled_log_up]


# [proof:noise_accuracy]
def laplace_accuracy(scale: float, alpha: float) -> Accuracy:
    """The half-width of the Laplace mechanism (``make_laplace``) at level alpha.

    With Z of density e^{-|z|}/2, P(|scale Z| > h) = e^{-h/scale}, so h = scale ln(1/alpha),
    rounded up; scale 0 gives 0 and scale ``inf`` gives ``inf``.  Per coordinate of a vector.

    Example:
        >>> from opendp_duff.accuracy import laplace_accuracy
        >>> round(laplace_accuracy(2.0, 0.05).accuracy, 6)
        5.991465
    """
    scale, a = _scale(scale), _alpha(alpha)
    h = scale if scale in (0.0, INF) else ar.mul_up(scale, -ar.log_down(a))
    return Accuracy("laplace", scale, h, "value", _noise_statement(alpha, h))


def gaussian_accuracy(scale: float, alpha: float) -> Accuracy:
    """The half-width of the Gaussian mechanism (``make_gaussian``) at level alpha.

    h = scale t with P(|N| > t) = 2 P(N > t) <= alpha, t the smallest float verified by an
    enclosure of the normal tail (:mod:`opendp_duff.tails`), rounded up.

    Example:
        >>> from opendp_duff.accuracy import gaussian_accuracy
        >>> round(gaussian_accuracy(1.0, 0.05).accuracy, 6)
        1.959964
    """
    scale, a = _scale(scale), _alpha(alpha)
    h = scale if scale in (0.0, INF) else ar.mul_up(scale, normal_isf_up(a / 2))
    return Accuracy("gaussian", scale, h, "value", _noise_statement(alpha, h))


def _noise_statement(alpha: Any, h: float) -> str:
    return (f"with probability at least 1 - {alpha}, the exact noisy value (before its one rounding "
            f"to the nearest float) lies within {h} of the true value, whatever the data (each "
            "coordinate)")
# [end:noise_accuracy]


# [proof:quantile_accuracy]
def duff_quantile_accuracy(scale: float, alpha: float, *, quantile: Any, bounds: tuple[float, float],
                           spread: float, within: int = 1) -> Accuracy:
    """The rank error of the Duff quantile (``make_duff_quantile``) under a public spread condition.

    For n records in [a, b] with order statistics y_(1) <= ... <= y_(n) (y_(i) = a for i <= 0,
    b for i >= n + 1) and target rank R = ceil(q n): with probability at least 1 - alpha the
    release lies in [y_(R - k), y_(R + k)], for EVERY dataset with
    y_(R + within) - y_(R - within) >= spread.  Without such a condition no k < max(R, n + 1 - R)
    holds for all data (all records equal to a, say, puts the release above y_(R + k) almost
    surely).

    k = max(within + 1, ceil(T m)) with m = max(q, 1 - q), T = 1 + ceil(within / min(q, 1 - q))
    + ceil(scale ln((1 - alpha)(b - a - spread) / (alpha spread))), the logarithm and product
    rounded up; scale 0 uses T = 2 + ceil(within / min(q, 1 - q)); scale ``inf`` gives k = within + 1
    if alpha spread >= (1 - alpha)(b - a - spread), else ``inf``.

    Args:
        scale: the mechanism's temperature (>= 0 or ``inf``).
        alpha: the probability of missing, in (0, 1).
        quantile: q in (0, 1), read exactly as the mechanism reads it (:func:`_validate.alpha`).
        bounds: the public (a, b) of the clamp before the mechanism.
        spread: w in (0, b - a], the assumed gap between the order statistics around the target.
        within: k0 >= 1, the ranks on each side of the target that span at least ``spread``.

    Example:
        >>> from opendp_duff.accuracy import duff_quantile_accuracy
        >>> duff_quantile_accuracy(2.0, 0.05, quantile=0.5, bounds=(0.0, 100.0), spread=1.0).accuracy
        10.0
    """
    scale, a = _scale(scale), _alpha(alpha)
    q = v.alpha("quantile", quantile)
    lo, hi = v.bounds("bounds", bounds, float)
    k0 = v.number("within", within, integer=True, positive=True)
    width = Q(hi) - Q(lo)
    if width == 0:  # every release is a = y_(R): k = 0
        return _rank_accuracy(q, scale, 0, alpha, lo, hi, spread, k0)
    w = Q(v.number("spread", spread, positive=True))
    if w > width:
        raise MakeError(f"spread ({spread!r}) must be at most the width of bounds ({bounds!r})")
    m, nu = max(q, 1 - q), min(q, 1 - q)
    center = 1 + _ceil(k0 / nu)                  # central gaps have levels >= -center
    if w == width or (scale == INF and a * w >= (1 - a) * (width - w)):
        k: float = k0 + 1                        # no mass outside, or uniform mass small enough
    elif scale == INF:
        k = INF
    else:
        # the outside must sit below the top level (scale 0), or its odds be at most alpha/(1 - alpha)
        bound = 1 if scale == 0 else _scaled_log_up(scale, (1 - a) * (width - w) / (a * w))
        k = INF if bound == INF else max(k0 + 1, _ceil((center + _ceil(Q(bound))) * m))
    return _rank_accuracy(q, scale, k, alpha, lo, hi, spread, k0)


def _rank_accuracy(q: Fraction, scale: float, k: float, alpha: Any, lo: float, hi: float,
                   spread: Any, k0: int) -> Accuracy:
    name = "duff_median" if q == Fraction(1, 2) else "duff_quantile"
    statement = (f"with probability at least 1 - {alpha}, the release lies between the order statistics "
                 f"of ranks R - {k} and R + {k} (R = ceil({q} n), the target rank), for every dataset in "
                 f"[{lo}, {hi}] whose order statistics of ranks R - {k0} and R + {k0} are at least {spread} "
                 "apart; no rank bound holds for all data (ties at the target defeat it)")
    return Accuracy(name, scale, float(k), "rank", statement)
# [end:quantile_accuracy]


# [proof:duff_median_accuracy]
def duff_median_accuracy(scale: float, alpha: float, *, bounds: tuple[float, float], spread: float,
                         within: int = 1) -> Accuracy:
    """The rank error of the Duff median (``make_duff_median``): :func:`duff_quantile_accuracy`
    with q = 1/2 (the lower median, rank ceil(n/2)).

    Example:
        >>> from opendp_duff.accuracy import duff_median_accuracy
        >>> duff_median_accuracy(2.0, 0.05, bounds=(0.0, 100.0), spread=0.2).accuracy
        11.0
    """
    return duff_quantile_accuracy(scale, alpha, quantile=Fraction(1, 2), bounds=bounds, spread=spread,
                                  within=within)
# [end:duff_median_accuracy]


# [proof:mode_accuracy]
def duff_mode_accuracy(scale: float, alpha: float, *, candidates: int | Sequence[Any]) -> Accuracy:
    """The count gap of the Duff mode (``make_duff_mode``) over m public candidates.

    With probability at least 1 - alpha the released candidate has at most K fewer records than
    the most frequent candidate, whatever the data: K = max(0, ceil(scale ln((m - 1)(1 - alpha)
    / alpha)) - 1), rounded up; K = 0 for one candidate or scale 0; scale ``inf`` gives 0 if
    alpha >= (m - 1)/m, else ``inf``.

    Example:
        >>> from opendp_duff.accuracy import duff_mode_accuracy
        >>> duff_mode_accuracy(1.0, 0.05, candidates=10).accuracy
        5.0
    """
    scale, a = _scale(scale), _alpha(alpha)
    m = candidates if isinstance(candidates, int) else len(candidates)
    m = v.number("candidates", m, integer=True, positive=True)
    gap: float
    if m == 1 or scale == 0:
        gap = 0
    elif scale == INF:
        gap = 0 if a >= Fraction(m - 1, m) else INF
    else:
        bound = _scaled_log_up(scale, (m - 1) * (1 - a) / a)
        gap = INF if bound == INF else max(0, _ceil(Q(bound)) - 1)
    statement = (f"with probability at least 1 - {alpha}, the released candidate has at most {gap} fewer "
                 f"records than the most frequent of the {m} candidates, whatever the data")
    return Accuracy("duff_mode", scale, float(gap), "count", statement)
# [end:mode_accuracy]


# [proof:mean_accuracy]
def duff_mean_accuracy(scale: float, alpha: float, *, bounds: tuple[float, float], n: int) -> Accuracy:
    """The half-width of the Duff mean (``make_duff_mean``) for every dataset of n records.

    The level set {u >= -k} contains the means reachable by k additions (width k B/(n + k),
    B = b - a) and lies within k B/(n - k + 2) of the mean; the release leaves it with
    probability at most B e^{-(k+1)/s} / (B e^{-(k+1)/s} + D_k), D_k = B G_k/(n + k) - 2 eta
    e^{-1/s}, G_k = sum_{j <= k} e^{-j/s}.  K is found by doubling and bisection; then
    h = min(B, K B/(n - K + 2) + eta + B 2^-32), where eta = 2^-49 (B + max(|a|, |b|)) + 2^-1070
    bounds the rounding of the level sets' ends and B 2^-32 the grid of the records.  n is the number
    of records: the statement is for every dataset of that size (n is private under add/remove;
    the analyst supplies it).

    Example:
        >>> from opendp_duff.accuracy import duff_mean_accuracy
        >>> round(duff_mean_accuracy(2.0, 0.05, bounds=(0.0, 10.0), n=1000).accuracy, 4)
        0.1829
    """
    scale, a = _scale(scale), _alpha(alpha)
    lo, hi = v.bounds("bounds", bounds, float)
    n = v.number("n", n, integer=True, positive=True)
    v.finite_width("bounds", (lo, hi))                # the analysis of the rounding needs it finite
    width = Q(hi) - Q(lo)
    if width == 0:
        return _mean_accuracy(scale, 0.0, alpha, lo, hi, n)
    eta = Q(ar.up(Fraction(2) ** -49 * (width + max(abs(Q(lo)), abs(Q(hi)))) + Fraction(2) ** -1070))
    if scale == INF:  # uniform on [a, b]
        return _mean_accuracy(scale, ar.up((1 - a) * width), alpha, lo, hi, n)
    if scale == 0:    # uniform on the first level set of positive width
        # the first k with k B/(n + k) > 2 eta: k > 2 eta n/(B - 2 eta)
        k = n + 1 if width <= 2 * eta else min(n + 1, (2 * eta * n) // (width - 2 * eta) + 1)
    else:
        k = _mean_level(scale, a, width, eta, n)
    h = width if k >= n + 1 else min(width, k * width / (n - k + 2) + eta + width * Fraction(2) ** -32)
    return _mean_accuracy(scale, ar.up(h), alpha, lo, hi, n)


def _mean_level(scale: float, a: Fraction, width: Fraction, eta: Fraction, n: int) -> int:
    """A level k <= n + 1 whose set the release leaves with probability at most alpha (n + 1: the
    whole interval), by doubling then bisection on the sufficient condition."""
    s = Q(scale)
    e1_up, e1_down = Q(ar.exp_up(-1 / s)), Q(ar.exp_down(-1 / s))
    one_minus_e1 = Q(-ar.expm1_down(-1 / s))               # >= 1 - e^{-1/s} > 0

    def holds(k: int) -> bool:
        if k >= n + 1:
            return True
        g = e1_down * Q(-ar.expm1_up(-k / s)) / one_minus_e1      # <= G_k
        outside = width * Q(ar.exp_up(-(k + 1) / s))               # >= B e^{-(k+1)/s}
        return outside * (1 - a) <= a * (width * g / (n + k) - 2 * eta * e1_up)

    hi = 1
    while not holds(hi):
        hi *= 2
    lo = hi // 2                                  # holds(lo) is false, or lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return min(hi, n + 1)


def _mean_accuracy(scale: float, h: float, alpha: Any, lo: float, hi: float, n: int) -> Accuracy:
    statement = (f"with probability at least 1 - {alpha}, the release lies within {h} of the mean, "
                 f"for every dataset of {n} records in [{lo}, {hi}]")
    return Accuracy("duff_mean", scale, h, "value", statement)
# [end:mean_accuracy]


# [proof:threshold_accuracy]
def threshold_keys_accuracy(scale: float, alpha: float, *, threshold: float,
                            noise: str = "laplace") -> Accuracy:
    """The count from which ``make_threshold_keys`` releases a key with probability >= 1 - alpha.

    A key of count c is missed only if c + scale Z < threshold, so c >= threshold + scale t with
    P(Z > t) <= alpha suffices: t = ln(1/(2 alpha)) rounded up for Laplace noise (0 when
    alpha >= 1/2), the verified normal quantile for Gaussian noise.  The figure is the smallest
    such integer c >= 1; scale ``inf`` gives 1 if alpha >= 1/2, else ``inf``.

    Example:
        >>> from opendp_duff.accuracy import threshold_keys_accuracy
        >>> threshold_keys_accuracy(1.0, 0.05, threshold=15.0).accuracy
        18.0
    """
    scale, a = _scale(scale), _alpha(alpha)
    threshold = v.number("threshold", threshold)
    noise = v.choice("noise", noise, {"laplace", "gaussian"})
    count: float
    if scale == INF:
        count = 1 if a >= Fraction(1, 2) else INF
    else:
        if noise == "laplace":
            t = 0.0 if a >= Fraction(1, 2) else -ar.log_down(2 * a)
        else:
            t = normal_isf_up(a)
        count = max(1, _ceil(Q(threshold) + Q(scale) * Q(t)))
    statement = (f"a key held by at least {count} records is released with probability at least "
                 f"1 - {alpha} (threshold {threshold}, {noise} noise of scale {scale})")
    return Accuracy("threshold_keys", scale, float(count), "count", statement)
# [end:threshold_accuracy]


# [proof:smooth_sensitivity_accuracy]
def smooth_sensitivity_accuracy(scale: float, alpha: float, *, statistic: str = "median") -> Accuracy:
    """The smooth-sensitivity mechanisms (``make_smooth_median``, ``make_smooth_trimmed_mean``):
    no data-independent statement.

    The release is T(x) + S^t(x)/s Z: its error is q S^t(x)/s with q the noise law's two-sided
    alpha-quantile, and S^t(x) is a function of the private data.  The record says so, with an
    infinite figure, rather than guess.

    Example:
        >>> from opendp_duff.accuracy import smooth_sensitivity_accuracy
        >>> smooth_sensitivity_accuracy(0.2, 0.05).accuracy
        inf
    """
    scale = _scale(scale)
    _alpha(alpha)
    statistic = v.choice("statistic", statistic, {"median", "trimmed_mean"})
    statement = ("no data-independent statement: the noise is scaled by the smooth sensitivity S^t(x) of "
                 f"the private data; the error is at most q S^t(x)/{scale} with probability at least "
                 f"1 - {alpha}, q the noise law's two-sided quantile, but S^t(x) is not public")
    return Accuracy(f"smooth_{statistic}", scale, math.inf, "value", statement)
# [end:smooth_sensitivity_accuracy]
