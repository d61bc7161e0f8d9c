"""make_clamp: bring every record into [lo, hi]."""
import numpy as np

from .. import _validate as v
from ..core import Transformation, then
from ..domains import AtomDomain
from ._common import as_array, dataset_space


def make_clamp(input_domain, input_metric, bounds):
    """Replace each record x by min(max(x, lo), hi).

    Stability: a record-wise map, so neighbouring datasets stay neighbours:
    ``map(d_in) = d_in`` under the symmetric or change-one distance.
    Sortedness and size are preserved (clamping is monotone).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> t = space >> dp.t.then_clamp(bounds=(0.0, 10.0))
    >>> t([-1.0, 5.0, 12.0]).tolist(), t.map(1)
    ([0.0, 5.0, 10.0], 1)
    """
    elem = dataset_space(input_domain, input_metric)
    lo, hi = v.bounds("bounds", bounds, elem.T)
    out = input_domain.with_(element_domain=AtomDomain(elem.T, (lo, hi), False))
    T = elem.T

    def function(x):
        return np.clip(as_array(x, T), lo, hi)

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d: d)


then_clamp = then(make_clamp)

__all__ = ["make_clamp", "then_clamp"]
