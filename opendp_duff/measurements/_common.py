"""Checks shared by the noise-adding measurements."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _validate as v
from .._constants import MAX
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError
from ..samplers.exact_noise import exact_rounded_release


# [proof:float_space]
def float_space(input_domain: AtomDomain | VectorDomain, input_metric: Any,
                atom_metric: Callable[[type], Any], vector_metric: Callable[[type], Any]) -> bool:
    """Accept an atom domain with ``atom_metric(T)`` or a vector one with ``vector_metric(T)``,
    for T float, or T int bounded within [-2^53, 2^53]; no NaN.  Returns whether it is a vector."""
    if isinstance(input_domain, AtomDomain):
        elem, metric = input_domain, atom_metric
    elif isinstance(input_domain, VectorDomain) and input_domain.engine is None:
        elem, metric = input_domain.element_domain, vector_metric
    elif isinstance(input_domain, VectorDomain):
        raise MakeError(f"input_domain ({input_domain!r}) must hold local values (a numpy array), not a "
                        "column of an engine: reduce it to a number first (make_count, make_sum)")
    else:
        raise v.MakeTypeError(f"input_domain ({input_domain!r}) must be an AtomDomain or VectorDomain")
    if elem.nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN")
    # beyond 2^53 the conversion to float can stretch distances, which the map ignores
    v.exact_int_bounds("input_domain", input_domain, elem.T, elem.bounds)
    expected = metric(elem.T)
    if input_metric != expected:
        raise MakeError(f"input_metric ({input_metric!r}) must be {expected!r} for {input_domain!r}")
    return isinstance(input_domain, VectorDomain)
# [end:float_space]


# [proof:exact_release]
def exact_release(x, scale, noise, is_vector, float_noise):
    """Each coordinate released as round(x_i + scale Z_i): Z_i exactly of law ``noise``
    ("laplace" or "gaussian"), rounded once to the nearest float
    (:func:`opendp_duff.samplers.exact_noise.exact_rounded_release`), so the set of possible
    releases does not leak x through float porosity.  An infinite coordinate is released
    as is (x + Z = x); an infinite scale releases noise alone (``float_noise(size)``, +-MAX),
    which does not depend on x."""
    if scale == np.inf:  # the noise alone: a random sign, magnitude saturated at MAX
        noise = np.copysign(MAX, float_noise(noise_size(x, is_vector)))
        return noise if is_vector else float(noise)
    values = np.asarray(x, dtype=np.float64).reshape(-1) if is_vector else (float(x),)
    out = [exact_rounded_release(c, scale, noise) if np.isfinite(c) else c for c in values]
    return np.array(out, dtype=np.float64) if is_vector else out[0]
# [end:exact_release]


def noise_size(x: Any, is_vector: bool) -> tuple[int, ...] | None:
    return np.asarray(x).reshape(-1).shape if is_vector else None
