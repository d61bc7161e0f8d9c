"""make_int_to_float: integer records as the floats of the same value, exactly."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._constants import EXACT_INT_BOUND
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError
from ..metrics import Metric
from ..engines import as_array
from ._common import dataset_space

__all__ = ["make_int_to_float", "then_int_to_float"]


# [proof:int_to_float_kernel]
def _int_to_float_local(x: Any, bounds: tuple[float, float]) -> np.ndarray:
    return as_array(x, int).astype(np.float64)   # each record k, |k| <= 2^53: exactly float(k)


def _kernel(input_domain: VectorDomain) -> Callable[[Any, tuple[float, float]], Any]:
    """The cast of the domain's engine: a Spark column is cast lazily, by a step of the column
    (:mod:`._cast_spark`); a local column (numpy, or read from pandas or Polars, eager or
    lazy) into a new float64 array."""
    if input_domain.engine == "spark":
        from ._cast_spark import int_to_float_spark
        return int_to_float_spark
    return _int_to_float_local
# [end:int_to_float_kernel]


def make_int_to_float(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """Replace each integer record k by the float of the same value, exactly.

    Every integer k with |k| <= 2^53 is a float64, so the cast changes no value; beyond 2^53
    some integers are not, and the cast would round them, so the input must be bounded inside
    [-2^53, 2^53] first (``make_clamp`` with integer bounds).  This is how an integer column
    reaches the float statistics (the Duff median, quantiles and mean, the sum, the smooth
    mechanisms).  The domain's engine casts: a local column into a new float64 array; a Spark
    column lazily (a row-wise step its statistics evaluate).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T=int, bounds=(lo, hi)))`` with
          -2^53 <= lo <= hi <= 2^53; any ``size``, sorted or not, any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: ``vector_domain(atom_domain(T=float, bounds=(lo, hi)))`` with the same
          size, sortedness (the cast is increasing) and engine.
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).

    Stability map:
        ``map(d_in) = d_in``: a record-wise map sends neighbours to neighbours under both
        dataset metrics; exact (no arithmetic), and ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: an element type other than int, no bounds, bounds outside [-2^53, 2^53];
            ``change_one_distance()`` on a domain of unknown size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/cast/make_int_to_float.tex``.

    References: none needed (a record-wise map; why it is exact is in the proof).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_clamp(bounds=(0, 100)) >> dp.t.then_int_to_float()
        >>> t([3, 250, -7]).tolist(), t.output_domain.element_domain.bounds, t.map(1)
        ([3.0, 100.0, 0.0], (0.0, 100.0), 1)
    """
    # [proof:make_int_to_float]
    elem = dataset_space(input_domain, input_metric, T=int, need_bounds=True, any_engine=True)
    assert elem.bounds is not None                 # by dataset_space
    lo, hi = elem.bounds
    if not -EXACT_INT_BOUND <= lo <= hi <= EXACT_INT_BOUND:
        raise MakeError(f"input_domain ({input_domain!r}): the bounds must lie within [-2^53, 2^53], where "
                        "every integer is exactly a float: clamp to such integer bounds first")
    bounds = (float(lo), float(hi))                # exact: |lo|, |hi| <= 2^53
    out = input_domain.with_(element_domain=AtomDomain(float, bounds, False))
    kernel = _kernel(input_domain)

    def function(x):
        return kernel(x, bounds)                   # each record k: exactly float(k)

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_int_to_float]


then_int_to_float = then(make_int_to_float)
