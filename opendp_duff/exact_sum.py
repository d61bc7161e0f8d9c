"""Exact sums of float arrays, in integers: the statistic of the smooth trimmed mean.

Every finite float is ``M 2^(e - 53)`` with an integer ``|M| < 2^53`` (``frexp``).  The ``M``
of a run of equal exponents are summed in ``int64`` (exact for fewer than 2^36 terms); the
runs are then combined in Python's unbounded integers.  Sorted input has few runs (the
exponent is monotone on each sign), so this costs about one pass of numpy over the data.  Proof: ``proofs/exact_sum/exact_mean.tex``.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .errors import MakeError

__all__ = ["exact_mean"]

_SPLIT = 27        # M = hi 2^27 + lo with 0 <= lo < 2^27 and |hi| <= 2^26


# [proof:exact_mean]
def exact_mean(values: npt.ArrayLike) -> tuple[int, int]:
    """The exact mean of a non-empty array of finite floats, as integers ``(numerator, denominator)``.

    Args:
        values: a non-empty array of finite floats (any order; sorted input is fastest).

    Returns:
        ``(N, D)`` with ``D > 0`` and ``N / D`` the exact rational mean.

    Raises:
        MakeError: if ``values`` is empty or not finite.
    """
    x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0 or not np.isfinite(x).all():
        raise MakeError("exact_mean needs a non-empty array of finite floats")
    mant, exp = np.frexp(x)
    mant *= 2.0 ** 53                                        # exact: a power-of-two scaling
    hi = mant.astype(np.int64)                               # exact: an integer below 2^53
    lo = hi & ((1 << _SPLIT) - 1)                            # two's complement: hi = (hi >> 27) 2^27 + lo
    hi >>= _SPLIT
    starts = np.flatnonzero(np.concatenate(([True], exp[1:] != exp[:-1])))  # runs of equal exponents
    his = np.add.reduceat(hi, starts)
    los = np.add.reduceat(lo, starts)
    es = exp[starts].astype(np.int64) - 53
    base = int(es.min())
    total = 0
    for h, l_, e in zip(his.tolist(), los.tolist(), es.tolist(), strict=True):
        total += ((h << _SPLIT) + l_) << (e - base)
    if base >= 0:
        return total << base, n
    return total, n << (-base)
# [end:exact_mean]
