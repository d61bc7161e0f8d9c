"""make_duff_median and make_duff_quantile: the exponential mechanism with the Duff utility.

[GM-Duff] Definition 8 (the utility), Lemma 1 (sensitivity 1), §4.1 (the median), §5
Algorithm 1 and Proposition 5 (the racing sampler).  The closed form of the utility is in
:mod:`opendp_duff.duff_utility`; releases are drawn exactly by
:mod:`opendp_duff.samplers.gumbel_race` and :mod:`opendp_duff.samplers.uniform`.  The sampler
has two stages: :class:`_QuantileSampler` finds the window of gaps around the best one, their
levels and the two far blocks, and :meth:`_QuantileSampler.sample` runs the race on them.

The sampler reads the data only through a *rank window*
(:mod:`opendp_duff.engines.rank_window`): n, the sorted records of the ranks around the
target, and for each tail outside them its count, its ties with the window's end and a
callable that returns the tail sorted, called only when the tail's block must be opened.
The input domain's engine hands out that rank source: locally, sorted input gives the window
by slicing (:class:`SortedRecords`) and input in any order by selection, one pass that counts
the records outside a bracket of values around the window and gathers those inside
(:class:`SelectedRecords`, :mod:`opendp_duff.engines.selection`), so an unsorted vector is
never sorted unless a tail's bound could win; on Spark, exact histograms bracket the window
and only the window reaches the driver (:mod:`opendp_duff.engines.spark.ranks`).  Every
source gives the sampler the same inputs, so the release has the same law.

Proofs: ``proofs/measurements/duff/make_duff_median.tex`` and ``make_duff_quantile.tex``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import attrs
import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import DiscreteLaw, step_function_law
from ..core import Measurement, then
from ..domains import VectorDomain
from ..duff_utility import quantile_best_gap, quantile_gap_levels, quantile_rational, quantile_step_function
from ..engines import as_array, column_engine
from ..engines.rank_window import RankSource, SortedRecords
from ..errors import MakeError
from ..measures import MaxDivergence
from ..metrics import Metric, SymmetricDistance
from ..samplers.gumbel_race import LazyGroup, exact_race_with_lazy_blocks
from ..samplers.uniform import exact_uniform_float
from ..transformations import dataset_space
from ..transformations.clamp import ClampRecords

__all__ = ["make_duff_median", "then_duff_median", "make_duff_quantile", "then_duff_quantile",
           "duff_quantile_sample", "sampler_ranks"]

_TAIL = 30.0  # the far blocks start this many nats (plus log n) below the best gap


# [proof:_Block]
class _Block(NamedTuple):
    """The gaps g0..g1-1 outside the window on one side: their span, their live gap nearest
    the window (None if none has positive width) and their ends on demand."""

    g0: int
    g1: int
    span_lo: float
    span_hi: float
    live: int | None
    ends: Callable[[], np.ndarray]
# [end:_Block]


# [proof:quantile_window_size]
def _window(n: int, scale: float) -> int:
    """Half-width k of the explicit window of gaps around the best one.

    A gap i places from the best has level <= -i (each edit moves the statistic's
    rank by at most one), so with k >= scale (log(n + 2) + _TAIL) + 2 the far blocks
    weigh at most e^-_TAIL / (n + 2) of (b - a): they are rarely opened.  The choice
    affects only the cost, never the law."""
    if scale == 0:
        return min(n + 1, 2)
    if math.isinf(scale) or scale > n + 2:
        return n + 1
    return int(min(n + 1, max(1, math.ceil(scale * (math.log(n + 2) + _TAIL)) + 2)))
# [end:quantile_window_size]


# [proof:_QuantileSampler]
class _QuantileSampler:
    """The Duff alpha-quantile mechanism on records in [lo, hi], sampled exactly.

    Candidates: the n + 1 gaps, gap j = [e_j, e_{j+1}] with e = (lo, y_1..y_n, hi) (y the
    sorted records), level L_j = quantile_gap_levels(j) and width w_j.  (Records have
    Lebesgue measure zero.)

    Stage 1, the window and the levels (``__init__``): the gaps within ``_window`` of the
    best gap r are items; they need the records of ranks j0..j1 only, which the
    :class:`~opendp_duff.engines.rank_window.RankSource` hands out as a rank window
    (``data``: a sorted array, or any source of that module).  The gaps left and right of
    the window form two lazy blocks, one per tail.  Levels fall away from r, so a block's
    live (positive-width) gaps all have level at most that of its live gap nearest the
    window (located by the tail's count of ties with the window's end), and they are
    disjoint inside the block's span: (span) exp(that level / scale) bounds the block's
    mass, and the tail's records are asked for (sorted) only if that bound could win.

    Stage 2, the race (``sample``): the exact race
    (:func:`opendp_duff.samplers.gumbel_race.exact_race_with_lazy_blocks`) chooses gap j with
    probability exactly w_j exp(L_j / scale) / Z (the inputs read as exact rationals), and
    the release is an exact uniform point of it rounded to the nearest float.  scale = 0
    keeps the gaps of the top live level (weight w_j); scale = inf weighs every gap by w_j.

    Work per release: O(window) plus the source's cost of the window (O(log n) sorted,
    O(n) by selection), plus the cost of a tail with tiny probability.  The window depends
    on n (private under add/remove): it changes the cost, never the law.
    """

    def __init__(self, data: np.ndarray | RankSource, lo: float, hi: float, alpha: Fraction | float,
                 scale: float) -> None:
        # [proof:quantile_window]
        src = SortedRecords(data) if isinstance(data, np.ndarray) else data
        self.lo, self.hi, self.scale = lo, hi, scale
        n = self.n = src.n
        self.P, self.Q = quantile_rational(alpha, n)
        r = quantile_best_gap(n, self.P, self.Q)
        k = _window(n, scale)
        j0, j1 = max(0, r - k), min(n + 1, r + k + 1)       # items: gaps j0..j1-1
        win = src.window(max(j0, 1), min(j1, n)) if n else None
        vals = win.values if win is not None else np.empty(0)
        e = np.concatenate([[lo] if j0 == 0 else [], vals, [hi] if j1 == n + 1 else []])
        left, right = e[:-1], e[1:]                           # e_j0..e_j1: the ends of the items
        tails: list[_Block] = []
        if win is not None and j0 > 0:   # gaps 0..j0-1 span [lo, e_j0]; records 1..j0-1 < e_j0 unless tied
            v = float(vals[0])
            t = int(lo < v) + j0 - 1 - win.left.ties         # #{0 <= i <= n : e_i < e_j0}
            tails.append(_Block(0, j0, lo, v, t - 1 if t >= 1 else None, _ends(lo, win.left.values, v)))
        if win is not None and j1 <= n:  # gaps j1..n span [e_j1, hi]; e_s = e_j1 for s = j1..j1+ties
            v = float(vals[-1])
            s = j1 + win.right.ties
            tails.append(_Block(j1, n + 1, v, hi, s if s < n or hi > v else None, _ends(v, win.right.values, hi)))
        # the levels of the items, then of each block's live gap nearest the window (one evaluation)
        lives = [b.live for b in tails if b.live is not None]
        gaps = np.concatenate([np.arange(j0, j1, dtype=np.int64), np.array(lives, dtype=np.int64)])
        all_levels = quantile_gap_levels(gaps, n, self.P, self.Q).astype(np.float64)
        levels, live_levels = all_levels[:j1 - j0], all_levels[j1 - j0:]
        window_live = levels[right > left]
        tops = live_levels.tolist() + ([float(np.max(window_live))] if window_live.size else [])
        self.top = max(tops) if tops else -1.0  # lo < hi: some gap is live, so tops is not empty
        # [end:quantile_window]
        # [proof:quantile_race_inputs]
        self.near_left, self.near_right = left, right
        numers, self.denom = self._numer(all_levels)           # element by element
        self.near_numer = numers[:j1 - j0]
        ups = dict(zip(lives, numers[j1 - j0:].tolist(), strict=True))     # the numerator of each block's live gap
        self._tails = tails
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.blocks: list[LazyGroup] = []
        self._block_ids: list[int] = []
        for b, block in enumerate(tails):
            if block.live is None:  # no live gap: the block has no mass
                continue
            up = ups[block.live]
            if up == -np.inf:  # scale 0 and below the top level: no mass
                continue
            self.blocks.append(LazyGroup(up, block.span_lo, block.span_hi, self._members_fn(b)))
            self._block_ids.append(b)
        # [end:quantile_race_inputs]

    # [proof:quantile_sampler_helpers]
    def _numer(self, levels: np.ndarray) -> tuple[np.ndarray, float]:
        """(numerators, denominator) of the exact race: weight w exp(numer / denom)."""
        if self.scale == 0:
            return np.where(levels >= self.top, 0.0, -np.inf), 1.0
        if math.isinf(self.scale):
            return np.zeros(levels.shape), 1.0
        return levels, self.scale

    def _members(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(numer, left, right) of every gap of block b (built once, then cached)."""
        if b not in self._cache:
            block = self._tails[b]
            e = block.ends()                               # e_g0..e_g1
            levels = quantile_gap_levels(np.arange(block.g0, block.g1), self.n, self.P, self.Q)
            self._cache[b] = (self._numer(levels.astype(np.float64))[0], e[:-1], e[1:])
        return self._cache[b]

    def _members_fn(self, b: int) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return lambda: self._members(b)

    def sample(self) -> float:
        j, i = exact_race_with_lazy_blocks(self.near_numer, self.denom, self.near_left,
                                           self.near_right, self.blocks)
        if j is None:
            return exact_uniform_float(self.near_left[i], self.near_right[i])
        _, left, right = self._members(self._block_ids[j])
        return exact_uniform_float(left[i], right[i])


