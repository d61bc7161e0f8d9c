"""The secret key of a truncation, and SipHash-2-4 over numpy arrays of 64-bit words.

A truncation orders each person's rows by a keyed hash of their content.  The key is 16
bytes drawn from the secure source (:func:`draw_truncation_key`); an integer in [0, 2^128) is
read as its 16 big-endian bytes.  Its halves, read little-endian, are the SipHash key
``(k0, k1)``.

:func:`siphash24` is SipHash-2-4 ([AB12] §2) of the byte string formed by the little-endian
words of each row, vectorised over rows with numpy's wrapping uint64 arithmetic.  The pandas
kernel uses it to key the numbers of a row (pandas' own keyed hash covers strings only).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ..errors import MakeError, MakeTypeError
from ..samplers import current_rng

__all__ = ["KEY_BYTES", "as_key", "draw_truncation_key", "key_words", "siphash24"]

KEY_BYTES = 16


def as_key(key: object, name: str = "key") -> bytes:
    """``key`` as 16 bytes: 16 bytes (``bytes`` or ``bytearray``) as they are, an integer in
    [0, 2^128) as its big-endian bytes.  Messages never show the key (it is a secret)."""
    if isinstance(key, (bytes, bytearray)):
        if len(key) != KEY_BYTES:
            raise MakeError(f"{name} must be {KEY_BYTES} bytes, not {len(key)} bytes")
        return bytes(key)
    if isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_)):
        if not 0 <= int(key) < 2 ** (8 * KEY_BYTES):
            raise MakeError(f"{name} must be an integer in [0, 2^128)")
        return int(key).to_bytes(KEY_BYTES, "big")
    raise MakeTypeError(f"{name} must be {KEY_BYTES} bytes or an integer in [0, 2^128), "
                        f"not {type(key).__name__}")


# [proof:draw_truncation_key]
def draw_truncation_key() -> bytes:
    """A fresh secret key for the truncations of one context: 16 bytes from the library's byte
    source (the operating system's CSPRNG unless a test switched it).

    Example:
        >>> from opendp_duff.transformations.truncate import draw_truncation_key
        >>> len(draw_truncation_key())
        16
    """
    return bytes(current_rng().random_bytes(KEY_BYTES))
# [end:draw_truncation_key]


def key_words(key: bytes) -> tuple[int, int]:
    """The two 64-bit halves of a 16-byte key, read little-endian (SipHash's k0, k1)."""
    return int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")


_U = np.uint64


def _rotl(x: np.ndarray, b: int) -> np.ndarray:
    return (x << _U(b)) | (x >> _U(64 - b))


def _sip_round(v: list[np.ndarray]) -> None:
    v[0] += v[1]
    v[1] = _rotl(v[1], 13) ^ v[0]
    v[0] = _rotl(v[0], 32)
    v[2] += v[3]
    v[3] = _rotl(v[3], 16) ^ v[2]
    v[0] += v[3]
    v[3] = _rotl(v[3], 21) ^ v[0]
    v[2] += v[1]
    v[1] = _rotl(v[1], 17) ^ v[2]
    v[2] = _rotl(v[2], 32)


# [proof:siphash24]
def siphash24(words: Sequence[np.ndarray], key: bytes) -> np.ndarray:
    """SipHash-2-4 under ``key`` of each row's message ``words[0][i], words[1][i], ...``
    (each word eight little-endian bytes), for every row i at once: a uint64 array.

    A pure function of the words and the key: rows with equal words get equal hashes."""
    k0, k1 = key_words(key)
    n = len(words[0]) if words else 0
    v = [np.full(n, c, dtype=_U) for c in (k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
                                          k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573)]
    last = np.full(n, ((8 * len(words)) % 256) << 56, dtype=_U)   # the length byte, no tail bytes
    with np.errstate(over="ignore"):
        for m in (*(np.asarray(w, dtype=_U) for w in words), last):
            v[3] ^= m
            _sip_round(v)
            _sip_round(v)
            v[0] ^= m
        v[2] ^= _U(0xFF)
        for _ in range(4):
            _sip_round(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]
# [end:siphash24]
