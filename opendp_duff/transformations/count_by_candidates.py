"""make_count_by_candidates: how many records equal each public candidate."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _validate as v
from .._constants import EXACT_INT_BOUND, INT64_MAX, INT64_MIN
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..engines.candidates import Candidates
from ..errors import MakeError, MakeTypeError
from ..metrics import ChangeOneDistance, InfDifferenceDistance, Metric
from ._common import dataset_space

__all__ = ["make_count_by_candidates", "then_count_by_candidates"]


def make_count_by_candidates(input_domain: VectorDomain, input_metric: Metric, candidates: Any) -> Transformation:
    """Count the records equal to each candidate: x -> (n_c for c in candidates).

    Records equal to no candidate are not counted.  The counts are the scores of
    ``make_report_noisy_max_gumbel`` (the noisy mode).  The domain's engine counts (locally a
    lookup per record; on Spark one join with the candidates and one aggregation).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T float, int or str, without NaN,
          any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: int vectors of length len(candidates), in the candidates' order, with
          entries in [0, 2^53] (a count is at most the number of records).
        * Output metric: ``inf_difference_distance()``.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).
        candidates: a public, non-empty list, tuple or 1-d array of distinct values of the
            records' type: finite numbers, or strings (Python str or numpy str_) when T is str.
            Float candidates are compared with each record's float64 value (an integer
            candidate must be exactly a float, and -0.0 is the candidate 0.0); int candidates
            must fit in 64 bits; strings are compared with ``==`` (code point by code point).

    Stability map:
        * symmetric distance: ``map(d_in) = d_in``.  An added record raises at most one count
          by 1 and a removed one lowers at most one count by 1, so with a additions and r
          removals every count moves within [-r, a] and max_c - min_c of the changes is at
          most a + r = d_in.
        * change-one distance: a substitution is one removal and one addition,
          ``map(d_in) = 2 d_in``.

        Exact integers; ``map(0) = 0``.  The counts are monotone under addition, which is what
        lets ``make_report_noisy_max_gumbel`` charge d_in / scale instead of 2 d_in / scale
        ([OpenDP-Gumbel] §3.1).

    Proof: ``proofs/transformations/count_by_candidates/make_count_by_candidates.tex``.

    References: [OpenDP-Gumbel] §3.1 (the inf-difference distance and monotone scores).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_count_by_candidates(candidates=[1, 2, 3])
        >>> t([1, 1, 3, 7]).tolist(), t.map(1)
        ([2, 0, 1], 1)
        >>> words = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> (words >> dp.t.then_count_by_candidates(candidates=["N", "S"]))(["N", "E", "N"]).tolist()
        [2, 0]
    """
    # [proof:make_count_by_candidates]
    elem = dataset_space(input_domain, input_metric, allow_str=True, any_engine=True)
    cands = candidate_values(candidates, elem.T)
    engine, T = column_engine(input_domain), elem.T
    factor = 2 if isinstance(input_metric, ChangeOneDistance) else 1
    out = VectorDomain(AtomDomain(int, (0, EXACT_INT_BOUND), False), len(cands), False)

    def function(x):
        return engine.candidate_counts(x, cands, T)

    return Transformation(input_domain, out, input_metric, InfDifferenceDistance(),
                          function, lambda d_in: factor * d_in)
    # [end:make_count_by_candidates]


then_count_by_candidates = then(make_count_by_candidates)


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