def _ends(a: float, tail: Callable[[], np.ndarray], b: float) -> Callable[[], np.ndarray]:
    """The ends of a block's gaps, on demand: a, the tail's sorted records, b."""
    return lambda: np.concatenate([[a], tail(), [b]])
# [end:quantile_sampler_helpers]
# [end:_QuantileSampler]


def duff_quantile_sample(x_sorted: Any, bounds: tuple[float, float], alpha: Fraction | float,
                         scale: float, size: int | None = None) -> float | np.ndarray:
    """Releases of the Duff alpha-quantile mechanism: the sampler behind
    :func:`make_duff_quantile`, for batches (``size`` draws share the set-up).

    ``x_sorted`` must be sorted and inside ``bounds`` (it is data, so it is not
    checked: chain ``make_clamp`` and ``make_sort`` or sort and clip it yourself).  The
    public parameters are validated as in :func:`make_duff_quantile`.  Each draw is a
    separate release: k draws cost k times the privacy of one (``make_duff_quantile(...).map``).
    Not a constructor, so not in ``dp.m``: import it from this module.
    """
    lo, hi = v.bounds("bounds", bounds, float)
    alpha = v.alpha("alpha", alpha)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    if size is not None:
        size = v.number("size", size, integer=True, nonneg=True)
    y = np.clip(np.asarray(x_sorted, dtype=np.float64).reshape(-1), lo, hi)
    return _sample(SortedRecords(y), lo, hi, alpha, scale, size)


