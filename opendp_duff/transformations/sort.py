"""make_sort: put the records in non-decreasing order."""
import numpy as np

from ..core import Transformation, then
from ._common import as_array, dataset_space


def make_sort(input_domain, input_metric):
    """Sort the records.

    Our dataset metrics compare datasets as multisets, which sorting does not
    change, so ``map(d_in) = d_in``.  The output domain is the input domain
    with ``sorted=True``: mechanisms that need sorted input accept only it.

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> t = space >> dp.t.then_sort()
    >>> t([3.0, 1.0, 2.0]).tolist(), t.map(2), t.output_domain.sorted
    ([1.0, 2.0, 3.0], 2, True)
    """
    elem = dataset_space(input_domain, input_metric)
    T = elem.T

    def function(x):
        return np.sort(as_array(x, T), kind="stable" if T is int else None)

    out = input_domain.with_(sorted=True)
    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d: d)


then_sort = then(make_sort)

__all__ = ["make_sort", "then_sort"]
