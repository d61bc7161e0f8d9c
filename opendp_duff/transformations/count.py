"""make_count: the number of records."""
from __future__ import annotations

from .._constants import EXACT_INT_BOUND
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..metrics import AbsoluteDistance, ChangeOneDistance, Metric
from ._common import dataset_space


def make_count(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """Count the records.

    The domain's engine counts (a local column's length; one aggregation on Spark).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T float, int or str, without NaN,
          any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: ``atom_domain(T=int, bounds=(0, 2^53))``: a count is a length, which
          no Python sequence or numpy array takes beyond 2^53, and the bound lets the noise
          mechanisms convert it to a float exactly.
        * Output metric: ``absolute_distance(T=int)``.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).

    Stability map:
        Under the symmetric distance, adding or removing d records moves the count by at
        most d: ``map(d_in) = d_in``.  Under the change-one distance the size is public and
        fixed: ``map(d_in) = 0``.  Exact integers; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: an element domain admitting NaN; ``change_one_distance()`` on a domain of unknown
            size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/count/make_count.tex``.

    References: [DMNS06] (the count has sensitivity 1 under add/remove).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_count()
        >>> t([1.0, 2.0, 3.0]), t.map(1)
        (3, 1)
    """
    # [proof:make_count]
    dataset_space(input_domain, input_metric, allow_str=True, any_engine=True)
    zero = isinstance(input_metric, ChangeOneDistance)
    out = AtomDomain(int, (0, EXACT_INT_BOUND), False)
    engine = column_engine(input_domain)

    def function(x):
        return engine.count(x)

    return Transformation(input_domain, out, input_metric, AbsoluteDistance(int),
                          function, (lambda d_in: 0) if zero else (lambda d_in: d_in))
    # [end:make_count]


then_count = then(make_count)

__all__ = ["make_count", "then_count"]
