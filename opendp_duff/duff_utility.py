"""The Duff utility of a dataset as an inspectable step function.

[GM-Duff] Definition 8: for a statistic T,

    u(x, S) = -min { d(S, S') : T(S') = x },

where d counts records added or removed.  :func:`duff_utility` returns u as a
:class:`StepFunction` for the median, any quantile, the mean and the mode.

Quantile convention (this module, ``make_duff_quantile`` and ``make_duff_median``):
for alpha in (0, 1) and a multiset of m >= 1 records, T is the order statistic
of rank ceil(alpha m) (1-based), so alpha = 1/2 is the *lower* median for even
m, as in the paper (§4.1).  The empty dataset has no quantile; one addition
makes any x the statistic, so u(x, ∅) = -1 everywhere.

Closed form (proved in ``proofs/measurements/duff/make_duff_quantile.tex``).
For a point x let p, e, q count the records below, equal to and above x, and
n = p + e + q.  With e >= 1, x is the statistic iff p < alpha n <= p + e.
Otherwise the cheapest edits move one of phi = p - alpha n or psi = p + e - alpha n
into place by steps of alpha or 1 - alpha:

* x above the statistic (phi >= 0): -u = the least K with
  K alpha + min(K, p) max(0, 1 - 2 alpha) > phi
  (add copies of x or records above it: alpha each; remove records below: 1 - alpha each, at most p);
* x below the statistic (psi < 0): -u = the least K with
  K (1 - alpha) + min(K, q) max(0, 2 alpha - 1) >= -psi
  (add copies of x or records below: 1 - alpha each; remove records above: alpha each, at most q).

A point x that is not a record (e = 0) first needs one copy of itself:
-u(x) = 1 + (the formula for counts (p, 1, q)).  Between consecutive records the
counts are constant, so u is a step function; on the gap with j records below,
the level is -(1 + K(j, 1, n - j)).

Exactness: alpha is read as an exact fraction by :func:`opendp_duff._validate.alpha` (a float
or numpy float means the decimal it prints as, so 0.1 and ``np.float32(0.1)`` are 1/10) and
then replaced by the smallest fraction P/Q >= alpha with Q <= 2n + 2
(:func:`quantile_rational`).  Every dataset the minimum visits has at most 2n + 1 records,
and ceil(alpha m) = ceil(P m / Q) for all m <= 2n + 2 because no fraction with
denominator <= 2n + 2 lies in [alpha, P/Q).  All level arithmetic is then exact
integer arithmetic.
"""
from __future__ import annotations

import collections
import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import attrs
import numpy as np

from . import _validate as v
from .duff_mean_utility import duff_mean_step_function
from .engines.candidates import candidate_counter, record_key, record_keys, validate_candidates
from .errors import MakeError
from .laws import DiscreteLaw, log_widths, step_function_law

__all__ = ["duff_utility", "duff_mode_utility", "StepFunction", "quantile_rational", "quantile_costs",
           "quantile_gap_levels", "quantile_best_gap", "quantile_step_function", "quantile_window",
           "sampler_ranks", "SamplerRanks", "WINDOW_TAIL"]


# --------------------------------------------------------------------------- step function
def _frozen_array(a: Any, dtype: Any = None) -> np.ndarray:
    a = np.array(a, dtype=dtype).reshape(-1)
    a.setflags(write=False)
    return a


