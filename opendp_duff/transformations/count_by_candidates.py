"""make_count_by_candidates: how many records equal each public candidate."""
import math
import numbers

import numpy as np

from .. import _validate as v
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError, MakeTypeError
from ..metrics import ChangeOneDistance, InfDifferenceDistance
from ._common import dataset_space

__all__ = ["make_count_by_candidates", "then_count_by_candidates"]

_I64_MIN, _I64_MAX = -(2 ** 63), 2 ** 63 - 1


def make_count_by_candidates(input_domain, input_metric, candidates):
    """Count the records equal to each candidate: x -> (n_c for c in candidates).

    ``candidates`` is a public, non-empty sequence of distinct finite numbers
    of the records' type (float candidates are compared with each record's
    float64 value; int candidates must fit in 64 bits).  Records equal to no
    candidate are not counted.  The output is an int vector of length
    len(candidates), in the candidates' order, with entries in [0, 2^53].

    Stability, output metric ``inf_difference_distance()``:

    * symmetric distance (add/remove neighbours): ``map(d_in) = d_in``.  An
      added record raises at most one count by 1 and a removed one lowers at
      most one count by 1, so with a additions and r removals every count
      moves within [-r, a] and max_c - min_c of the changes is at most
      a + r = d_in.
    * change-one distance: a substitution is one removal and one addition, so
      ``map(d_in) = 2 d_in``.

    The counts are monotone under addition: this is what lets
    ``make_report_noisy_max_gumbel`` charge d_in / scale instead of
    2 d_in / scale (OpenDP proof, file 002, section 3.1).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    >>> t = space >> dp.t.then_count_by_candidates(candidates=[1, 2, 3])
    >>> t([1, 1, 3, 7]).tolist(), t.map(1)
    ([2, 0, 1], 1)
    """
    elem = dataset_space(input_domain, input_metric)
    cands = validate_candidates(candidates, elem.T)
    count = candidate_counter(cands, elem.T)
    factor = 2 if isinstance(input_metric, ChangeOneDistance) else 1
    # a count is at most the number of records, which no Python sequence takes beyond 2^53
    out = VectorDomain(AtomDomain(int, (0, 2 ** 53), False), len(cands), False)
    return Transformation(input_domain, out, input_metric, InfDifferenceDistance(),
                          count, lambda d_in: factor * d_in)


then_count_by_candidates = then(make_count_by_candidates)


def validate_candidates(candidates, T):
    """A tuple of distinct finite candidates of type T (public; errors name ``candidates``)."""
    if isinstance(candidates, (str, bytes, dict, set, frozenset)) or not hasattr(candidates, "__len__"):
        raise MakeTypeError(f"candidates ({candidates!r}) must be a list, tuple or 1-d array of numbers")
    if isinstance(candidates, np.ndarray) and candidates.ndim != 1:
        raise MakeTypeError(f"candidates (shape {candidates.shape}) must be one-dimensional")
    if len(candidates) == 0:
        raise MakeError("candidates ([]) must not be empty")
    out = tuple(_candidate(i, c, T) for i, c in enumerate(candidates))
    if len(set(out)) != len(out):
        seen = set()
        dup = next(c for c in out if c in seen or seen.add(c))
        raise MakeError(f"candidates must be distinct, but {dup!r} appears more than once")
    return out


def _candidate(i, c, T):
    name = f"candidates[{i}]"
    if T is int:
        c = v.number(name, c, integer=True)
        if not _I64_MIN <= c <= _I64_MAX:
            raise MakeError(f"{name} ({c!r}) must fit in a 64-bit integer")
        return c
    if isinstance(c, numbers.Integral) and not isinstance(c, (bool, np.bool_)):
        try:
            f = float(c)
        except OverflowError:
            raise MakeError(f"{name} ({c!r}) is too large for a float") from None
        if f != c:
            raise MakeError(f"{name} ({c!r}) is not exactly representable as a float")
        return f
    c = v.number(name, c)
    return 0.0 if c == 0 else c  # -0.0 and 0.0 are the same candidate


def candidate_counter(cands, T):
    """A function x -> int64 counts of each candidate; total on every member of a vector domain."""
    k = len(cands)
    order = np.argsort(np.asarray(cands, dtype=np.float64 if T is float else np.int64), kind="stable")
    sorted_c = np.asarray(cands, dtype=np.float64 if T is float else np.int64)[order]
    position = {c: i for i, c in enumerate(cands)}

    def count(x):
        keys = _keys(x, T)
        if keys is None:                          # slow path: exact per-record lookup
            counts = np.zeros(k, dtype=np.int64)
            for e in x:
                i = position.get(_key(e, T))
                if i is not None:
                    counts[i] += 1
            return counts
        idx = np.searchsorted(sorted_c, keys)
        hit = idx < k
        idx = idx[hit]
        match = sorted_c[idx] == keys[hit]
        return np.bincount(order[idx[match]], minlength=k).astype(np.int64)

    return count


def _keys(x, T):
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
        if (arr > np.uint64(_I64_MAX)).any():   # would wrap around in int64
            return None
        return arr.astype(np.int64)
    return None


def _key(e, T):
    if T is int:
        return int(e)
    try:
        f = float(e)
    except OverflowError:
        return math.inf
    return 0.0 if f == 0 else f
