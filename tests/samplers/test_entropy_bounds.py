"""A broken random source ends in EntropyError, never in an endless loop.

* ``check_entropy`` (run before every release) draws 32 bytes and refuses 32 equal bytes or a
  short read; a uniform source gives 32 equal bytes with probability 256^-31 = 2^-248.
* Past that check, a source that turns constant is caught by the loop bounds of the exact
  samplers (``samplers/psrn.py``): a uniform is never refined past MAX_BITS = 4096 bits and a
  rejection loop makes at most MAX_ATTEMPTS = 1000 attempts.

Every test here is structurally bounded: the stuck sources fail the test (``pytest.fail``, a
BaseException that no sampler catches) after serving a fixed number of bytes, so a missing
bound fails instead of hanging (pytest-timeout is not installed)."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.samplers import EntropyError, SecureRandom, byte_source_for_tests, check_entropy
from opendp_duff.samplers.exact_noise import GAUSSIAN, LAPLACE, STUDENT_T, exact_rounded_release
from opendp_duff.samplers.gumbel_race import exact_gumbel_race
from opendp_duff.samplers.psrn import MAX_ATTEMPTS, MAX_BITS, PSRN
from opendp_duff.samplers.uniform import exact_uniform_float

SPACE = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
VARIED = bytes(range(1, 33))              # passes the entropy check


class Stuck:
    """``prefix``, then ``value`` forever; fails the test after ``budget`` bytes."""

    def __init__(self, value, prefix=b"", budget=2_000_000):
        self.value, self.prefix, self.budget, self.served = value, bytes(prefix), budget, 0

    def random_bytes(self, n):
        self.served += n
        if self.served > self.budget:
            pytest.fail(f"{self.served} bytes drawn from a stuck source: a loop is not bounded")
        take, self.prefix = self.prefix[:n], self.prefix[n:]
        return take + bytes([self.value]) * (n - len(take))


def median():
    return SPACE >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0)


def laplace():
    return dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)


def noisy_max():
    scores = dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance()
    return scores >> dp.m.then_report_noisy_max_gumbel(scale=1.0)


@pytest.mark.parametrize("value", [0x00, 0xFF, 0x80])
def test_check_entropy_refuses_constant_bytes(value):
    with byte_source_for_tests(Stuck(value, budget=32)):
        with pytest.raises(EntropyError, match="constant"):
            check_entropy()


def test_check_entropy_refuses_a_short_read_and_passes_a_working_source():
    class Short:
        def random_bytes(self, n):
            return bytes(range(n - 1))

    with byte_source_for_tests(Short()):
        with pytest.raises(EntropyError):
            check_entropy()
    with byte_source_for_tests(Stuck(0, prefix=VARIED, budget=32)):
        check_entropy()
    with byte_source_for_tests(SecureRandom()):
        check_entropy()


@pytest.mark.parametrize("release", [lambda: median()([1.0, 2.0, 3.0]), lambda: laplace()(0.5),
                                     lambda: noisy_max()([1.0, 1.0, 1.0])], ids=["median", "laplace", "noisy_max"])
@pytest.mark.parametrize("value", [0x00, 0xFF])
def test_a_release_on_a_stuck_source_fails_at_the_check(release, value):
    source = Stuck(value, budget=32)      # nothing beyond the check's 32 bytes may be drawn
    with byte_source_for_tests(source):
        with pytest.raises(EntropyError):
            release()
    assert source.served == 32


@pytest.mark.slow      # refinements up to 4096 bits, at about 1300 decimal digits
@pytest.mark.parametrize("release", [
    lambda: median()._function(np.array([1.0, 2.0, 3.0])),
    lambda: median()._function(np.array([5.0] * 9)),
    lambda: laplace()._function(0.5),
    lambda: exact_rounded_release(0.0, 1.0, LAPLACE),
    lambda: exact_rounded_release(0.0, 1.0, GAUSSIAN),
    lambda: exact_rounded_release(0.0, 1.0, STUDENT_T, 3.0),
    lambda: exact_gumbel_race([0.0, 0.0]),
    lambda: exact_gumbel_race(np.zeros(20)),
    lambda: noisy_max()._function(np.array([1.0, 1.0, 1.0])),
], ids=["median", "median_ties", "laplace", "exact_laplace", "exact_gaussian", "exact_student_t", "race_2",
        "race_20", "noisy_max"])
@pytest.mark.parametrize("value", [0x00, 0xFF, 0x80])
def test_past_the_check_the_loop_bounds_end_a_stuck_source(release, value):
    """Equal competitors draw equal bytes and tie forever; a uniform stuck at 0 has -ln U
    undecided forever; a polar attempt with V = +-1 is rejected forever.  Each either ends in
    EntropyError or returns (a constant source may still decide, e.g. 0x80 gives U = 128/255)."""
    source = Stuck(value)
    with byte_source_for_tests(source):
        try:
            out = release()
        except EntropyError:
            return
    assert isinstance(out, (int, float, np.integer, np.floating)) and not math.isnan(out)


@pytest.mark.slow
def test_ties_between_equal_competitors_end_in_entropy_error():
    with byte_source_for_tests(Stuck(0x80)):
        with pytest.raises(EntropyError, match=f"{MAX_BITS}"):
            exact_gumbel_race([0.0, 0.0])


def test_a_zero_uniform_ends_the_laplace_refinement():
    with byte_source_for_tests(Stuck(0)):
        with pytest.raises(EntropyError, match=f"{MAX_BITS}"):
            exact_rounded_release(0.0, 1.0, LAPLACE)


def test_a_rejected_attempt_after_another_ends_the_polar_loop():
    source = Stuck(0)                      # V1 = V2 = -1: S = 2 > 1, rejected at 64 bits each time
    with byte_source_for_tests(source):
        with pytest.raises(EntropyError, match=f"{MAX_ATTEMPTS}"):
            exact_rounded_release(0.0, 1.0, GAUSSIAN)
    assert source.served == MAX_ATTEMPTS * (8 * GAUSSIAN.uniforms + 1)


def test_an_undecidable_rounding_ends_the_uniform_float():
    """U = 1/4 exactly (0x40 then zeros): 2^-1073 U = 2^-1075 is the midpoint of 0 and the least
    subnormal, so the enclosure of a PSRN holding those bits never rounds to one float."""
    with byte_source_for_tests(Stuck(0, prefix=b"\x40")):
        with pytest.raises(EntropyError, match=f"{MAX_BITS}"):
            exact_uniform_float(0.0, 2.0 ** -1073)


def test_the_bits_bound_is_exact():
    with byte_source_for_tests(Stuck(0x5A)):
        u = PSRN.draw()
        u.refine_to(MAX_BITS)
        assert u.bits == MAX_BITS
        with pytest.raises(EntropyError):
            u.refine_to(MAX_BITS + 1)
        assert u.bits == MAX_BITS
