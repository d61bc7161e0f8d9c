"""make_duff_median and make_duff_quantile: the exponential mechanism with the Duff utility.

[GM-Duff] Definition 8 (the utility), Lemma 1 (sensitivity 1), §4.1 (the median), §5
Algorithm 1 and Proposition 5 (the racing sampler).  The closed form of the utility is in
:mod:`opendp_duff.duff_utility`; releases are drawn exactly by
:mod:`opendp_duff.samplers.gumbel_race` and :mod:`opendp_duff.samplers.uniform`.  The sampler
has two stages (:mod:`.duff_sampler`): the sampler finds the window of gaps around the best
one, their levels and the two far blocks, and then runs the race on them.

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

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import attrs
import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import DiscreteLaw, step_function_law
from ..core import Measurement, then
from ..domains import VectorDomain
from ..duff_utility import (quantile_step_function,
                            SamplerRanks, sampler_ranks)
from ..engines import as_array, column_engine
from ..errors import MakeError
from ..measures import MaxDivergence
from ..metrics import Metric, SymmetricDistance
from ..transformations import dataset_space
from ..transformations.clamp import ClampRecords

from .duff_sampler import _sample, duff_quantile_sample

__all__ = ["make_duff_median", "then_duff_median", "make_duff_quantile", "then_duff_quantile",
           "duff_quantile_sample", "sampler_ranks"]



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

    def __call__(self, x: Any) -> float:
        predict = SamplerRanks(self.alpha, self.scale)   # the window the sampler will ask for
        source = self.engine.rank_source(x, (self.lo, self.hi), self.is_sorted, predict)
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
