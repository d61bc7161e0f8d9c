"""Every source of randomness in opendp_duff, and every sampler.

Nothing else in the package draws random bits.  The default bit source is the
operating system's CSPRNG (:func:`os.urandom`).  A seeded source exists for
tests only; it is switched on for a block of code with
:func:`seeded_rng_for_tests` and its name says so.

Floating-point samplers here are the *float path*: they compute the textbook
transforms (inverse CDF, Gumbel) on 52-bit uniforms.  The exact samplers of the
hardening issue live beside them and must stay inside this package.
"""
import contextlib
import contextvars
import os

import numpy as np
from scipy import special

__all__ = [
    "SecureRandom", "SeededRandomForTests", "seeded_rng_for_tests", "current_rng", "check_entropy", "byte_source_for_tests",
    "uniform_open", "standard_exponential", "standard_gumbel", "standard_laplace",
    "standard_normal", "gumbel_argmax", "EntropyError",
]


class EntropyError(RuntimeError):
    """The operating system could not supply random bytes."""


class SecureRandom:
    """Random bytes from the operating system's CSPRNG (``os.urandom``)."""

    name = "os.urandom"

    def random_bytes(self, n):
        try:
            return os.urandom(n)
        except (NotImplementedError, OSError) as exc:  # pragma: no cover - platform failure
            raise EntropyError("the operating system's random source failed") from exc


class SeededRandomForTests:
    """A *reproducible, insecure* byte source (numpy PCG64).  Tests only."""

    name = "PCG64 (seeded, insecure: tests only)"

    def __init__(self, seed):
        self._gen = np.random.Generator(np.random.PCG64(seed))

    def random_bytes(self, n):
        return self._gen.bytes(n)


_SECURE = SecureRandom()
_current = contextvars.ContextVar("opendp_duff_rng", default=_SECURE)


def current_rng():
    """The byte source in force: the secure one unless a test switched it."""
    return _current.get()


def check_entropy():
    """Draw one byte, so that a failing random source raises here, before any data is read."""
    current_rng().random_bytes(1)


@contextlib.contextmanager
def seeded_rng_for_tests(seed):
    """Use a seeded, insecure generator inside a ``with`` block.  Tests only."""
    with byte_source_for_tests(SeededRandomForTests(seed)):
        yield


@contextlib.contextmanager
def byte_source_for_tests(source):
    """Use any object with ``random_bytes(n)`` as the byte source inside a ``with`` block.
    Tests only (for example a source that fails, or one that counts bytes)."""
    token = _current.set(source)
    try:
        yield
    finally:
        _current.reset(token)


_TWO_M53 = 2.0 ** -53


def uniform_open(size=None):
    """Uniforms on the grid {(2k+1) 2^-53 : 0 <= k < 2^52}, inside (0, 1).

    The grid is symmetric (u and 1 - u are both on it, exactly), never touches
    0 or 1, and every value is an exact double.  ``size=None`` gives a float.
    """
    n = 1 if size is None else int(np.prod(size))
    raw = np.frombuffer(current_rng().random_bytes(8 * n), dtype=np.uint64)
    k = (raw >> np.uint64(12)).astype(np.float64)  # 52 random bits, exact in a double
    u = (2.0 * k + 1.0) * _TWO_M53
    return float(u[0]) if size is None else u.reshape(size)


def standard_exponential(size=None):
    """Exp(1) by inversion: -log(u)."""
    return -np.log(uniform_open(size))


def standard_gumbel(size=None):
    """Gumbel(0, 1) by inversion: -log(-log(u))."""
    return -np.log(-np.log(uniform_open(size)))


def standard_laplace(size=None):
    """Laplace(0, 1) by inversion, using the exact symmetry of the uniform grid."""
    u = np.asarray(uniform_open(size))
    z = np.where(u < 0.5, np.log(2.0 * u), -np.log(2.0 * (1.0 - u)))
    return float(z) if size is None else z


def standard_normal(size=None):
    """N(0, 1) by inversion (scipy's ndtri)."""
    z = special.ndtri(uniform_open(size))
    return float(z) if size is None else z


def gumbel_argmax(log_weights):
    """Index i with probability softmax(log_weights)_i (the Gumbel-max trick).

    Entries equal to -inf never win; at least one entry must be finite or +inf.
    +inf entries win uniformly among themselves.  Ties in the noisy scores have
    probability zero in idealised arithmetic; with floats, the first is taken.
    """
    w = np.asarray(log_weights, dtype=np.float64)
    pos_inf = np.isposinf(w)
    if pos_inf.any():
        w = np.where(pos_inf, 0.0, -np.inf)
    g = standard_gumbel(w.shape)
    return int(np.argmax(w + g))
