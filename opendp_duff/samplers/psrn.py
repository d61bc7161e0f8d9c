"""Partially sampled random numbers (PSRN): a uniform known to finitely many bits, refined lazily.

A uniform ``U`` on (0, 1) is the binary expansion ``0.b_1 b_2 ...`` of i.i.d. fair bits.  Its
first ``bits`` bits (the integer ``m``) say ``U in [m 2^-bits, (m+1) 2^-bits]``; appending
fresh bytes from :func:`~opendp_duff.samplers.current_rng` narrows the interval and never
changes the law of ``U``.  Every exact sampler is a short procedure on top of this type:

* :func:`round_monotone`: the nearest float to ``f(U)`` for an exact non-decreasing ``f``
  (the uniform float of :mod:`.uniform`, with ``f`` affine and evaluated in integers);
* :func:`refine_until`: a decision about ``phi(U_1, ..., U_k)`` taken in the interval
  arithmetic of :mod:`.interval` once the enclosures allow it (the noise constructions of
  :mod:`.exact_noise`);
* the Gumbel race of :mod:`.gumbel_race` uses :class:`PSRN` for its decimal levels.

A rounding is *decided* only when both ends of an enclosure round to the same float,
*sign of zero included* (:func:`same_float`): ``-0.0 == 0.0`` in Python, but they are
different releases, and an enclosure straddling 0 does not say which one the exact value
gives.

Every loop of the exact samplers is bounded here, so a broken source (constant bytes) ends in
:class:`~opendp_duff.samplers.EntropyError` instead of an endless loop: a PSRN is never refined
past :data:`MAX_BITS` bits, and a rejection loop makes at most :data:`MAX_ATTEMPTS` attempts
(:func:`rejected_too_often`).  For a uniform source either bound is reached with a probability far
below any privacy parameter in use (``proofs/samplers/psrn.tex``, "Bounded loops").
Proof: ``proofs/samplers/psrn.tex``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from .._constants import MAX as _MAX
from .byte_sources import EntropyError, current_rng
from .interval import ONE, TWO, DecimalIA, Interval, Undecided, digits_for_bits

__all__ = ["PSRN", "same_float", "saturated_float", "round_monotone", "refine_until", "rejected_too_often",
           "MAX_BITS", "MAX_ATTEMPTS"]

T = TypeVar("T")

# [proof:MAX_BITS]
MAX_BITS = 4096
# [end:MAX_BITS]
"""The most bits a PSRN is refined to; asking for more raises EntropyError."""

# [proof:MAX_ATTEMPTS]
MAX_ATTEMPTS = 1000
# [end:MAX_ATTEMPTS]
"""The most attempts of a rejection loop (each accepted with probability >= pi/4); then EntropyError."""


# [proof:psrn]
class PSRN:
    """A uniform on (0, 1) known to its first ``bits`` bits: ``U in [m 2^-bits, (m+1) 2^-bits]``."""

    __slots__ = ("m", "bits")

    def __init__(self, m: int, bits: int) -> None:
        self.m, self.bits = int(m), int(bits)

    @classmethod
    def draw(cls, nbytes: int = 8) -> PSRN:
        """A fresh uniform known to its first ``8 nbytes`` bits."""
        return cls(int.from_bytes(current_rng().random_bytes(nbytes), "big"), 8 * nbytes)

    def refine_to(self, bits: int) -> None:
        """Know at least ``bits`` bits: append fresh random bits, in whole bytes.  More than
        :data:`MAX_BITS` raises EntropyError: a uniform source needs them with probability below
        2^-500 in every sampler of the library (``proofs/samplers/psrn.tex``, "Bounded loops"),
        a constant one forever."""
        extra = bits - self.bits
        if extra > 0:
            if bits > MAX_BITS:
                raise EntropyError(f"a sampler needed more than {MAX_BITS} random bits for one uniform: "
                                   "the random source is not uniform")
            nbytes = (extra + 7) // 8
            self.m = (self.m << (8 * nbytes)) | int.from_bytes(current_rng().random_bytes(nbytes), "big")
            self.bits += 8 * nbytes

    def bounds(self) -> tuple[Fraction, Fraction]:
        """The interval's ends, as exact fractions."""
        return Fraction(self.m, 1 << self.bits), Fraction(self.m + 1, 1 << self.bits)

    def enclosure(self, ia: DecimalIA) -> Interval:
        """An enclosure of U at the precision of ``ia``."""
        return ia.dyadic(self.m, self.bits)

    def centred(self, ia: DecimalIA) -> Interval:
        """An enclosure of V = 2U - 1, uniform on (-1, 1)."""
        lo, hi = ia.dyadic(self.m, self.bits)
        return ia.dn.subtract(ia.dn.multiply(TWO, lo), ONE), ia.up.subtract(ia.up.multiply(TWO, hi), ONE)
# [end:psrn]


# [proof:decided_rounding]
def same_float(x: float, y: float) -> bool:
    """x and y are the same float, sign of zero included (``-0.0 == 0.0`` alone is not enough)."""
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def saturated_float(d: Decimal) -> float:
    """R(d): the nearest float to ``d`` (ties to even), saturated to [-MAX, MAX].  Non-decreasing
    for the order of the floats in which -0.0 < +0.0."""
    return min(max(float(d), -_MAX), _MAX)


def round_monotone(ps: PSRN, rounded: Callable[[int, int], float], step: int = 64) -> float:
    """R(f(U)) for an exact non-decreasing f from [0, 1] into [-MAX, MAX], given
    ``rounded(k, b) = R(f(k 2^-b))`` (R: nearest float, ties to even): refine ``ps`` by ``step``
    bits until both ends of its interval round to the same float, sign of zero included."""
    while True:
        x, y = rounded(ps.m, ps.bits), rounded(ps.m + 1, ps.bits)
        if same_float(x, y):
            return x
        ps.refine_to(ps.bits + step)


def refine_until(us: Sequence[PSRN], decide: Callable[[DecimalIA], T | None]) -> T:
    """``decide(ia)`` at precision ``digits_for_bits(b)`` while the uniforms are known to ``b`` bits;
    until it returns a value (not None, without raising :class:`Undecided`), double ``b``."""
    bits = min(u.bits for u in us)
    while True:
        try:
            out = decide(DecimalIA.at(digits_for_bits(bits)))
            if out is not None:
                return out
        except Undecided:
            pass
        bits *= 2
        for u in us:
            u.refine_to(bits)


def rejected_too_often() -> EntropyError:
    """The error a rejection loop raises after :data:`MAX_ATTEMPTS` rejected attempts (each attempt
    of the library's loops is accepted with probability at least pi/4, so a uniform source is
    rejected that often with probability below (1 - pi/4)^1000 < 2^-2200)."""
    return EntropyError(f"{MAX_ATTEMPTS} attempts of a rejection sampler were all rejected: "
                        "the random source is not uniform")
# [end:decided_rounding]
