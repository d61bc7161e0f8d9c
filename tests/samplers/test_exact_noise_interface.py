"""opendp_duff.samplers.exact_noise: the noise laws are objects, the boundary uses library errors.

``exact_rounded_release`` takes one of the module's ExactNoise constants (no strings) and
checks the shape parameter against the law before drawing any byte; the laws of the
constructions are tested in tests/test_exact_noise.py.
"""
import math

import pytest

from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.samplers import byte_source_for_tests, seeded_rng_for_tests
from opendp_duff.samplers.exact_noise import (ARSINH_NORMAL, EXACT_NOISES, GAUSSIAN, LAPLACE, LLN, POLYNOMIAL_TAIL,
                                              STUDENT_T, ULN, ExactNoise, exact_rounded_release)

SHAPES = {LAPLACE: None, GAUSSIAN: None, STUDENT_T: 3.0, POLYNOMIAL_TAIL: 2.0, LLN: 0.5, ULN: 1.5,
          ARSINH_NORMAL: 0.7}


def test_the_constants():
    assert EXACT_NOISES == (LAPLACE, GAUSSIAN, STUDENT_T, POLYNOMIAL_TAIL, LLN, ULN, ARSINH_NORMAL)
    assert [n.name for n in EXACT_NOISES] == ["laplace", "gaussian", "student_t", "polynomial_tail", "lln", "uln",
                                              "arsinh_normal"]
    assert all(isinstance(n, ExactNoise) for n in EXACT_NOISES)
    with pytest.raises(AttributeError):
        LAPLACE.uniforms = 2   # frozen
    assert repr(STUDENT_T) == "ExactNoise(student_t)"


@pytest.mark.parametrize("name", ["laplace", "gaussian", "student_t"])
def test_strings_are_refused(name):
    with pytest.raises(MakeTypeError):
        exact_rounded_release(0.0, 1.0, name, 3.0 if name == "student_t" else None)


@pytest.mark.parametrize("noise,shape", [(STUDENT_T, None), (STUDENT_T, 0.0), (STUDENT_T, -1.0),
                                         (POLYNOMIAL_TAIL, 1.0), (POLYNOMIAL_TAIL, math.inf), (LLN, math.nan),
                                         (ULN, "2"), (LAPLACE, 1.0), (GAUSSIAN, 0.5)])
def test_bad_shapes_are_refused_before_any_byte_is_drawn(noise, shape):
    class NoBytes:
        def random_bytes(self, n):
            raise AssertionError("randomness drawn before the parameters were checked")
    with byte_source_for_tests(NoBytes()):
        with pytest.raises(MakeError):
            exact_rounded_release(0.0, 1.0, noise, shape)


def test_every_constant_releases_finite_floats():
    with seeded_rng_for_tests(3):
        for noise, shape in SHAPES.items():
            for _ in range(20):
                assert math.isfinite(exact_rounded_release(1.0, (1.0, 3.0), noise, shape))
