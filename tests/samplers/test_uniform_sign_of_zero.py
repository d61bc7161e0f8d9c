"""opendp_duff.samplers.uniform: the rounding decision includes the sign of zero.

An enclosure of the exact point that straddles 0 rounds to -0.0 at its lower end and +0.0 at
its upper end; ``-0.0 == 0.0`` in Python, but the two are different releases, and only the
exact point (its side of 0) may choose.  Forced bytes put the uniform's first 64-bit interval
across the zero of a + (b - a) U; the release must be R of the exact point, which the test
recomputes from every byte the sampler consumed.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from helpers import Recorder
from opendp_duff.samplers import SeededRandomForTests, byte_source_for_tests
from opendp_duff.samplers.psrn import PSRN, round_monotone, same_float
from opendp_duff.samplers.uniform import exact_uniform_float, exact_uniform_floats

TINY = 2.0 ** -1074                     # the smallest positive float
A, B = -TINY, 2 * TINY                  # a + (b - a) U = TINY (3U - 1): zero at U = 1/3
M0 = (1 << 64) // 3                     # [M0, M0 + 1] 2^-64 contains 1/3 in its interior


def signed(x):
    return x, math.copysign(1.0, x)


def test_the_first_interval_straddles_zero():
    # the premise: both ends of the 64-bit interval round to zeros of opposite signs
    lo = Fraction(A) + Fraction(B - A) * Fraction(M0, 1 << 64)
    hi = Fraction(A) + Fraction(B - A) * Fraction(M0 + 1, 1 << 64)
    assert signed(float(lo)) == (0.0, -1.0) and signed(float(hi)) == (0.0, 1.0)
    assert float(lo) == float(hi)       # which is why == alone cannot decide


@pytest.mark.parametrize("seed", range(60))
def test_straddling_enclosure_is_refined_and_the_sign_is_the_exact_points(seed):
    rec = Recorder(seed, prefix=M0.to_bytes(8, "big"))
    with byte_source_for_tests(rec):
        got = exact_uniform_float(A, B)
    m, bits = int.from_bytes(rec.log, "big"), 8 * len(rec.log)
    assert bits > 64                    # the straddling 64-bit interval was refined
    ends = [Fraction(A) + Fraction(B - A) * Fraction(k, 1 << bits) for k in (m, m + 1)]
    assert all(signed(float(e)) == signed(got) for e in ends)   # R of every point of the final interval
    side = 3 * m - (1 << bits)          # sign of 3U - 1 on the final interval (never 0: U != 1/3)
    assert signed(got) == ((0.0, -1.0) if side < 0 else (0.0, 1.0))


def test_both_signs_occur_with_the_straddling_prefix():
    # given the prefix, U < 1/3 with probability exactly 1/3: both zeros must be released
    signs = []
    for seed in range(60):
        with byte_source_for_tests(Recorder(seed, prefix=M0.to_bytes(8, "big"))):
            signs.append(math.copysign(1.0, exact_uniform_float(A, B)))
    assert set(signs) == {-1.0, 1.0}


def test_vectorised_draws_use_the_same_decision():
    rec = Recorder(0, prefix=M0.to_bytes(8, "big") * 4)
    with byte_source_for_tests(rec):
        out = exact_uniform_floats(A, B, 4)
    assert np.all(out == 0.0) and len(rec.log) > 32   # every straddling draw was refined


def test_same_float_and_round_monotone():
    assert same_float(1.5, 1.5) and same_float(-0.0, -0.0) and same_float(0.0, 0.0)
    assert not same_float(-0.0, 0.0) and not same_float(0.0, -0.0) and not same_float(1.0, 2.0)
    # f(U) = -U 2^-1100 < 0 for every U > 0, but f(0) = 0 rounds to +0.0: the first interval
    # [0, 2^-64] straddles, and only refinement shows that the release is -0.0
    ps = PSRN(0, 64)
    with byte_source_for_tests(SeededRandomForTests(1)):
        x = round_monotone(ps, lambda k, bits: -k / (1 << (1100 + bits)))   # R(f(k 2^-bits))
    assert signed(x) == (0.0, -1.0) and ps.bits > 64
