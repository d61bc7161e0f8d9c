"""Checks shared by the dataset transformations."""
import numpy as np

from .. import _validate as v
from ..domains import VectorDomain
from ..errors import MakeError
from ..metrics import ChangeOneDistance, SymmetricDistance

DATASET_METRICS = (SymmetricDistance, ChangeOneDistance)


def dataset_space(input_domain, input_metric, *, need_bounds=False, need_size=False,
                  need_sorted=False, T=None, allow_nan=False):
    """Check that (input_domain, input_metric) is a space of datasets as required."""
    v.instance("input_domain", input_domain, VectorDomain, "a VectorDomain")
    v.instance("input_metric", input_metric, DATASET_METRICS,
               "symmetric_distance() or change_one_distance()")
    elem = input_domain.element_domain
    if T is not None and elem.T is not T:
        raise MakeError(f"input_domain ({input_domain!r}) must hold elements of type {T.__name__}")
    if elem.nan and not allow_nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN")
    if need_bounds and elem.bounds is None:
        raise MakeError(f"input_domain ({input_domain!r}) must be bounded: chain make_clamp first")
    if need_size and input_domain.size is None:
        raise MakeError(f"input_domain ({input_domain!r}) must have a known size")
    if need_sorted and not input_domain.sorted:
        raise MakeError(f"input_domain ({input_domain!r}) must be sorted: chain make_sort first")
    if isinstance(input_metric, ChangeOneDistance) and input_domain.size is None:
        raise MakeError(f"input_metric ({input_metric!r}) needs a domain of known size, "
                        f"not {input_domain!r}")
    return elem


def as_array(x, T=float):
    """A member of a vector domain as a 1-d numpy array of T's dtype."""
    return np.asarray(x, dtype=np.float64 if T is float else np.int64).reshape(-1)
