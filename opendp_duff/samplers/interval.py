"""Directed-rounding interval arithmetic on decimals: the one arithmetic of the exact samplers.

An *enclosure* is a pair ``(lo, hi)`` of :class:`~decimal.Decimal` with ``lo <= v <= hi`` for
the exact real ``v`` it stands for.  :class:`DecimalIA` at precision ``p`` (significant
digits) maps enclosures of the arguments to an enclosure of the result, for every exact
argument inside the argument enclosures:

* ``+ - * /`` are computed twice, in a ``ROUND_FLOOR`` and a ``ROUND_CEILING`` context, on
  the corners of the argument boxes (exact operands; only the result is rounded);
* ``exp``, ``ln``, ``sqrt`` are evaluated by ``decimal`` (correctly rounded to nearest, so
  no ``p``-digit decimal lies strictly between the result and the exact value) and moved
  *one* ``p``-digit step outward with ``next_minus`` / ``next_plus``, which then encloses the
  exact value (``(eq:widen)`` in ``proofs/samplers/psrn.tex``).  For a narrow argument,
  ``exp`` and ``ln`` evaluate one end only and bound the other end rigorously.

An enclosure too wide to decide, or to stay inside a function's domain (``ln`` of an
interval reaching 0, division by an interval reaching 0), raises :class:`Undecided`: the
caller refines its uniforms and tries again at a higher precision (:func:`digits_for_bits`).

An end may be infinite: a result beyond the exponent range (about ``10^(10^18)``, reached by
``exp`` of a few ``10^18``, say a Student's T draw with a tiny ``d``) overflows in the
direction of the context, so a lower end becomes the largest finite decimal or ``-inf`` and an
upper end ``+inf`` or the most negative finite decimal: still an enclosure.  A lower end is
never ``+inf`` and an upper end never ``-inf``, and a product's corner ``0 * inf`` is ``0``, so
no operation meets ``inf - inf`` or ``0 * inf``.
"""
from __future__ import annotations

import decimal
import functools
from decimal import Decimal

__all__ = ["Interval", "Undecided", "DecimalIA", "digits_for_bits"]

Interval = tuple[Decimal, Decimal]
INF = Decimal("Infinity")
ZERO = Decimal(0)
ONE = Decimal(1)
TWO = Decimal(2)
# (eq:narrow-exp) and (eq:narrow-ln) in proofs/samplers/psrn.tex: one-ended bounds below this width
# [proof:_NARROW]
_NARROW = Decimal("1e-6")
# [end:_NARROW]


# [proof:Undecided]
class Undecided(Exception):
    """An enclosure is too wide to decide, or to stay inside a function's domain: refine."""
# [end:Undecided]


# [proof:digits_for_bits]
def digits_for_bits(bits: int) -> int:
    """Decimal precision used with uniforms known to ``bits`` bits (a bit is 0.30103 digits):
    ``6 + floor(0.31 bits)``, so the rounding of the arithmetic stays below the width of the
    uniforms' intervals and both shrink together (``(eq:digits)`` in ``proofs/samplers/psrn.tex``)."""
    return 6 + (31 * bits) // 100
# [end:digits_for_bits]


# [proof:decimal_ia]
def _times(ctx: decimal.Context, x: Decimal, y: Decimal) -> Decimal:
    """x y rounded in ``ctx``; 0 times an infinite end is 0 (the ends stand for finite reals)."""
    return ZERO if x.is_zero() or y.is_zero() else ctx.multiply(x, y)