# [proof:duff_quantile_sample]
def _sample(src: RankSource, lo: float, hi: float, alpha: Fraction | float, scale: float,
            size: int | None = None) -> Any:
    """Draw from validated parameters and a source of records inside [lo, hi]."""
    if not lo < hi:  # the output space is one point
        return lo if size is None else np.full(size, lo)
    sampler = _QuantileSampler(src, lo, hi, alpha, scale)
    if size is None:
        return sampler.sample()
    return np.array([sampler.sample() for _ in range(size)], dtype=np.float64)
# [end:duff_quantile_sample]


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
    k = _window(n, scale)
    return max(r - k, 1), min(r + k + 1, n)
# [end:sampler_ranks]


# [proof:_check_space]
def _check_space(input_domain: Any, input_metric: Any) -> tuple[float, float]:
    elem = dataset_space(input_domain, input_metric, need_bounds=True, T=float, any_engine=True)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance() "
                        "(add/remove neighbours, [GM-Duff] Definition 1)")
    assert elem.bounds is not None  # need_bounds=True refused unbounded domains
    return elem.bounds
# [end:_check_space]


def make_duff_quantile(input_domain: VectorDomain, input_metric: Metric, alpha: Fraction | float,
                       scale: float) -> Measurement:
    """Release a point near the alpha-quantile: the exponential mechanism with the Duff utility.

    Releases a float of [a, b] drawn with density proportional to exp(u(x) / scale), rounded
    to the nearest float, where -u(x) is the fewest records to add or remove so that x is
    the order statistic of rank ceil(alpha m) of the m records ([GM-Duff] Definition 8;
    the closed form is in :mod:`opendp_duff.duff_utility`).  For no records u = -1 everywhere.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T=float, bounds=(a, b)))``, a <= b
          finite, no NaN (chain ``then_clamp``), sorted or not, any engine: unsorted local
          records are not sorted but selected (the window around the target rank in one pass,
          O(n); after ``then_clamp`` to the same bounds the clamp is done by that pass, with
          the same release, and no clamped copy is made), sorted ones (``then_sort``,
          ``sorted=True``) are read in O(log n); a Spark column's window is computed by Spark
          (usually three aggregations, only the window's values reach the driver).
        * Input metric: ``symmetric_distance()`` (add/remove one record, [GM-Duff] Definition 1).
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: ``symmetric_distance()``.
        alpha: the quantile level, in the open interval (0, 1).  A ``fractions.Fraction`` is
            exact; a float or numpy float is read as the decimal it prints as (``0.1`` and
            ``np.float32(0.1)`` are 1/10), by :func:`opendp_duff._validate.alpha`.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 2 / epsilon`` gives
            epsilon-DP (the paper's exp(epsilon u / 2)).

    Privacy map:
        ``map(d_in) = 2 d_in / scale``, rounded up: u moves by at most d_in ([GM-Duff]
        Lemma 1) and so does the log of the data-dependent normaliser.  ``map(0) = 0``;
        scale 0 gives ``inf`` (the release is uniform on the top level's positive-width gaps,
        by width); scale ``inf`` gives 0 (uniform on [a, b], whatever the data).

    Sampling is exact: a Gumbel race over the gaps between records ([GM-Duff] §5,
    Algorithm 1 and Proposition 5) decided by :mod:`opendp_duff.samplers.gumbel_race`, then
    an exact uniform point of the chosen gap rounded to the nearest float.  Only the gaps
    near the target rank are built; the rest form two lazy blocks, opened (and, for unsorted
    input, sorted) only if their bound could win.  The law is the same sorted or not; the
    running time depends on the data (n, ties) and is not protected.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``alpha`` or ``scale`` is not a real
            number.
        MakeError: an element type other than float, NaN, or no bounds; ``input_metric`` not
            ``symmetric_distance()``; ``alpha`` not in (0, 1); ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/duff/make_duff_quantile.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1, §5 (Algorithm 1, Proposition 5); [MT07].

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> m = (space >> dp.t.then_clamp(bounds=(0.0, 10.0))
        ...      >> dp.m.then_duff_quantile(alpha=0.25, scale=2.0))
        >>> m.map(1)
        1.0
        >>> 0.0 <= m([float(i % 10) for i in range(100)]) <= 10.0
        True
    """
    # [proof:make_duff_quantile]
    lo, hi = _check_space(input_domain, input_metric)
    level = v.alpha("alpha", alpha)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    return _make(input_domain, input_metric, level, scale, lo, hi)
    # [end:make_duff_quantile]


