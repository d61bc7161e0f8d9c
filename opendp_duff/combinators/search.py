"""binary_search_param: the tightest parameter whose chain passes ``check``."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Tuple, Union

from .. import _validate as v
from ..core import Measurement, Transformation
from ..errors import MakeError

__all__ = ["binary_search_param"]

Param = Union[float, int]


def _passes(make_chain: Callable[[Any], Union[Measurement, Transformation]], param: Param,
            d_in: Any, d_out: Any) -> bool:
    try:
        return bool(make_chain(param).check(d_in, d_out))
    except (TypeError, ValueError):
        return False  # a parameter the constructor refuses does not pass


def binary_search_param(make_chain: Callable[[Any], Union[Measurement, Transformation]], d_in: Any,
                        d_out: Any, bounds: Optional[Tuple[Param, Param]] = None,
                        T: type = float) -> Param:
    """Find the tightest parameter for which ``make_chain(param).check(d_in, d_out)`` holds.

    A search over one public parameter (a scale, a number of parts...), not a constructor: it
    only calls ``make_chain`` and ``check``, so its result is as private as the chain it builds.

    Contract:
        * ``make_chain(param)`` returns a Transformation or Measurement; a parameter it refuses
          (TypeError or ValueError) counts as failing ``check``.
        * ``check`` is monotone in the parameter (it passes on one side of a threshold).

    Args:
        make_chain: param -> Transformation or Measurement.
        d_in: the input distance passed to ``check``.
        d_out: the output distance (budget) passed to ``check``.
        bounds: (lo, hi) with ``check`` passing at exactly one end; default: widen (0, 1] by
            doubling up to 1e300 until the two ends differ.
        T: ``float`` or ``int``, the type of the parameter.

    Returns:
        The passing parameter next to the threshold: the smallest passing value when larger
        ones pass, the largest when smaller ones pass (adjacent floats, or integers, apart
        from a failing one).  MakeError when no bounds straddle the threshold.

    Proof: none needed for privacy: the chain returned by ``make_chain`` carries its own proof,
    and ``check`` is ``d_out >= map(d_in)``.

    References: none (a search over a public parameter, not a mechanism).

    Example:
        >>> import opendp_duff as dp
        >>> make = lambda s: dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), s)
        >>> dp.binary_search_param(make, d_in=1.0, d_out=0.5)
        2.0
    """
    if not callable(make_chain):
        raise v.MakeTypeError(f"make_chain ({make_chain!r}) must be callable")
    if T not in (float, int):
        raise v.MakeTypeError(f"T ({T!r}) must be float or int")
    lo: Param
    hi: Param
    if bounds is None:
        lo, hi = (0.0, 1.0) if T is float else (0, 1)
        while _passes(make_chain, lo, d_in, d_out) == _passes(make_chain, hi, d_in, d_out):
            if abs(hi) > 1e300:
                raise MakeError("binary_search_param: no parameter in (0, 1e300] changes the outcome of check")
            hi = hi * 2
    else:
        lo, hi = v.bounds("bounds", bounds, T)
    pass_lo, pass_hi = _passes(make_chain, lo, d_in, d_out), _passes(make_chain, hi, d_in, d_out)
    if pass_lo == pass_hi:
        raise MakeError(f"bounds ({(lo, hi)!r}) must straddle the threshold: check gives {pass_lo} at both ends")
    # invariant: exactly one end passes; shrink until the ends are adjacent
    while True:
        mid = (lo + hi) // 2 if T is int else lo + (hi - lo) / 2
        if mid in (lo, hi) or (T is float and math.nextafter(lo, hi) == hi):
            break
        if _passes(make_chain, mid, d_in, d_out) == pass_lo:
            lo = mid
        else:
            hi = mid
    return lo if pass_lo else hi