class DecimalIA:
    """Enclosure arithmetic at ``prec`` significant digits (see the module docstring)."""

    __slots__ = ("prec", "dn", "up", "ne")

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.dn = _context(prec, decimal.ROUND_FLOOR)       # rounds toward -inf
        self.up = _context(prec, decimal.ROUND_CEILING)     # rounds toward +inf
        self.ne = _context(prec, decimal.ROUND_HALF_EVEN)   # for exp, ln, sqrt (correctly rounded)

    @staticmethod
    def at(prec: int) -> DecimalIA:
        """The (cached) arithmetic at ``prec`` digits."""
        return _cached(prec)

    # -- point bounds of the correctly rounded functions: one step outward (eq:widen)
    def ln_dn(self, x: Decimal) -> Decimal:
        """A lower bound on ln x, x >= 0 (-inf at 0)."""
        if x.is_zero():
            return -INF
        return INF if x.is_infinite() else self.ne.next_minus(x.ln(self.ne))

    def ln_up(self, x: Decimal) -> Decimal:
        """An upper bound on ln x, x >= 0 (-inf at 0)."""
        if x.is_zero():
            return -INF
        return INF if x.is_infinite() else self.ne.next_plus(x.ln(self.ne))

    def exp_dn(self, x: Decimal) -> Decimal:
        """A lower bound on e^x, never negative."""
        if x.is_infinite():
            return ZERO if x < 0 else INF
        return max(self.ne.next_minus(x.exp(self.ne)), ZERO)

    def exp_up(self, x: Decimal) -> Decimal:
        """An upper bound on e^x."""
        if x.is_infinite():
            return ZERO if x < 0 else INF
        return self.ne.next_plus(x.exp(self.ne))

    # -- enclosures of exact inputs
    def const(self, x: float | int) -> Interval:
        """A float or int, read exactly, enclosed at this precision."""
        d = Decimal(x)
        return self.dn.plus(d), self.up.plus(d)

    def dyadic(self, m: int, bits: int) -> Interval:
        """An enclosure of the real interval [m 2^-bits, (m+1) 2^-bits]."""
        p = Decimal(1 << bits)
        return self.dn.divide(Decimal(m), p), self.up.divide(Decimal(m + 1), p)

    # -- arithmetic on enclosures
    def add(self, a: Interval, b: Interval) -> Interval:
        return self.dn.add(a[0], b[0]), self.up.add(a[1], b[1])

    def sub(self, a: Interval, b: Interval) -> Interval:
        return self.dn.subtract(a[0], b[1]), self.up.subtract(a[1], b[0])

    def neg(self, a: Interval) -> Interval:
        # context methods: Python's unary minus would round in the thread's default context
        return self.dn.minus(a[1]), self.up.minus(a[0])

    def mul(self, a: Interval, b: Interval) -> Interval:
        """The extremes of x y over a box are at its corners (a corner 0 * inf is 0)."""
        corners = [(x, y) for x in a for y in b]
        lo = min(_times(self.dn, x, y) for x, y in corners)
        hi = max(_times(self.up, x, y) for x, y in corners)
        return lo, hi

    def div(self, a: Interval, b: Interval) -> Interval:
        """x / y for y > 0: increasing in x; in y decreasing where x >= 0 and increasing where x < 0."""
        if not b[0] > 0:
            raise Undecided
        return (self.dn.divide(a[0], b[1] if a[0] >= 0 else b[0]),
                self.up.divide(a[1], b[0] if a[1] >= 0 else b[1]))

    def ratio(self, num: float | int, den: float | int) -> Interval:
        """An enclosure of the exact num / den, den > 0 (both read exactly)."""
        n, d = Decimal(num), Decimal(den)
        return self.dn.divide(n, d), self.up.divide(n, d)

    def square(self, a: Interval) -> Interval:
        lo, hi = a
        if lo >= 0:
            return self.dn.multiply(lo, lo), self.up.multiply(hi, hi)
        if hi <= 0:
            return self.dn.multiply(hi, hi), self.up.multiply(lo, lo)
        return ZERO, max(self.up.multiply(lo, lo), self.up.multiply(hi, hi))

    def exp(self, a: Interval) -> Interval:
        """e^x is increasing; narrow arguments: e^hi <= e^lo (1 + delta + delta^2) (eq:narrow-exp)."""
        lo, hi = a
        up = self.up
        delta = up.subtract(hi, lo)
        if delta > _NARROW:
            return self.exp_dn(lo), self.exp_up(hi)
        r = lo.exp(self.ne)                     # one evaluation, widened both ways (eq:widen)
        e_lo, e_hi = max(self.ne.next_minus(r), ZERO), self.ne.next_plus(r)
        return e_lo, up.multiply(e_hi, up.add(ONE, up.add(delta, up.multiply(delta, delta))))

    def ln(self, a: Interval) -> Interval:
        """ln x is increasing on x > 0; narrow arguments: ln hi <= ln lo + delta / lo (eq:narrow-ln)."""
        lo, hi = a
        if not lo > 0:
            raise Undecided
        up = self.up
        delta = up.subtract(hi, lo)
        if delta > up.multiply(lo, _NARROW):
            return self.ln_dn(lo), self.ln_up(hi)
        r = lo.ln(self.ne)                      # one evaluation, widened both ways (eq:widen)
        return self.ne.next_minus(r), up.add(self.ne.next_plus(r), up.divide(delta, lo))

    def sqrt_nonneg(self, a: Interval) -> Interval:
        """sqrt of a quantity known to be >= 0 (a negative lower end is raised to 0)."""
        if a[1] < 0:
            raise Undecided
        ne = self.ne
        return max(ne.next_minus(max(a[0], ZERO).sqrt(ne)), ZERO), ne.next_plus(a[1].sqrt(ne))
# [end:decimal_ia]


def _context(prec: int, rounding: str) -> decimal.Context:
    """A NaN or a division by zero raises; an overflow rounds in the context's direction (to the
    largest finite decimal or to an infinity, both bounds on the side they stand for)."""
    return decimal.Context(prec=prec, rounding=rounding, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                           traps=[decimal.InvalidOperation, decimal.DivisionByZero])


@functools.lru_cache(maxsize=64)
def _cached(prec: int) -> DecimalIA:
    return DecimalIA(prec)