# [proof:_make]
def _make(input_domain: VectorDomain, input_metric: Metric, alpha: Fraction, scale: float,
          lo, hi) -> Measurement:
    # [proof:duff_quantile_make]
    engine = column_engine(input_domain)
    function = _Release(engine, input_domain.sorted, lo, hi, alpha, scale)

    def privacy_map(d_in: int) -> float:
        return ar.div_up(2 * d_in, scale)
    # [end:duff_quantile_make]

    def output_law(x):  # the exact law of the release (opendp_duff.audit)
        if not lo < hi:
            return DiscreteLaw((lo,), [0.0])
        u = quantile_step_function(np.sort(as_array(engine.collect(x))), (lo, hi), alpha)
        return step_function_law(u.left, u.right, u.levels, scale)

    return Measurement(input_domain, input_metric, MaxDivergence(), function, privacy_map,
                       output_law=output_law)
# [end:_make]


# [proof:duff_quantile_release]
@attrs.frozen
class _Release:
    """The function of :func:`make_duff_quantile`: a draw from the engine's rank source of the
    records (bounds ``(lo, hi)``).  ``after(f)`` fuses it with a clamp to the same bounds of
    unsorted local records: the selection clips each record as it reads it
    (``select_window(..., clip=(lo, hi))``), so no clamped copy is made, and the draw is that of
    this function on ``f``'s output (the same window, ties and tails: they are functions of the
    multiset of clamped records).  Otherwise None: the chain composes the two."""

    engine: Any
    is_sorted: bool
    lo: float
    hi: float
    alpha: Fraction
    scale: float

    def predict(self, n: int) -> tuple[int, int] | None:   # the window the sampler will ask for
        return sampler_ranks(n, self.alpha, self.scale)

    def __call__(self, x: Any) -> float:
        source = self.engine.rank_source(x, (self.lo, self.hi), self.is_sorted, self.predict)
        return _sample(source, self.lo, self.hi, self.alpha, self.scale)

    def after(self, f: Any) -> Callable[[Any], float] | None:
        if not (type(f) is ClampRecords and f.engine is self.engine and self.engine.local
                and not self.is_sorted and f.T is float and (f.lo, f.hi) == (self.lo, self.hi)):
            return None
        return lambda x: _sample(self.engine.clipped_rank_source(x, (self.lo, self.hi)),
                                 self.lo, self.hi, self.alpha, self.scale)
