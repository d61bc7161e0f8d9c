"""binary_search_param: the tightest parameter whose chain passes ``check``."""
import math

from .. import _validate as v
from ..errors import MakeError


def _passes(make_chain, param, d_in, d_out):
    try:
        return bool(make_chain(param).check(d_in, d_out))
    except (TypeError, ValueError):
        return False  # a parameter the constructor refuses does not pass


def binary_search_param(make_chain, d_in, d_out, bounds=None, T=float):
    """Find the parameter closest to the failing side for which
    ``make_chain(param).check(d_in, d_out)`` holds.

    ``check`` must be monotone in the parameter (for example it passes for every
    scale above some threshold).  The direction is read off the two ends of
    ``bounds``; without bounds the search widens exponentially from (0, 1] for
    floats or (0, 1] as integers.  The returned parameter always passes
    ``check``: it is the smallest passing value when larger ones pass, the
    largest when smaller ones pass.

    >>> import opendp_duff as dp
    >>> make = lambda s: dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), s)
    >>> dp.binary_search_param(make, d_in=1.0, d_out=0.5)
    2.0
    """
    if not callable(make_chain):
        raise v.MakeTypeError(f"make_chain ({make_chain!r}) must be callable")
    if T not in (float, int):
        raise v.MakeTypeError(f"T ({T!r}) must be float or int")
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
