"""The byte sources: where every random bit of opendp_duff comes from.

The default source is the operating system's CSPRNG (:func:`os.urandom`).  Replacing it is
refused unless the feature ``"insecure-randomness"`` is on
(:func:`opendp_duff.enable_features`): :func:`seeded_rng_for_tests` switches to a seeded,
insecure source for a ``with`` block, and :func:`byte_source_for_tests` installs any object
with ``random_bytes(n)`` (a source that fails, or one that records what it gave).  The source
in force is a context variable, so a switch in one thread or task does not leak into another.
:func:`check_entropy` refuses a source that fails or returns constant bytes.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from ..features import require

__all__ = ["EntropyError", "ByteSource", "SecureRandom", "SeededRandomForTests", "current_rng",
           "check_entropy", "seeded_rng_for_tests", "byte_source_for_tests", "ENTROPY_CHECK_BYTES"]


# [proof:EntropyError]
class EntropyError(RuntimeError):
    """The random source failed: the operating system could not supply random bytes, or the
    bytes are evidently not random (constant, or a sampler needed more bits than a uniform
    source ever needs in practice)."""
# [end:EntropyError]


class ByteSource(Protocol):
    """Anything that returns ``n`` independent uniform random bytes."""

    def random_bytes(self, n: int) -> bytes: ...


class SecureRandom:
    """Random bytes from the operating system's CSPRNG (``os.urandom``)."""

    name = "os.urandom"

    def random_bytes(self, n: int) -> bytes:
        """``n`` bytes from ``os.urandom``; :class:`EntropyError` if the platform cannot supply them."""
        try:
            return os.urandom(n)
        except (NotImplementedError, OSError) as exc:  # pragma: no cover - platform failure
            raise EntropyError("the operating system's random source failed") from exc


class SeededRandomForTests:
    """A *reproducible, insecure* byte source (numpy PCG64).  Tests only: refused unless the
    feature ``"insecure-randomness"`` is on."""

    name = "PCG64 (seeded, insecure: tests only)"

    def __init__(self, seed: int) -> None:
        require("insecure-randomness", "a seeded byte source")
        self._gen = np.random.Generator(np.random.PCG64(seed))

    def random_bytes(self, n: int) -> bytes:
        """``n`` bytes of the seeded stream."""
        return self._gen.bytes(n)


_SECURE = SecureRandom()
_current: contextvars.ContextVar[ByteSource] = contextvars.ContextVar("opendp_duff_rng", default=_SECURE)


# [proof:current_rng]
def current_rng() -> ByteSource:
    """The byte source in force: the secure one unless a test switched it."""
    return _current.get()
# [end:current_rng]


# A uniform source gives ENTROPY_CHECK_BYTES equal bytes with probability 256^-(n-1) = 2^-248:
# a false alarm never happens in practice, and a stuck source is caught before any data is read.
ENTROPY_CHECK_BYTES = 32


# [proof:check_entropy]
def check_entropy() -> None:
    """Draw 32 bytes, so that a failing random source raises here, before any data is read.

    Raises:
        EntropyError: the platform's source failed, or returned the wrong number of bytes or
            32 equal bytes (a stuck source; a uniform one does so with probability 2^-248).
    """
    sample = current_rng().random_bytes(ENTROPY_CHECK_BYTES)
    if len(sample) != ENTROPY_CHECK_BYTES or sample.count(sample[:1]) == ENTROPY_CHECK_BYTES:
        raise EntropyError("the random source returned constant bytes (or too few): it is not random")
# [end:check_entropy]


def seeded_rng_for_tests(seed: int) -> contextlib.AbstractContextManager[None]:
    """Use a seeded, insecure generator inside a ``with`` block.  Tests only.

    Refused (:class:`~opendp_duff.errors.FeatureNotEnabled`) unless the feature
    ``"insecure-randomness"`` is on: anyone who knows the seed can recompute the releases.
    """
    require("insecure-randomness", "seeded_rng_for_tests")
    return _using(SeededRandomForTests(seed))


def byte_source_for_tests(source: ByteSource) -> contextlib.AbstractContextManager[None]:
    """Use any object with ``random_bytes(n)`` as the byte source inside a ``with`` block.

    Tests only (for example a source that fails, or one that counts or records bytes).
    Refused unless the feature ``"insecure-randomness"`` is on."""
    require("insecure-randomness", "byte_source_for_tests")
    return _using(source)


@contextlib.contextmanager
def _using(source: ByteSource) -> Iterator[None]:
    token = _current.set(source)
    try:
        yield
    finally:
        _current.reset(token)