# [end:duff_quantile_release]


def make_duff_median(input_domain: VectorDomain, input_metric: Metric, scale: float) -> Measurement:
    """Release a point near the median: the exponential mechanism with the Duff utility.

    This is :func:`make_duff_quantile` with alpha = 1/2: the median of m records is the
    *lower* median, of rank ceil(m / 2), as in [GM-Duff] §4.1.  For x strictly between
    the j-th and (j+1)-th of the n sorted records (records 0 and n + 1 being a and b),
    u(x) = -max(n - 2j, 2j + 1 - n): level -1 on the gap j = ceil((n+1)/2) - 1, falling by
    2 per gap on each side, the two sides one apart.  For no records u = -1 everywhere.

    Contract:
        * Input domain, input metric and output measure: those of :func:`make_duff_quantile`
          (bounded floats, sorted or not; ``symmetric_distance()``; ``max_divergence()``).

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: ``symmetric_distance()``.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 2 / epsilon`` gives
            epsilon-DP (the paper's exp(epsilon u / 2)).

    Privacy map:
        ``map(d_in) = 2 d_in / scale``, rounded up ([GM-Duff] Lemma 1 and the data-dependent
        normaliser).  ``map(0) = 0``; scale 0 gives ``inf`` (uniform on the top level's
        positive-width gaps, by width); scale ``inf`` gives 0 (uniform on [a, b]).

    Sampling is exact, as in :func:`make_duff_quantile`; the running time is not protected.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``scale`` is not a real number.
        MakeError: an element type other than float, NaN, or no bounds; ``input_metric`` not
            ``symmetric_distance()``; ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/duff/make_duff_median.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1 (Medians), §5 (Algorithm 1,
    Proposition 5); [MT07].

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> m = (space >> dp.t.then_clamp(bounds=(-10.0, 10.0))
        ...      >> dp.m.then_duff_median(scale=2.0 / 1.0))
        >>> m.map(1)
        1.0
        >>> -10.0 <= m([-1.0, 0.0, 0.5, 2.0, 30.0]) <= 10.0
        True
    """
    # [proof:make_duff_median]
    lo, hi = _check_space(input_domain, input_metric)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    return _make(input_domain, input_metric, Fraction(1, 2), scale, lo, hi)
    # [end:make_duff_median]


then_duff_quantile = then(make_duff_quantile)
then_duff_median = then(make_duff_median)
