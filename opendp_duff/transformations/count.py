"""make_count: the number of records."""
from ..core import Transformation, then
from ..domains import AtomDomain
from ..metrics import AbsoluteDistance, ChangeOneDistance
from ._common import dataset_space


def make_count(input_domain, input_metric):
    """Count the records.

    Stability: adding or removing d records moves the count by at most d, so
    ``map(d_in) = d_in`` under the symmetric distance.  Under the change-one
    distance the size is public and fixed, so ``map(d_in) = 0``.

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> t = space >> dp.t.then_count()
    >>> t([1.0, 2.0, 3.0]), t.map(1)
    (3, 1)
    """
    dataset_space(input_domain, input_metric)
    zero = isinstance(input_metric, ChangeOneDistance)
    # A count is a length, so it lies in [0, 2^53]: no Python sequence can be longer, and
    # the bound lets noise mechanisms convert it to a float exactly.
    out = AtomDomain(int, (0, 2 ** 53), False)
    return Transformation(input_domain, out, input_metric, AbsoluteDistance(int),
                          len, (lambda d: 0) if zero else (lambda d: d))


then_count = then(make_count)

__all__ = ["make_count", "then_count"]
