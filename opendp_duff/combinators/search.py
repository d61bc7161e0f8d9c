"""binary_search_param: the tightest parameter whose chain passes ``check``."""
from __future__ import annotations

import math
import struct
from typing import Any, Callable, Optional, Tuple, Union

from .. import _validate as v
from .._constants import MAX
from ..core import Measurement, Transformation
from ..errors import MakeError

__all__ = ["binary_search_param"]

Param = Union[float, int]
Chain = Callable[[Any], Union[Measurement, Transformation]]

_SMALLEST = 5e-324  # the smallest positive float


def _passes(make_chain: Chain, param: Param, d_in: Any, d_out: Any) -> bool:
    try:
        return bool(make_chain(param).check(d_in, d_out))
    except (TypeError, ValueError):
        return False  # a parameter the constructor refuses does not pass


# The floats in their order as integers: the bit pattern of x >= 0, minus that of -x for x < 0.
# Consecutive floats have consecutive keys, so halving the keys halves the number of floats
# left: at most 64 steps from any bracket to two adjacent floats.
def _key(x: float) -> int:
    bits = struct.unpack("<q", struct.pack("<d", abs(x)))[0]
    return bits if x >= 0 else -bits


def _unkey(k: int) -> float:
    x = struct.unpack("<d", struct.pack("<q", abs(k)))[0]
    return x if k >= 0 else -x


def _default_bounds(test: Callable[[Param], bool], T: type) -> tuple[Param, Param]:
    """[0, MAX] for floats ([2^-1074, MAX] when 0 is refused like MAX); for integers [0, 2^k]
    with the first k that changes the outcome."""
    if T is float:
        if test(0.0) != test(MAX):
            return 0.0, MAX
        return _SMALLEST, MAX
    hi = 1
    while test(0) == test(hi):
        if hi > 2 ** 1000:
            raise MakeError("binary_search_param: no integer parameter in [0, 2^1000] changes the outcome of check")
        hi *= 2
    return 0, hi


def binary_search_param(make_chain: Chain, d_in: Any, d_out: Any, bounds: Optional[Tuple[Param, Param]] = None,
                        T: type = float, guess: Optional[Param] = None) -> Param:
    """Find the tightest parameter for which ``make_chain(param).check(d_in, d_out)`` holds.

    A search over one public parameter (a scale, a number of parts...), not a constructor: it
    only calls ``make_chain`` and ``check``, so its result is as private as the chain it builds.
    Floats are searched in their own order (by bit pattern), so the search ends on two adjacent
    floats after at most about 64 checks, whatever the bounds; a ``guess`` near the answer
    (say within a few ulps) brings that down to a handful: the search gallops away from it
    before halving.

    Contract:
        * ``make_chain(param)`` returns a Transformation or Measurement; a parameter it refuses
          (TypeError or ValueError) counts as failing ``check``.
        * ``check`` is monotone in the parameter (it passes on one side of a threshold).

    Args:
        make_chain: param -> Transformation or Measurement.
        d_in: the input distance passed to ``check``.
        d_out: the output distance (budget) passed to ``check``.
        bounds: (lo, hi) with ``check`` passing at exactly one end; default for floats
            [0, MAX] (or [2^-1074, MAX] when the parameter 0 fails like MAX), for integers
            [0, 2^k] with the first k where the two ends differ.
        T: ``float`` or ``int``, the type of the parameter.
        guess: optional, a parameter believed to be near the answer (only the number of
            checks depends on it, never the result).

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
        >>> dp.binary_search_param(make, d_in=1.0, d_out=0.5, guess=1.9)
        2.0
    """
    if not callable(make_chain):
        raise v.MakeTypeError(f"make_chain ({make_chain!r}) must be callable")
    if T not in (float, int):
        raise v.MakeTypeError(f"T ({T!r}) must be float or int")

    def test(param: Param) -> bool:
        return _passes(make_chain, param, d_in, d_out)

    key: Callable[[Any], int] = _key if T is float else int
    unkey: Callable[[int], Param] = _unkey if T is float else int
    lo, hi = _default_bounds(test, T) if bounds is None else v.bounds("bounds", bounds, T)
    pass_lo, pass_hi = test(lo), test(hi)
    if pass_lo == pass_hi:
        raise MakeError(f"bounds ({(lo, hi)!r}) must straddle the threshold: check gives {pass_lo} at both ends")
    klo, khi = key(lo), key(hi)
    if guess is not None:
        klo, khi = _gallop(lambda k: test(unkey(k)) == pass_lo, klo, khi, _guess_key(guess, T, key))
    # invariant: klo has the outcome of lo, khi the other; halve until they are adjacent
    while khi - klo > 1:
        mid = (klo + khi) // 2
        if test(unkey(mid)) == pass_lo:
            klo = mid
        else:
            khi = mid
    return unkey(klo) if pass_lo else unkey(khi)


def _guess_key(guess: Param, T: type, key: Callable[[Any], int]) -> Optional[int]:
    """The key of a usable guess (a finite number of type T), or None."""
    try:
        g = v.number("guess", guess, integer=T is int)
    except (TypeError, ValueError):
        return None
    return key(g) if T is int or math.isfinite(g) else None


def _gallop(like_lo: Callable[[int], bool], klo: int, khi: int, kg: Optional[int]) -> tuple[int, int]:
    """Shrink (klo, khi) around the threshold starting from the key ``kg``: steps 1, 2, 4...
    away from it until the outcome flips (O(log distance) checks)."""
    if kg is None or not klo < kg < khi:
        return klo, khi
    step = 1
    if like_lo(kg):
        klo = kg
        while klo + step < khi:
            if not like_lo(klo + step):
                return klo, klo + step
            klo, step = klo + step, 2 * step
        return klo, khi
    khi = kg
    while khi - step > klo:
        if like_lo(khi - step):
            return khi - step, khi
        khi, step = khi - step, 2 * step
    return klo, khi
