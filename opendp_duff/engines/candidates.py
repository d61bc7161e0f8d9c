"""The local engines' candidate counts and key codes: records compared with public candidates.

A column of a local engine is a numpy array (or, for the Duff mode's utility, any sequence of
numbers).  :func:`candidate_counter` counts the records equal to each candidate (the statistic of
``make_count_by_candidates`` and of the Duff mode); :func:`candidate_index` codes each record by
the candidate it equals (also the key codes of the local split by public keys).  Floats are
compared as float64 values (-0.0 equal to 0.0), integers exactly, strings with ``==``.
Proof: ``proofs/transformations/count_by_candidates/make_count_by_candidates.tex``.
"""
from __future__ import annotations

import collections
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._constants import INT64_MAX

__all__ = ["candidate_counter", "candidate_index", "record_keys", "record_key"]


# [proof:candidate_counter]
def candidate_counter(cands: tuple[Any, ...], T: type) -> Callable[[Any], np.ndarray]:
    """x -> the int64 vector (n_c for c in cands), where n_c counts the records equal to c.

    Total on every member of a vector domain of T, and also on other sequences of numbers
    (``duff_mode_utility`` uses it on raw data): records that do not fit T's dtype are
    counted one by one.  Strings are tallied in a dictionary keyed by the records (``str``
    equality), numbers through :func:`candidate_index`."""
    k = len(cands)
    if T is str:
        def count_strings(x: Any) -> np.ndarray:
            tally = collections.Counter(x)        # record -> multiplicity, by str equality
            return np.array([tally.get(c, 0) for c in cands], dtype=np.int64)
        return count_strings
    index = candidate_index(cands, T)
    position = {c: i for i, c in enumerate(cands)}

    def count(x: Any) -> np.ndarray:
        codes = index(x)
        if codes is None:                         # slow path: exact per-record lookup
            counts = np.zeros(k, dtype=np.int64)
            for e in x:
                i = position.get(record_key(e, T))
                if i is not None:
                    counts[i] += 1
            return counts
        return np.bincount(codes, minlength=k + 1)[:k].astype(np.int64)

    return count


def candidate_index(cands: tuple[Any, ...], T: type) -> Callable[[Any], np.ndarray | None]:
    """For numbers (T float or int): x -> the intp array whose i-th entry is the j with
    cands[j] equal to record i (float64 equality for floats), or k = len(cands) when no
    candidate is; None when a record does not fit T's dtype (only off the domain)."""
    k = len(cands)
    if T is int and max(cands) - min(cands) < max(2 ** 16, 4 * k):
        return _table_index(cands)
    dtype = np.float64 if T is float else np.int64
    order = np.argsort(np.asarray(cands, dtype=dtype), kind="stable")
    sorted_c = np.asarray(cands, dtype=dtype)[order]

    def index(x: Any) -> np.ndarray | None:
        keys = record_keys(x, T)
        if keys is None:
            return None
        at = np.minimum(np.searchsorted(sorted_c, keys), k - 1)   # the first candidate >= key
        return np.where(sorted_c[at] == keys, order[at], k)

    return index


def _table_index(cands: tuple[int, ...]) -> Callable[[Any], np.ndarray | None]:
    """candidate_index for int candidates spanning a small range [lo, hi]: a table of the
    range, lut[v - lo] = j where cands[j] = v, and k elsewhere (one lookup per record)."""
    k, lo, hi = len(cands), min(cands), max(cands)
    lut = np.full(hi - lo + 1, k, dtype=np.intp)
    lut[np.asarray(cands, dtype=np.int64) - lo] = np.arange(k)

    def index(x: Any) -> np.ndarray | None:
        keys = record_keys(x, int)
        if keys is None:
            return None
        inside = (keys >= lo) & (keys <= hi)
        return np.where(inside, lut[np.clip(keys, lo, hi) - lo], k)   # clip: in range, no overflow

    return index


def record_keys(x: Any, T: type) -> np.ndarray | None:
    """The records as a float64 (T=float) or int64 (T=int) array, or None when a record
    does not fit that dtype (then the caller counts record by record)."""
    try:
        arr = np.asarray(x)
    except (OverflowError, TypeError, ValueError):
        return None
    arr = arr.reshape(-1)
    if arr.size == 0:
        return np.zeros(0, dtype=np.float64 if T is float else np.int64)
    if T is float:
        if arr.dtype.kind in "fiu":
            return arr.astype(np.float64)
        return None
    if arr.dtype.kind == "i":
        return arr.astype(np.int64)
    if arr.dtype.kind == "u":
        if (arr > np.uint64(INT64_MAX)).any():   # would wrap around in int64
            return None
        return arr.astype(np.int64)
    return None


def record_key(e: Any, T: type) -> Any:
    """One record as a comparable key: int(e), or its float64 value (an integer too large
    for a float becomes the infinity of its sign, which equals no finite candidate)."""
    if T is int:
        return int(e)
    try:
        f = float(e)
    except OverflowError:
        return math.inf if e > 0 else -math.inf
    return f + 0.0
# [end:candidate_counter]
