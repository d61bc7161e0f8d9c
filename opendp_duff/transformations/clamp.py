"""make_clamp: bring every record into [lo, hi]."""
import numpy as np

from .. import _validate as v
from ..core import Transformation, then
from ..domains import AtomDomain
from ._common import as_array, dataset_space


def make_clamp(input_domain, input_metric, bounds):
    """Replace each record x by min(max(x, lo), hi), and a NaN record by lo.

    This is how raw data enters a bounded domain.  The input element domain may
    admit NaN (``atom_domain(nan=True)``); NaN records, and NaN in data that is
    not a member at all, become ``lo``, so every output lies in [lo, hi].

    Stability: a record-wise map, so neighbouring datasets stay neighbours:
    ``map(d_in) = d_in`` under the symmetric or change-one distance.
    Size is preserved, and so is sortedness when the input admits no NaN
    (clamping is monotone; mapping NaN to lo is not).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> t = space >> dp.t.then_clamp(bounds=(0.0, 10.0))
    >>> t([-1.0, 5.0, 12.0]).tolist(), t.map(1)
    ([0.0, 5.0, 10.0], 1)
    """
    elem = dataset_space(input_domain, input_metric, allow_nan=True)
    lo, hi = v.bounds("bounds", bounds, elem.T)
    out = input_domain.with_(element_domain=AtomDomain(elem.T, (lo, hi), False),
                             sorted=input_domain.sorted and not elem.nan)
    T = elem.T

    def function(x):
        y = np.clip(as_array(x, T), lo, hi)
        if T is float:
            nan = np.isnan(y)
            if nan.any():
                y[nan] = lo
        return y

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d: d)


then_clamp = then(make_clamp)

__all__ = ["make_clamp", "then_clamp"]
