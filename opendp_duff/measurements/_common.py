"""Checks shared by the noise-adding measurements."""
import numpy as np

from .. import _validate as v
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError

MAX = np.finfo(np.float64).max


def float_space(input_domain, input_metric, atom_metric, vector_metric):
    """Accept an atom domain with ``atom_metric(T)`` or a vector one with ``vector_metric(T)``,
    for T float or int; the release is always float."""
    if isinstance(input_domain, AtomDomain):
        elem, metric = input_domain, atom_metric
    elif isinstance(input_domain, VectorDomain):
        elem, metric = input_domain.element_domain, vector_metric
    else:
        raise v.MakeTypeError(f"input_domain ({input_domain!r}) must be an AtomDomain or VectorDomain")
    if elem.nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN")
    if elem.T is int and (elem.bounds is None or max(map(abs, elem.bounds)) > 2 ** 53):
        # beyond 2^53 the conversion to float can stretch distances, which the map ignores
        raise MakeError(f"input_domain ({input_domain!r}): integer inputs must be bounded "
                        "within [-2^53, 2^53] so that they convert to floats exactly")
    expected = metric(elem.T)
    if input_metric != expected:
        raise MakeError(f"input_metric ({input_metric!r}) must be {expected!r} for {input_domain!r}")
    return isinstance(input_domain, VectorDomain)


def add_noise(x, noise, is_vector, scale=None):
    """x + noise without NaN: the noise is clipped to the finite floats first, so an
    infinite input stays infinite and an overflowing sum becomes +-inf, never NaN.
    With an infinite scale the release is the noise alone: it must not depend on x."""
    noise = np.clip(noise, -MAX, MAX)
    if scale == np.inf:
        return noise if is_vector else float(noise)
    if is_vector:
        return np.asarray(x, dtype=np.float64).reshape(-1) + noise
    return float(x) + float(noise)


def noise_size(x, is_vector):
    return np.asarray(x).reshape(-1).shape if is_vector else None
