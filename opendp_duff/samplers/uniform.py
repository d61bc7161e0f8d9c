"""The exact uniform float: a uniform point of [a, b], rounded to the nearest float.

``exact_uniform_float(a, b)`` returns ``R(a + (b - a) U)`` for an exact uniform ``U`` (a
:class:`~opendp_duff.samplers.psrn.PSRN`), where ``R`` rounds to the nearest float, ties to
even.  ``a + (b - a) U`` is computed exactly (floats are dyadic rationals: one integer
numerator over a power of two) at both ends of the PSRN's interval;
when the two ends round to the same float (sign of zero included) that float is ``R`` of
the exact point, otherwise 64 more bits are read.  8 bytes in the common case.
Proof: ``proofs/samplers/uniform.tex``.
"""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..errors import MakeError
from .byte_sources import current_rng
from .psrn import PSRN, round_monotone

__all__ = ["exact_uniform_float", "exact_uniform_floats"]


# [proof:_check_ab]
def _check_ab(a: float, b: float) -> tuple[float, float]:
    a, b = float(a), float(b)
    if not (math.isfinite(a) and math.isfinite(b)):
        raise MakeError(f"a ({a!r}) and b ({b!r}) must be finite")
    if a > b:
        raise MakeError(f"a ({a!r}) must be at most b ({b!r})")
    return a, b
# [end:_check_ab]


# [proof:exact_uniform]
def exact_uniform_float(a: float, b: float) -> float:
    """A uniform point of the real interval [a, b], rounded to the nearest float (ties to even).

    Args:
        a: the left end, a finite float.
        b: the right end, a finite float >= a.

    Returns:
        ``R(a + (b - a) U)`` for an exact uniform ``U``; it lies in [a, b].  ``a`` if a == b.

    Raises:
        MakeError: if a or b is not finite, or a > b.
    """
    a, b = _check_ab(a, b)
    if a == b:
        return a
    return _uniform_from(_affine(a, b), PSRN.draw(8))


def _affine(a: float, b: float) -> tuple[int, int, int]:
    """Integers (NA, NW, q) with a = NA / q and b - a = NW / q exactly, q a power of two."""
    pa, qa = a.as_integer_ratio()      # floats are dyadic: qa, qb are powers of two
    pb, qb = b.as_integer_ratio()
    q = max(qa, qb)
    na = pa * (q // qa)
    return na, pb * (q // qb) - na, q


def _uniform_from(affine: tuple[int, int, int], ps: PSRN) -> float:
    na, nw, q = affine
    # a + (b - a) k 2^-bits = (NA 2^bits + NW k) / (q 2^bits); int / int is correctly rounded
    return round_monotone(ps, lambda k, bits: ((na << bits) + nw * k) / (q << bits))


def exact_uniform_floats(a: float, b: float, size: int) -> npt.NDArray[np.float64]:
    """``size`` independent :func:`exact_uniform_float` draws (the first 8 bytes of all of them
    drawn at once, refinements one by one)."""
    a, b = _check_ab(a, b)
    size = int(size)
    if size < 0:
        raise MakeError(f"size ({size!r}) must be non-negative")
    if a == b or size == 0:
        return np.full(size, a)
    raw = current_rng().random_bytes(8 * size)
    affine = _affine(a, b)
    out = np.empty(size)
    for i in range(size):
        out[i] = _uniform_from(affine, PSRN(int.from_bytes(raw[8 * i:8 * i + 8], "big"), 64))
    return out
# [end:exact_uniform]
