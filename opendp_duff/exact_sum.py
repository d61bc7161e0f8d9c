"""Exact sums of float arrays, in integers: the statistic of the smooth trimmed mean.

Every finite float is ``M 2^(e - 53)`` with an integer ``|M| < 2^53`` (``frexp``).  Summing
the ``M`` of a run of equal exponents in ``int64`` is exact as long as the run is short
enough not to overflow; the runs are then combined in Python's unbounded integers.  Sorted
input has few runs (the exponent is monotone on each sign), so this costs about one pass of
numpy over the data.  Proof: ``proofs/exact_sum/exact_mean.tex``.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .errors import MakeError

__all__ = ["exact_mean"]

_SPLIT = 27        # M = hi 2^27 + lo with 0 <= lo < 2^27 and |hi| <= 2^26
# (eq:run-length) in proofs/exact_sum/exact_mean.tex: with at most 2^35 terms per run, the int64
# sums of lo (< 2^35 2^27 = 2^62) and of hi (<= 2^35 2^26 = 2^61) cannot overflow.
RUN_LIMIT = 1 << 35


# [proof:exact_mean]
def exact_mean(values: npt.ArrayLike, run_limit: int = RUN_LIMIT) -> tuple[int, int]:
    """The exact mean of a non-empty array of finite floats, as integers ``(numerator, denominator)``.

    Args:
        values: a non-empty array of finite floats (any order; sorted input is fastest).
        run_limit: the longest run summed in int64 (a parameter so that tests can exercise the
            splitting of long runs with small arrays); at most 2^35.

    Returns:
        ``(N, D)`` with ``D > 0`` and ``N / D`` the exact rational mean.

    Raises:
        MakeError: if ``values`` is empty or not finite, or ``run_limit`` is out of range.
    """
    x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0 or not np.isfinite(x).all():
        raise MakeError("exact_mean needs a non-empty array of finite floats")
    if not 1 <= run_limit <= RUN_LIMIT:
        raise MakeError(f"run_limit ({run_limit!r}) must lie in [1, 2^35]")
    mant, exp = np.frexp(x)
    mant *= 2.0 ** 53                                        # exact: a power-of-two scaling
    hi = mant.astype(np.int64)                               # exact: an integer below 2^53
    lo = hi & ((1 << _SPLIT) - 1)                            # two's complement: hi = (hi >> 27) 2^27 + lo
    hi >>= _SPLIT
    starts = run_starts(exp, run_limit)
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


def run_starts(exp: npt.NDArray[np.int32], run_limit: int) -> npt.NDArray[np.intp]:
    """Start offsets of the runs: a new run wherever the exponent changes, and at every
    multiple of ``run_limit``, so that no run has more than ``run_limit`` terms."""
    starts = np.flatnonzero(np.concatenate(([True], exp[1:] != exp[:-1])))
    if exp.size > run_limit:
        starts = np.union1d(starts, np.arange(0, exp.size, run_limit))
    return starts
# [end:exact_mean]
