"""The byte sources: where every random bit of opendp_duff comes from.

The default source is the operating system's CSPRNG (:func:`os.urandom`).  A seeded,
insecure source exists for tests only; :func:`seeded_rng_for_tests` switches it on for a
``with`` block, and :func:`byte_source_for_tests` installs any object with
``random_bytes(n)`` (a source that fails, or one that records what it gave).  The source in
force is a context variable, so a switch in one thread or task does not leak into another.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Protocol

import numpy as np

__all__ = ["EntropyError", "ByteSource", "SecureRandom", "SeededRandomForTests", "current_rng",
           "check_entropy", "seeded_rng_for_tests", "byte_source_for_tests"]


class EntropyError(RuntimeError):
    """The operating system could not supply random bytes."""


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
    """A *reproducible, insecure* byte source (numpy PCG64).  Tests only."""

    name = "PCG64 (seeded, insecure: tests only)"

    def __init__(self, seed: int) -> None:
        self._gen = np.random.Generator(np.random.PCG64(seed))

    def random_bytes(self, n: int) -> bytes:
        """``n`` bytes of the seeded stream."""
        return self._gen.bytes(n)


_SECURE = SecureRandom()
_current: contextvars.ContextVar[ByteSource] = contextvars.ContextVar("opendp_duff_rng", default=_SECURE)


def current_rng() -> ByteSource:
    """The byte source in force: the secure one unless a test switched it."""
    return _current.get()


def check_entropy() -> None:
    """Draw one byte, so that a failing random source raises here, before any data is read."""
    current_rng().random_bytes(1)


@contextlib.contextmanager
def seeded_rng_for_tests(seed: int) -> Iterator[None]:
    """Use a seeded, insecure generator inside a ``with`` block.  Tests only."""
    with byte_source_for_tests(SeededRandomForTests(seed)):
        yield


@contextlib.contextmanager
def byte_source_for_tests(source: ByteSource) -> Iterator[None]:
    """Use any object with ``random_bytes(n)`` as the byte source inside a ``with`` block.

    Tests only (for example a source that fails, or one that counts or records bytes)."""
    token = _current.set(source)
    try:
        yield
    finally:
        _current.reset(token)