@attrs.frozen(eq=False, repr=False)
class StepFunction:
    """u(x) = max { levels[i] : left[i] <= x <= right[i] } (``-inf`` outside every piece).

    Pieces are closed intervals sorted by ``left`` whose interiors are disjoint;
    zero-width pieces record the value at single points (a record, the mean,
    a mode candidate).  Over Lebesgue measure only positive-width pieces matter:
    the exponential mechanism's density is exp(u(x) / scale) / Z on them.
    """

    left: np.ndarray = attrs.field(converter=_frozen_array)
    right: np.ndarray = attrs.field(converter=_frozen_array)
    levels: np.ndarray = attrs.field(converter=lambda a: _frozen_array(a, np.int64))

    def __attrs_post_init__(self) -> None:
        if not (self.left.size == self.right.size == self.levels.size):
            raise ValueError("left, right and levels must have equal lengths")

    def __repr__(self) -> str:
        lo, hi = self.levels.min(initial=0), self.levels.max(initial=0)
        return f"StepFunction({self.left.size} pieces, levels {lo}..{hi})"

    def __len__(self) -> int:
        return int(self.levels.size)

    def evaluate(self, points: Any) -> Any:
        """u at each point: the highest level among the pieces containing it."""
        pts = np.asarray(points)
        flat = pts.reshape(-1)
        out = np.full(flat.shape, -np.inf)
        numeric = self.left.dtype.kind in "fiu"
        for k, x in enumerate(flat):
            if numeric:
                hit = (self.left <= x) & (x <= self.right)
            else:
                hit = (self.left == x)
            if hit.any():
                out[k] = self.levels[hit].max()
        return out.reshape(pts.shape) if pts.ndim else float(out[0])

    __call__ = evaluate

    def _positive(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keep = self.right > self.left
        return self.left[keep], self.right[keep], self.levels[keep]

    def log_masses(self, scale: float) -> np.ndarray:
        """log(width_i) + level_i / scale for the positive-width pieces (float path).

        The width is :func:`opendp_duff.laws.log_widths` (a width beyond the largest float or one
        subnormal wide included).  ``level / scale`` is the float quotient, +-inf where it
        overflows; a level 0 contributes 0 for every ``scale >= 0``, and ``scale = 0`` gives
        -inf (+inf) for negative (positive) levels.  Never NaN, never a warning.
        """
        left, right, levels = self._positive()
        return log_widths(left, right) + _level_over_scale(levels, _scale(scale))

    def cdf(self, points: Any, scale: float) -> np.ndarray:
        """The exponential mechanism's CDF, P(X <= x) with density ∝ exp(u / scale): the law of
        :func:`opendp_duff.laws.step_function_law`, which is the one :meth:`sample` draws from
        (scale 0: uniform on the top-level pieces; no piece of positive width: a point mass at the
        left end of a highest-level piece)."""
        law = step_function_law(self.left, self.right, self.levels, _scale(scale))
        if isinstance(law, DiscreteLaw):
            pts = np.asarray(points, dtype=np.float64)
            return np.where(pts >= law.support[0], 1.0, 0.0)
        return law.cdf(points)

    def sample(self, scale: float, size: int | None = None) -> Any:
        """Draw from density ∝ exp(u / scale) (see :func:`opendp_duff.samplers.race.sample_step_function`)."""
        from .samplers.race import sample_step_function
        return sample_step_function(self.left, self.right, self.levels, scale, size=size)


def _scale(scale: float) -> float:
    scale = float(scale)
    if not scale >= 0:
        raise ValueError(f"scale ({scale!r}) must be non-negative")
    return scale


def _level_over_scale(levels: np.ndarray, scale: float) -> np.ndarray:
    """level / scale, 0 for a level 0 (also at scale 0), +-inf where the quotient overflows."""
    lv = levels.astype(np.float64)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        return np.where(lv == 0, 0.0, lv / scale)


# --------------------------------------------------------------------------- quantile arithmetic
# [proof:quantile_rational.def]
def quantile_rational(alpha: Any, n: int) -> tuple[int, int]:
    """(P, Q): the smallest fraction P/Q >= alpha with Q <= 2n + 2 (alpha itself if its
    denominator is small enough), in lowest terms.  ceil(alpha m) = ceil(P m / Q) for every
    m <= 2n + 2.  ``alpha`` is read by :func:`opendp_duff._validate.alpha` (a Fraction is
    exact; a float means the decimal it prints as).

    Proof (the continued-fraction walk ends at two Farey neighbours of order 2n + 2 that
    bracket alpha strictly): ``proofs/measurements/duff/duff_quantile_body.inc``.
    """
    # [proof:quantile_rational]
    a = v.alpha("alpha", alpha)
    max_den = 2 * int(n) + 2
    if a.denominator <= max_den:
        return a.numerator, a.denominator
    # a = (p1 x + p0) / (q1 x + q0) with x = num / den, and p1 q0 - p0 q1 = +-1, throughout
    p0, q0, p1, q1 = 0, 1, 1, 0
    num, den = a.numerator, a.denominator
    while True:
        t = num // den
        q2 = q0 + t * q1
        if q2 > max_den:
            break
        p0, q0, p1, q1 = p1, q1, p0 + t * p1, q2
        num, den = den, num - t * den
    k = (max_den - q0) // q1
    b1 = Fraction(p0 + k * p1, q0 + k * q1)
    b2 = Fraction(p1, q1)
    up = b1 if b1 > a else b2
    return up.numerator, up.denominator
    # [end:quantile_rational]
# [end:quantile_rational.def]


def _int_array(x: Any, big: bool) -> np.ndarray:
    return np.asarray(x, dtype=object if big else np.int64)


def _ceil_div(a: Any, b: Any) -> Any:
    return -((-a) // b)


# [proof:quantile_costs]
def quantile_costs(p: Any, e: Any, q: Any, P: int, Q: int) -> np.ndarray:
    """-u at points with p records below, e >= 1 equal and q above, for the quantile
    of rank ceil((P/Q) m).  Vectorised, exact integer arithmetic (see module doc)."""
    p, e, q = np.broadcast_arrays(np.asarray(p), np.asarray(e), np.asarray(q))
    n = p + e + q
    # products below are at most (n + 2) * max(P, Q): int64 unless that could overflow
    big = bool(n.size) and (int(np.max(n)) + 2) * max(int(P), int(Q), 2) >= 2 ** 62
    p, e, q, n = (_int_array(z, big) for z in (p, e, q, n))
    F = Q * p - P * n            # Q * phi
    D = P * n - Q * (p + e)      # -Q * psi
    # x above the statistic: least K with K P + min(K, p) max(0, Q - 2P) > F
    if 2 * P >= Q:
        k_above = F // P + 1
    else:
        s = Q - P
        k_above = np.where(p * s > F, F // s + 1, p + (F - p * s) // P + 1)
    # x below the statistic: least K with K (Q - P) + min(K, q) max(0, 2P - Q) >= D
    s = max(Q - P, 1)  # Q == P only if alpha rounds up to 1; then D <= q P (first branch)
    if 2 * P <= Q:
        k_below = _ceil_div(D, s)
    else:
        k_below = np.where(q * P >= D, _ceil_div(D, P), q + _ceil_div(D - q * P, s))
    cost = np.where(F >= 0, k_above, np.where(D > 0, k_below, 0))
    return cost.astype(np.int64) if not big else cost


def quantile_gap_levels(j: Any, n: int, P: int, Q: int) -> np.ndarray:
    """Levels of the gaps: u(x) for x strictly between the j-th and (j+1)-th records
    (x not a record), i.e. -(1 + cost(j, 1, n - j))."""
    j = np.asarray(j)
    return -(1 + quantile_costs(j, np.ones_like(j), int(n) - j, P, Q))


def quantile_best_gap(n: int, P: int, Q: int) -> int:
    """The gap index r = ceil(alpha (n + 1)) - 1 of level -1 (the others are lower);
    levels fall weakly as the gap moves away from r on either side."""
    return int(_ceil_div(P * (int(n) + 1), Q)) - 1
# [end:quantile_costs]


def quantile_step_function(x_sorted: Any, bounds: tuple[float, float], alpha: Any) -> StepFunction:
    """The Duff utility of the alpha-quantile as a :class:`StepFunction`: one piece per
    gap between consecutive records (with a and b as outer ends) and one zero-width
    piece per distinct record value."""
    lo, hi = bounds
    y = np.asarray(x_sorted, dtype=np.float64).reshape(-1)
    n = y.size
    P, Q = quantile_rational(alpha, n)
    edges = np.concatenate([[lo], y, [hi]])
    j = np.arange(n + 1)
    gap_levels = quantile_gap_levels(j, n, P, Q)
    vals, first = np.unique(y, return_index=True)
    counts = np.diff(np.append(first, n))
    pt_levels = -quantile_costs(first, counts, n - first - counts, P, Q)
    left = np.concatenate([edges[:-1], vals])
    right = np.concatenate([edges[1:], vals])
    levels = np.concatenate([gap_levels, pt_levels]).astype(np.int64)
    order = np.lexsort((right, left))
    return StepFunction(left[order], right[order], levels[order])


# --------------------------------------------------------------------------- the mode
# [proof:duff_mode_utility]
def duff_mode_utility(x: Any, candidates: Sequence[Any], T: type | None = None) -> np.ndarray:
    """The Duff utility of the mode, u(c, x) = n_c - n_max, for each candidate c.

    [GM-Duff] Definition 8 with T(x) the *set* of modes:
    c counts as the mode of x' when no value is more frequent in x' (ties all
    count).  Then -u(c, x) is the fewest additions and removals that make c a
    mode: adding n_max - n_c copies of c suffices, and fewer cannot, since c
    must overtake a most frequent value v of x and each edit raises n_c or
    lowers n_v by at most one.  Under a single-valued tie-break the losers of a
    tie would need one more edit, which is not the paper's closed form.

    ``T`` (float, int or str) says how records are compared: float compares float64
    values, str compares strings; the default is str when the candidates are
    strings, int when the candidates and records are all integers, else float.
    Returns an int64 array in the candidates' order.

    >>> from opendp_duff.duff_utility import duff_mode_utility
    >>> duff_mode_utility([1, 1, 1, 2, 5, 5], candidates=[1, 2, 3]).tolist()
    [0, -2, -3]
    """
    if T is None:
        if len(candidates) and all(type(c) in (str, np.str_) for c in candidates):
            T = str
        else:
            T = int if _all_int(x, candidates) else float
    cands = validate_candidates(candidates, T)
    counts = candidate_counter(cands, T)(x)
    return counts - _largest_count(x, T)
# [end:duff_mode_utility]


def _all_int(x: Any, candidates: Sequence[Any]) -> bool:
    def is_int(e: Any) -> bool:
        return isinstance(e, numbers.Integral) and not isinstance(e, (bool, np.bool_))
    arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
    recs_int = arr.size == 0 or arr.dtype.kind in "iu" or (
        arr.dtype.kind == "O" and all(is_int(e) for e in arr.reshape(-1)))
    return recs_int and all(is_int(c) for c in candidates)


def _largest_count(x: Any, T: type) -> int:
    """max over values y of the number of records equal to y (0 for no records)."""
    if T is str:
        return max(collections.Counter(x).values(), default=0)
    keys = record_keys(x, T)
    if keys is None:
        tally = collections.Counter(record_key(e, T) for e in x)
        return max(tally.values(), default=0)
    if keys.size == 0:
        return 0
    if T is float:
        keys = np.where(keys == 0, 0.0, keys)  # -0.0 and 0.0 are one value
    return int(np.unique(keys, return_counts=True)[1].max())


# --------------------------------------------------------------------------- public entry
_STATISTICS = ("median", "quantile", "mean", "mode")


# [proof:duff_utility]
def duff_utility(x: Any, statistic: str, bounds: tuple[float, float] | None = None,
                 alpha: Any = None, candidates: Sequence[Any] | None = None) -> StepFunction:
    """The Duff utility u(., x) of a dataset for a statistic, as a :class:`StepFunction`.

    [GM-Duff] Definition 8: -u(y) is the fewest records to add or remove (values in
    ``bounds``) so that the statistic equals y.

    * ``"median"``: the lower median, rank ceil(m / 2) of m records ([GM-Duff] §4.1);
    * ``"quantile"``: rank ceil(alpha m), ``alpha`` in (0, 1), read by
      :func:`opendp_duff._validate.alpha`;
    * ``"mean"``: the step function of [GM-Duff] §4.1 (:mod:`opendp_duff.duff_mean_utility`);
    * ``"mode"``: u(c) = n_c - n_max at each of the public ``candidates`` (zero-width pieces).

    The empty dataset has u = -1 everywhere (one record makes any value the statistic).
    This is an inspection tool and is not differentially private.

    >>> import opendp_duff as dp
    >>> u = dp.duff_utility([1.0, 2.0, 3.0], "median", bounds=(0.0, 4.0))
    >>> u([0.5, 1.5, 2.0, 2.5, 3.5]).tolist()
    [-3.0, -1.0, 0.0, -2.0, -4.0]
    """
    statistic = v.choice("statistic", statistic, set(_STATISTICS))
    if statistic == "mode":
        if candidates is None:
            raise MakeError("candidates (None) must be given for statistic='mode'")
        levels = duff_mode_utility(x, candidates)
        cands = np.asarray(list(candidates))
        order = np.argsort(cands, kind="stable") if cands.dtype.kind in "fiu" else np.arange(cands.size)
        return StepFunction(cands[order], cands[order], np.asarray(levels)[order])
    if bounds is None:
        raise MakeError(f"bounds (None) must be given for statistic={statistic!r}")
    lo, hi = v.bounds("bounds", bounds, float)
    y = np.sort(np.asarray(x, dtype=np.float64).reshape(-1))
    if y.size and (np.isnan(y).any() or y[0] < lo or y[-1] > hi):
        raise MakeError("x must lie within bounds (clamp it first)")
    if statistic == "mean":
        return StepFunction(*duff_mean_step_function(y, (lo, hi)))
    if statistic == "median":
        if alpha is not None:
            raise MakeError(f"alpha ({alpha!r}) is only for statistic='quantile'")
        return quantile_step_function(y, (lo, hi), Fraction(1, 2))
    return quantile_step_function(y, (lo, hi), v.alpha("alpha", alpha))
# [end:duff_utility]


WINDOW_TAIL = 30.0  # the far blocks start this many nats (plus log n) below the best gap


# [proof:quantile_window_size]
def quantile_window(n: int, scale: float) -> int:
    """Half-width k of the Duff quantile sampler's explicit window of gaps around the best one.

    A gap i places from the best has level <= -i (each edit moves the statistic's
    rank by at most one), so with k >= scale (log(n + 2) + WINDOW_TAIL) + 2 the far blocks
    weigh at most e^-WINDOW_TAIL / (n + 2) of (b - a): they are rarely opened.  The choice
    affects only the cost, never the law."""
    if scale == 0:
        return min(n + 1, 2)
    if math.isinf(scale) or scale > n + 2:
        return n + 1
    return int(min(n + 1, max(1, math.ceil(scale * (math.log(n + 2) + WINDOW_TAIL)) + 2)))
# [end:quantile_window_size]


# [proof:sampler_ranks]
def sampler_ranks(n: int, alpha: Fraction, scale: float) -> tuple[int, int] | None:
    """The ranks (first, last) the sampler asks its source for, None for n = 0: what an engine
    may compute ahead, in passes shared with other statistics.

    The same arithmetic as ``_QuantileSampler.__init__`` (best gap r, half-width ``_window``);
    were the two ever to differ, the engine would compute the asked window by another pass, so
    this prediction changes the cost, never the window."""
    if n == 0:
        return None
    P, Q = quantile_rational(alpha, n)
    r = quantile_best_gap(n, P, Q)
    k = quantile_window(n, scale)
    return max(r - k, 1), min(r + k + 1, n)
# [end:sampler_ranks]


# [proof:SamplerRanks]
@attrs.frozen
class SamplerRanks:
    """``sampler_ranks(n, alpha, scale)`` as a value: the prediction a Duff quantile release
    hands its engine (an :data:`~opendp_duff.engines._base.Predict`), with its public
    parameters readable, so that an engine may also evaluate it where the data is."""

    alpha: Fraction
    scale: float

    def __call__(self, n: int) -> tuple[int, int] | None:
        return sampler_ranks(n, self.alpha, self.scale)
# [end:SamplerRanks]
