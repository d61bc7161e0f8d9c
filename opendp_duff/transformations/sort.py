"""make_sort: put the records in non-decreasing order."""
from __future__ import annotations

from ..core import Transformation, then
from ..domains import VectorDomain
from ..engines import column_engine
from ..metrics import Metric
from ._common import dataset_space


def make_sort(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """Sort the records in non-decreasing order.

    The smooth mechanisms read order statistics and accept only a sorted domain, which this
    transformation produces (the Duff median and quantiles take either).  The domain's engine
    sorts: a local column into a new numpy array; a Spark column, which has no row order of
    its own, is marked sorted (no pass: every listing the engine makes of it, such as the
    collected column of the smooth mechanisms, is sorted; its statistics read rank windows,
    which need no order).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T float or int, without NaN; any
          bounds, size and engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: the input domain with ``sorted=True``.
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).

    Stability map:
        ``map(d_in) = d_in``: both dataset metrics compare datasets as multisets, which
        sorting does not change; exact, and ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: strings or NaN in the element domain; ``change_one_distance()`` on a domain of
            unknown size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/sort/make_sort.tex``.

    References: none needed (sorting preserves the multiset; see the proof).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_sort()
        >>> t([3.0, 1.0, 2.0]).tolist(), t.map(2), t.output_domain.sorted
        ([1.0, 2.0, 3.0], 2, True)
    """
    # [proof:make_sort]
    T = dataset_space(input_domain, input_metric, any_engine=True).T
    engine = column_engine(input_domain)

    def function(x):
        return engine.sort(x, T)        # a permutation of the records, non-decreasing

    out = input_domain.with_(sorted=True)
    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_sort]


then_sort = then(make_sort)

__all__ = ["make_sort", "then_sort"]
