"""Checks shared by the dataset transformations (the conversion of a member to an array,
``as_array``, is the local engines': :mod:`opendp_duff.engines.local`)."""
from __future__ import annotations


from .. import _validate as v
from ..domains import AtomDomain, VectorDomain
from ..engines.local import as_array
from ..errors import MakeError
from ..metrics import ChangeOneDistance, Metric, SymmetricDistance

__all__ = ["DATASET_METRICS", "dataset_space", "as_array"]

DATASET_METRICS = (SymmetricDistance, ChangeOneDistance)


# [proof:dataset_space]
def dataset_space(input_domain: VectorDomain, input_metric: Metric, *, need_bounds: bool = False,
                  need_size: bool = False, need_sorted: bool = False, T: type | None = None,
                  allow_nan: bool = False, nan_hint: str = "", allow_str: bool = False,
                  any_engine: bool = False) -> AtomDomain:
    """Check that (input_domain, input_metric) is a space of datasets as required; return
    the element domain.  ``nan_hint`` is appended to the message refusing a NaN domain;
    strings are refused unless ``allow_str`` (only constructors that compare records for
    equality, or only count them, accept them); a domain naming an engine (a Spark column) is
    refused unless ``any_engine`` (the constructors that run through the engine's operations)."""
    v.instance("input_domain", input_domain, VectorDomain, "a VectorDomain")
    if input_domain.engine is not None and not any_engine:
        raise MakeError(f"input_domain ({input_domain!r}) must hold local data: this constructor does not "
                        f"run on the {input_domain.engine} engine")
    v.instance("input_metric", input_metric, DATASET_METRICS,
               "symmetric_distance() or change_one_distance()")
    elem = input_domain.element_domain
    if elem.T is str and not allow_str:
        raise MakeError(f"input_domain ({input_domain!r}) must hold numbers, not strings")
    if T is not None and elem.T is not T:
        raise MakeError(f"input_domain ({input_domain!r}) must hold elements of type {T.__name__}")
    if elem.nan and not allow_nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN{nan_hint}")
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
# [end:dataset_space]
