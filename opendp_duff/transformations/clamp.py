"""make_clamp: bring every record into [lo, hi]."""
from __future__ import annotations

from typing import Any

import attrs

from .. import _validate as v
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..metrics import Metric
from ._common import dataset_space


def make_clamp(input_domain: VectorDomain, input_metric: Metric, bounds: tuple[Any, Any]) -> Transformation:
    """Replace each record x by min(max(x, lo), hi).

    This is how data enters a bounded domain.  Infinities are members of an unbounded float
    domain and are clamped to the bounds; NaN is not a member, so data with missing values
    goes through :func:`make_impute_constant` first.  A zero is released as +0.0, whatever
    its sign in the data.  The domain's engine clamps: a local column into a new numpy
    array; a Spark column lazily (a row-wise step its statistics evaluate).  Chained before
    :func:`~opendp_duff.measurements.duff.make_duff_quantile` (or the median) on unsorted local
    data, the clamp runs inside their selection instead, with the same release (no copy).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T float or int, without NaN (a
          domain with ``nan=True`` is refused: chain ``make_impute_constant`` first); any
          ``size``, sorted or not, any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: the input domain with elements ``atom_domain(T, bounds=(lo, hi))``;
          size, sortedness and engine are kept (clamping is monotone).
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).
        bounds: ``(lo, hi)``, finite numbers of type T with lo <= hi.

    Stability map:
        ``map(d_in) = d_in``: a record-wise map sends neighbours to neighbours under both
        dataset metrics; exact (no arithmetic), and ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``bounds`` is not a pair of numbers
            (of integers for T int).
        MakeError: strings or NaN in the element domain (impute NaN first); ``change_one_distance()`` on
            a domain of unknown size; ``bounds`` not finite or with lo > hi.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/clamp/make_clamp.tex``.

    References: none needed (a record-wise map; the stability argument is in the proof).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_clamp(bounds=(0.0, 10.0))
        >>> t([-1.0, 5.0, 12.0, float("inf")]).tolist(), t.map(1)
        ([0.0, 5.0, 10.0, 10.0], 1)
    """
    # [proof:make_clamp]
    elem = dataset_space(input_domain, input_metric, any_engine=True,
                         nan_hint=": chain make_impute_constant first to replace NaN")
    T = elem.T
    lo, hi = v.bounds("bounds", bounds, T)
    if T is float:
        lo, hi = lo + 0.0, hi + 0.0       # -0.0 -> +0.0: a bound never brings a negative zero
    out = input_domain.with_(element_domain=AtomDomain(T, (lo, hi), False))
    function = ClampRecords(column_engine(input_domain), T, lo, hi)
    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_clamp]


# [proof:clamp_records]
@attrs.frozen
class ClampRecords:
    """The function of :func:`make_clamp`: each record x_i -> min(max(x_i, lo), hi) (no -0.0),
    by the engine.  Its fields are public so that a step chained after it may fuse with it
    (``after`` in :func:`opendp_duff.links._compose`): e.g. the Duff quantile leaves the clamp
    to its selection of unsorted local records."""

    engine: Any
    T: type
    lo: Any
    hi: Any

    def __call__(self, x: Any) -> Any:
        return self.engine.clamp(x, self.T, self.lo, self.hi)
# [end:clamp_records]


then_clamp = then(make_clamp)

__all__ = ["make_clamp", "then_clamp", "ClampRecords"]
