"""make_duff_mean: the Duff exponential mechanism for the mean ([GM-Duff] §4.1, "Means").

The utility of an output x is minus the fewest additions and removals of
records in [lo, hi] that make the mean equal x ([GM-Duff] Definition 8).
:mod:`opendp_duff.duff_mean_utility` computes it as a step function in O(n) after sorting,
vectorised, with exact integer arithmetic; the proof is
``proofs/measurements/duff_mean/make_duff_mean.tex``.  A release needs only the levels
near the top, which depend only on the few largest and smallest records and on the sum
of all: :mod:`opendp_duff.measurements._mean_window` computes those (by selection when
the input is not sorted) and keeps the rest of the step function as two lazy blocks.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import DiscreteLaw, step_function_law
from ..core import Measurement, then
from ..domains import VectorDomain
from ..duff_mean_utility import duff_mean_step_function
from ..errors import MakeError
from ..measures import MaxDivergence
from ..metrics import Metric, SymmetricDistance
from ..samplers.uniform import exact_uniform_float
from ..engines import as_array, column_engine
from ..transformations import dataset_space
from ._mean_window import MeanSampler

__all__ = ["make_duff_mean", "then_duff_mean"]


def make_duff_mean(input_domain: VectorDomain, input_metric: Metric, scale: float) -> Measurement:
    """Release a point near the mean: the exponential mechanism with the Duff utility.

    Releases a float of [lo, hi] drawn with density proportional to exp(u(x) / scale),
    rounded to the nearest float, where -u(x) is the fewest records in [lo, hi] to add or
    remove so that the mean is x ([GM-Duff] Definition 8, §4.1 "Means"; the step function
    is :func:`duff_mean_step_function`).  The utility is computed exactly for the records
    rounded to the grid lo + j (hi - lo) / 2^32, so the target is the mean within
    (hi - lo) 2^-33.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T, bounds=(lo, hi)))`` with T float or
          int, lo <= hi finite, no NaN (chain ``then_clamp``), sorted or not, any engine: a
          release reads the few largest and smallest records (sliced when ``sorted=True``,
          selected by ``np.partition`` otherwise) and the exact sum of all.  A Spark column is
          collected to the driver first (one pass; driver memory O(n)).
        * Input metric: ``symmetric_distance()`` (add/remove one record, [GM-Duff] Definition 1).
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: bounded float vectors, sorted or not (see the contract).
        input_metric: ``symmetric_distance()``, the only metric accepted.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 2 / epsilon`` gives
            epsilon-DP (the paper's exp(epsilon u / 2)).

    Privacy map:
        ``map(d_in) = 2 d_in / scale``, rounded up: u moves by at most d_in ([GM-Duff]
        Lemma 1) and so does the log of the data-dependent normaliser.  ``map(0) = 0``;
        scale 0 gives ``inf`` (the release is uniform on the top level's positive-width
        pieces, by width: the limit of the law as scale -> 0); scale ``inf`` gives 0
        (uniform on [lo, hi], whatever the data).

    Sampling is exact: a Gumbel race over the pieces ([GM-Duff] §5, Algorithm 1 and
    Proposition 5) decided by :mod:`opendp_duff.samplers.gumbel_race`, then an exact
    uniform point of the chosen piece rounded to the nearest float.  Only the pieces near
    the top level are built; the others form two lazy blocks, built (after sorting
    unsorted input) only if their bound could win.  The law is the same sorted or not; the
    running time depends on the data and is not protected.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``scale`` is not a real number.
        MakeError: strings or NaN in the element domain, or no bounds; ``input_metric`` not
            ``symmetric_distance()``; ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/duff_mean/make_duff_mean.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1 (Means), §5 (Algorithm 1,
    Proposition 5); [MT07].

    Example (records need not be sorted; two people added or removed cost twice one):
        >>> import opendp_duff as dp
        >>> records = dp.vector_domain(dp.atom_domain(T=float))
        >>> m = ((records, dp.symmetric_distance()) >> dp.t.then_clamp(bounds=(0.0, 10.0))
        ...      >> dp.m.then_duff_mean(scale=2.0))
        >>> m.map(1), m.map(2)
        (1.0, 2.0)
        >>> 0.0 <= m([3.0, 12.0, 1.0, 2.0]) <= 10.0
        True
    """
    # [proof:make_duff_mean]
    elem = dataset_space(input_domain, input_metric, need_bounds=True, any_engine=True)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance(): "
                        "the Duff utility counts added and removed records")
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    assert elem.bounds is not None  # need_bounds=True refused unbounded domains
    lo, hi = float(elem.bounds[0]), float(elem.bounds[1])
    bounds, presorted = (lo, hi), bool(input_domain.sorted)
    engine = column_engine(input_domain)

    def function(x: Any) -> float:
        if not hi > lo:
            return lo
        if math.isinf(scale):  # every piece weighs its width: uniform on [lo, hi]
            return exact_uniform_float(lo, hi)
        y = as_array(engine.collect(x))  # a new array: the records, sorted if the column is
        return MeanSampler(y, lo, hi, scale, presorted, owned=True).sample()

    def privacy_map(d_in: int) -> float:
        return ar.div_up(2 * d_in, scale)
    # [end:make_duff_mean]

    # [proof:make_duff_mean.output_law]
    def output_law(x):  # the exact law of the release (opendp_duff.audit)
        if not hi > lo:
            return DiscreteLaw((lo,), [0.0])
        y = np.sort(np.clip(as_array(engine.collect(x)), lo, hi))
        return step_function_law(*duff_mean_step_function(y, bounds), scale)
    # [end:make_duff_mean.output_law]

    return Measurement(input_domain, input_metric, MaxDivergence(), function, privacy_map,
                       output_law=output_law)


then_duff_mean = then(make_duff_mean)
