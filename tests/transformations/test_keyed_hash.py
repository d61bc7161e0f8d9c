"""The truncation key and the vectorised SipHash-2-4: the published test vectors, agreement with
a byte-by-byte implementation written from the specification ([AB12] §2) on random messages,
the key's accepted forms (never shown in a message), and fresh keys drawn from the library's
byte source."""
import numpy as np
import pytest

from helpers import Recorder
from opendp_duff.errors import MakeError
from opendp_duff.samplers import byte_source_for_tests, seeded_rng_for_tests
from opendp_duff.transformations._keyed_hash import as_key, draw_truncation_key, siphash24

M = 2 ** 64 - 1
KEY = bytes(range(16))


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M


def reference_siphash24(key, message):
    """SipHash-2-4 of a byte string, one block at a time, in Python integers."""
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def sip_round():
        v[0] = (v[0] + v[1]) & M
        v[1] = rotl(v[1], 13) ^ v[0]
        v[0] = rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & M
        v[3] = rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & M
        v[3] = rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & M
        v[1] = rotl(v[1], 17) ^ v[2]
        v[2] = rotl(v[2], 32)

    n, end = len(message), len(message) - len(message) % 8
    blocks = [int.from_bytes(message[i:i + 8], "little") for i in range(0, end, 8)]
    blocks.append(((n % 256) << 56) | int.from_bytes(message[end:], "little"))
    for m in blocks:
        v[3] ^= m
        sip_round()
        sip_round()
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        sip_round()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def words_of(message):
    return [np.array([int.from_bytes(message[i:i + 8], "little")], dtype=np.uint64)
            for i in range(0, len(message), 8)]


def test_published_vectors():
    """The reference implementation's vectors for the key 00 01 .. 0f and messages 00 01 .. (n-1)."""
    expected = {0: 0x726FDB47DD0E0E31, 8: 0x93F5F5799A932462, 15: 0xA129CA6149BE45E5, 16: 0x3F2ACC7F57C29BDB}
    for n, value in expected.items():
        assert reference_siphash24(KEY, bytes(range(n))) == value
    assert int(siphash24(words_of(bytes(range(8))), KEY)[0]) == expected[8]
    assert int(siphash24(words_of(bytes(range(16))), KEY)[0]) == expected[16]


def test_vectorised_equals_reference_on_random_messages():
    rng = np.random.default_rng(1)
    for n_words in (1, 2, 3, 5):
        words = [rng.integers(0, 2 ** 64, size=50, dtype=np.uint64) for _ in range(n_words)]
        key = rng.bytes(16)
        got = siphash24(words, key)
        for i in range(50):
            message = b"".join(int(w[i]).to_bytes(8, "little") for w in words)
            assert int(got[i]) == reference_siphash24(key, message)


def test_equal_words_equal_hashes_and_empty_input():
    w = np.array([7, 7, 8], dtype=np.uint64)
    h = siphash24([w], KEY)
    assert h.dtype == np.uint64 and h[0] == h[1] != h[2]
    assert siphash24([np.array([], dtype=np.uint64)], KEY).shape == (0,)


def test_key_forms():
    assert as_key(KEY) == as_key(bytearray(KEY)) == KEY
    assert as_key(0) == bytes(16) and as_key(2 ** 128 - 1) == b"\xff" * 16
    assert as_key(np.uint64(5)) == (5).to_bytes(16, "big")
    for bad, error in ((bytes(15), MakeError), (bytes(17), MakeError), (-1, MakeError), (2 ** 128, MakeError),
                       (True, TypeError), ("k" * 16, TypeError), (1.0, TypeError), (None, TypeError)):
        with pytest.raises(error, match="key") as info:
            as_key(bad)
        if isinstance(bad, (bytes, int)) and not isinstance(bad, bool):
            assert repr(bad) not in str(info.value)          # a key, even a bad one, is never shown


def test_fresh_keys_come_from_the_byte_source():
    recorder = Recorder(3)
    with byte_source_for_tests(recorder):
        key = draw_truncation_key()
    assert bytes(recorder.log) == key and len(key) == 16
    with seeded_rng_for_tests(4):
        a = draw_truncation_key()
    with seeded_rng_for_tests(4):
        b = draw_truncation_key()
    assert a == b != draw_truncation_key()
