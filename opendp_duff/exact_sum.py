"""Exact sums of float arrays, in integers: the statistic of the smooth trimmed mean.

Every finite float is ``M 2^(e - 53)`` with an integer ``|M| < 2^53`` (``frexp``).  The data is
cut into blocks of at most 2^16 terms; inside a block the ``M`` of each run of equal exponents
are summed in ``int64``, exact because a run has at most 2^35 terms; runs and blocks are then
combined in Python's unbounded integers.  Sorted input has few runs (the exponent is monotone
on each sign), so this costs about one pass of numpy over the data, in cache-sized blocks.
Proof: ``proofs/exact_sum/exact_mean.tex``.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .errors import MakeError

__all__ = ["exact_mean", "exact_total"]

_SPLIT = 27        # M = hi 2^27 + lo with 0 <= lo < 2^27 and |hi| <= 2^26
# (eq:run-length) in proofs/exact_sum/exact_mean.tex: with at most 2^35 terms per run, the int64
# sums of lo (< 2^35 2^27 = 2^62) and of hi (<= 2^35 2^26 = 2^61) cannot overflow.
# [proof:RUN_LIMIT]
RUN_LIMIT = 1 << 35
# [end:RUN_LIMIT]
BLOCK = 1 << 16    # the data is summed in blocks of this many terms (<= RUN_LIMIT; small, for the cache)


# [proof:exact_mean]
def exact_mean(values: npt.ArrayLike, block: int = BLOCK) -> tuple[int, int]:
    """The exact mean of a non-empty array of finite floats, as integers ``(numerator, denominator)``.

    Args:
        values: a non-empty array of finite floats (any order; sorted input is fastest).  Finiteness
            is the caller's precondition, not checked here (the callers pass members of bounded
            domains, and a check would cost a pass over the data).
        block: the data is summed in consecutive blocks of at most this many terms, 1 <= block
            <= 2^35 (a parameter so that tests can exercise the cutting with small arrays).

    Returns:
        ``(N, D)`` with ``D > 0`` and ``N / D`` the exact rational mean.

    Raises:
        MakeError: if ``values`` is empty or ``block`` is out of range.
    """
    x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0:
        raise MakeError("exact_mean needs a non-empty array")
    total, base = exact_total(x, block)
    if base >= 0:
        return total << base, n
    return total, n << (-base)


def exact_total(values: npt.ArrayLike, block: int = BLOCK) -> tuple[int, int]:
    """``(S, e)`` with ``sum(values) = S 2^e`` exactly, for an array of finite floats (``(0, 0)``
    for none), summed in consecutive blocks of at most ``block`` terms (1 <= block <= 2^35)."""
    x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if not 1 <= block <= RUN_LIMIT:
        raise MakeError(f"block ({block!r}) must lie in [1, 2^35]")
    if x.size == 0:
        return 0, 0
    if x.size <= block:
        return block_sum(x)
    parts = [block_sum(x[a:a + block]) for a in range(0, x.size, block)]
    base = min(e for _, e in parts)
    return sum(s << (e - base) for s, e in parts), base


def block_sum(x: npt.NDArray[np.float64]) -> tuple[int, int]:
    """``(S, e)`` with ``sum(x) = S 2^e`` exactly, for at most 2^35 finite floats: their integer
    mantissas are summed in int64 over each run of equal exponents, then combined exactly."""
    mant, exp = np.frexp(x)
    mant *= 2.0 ** 53                                        # exact: a power-of-two scaling
    hi = mant.astype(np.int64)                               # exact: an integer below 2^53
    lo = hi & ((1 << _SPLIT) - 1)                            # two's complement: hi = (hi >> 27) 2^27 + lo
    hi >>= _SPLIT
    starts = np.flatnonzero(np.concatenate(([True], exp[1:] != exp[:-1])))
    his = np.add.reduceat(hi, starts).tolist()               # int64, exact by (eq:run-length)
    los = np.add.reduceat(lo, starts).tolist()
    es = exp[starts].astype(np.int64) - 53
    base = int(es.min())
    total = 0
    for h, l_, e in zip(his, los, es.tolist(), strict=True):
        total += ((h << _SPLIT) + l_) << (e - base)
    return total, base
# [end:exact_mean]
