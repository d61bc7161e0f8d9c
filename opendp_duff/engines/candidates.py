"""The local engines' candidate counts and key codes: records compared with public candidates.

A column of a local engine is a numpy array (or, for the Duff mode's utility, any sequence of
numbers).  :class:`Candidates` holds validated numeric candidates and finds, for each record,
the candidate it equals; :func:`candidate_counter` counts the records equal to each candidate
(the statistic of ``make_count_by_candidates`` and of the Duff mode); :func:`candidate_index`
codes each record by the candidate it equals (also the key codes of the local split by public
keys).  Floats are compared as float64 values (-0.0 equal to 0.0), integers exactly, strings
with ``==``.  Numbers are found in O(1) expected time each (a table of a small int range, else
a hash table of the candidates' bit patterns), so m candidates and n records cost O(m + n)
numpy work, without a sort.  Proof: ``proofs/transformations/count_by_candidates/make_count_by_candidates.tex``.
"""
from __future__ import annotations

import collections
import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _validate as v
from .._constants import EXACT_INT_BOUND, INT64_MAX, INT64_MIN
from ..errors import MakeError, MakeTypeError

__all__ = ["Candidates", "candidate_counter", "candidate_index", "record_keys", "record_key",
           "validate_candidates", "candidate_values"]

_CHUNK = 1 << 16        # cost only: keys hashed and looked up per chunk (the temporaries stay in cache)
# cost only: the multipliers of a 64-bit mixer (MurmurHash3's finaliser), so that structured
# keys (a grid of floats, multiples of a power of two) spread over the table like random ones
_MIX1, _MIX2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


