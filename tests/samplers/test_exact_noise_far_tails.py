"""opendp_duff.samplers.exact_noise far in the tails: a draw whose exact value leaves the float
range, or the decimal exponent range (|value| beyond 10^(10^18)), releases -MAX or +MAX by its
sign (R saturates), never raises, never warns.

The extreme draws are forced: a byte source replays chosen uniforms (for example U = 2^-64, or
V_1 = +-1/2 with a tiny Student's T shape d, so that W^(-2/d) overflows every exponent range) and
then continues with a seeded stream for any refinement.  The interval arithmetic's overflow rule
(an end beyond the exponent range becomes the largest finite decimal or an infinity, on its side;
0 times an infinite end is 0) is checked directly.  Nothing here is statistical.
"""
import decimal
import math
import sys
from decimal import Decimal

import pytest

from opendp_duff.samplers import byte_source_for_tests
from opendp_duff.samplers.byte_sources import SeededRandomForTests
from opendp_duff.samplers.exact_noise import (ARSINH_NORMAL, LAPLACE, LLN, POLYNOMIAL_TAIL, STUDENT_T, ULN,
                                              exact_rounded_release)
from opendp_duff.samplers.interval import DecimalIA

pytestmark = pytest.mark.filterwarnings("error")

MAX = sys.float_info.max
HALF_UP = bytes([0xC0]) + bytes(7)     # U = 3/4 (V = 2U - 1 = +1/2)
HALF_DOWN = bytes([0x40]) + bytes(7)   # U = 1/4 (V = -1/2)
MIDDLE = bytes([0x80]) + bytes(7)      # U = 1/2 (V = 0 at the lower end: S = V_1^2 + V_2^2 ~ 1/4, accepted)
TINY = bytes(7) + bytes([1])           # U = 2^-64 (-ln U ~ 44.4)


class Forced:
    """Replays ``prefix``, then a seeded stream (tests only)."""

    def __init__(self, prefix):
        self.buf, self.rest = bytes(prefix), SeededRandomForTests(5)

    def random_bytes(self, n):
        out, self.buf = self.buf[:n], self.buf[n:]
        return out + self.rest.random_bytes(n - len(out))


def release(prefix, center, scale, noise, shape=None):
    with byte_source_for_tests(Forced(prefix)):
        return exact_rounded_release(center, scale, noise, shape)


PLUS, MINUS = b"\x00", b"\x01"   # the sign byte's lowest bit: 1 negates

# (uniforms and sign byte, noise, shape, sign of the exact release); each exact |Z| is beyond 10^300
CASES = [
    (HALF_UP + MIDDLE + PLUS, STUDENT_T, 1e-300, 1),           # W^(-2/d) = e^(2e300 ln 4): decimal overflow
    (HALF_DOWN + MIDDLE + PLUS, STUDENT_T, 5e-324, -1),
    (HALF_UP + MIDDLE + PLUS, ARSINH_NORMAL, 1e300, 1),        # e^(sigma Y), sigma Y ~ 1e300
    (HALF_DOWN + MIDDLE + PLUS, ARSINH_NORMAL, 1e300, -1),
    (HALF_UP + MIDDLE + MIDDLE + PLUS, LLN, 1e300, 1),         # (-ln U'') e^(sigma Y), then the sign bit
    (HALF_UP + MIDDLE + MIDDLE + MINUS, LLN, 1e300, -1),
    (HALF_UP + MIDDLE + HALF_UP + PLUS, ULN, 1e300, 1),        # V'' e^(sigma Y), V'' = +1/2
    (HALF_UP + MIDDLE + HALF_DOWN + PLUS, ULN, 1e300, -1),
    (MIDDLE + TINY + PLUS, POLYNOMIAL_TAIL, 1 + 2 ** -52, 1),   # U U'^(-1/(gamma-1)) ~ 10^(8.7e16)
    (MIDDLE + TINY + MINUS, POLYNOMIAL_TAIL, 1 + 2 ** -52, -1),
]


@pytest.mark.parametrize("prefix,noise,shape,sign", CASES, ids=[f"{c[1].name}-{c[2]}-{c[3]:+d}" for c in CASES])
@pytest.mark.parametrize("center", [0.0, MAX, -MAX])
def test_beyond_the_exponent_range_saturates_by_sign(prefix, noise, shape, sign, center):
    # |c| <= MAX is negligible beside a value beyond 10^300 * sigma: R gives sign * MAX
    assert release(prefix, center, 1.0, noise, shape) == sign * MAX


@pytest.mark.parametrize("center", [MAX, -MAX, 0.0])
@pytest.mark.parametrize("scale", [MAX, (10 ** 400, 1), (MAX, 5e-324)])
def test_laplace_far_tail_saturates(center, scale):
    # Z = +-(-ln 2^-64) ~ +-44.4 and sigma >= MAX: c + sigma Z is beyond +-43 MAX
    assert release(TINY + PLUS, center, scale, LAPLACE) == MAX
    assert release(TINY + MINUS, center, scale, LAPLACE) == -MAX


def test_within_an_ulp_of_max_rounds_to_max():
    # U = 1/2 exactly at 64 bits, refined by the seeded stream: Z = ln 2 + O(2^-64).  sigma = MAX / ln 2
    # (as an exact ratio of a float and an int enclosing ln 2 from above and below) puts c + sigma Z
    # within a few ulps of MAX on either side; R rounds up to MAX either way, never to inf.
    ln2_num = 6931471805599453094172321214581765680755
    den = 10 ** 40
    for num in (ln2_num, ln2_num + 1):
        scale = (int(MAX) * den, num)
        r = release(MIDDLE + PLUS, 0.0, scale, LAPLACE)
        assert r == MAX


def test_every_far_tail_case_releases_finite_floats_from_a_seeded_source():
    # not forced: with these shapes almost every draw is beyond the float range; each result is finite
    for _prefix, noise, shape, _sign in CASES:
        seen = {release(b"", 0.0, 1.0, noise, shape) for _ in range(20)}
        assert all(math.isfinite(r) for r in seen), (noise, shape, seen)


def test_the_interval_arithmetic_overflows_outward():
    ia = DecimalIA.at(30)
    big = Decimal("1e300")
    lo, hi = ia.exp((big, big))                       # e^(1e300): beyond the exponent range
    assert lo.is_finite() and lo.adjusted() == decimal.MAX_EMAX and hi == Decimal("Infinity")
    lo, hi = ia.exp(ia.neg((big, big)))               # e^(-1e300): between 0 and the least subnormal
    assert lo == 0 and 0 < hi
    lo, hi = ia.neg(ia.exp((big, big)))
    assert lo == Decimal("-Infinity") and hi.is_finite() and hi < 0
    # a corner 0 * inf is 0: [0, 1] x [L, inf] = [0, inf] (no InvalidOperation)
    assert ia.mul((Decimal(0), Decimal(1)), ia.exp((big, big))) == (0, Decimal("Infinity"))
    assert ia.mul((Decimal(-1), Decimal(0)), ia.exp((big, big))) == (Decimal("-Infinity"), 0)
    # every later operation keeps an enclosure
    lo, hi = ia.sub(ia.exp((big, big)), ia.const(1.0))
    assert lo > 0 and hi == Decimal("Infinity")
    lo, hi = ia.div(ia.exp((big, big)), ia.const(3.0))
    assert lo > 0 and hi == Decimal("Infinity")
    lo, hi = ia.ln(ia.exp((big, big)))
    assert lo > Decimal("2e18") and hi == Decimal("Infinity")