# [proof:candidate_counter]
class Candidates:
    """Numeric candidates (T float or int), validated and distinct: ``values`` in the given
    order (int64 or float64, -0.0 read as 0.0) and an index from a record to the position of
    the candidate equal to it.  A sequence: ``c[j]`` is candidate j as a Python int or float.

    The index is a table of the range for int candidates spanning a small range
    (``lut[v - lo] = j`` where values[j] = v, k elsewhere), else a hash table with linear
    probing: ``slots`` (a power of two, at least 2k, so that some slot stays empty) holds
    positions j, -1 where empty; candidate j sits at the first slot free when it was inserted,
    walking from ``_home(values[j])``.  ``repeated``: whether two candidates are equal."""

    def __init__(self, values: np.ndarray, T: type) -> None:
        self.values, self.T = values, T
        k = self.k = int(values.size)
        self.lut: np.ndarray | None = None
        if T is int and k and int(values.max()) - int(values.min()) < max(2 ** 16, 4 * k):
            self.lo, hi = int(values.min()), int(values.max())
            self.lut = np.full(hi - self.lo + 1, k, dtype=np.int32 if k < 2 ** 31 - 1 else np.intp)
            self.lut[values - self.lo] = np.arange(k)
            self.repeated = int(np.count_nonzero(self.lut != k)) != k
        else:
            bits = max(10, (2 * k - 1).bit_length())   # 2^bits >= 2k: at most half full (cost: 1024 at least)
            self.shift, self.mask = np.uint64(64 - bits), (1 << bits) - 1
            self.slots = np.full(1 << bits, -1, dtype=np.int32 if k < 2 ** 31 - 1 else np.intp)
            self.repeated = False
            for s in range(0, k, _CHUNK):
                self.repeated |= self._insert(np.arange(s, min(s + _CHUNK, k), dtype=self.slots.dtype))

    def __len__(self) -> int:
        return self.k

    def __getitem__(self, j: int) -> Any:
        return self.values[j].item()

    def _home(self, keys: np.ndarray) -> np.ndarray:
        """The first slot a key's walk visits: the top bits of a mix of its 64-bit pattern.  Equal
        keys have one pattern (float keys + 0.0: -0.0 becomes 0.0, the only two equal floats with
        different bits), hence one home.  The rest only spreads the keys (cost, not correctness)."""
        h: np.ndarray = (keys + 0.0 if self.T is float else keys).view(np.uint64)
        h = h ^ (h >> _S33)
        h *= _MIX1
        h ^= h >> _S33
        h *= _MIX2
        h ^= h >> _S33
        h >>= self.shift
        return h.astype(np.intp)

    def _insert(self, js: np.ndarray) -> bool:
        """Insert candidates js (all at once: of several walkers at one empty slot, the one whose
        write stays wins; the others walk on); True when one equals a candidate already in."""
        keys, repeated = self.values[js], False
        at = self._home(keys)
        while js.size:
            free = self.slots[at] < 0
            self.slots[at[free]] = js[free]
            held, equal = self._probe(keys, at)    # now no slot in `at` is empty
            placed = held == js
            equal &= ~placed
            repeated |= bool(equal.any())
            walk = ~(placed | equal)               # an equal one is dropped: refused as repeated
            js, keys, at = js[walk], keys[walk], (at[walk] + 1) & self.mask
        return repeated

    def _lookup(self, keys: np.ndarray, out: np.ndarray) -> None:
        """out[i] = the position of the candidate equal to keys[i], k where none is."""
        k = self.k
        if self.lut is not None:
            hi = self.lo + self.lut.size - 1
            inside = (keys >= self.lo) & (keys <= hi)
            out[:] = np.where(inside, self.lut[np.clip(keys, self.lo, hi) - self.lo], k)   # clip: no overflow
            return
        at = self._home(keys)
        held, found = self._probe(keys, at)
        out[:] = np.where(found, held, k)          # most keys stop at their home slot
        pos = np.flatnonzero((held >= 0) & ~found)
        keys, at = keys[pos], at[pos]
        while pos.size:                            # the others walk on, to the equal candidate or an empty slot
            at = (at + 1) & self.mask
            held, found = self._probe(keys, at)
            out[pos[found]] = held[found]
            walk = (held >= 0) & ~found
            pos, keys, at = pos[walk], keys[walk], at[walk]

    def _probe(self, keys: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The position held at each slot of ``at`` (-1: empty) and whether it is a candidate
        equal to the key (an empty slot reads ``values[-1]``, a real entry as k >= 1: masked)."""
        held = self.slots[at]
        return held, (self.values[held] == keys) & (held >= 0)

    def _codes(self, keys: np.ndarray) -> np.ndarray:
        """_lookup over the keys in chunks (the temporaries stay small)."""
        out = np.empty(keys.size, dtype=np.intp)
        for s in range(0, keys.size, _CHUNK):
            self._lookup(keys[s:s + _CHUNK], out[s:s + _CHUNK])
        return out

    def index(self, x: Any) -> np.ndarray | None:
        """x -> the intp array whose i-th entry is the j with values[j] equal to record i (float64
        equality for floats), or k when none is; None when a record does not fit T's dtype."""
        keys = record_keys(x, self.T)
        return None if keys is None else self._codes(keys)

    def counts(self, x: Any) -> np.ndarray | None:
        """x -> the int64 vector (n_c for c in the candidates), or None as :meth:`index`."""
        keys = record_keys(x, self.T)
        if keys is None:
            return None
        out = np.zeros(self.k + 1, dtype=np.int64)
        codes = np.empty(min(keys.size, _CHUNK), dtype=np.intp)
        for s in range(0, keys.size, _CHUNK):      # chunk by chunk: no array of n codes
            part = codes[:min(_CHUNK, keys.size - s)]
            self._lookup(keys[s:s + _CHUNK], part)
            np.add.at(out, part, 1)                # unbuffered: a repeated code adds once per record
        return out[:self.k]


def candidate_counter(cands: Sequence[Any] | Candidates, T: type) -> Callable[[Any], np.ndarray]:
    """x -> the int64 vector (n_c for c in cands), where n_c counts the records equal to c.

    Total on every member of a vector domain of T, and also on other sequences of numbers
    (``duff_mode_utility`` uses it on raw data): records that do not fit T's dtype are
    counted one by one.  Strings are tallied in a dictionary keyed by the records (``str``
    equality), numbers through :class:`Candidates`."""
    k = len(cands)
    if T is str:
        assert not isinstance(cands, Candidates)  # string candidates are a tuple

        def count_strings(x: Any) -> np.ndarray:
            tally = collections.Counter(x)        # record -> multiplicity, by str equality
            return np.array([tally.get(c, 0) for c in cands], dtype=np.int64)
        return count_strings
    index = cands if isinstance(cands, Candidates) else _numeric(cands, T)

    def count(x: Any) -> np.ndarray:
        counts = index.counts(x)
        if counts is None:                        # slow path: exact per-record lookup
            position = {c: i for i, c in enumerate(index.values.tolist())}
            counts = np.zeros(k, dtype=np.int64)
            for e in x:
                i = position.get(record_key(e, T))
                if i is not None:
                    counts[i] += 1
        return counts

    return count


def candidate_index(cands: Sequence[Any], T: type) -> Callable[[Any], np.ndarray | None]:
    """For numbers (T float or int) and distinct candidates: :meth:`Candidates.index`."""
    return _numeric(cands, T).index


def _numeric(cands: Sequence[Any], T: type) -> Candidates:
    return Candidates(np.asarray(cands, dtype=np.float64 if T is float else np.int64), T)


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
            return arr.astype(np.float64, copy=False)
        return None
    if arr.dtype.kind == "i":
        return arr.astype(np.int64, copy=False)
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


# The validation of public candidates (make_count_by_candidates, make_partition_by's keys, the Duff
# mode and its utility): below the constructors, beside the Candidates it builds.
# [proof:validate_candidates]
def validate_candidates(candidates: Any, T: type, name: str = "candidates") -> tuple[Any, ...]:
    """A tuple of distinct candidates of type T: finite numbers, or strings for T=str
    (public; errors name the parameter, ``candidates`` or ``name``)."""
    cands = candidate_values(candidates, T, name)
    return cands if isinstance(cands, tuple) else tuple(cands.values.tolist())
# [end:validate_candidates]


# [proof:candidate_values]
def candidate_values(candidates: Any, T: type, name: str = "candidates") -> tuple[str, ...] | Candidates:
    """The candidates validated as :func:`validate_candidates` does: a tuple of str for T=str,
    else a :class:`Candidates` (no Python object per candidate: a million candidates cost
    O(m) numpy work).  A :class:`Candidates` of type T is already valid and is returned as is."""
    if isinstance(candidates, Candidates) and candidates.T is T:
        return candidates
    if isinstance(candidates, (str, bytes, dict, set, frozenset)) or not hasattr(candidates, "__len__"):
        raise MakeTypeError(f"{name} ({candidates!r}) must be a list, tuple or 1-d array of values")
    if isinstance(candidates, np.ndarray) and candidates.ndim != 1:
        raise MakeTypeError(f"{name} (shape {candidates.shape}) must be one-dimensional")
    if len(candidates) == 0:
        raise MakeError(f"{name} ([]) must not be empty")
    if T is str:
        out = tuple(_candidate(f"{name}[{i}]", c, T) for i, c in enumerate(candidates))
        if len(set(out)) != len(out):
            _refuse_repeat(name, out)
        return out
    values = _vectorised(candidates, T)
    if values is None:   # element by element, with the message naming the first bad one
        values = np.array([_candidate(f"{name}[{i}]", c, T) for i, c in enumerate(candidates)],
                          dtype=np.int64 if T is int else np.float64)
    cands = Candidates(values, T)
    if cands.repeated:
        _refuse_repeat(name, values.tolist())
    return cands
# [end:candidate_values]


def _refuse_repeat(name: str, out: Sequence[Any]) -> None:
    seen: set[Any] = set()
    dup = next(c for c in out if c in seen or seen.add(c))  # type: ignore[func-returns-value]
    raise MakeError(f"{name} must be distinct, but {dup!r} appears more than once")


def _vectorised(candidates: Any, T: type) -> np.ndarray | None:
    """The candidates as an int64 / float64 array when vectorised checks show that every one
    is valid and converts as :func:`_candidate` would convert it; None to check them one by one."""
    if isinstance(candidates, np.ndarray):
        arr = candidates
    else:
        kinds = set(map(type, candidates))
        if not (kinds <= {int} or (T is float and kinds <= {float})):
            return None   # bools, numpy scalars, mixed or other types: one by one
        try:
            arr = np.array(candidates)
        except OverflowError:
            return None
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > INT64_MAX:
        return None
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
        if T is int:
            return arr
        if arr.size and int(np.abs(arr).max()) > EXACT_INT_BOUND:
            return None   # some may not be exactly a float: let _candidate say which
        return arr.astype(np.float64) + 0.0
    if T is float and arr.dtype == np.float64 and np.isfinite(arr).all():
        return arr + 0.0   # a new array; -0.0 and 0.0 are the same candidate
    return None


# [proof:_candidate]
def _candidate(name: str, c: Any, T: type) -> Any:
    if T is str:
        if type(c) not in (str, np.str_):
            raise MakeTypeError(f"{name} ({c!r}) must be a string (Python str or numpy str_): "
                                "the records are strings")
        return str(c)
    if T is int:
        c = v.number(name, c, integer=True)
        if not INT64_MIN <= c <= INT64_MAX:
            raise MakeError(f"{name} ({c!r}) must fit in a 64-bit integer")
        return c
    if isinstance(c, numbers.Integral) and not isinstance(c, (bool, np.bool_)):
        c = int(c)   # a Python int: numpy would compare it with f after rounding it to a float
        try:
            f = float(c)
        except OverflowError:
            raise MakeError(f"{name} ({c!r}) is too large for a float") from None
        if f != c:
            raise MakeError(f"{name} ({c!r}) is not exactly representable as a float")
        return f + 0.0
    c = v.number(name, c)
    return c + 0.0  # -0.0 and 0.0 are the same candidate
# [end:_candidate]
