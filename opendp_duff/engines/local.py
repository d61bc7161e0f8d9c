"""The local engines' columns, and the numpy engine.

A column of a local engine (numpy, pandas, Polars) is a numpy array: the member of its vector
domain in canonical form (float64, int64, or object of Python str; see
:mod:`opendp_duff.membership`).  :class:`LocalColumns` holds the column operations the three
share, so a constructor given a local vector domain (``engine=None``) runs the same code
whichever library the data came from.  :class:`NumpyEngine` adapts 1-d data of no frame
library: numpy arrays, lists and tuples.

Proof of the per-engine facts the constructors cite: ``proofs/engines/local.tex``.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..membership import check_vector
from ..domains import AtomDomain, atom_domain, vector_domain
from ..errors import MakeTypeError
from ..exact_sum import exact_total
from ._base import Engine, Predict
from .candidates import Candidates, candidate_counter
from .rank_window import RankSource, SortedRecords
from .selection import SelectedRecords

__all__ = ["as_array", "LocalColumns", "NumpyEngine", "dtype_T", "element_domain"]


# [proof:as_array]
def as_array(x: object, T: type = float) -> np.ndarray:
    """A member of a vector domain as a NEW 1-d numpy array of T's dtype (float64 or int64),
    which the caller may modify.  Floats get ``+ 0.0``, which turns -0.0 into +0.0 and leaves
    every other value unchanged, so the sign of a zero in the data never reaches a release."""
    if T is float:
        return np.asarray(x, dtype=np.float64).reshape(-1) + 0.0
    return np.array(x, dtype=np.int64).reshape(-1)
# [end:as_array]


# [proof:local_columns]
class LocalColumns(Engine):
    """The column operations of the local engines: a column is a numpy array, a member of a
    local vector domain; every row-wise step returns a NEW array (the input is never modified)."""

    column_engine = None
    local = True

    def check_column(self, domain: Any, x: object) -> Any:
        arr, refusal = check_vector(domain, x)
        return arr if refusal is None else refusal

    def clamp(self, column: Any, T: type, lo: Any, hi: Any) -> np.ndarray:
        y = as_array(column, T)                # a new array, without -0.0
        return np.clip(y, lo, hi, out=y)       # each record: x_i, lo or hi

    def impute(self, column: Any, constant: float) -> np.ndarray:
        y = as_array(column)                   # a new array, without -0.0
        y[np.isnan(y)] = constant              # each record: x_i, or the constant where x_i is NaN
        return y

    def sort(self, column: Any, T: type) -> np.ndarray:
        y = as_array(column, T)                # a new array (floats without -0.0)
        y.sort(kind="stable" if T is int else None)   # in place: a permutation, non-decreasing
        return y

    def count(self, column: Any) -> int:
        return len(column)

    def exact_sum(self, column: Any) -> Fraction:
        total, e = exact_total(column)         # sum = total 2^e exactly
        return Fraction(total << e) if e >= 0 else Fraction(total, 1 << -e)

    def candidate_counts(self, column: Any, candidates: tuple[Any, ...] | Candidates, T: type) -> np.ndarray:
        return candidate_counter(candidates, T)(column)

    def rank_source(self, column: Any, bounds: tuple[float, float], is_sorted: bool,
                    predict: Predict) -> RankSource:
        if is_sorted:                          # a new array without -0.0, sliced
            return SortedRecords(as_array(column))
        # selection reads the records in place (never modifying them), -0.0 as +0.0
        return SelectedRecords(np.asarray(column, dtype=np.float64).reshape(-1))

    def clipped_rank_source(self, column: Any, bounds: tuple[float, float]) -> RankSource:
        """The rank source of the records of a float column (in any order) each clamped to
        ``bounds``, read in place: the selection clips as it reads (no clamped copy)."""
        return SelectedRecords(np.asarray(column, dtype=np.float64).reshape(-1), clip=bounds)

    def collect(self, column: Any) -> np.ndarray:
        return np.asarray(column)              # the column is a numpy array already
# [end:local_columns]


def dtype_T(dtype: Any) -> type | None:
    """float, int or str for a numpy, pandas or Polars dtype; None for any other type (booleans,
    dates...).  Only the dtype is read: object columns are taken to hold strings, as in pandas."""
    if callable(getattr(dtype, "is_float", None)) and callable(getattr(dtype, "is_integer", None)):  # Polars
        if dtype.is_float():
            return float
        if dtype.is_integer():
            return int
        return str if str(dtype).split("(")[0] in ("String", "Utf8", "Categorical", "Enum") else None
    categories = getattr(dtype, "categories", None)
    if categories is not None:                                     # a pandas categorical
        return dtype_T(categories.dtype)
    kinds: dict[str, type] = {"f": float, "i": int, "u": int, "U": str, "O": str}
    return kinds.get(getattr(dtype, "kind", None) or "")


def element_domain(T: type | None) -> AtomDomain | None:
    """``atom_domain(T)`` (no bounds, no NaN), or None when there is no such domain."""
    if T is None:
        return None
    try:
        return atom_domain(T=T)
    except (TypeError, ValueError):
        return None


def series_schema(dtype: Any) -> Any:
    """The vector domain of 1-d data of this dtype (``atom_domain(T)`` elements)."""
    elem = element_domain(dtype_T(dtype))
    if elem is None:
        raise MakeTypeError(f"the data's dtype ({dtype!s}) is not supported: float, integer or string data only")
    return vector_domain(elem)


class NumpyEngine(LocalColumns):
    """1-d data of no frame library: numpy arrays, lists and tuples.  Its columns are its data."""

    name = "numpy"

    def recognises(self, data: object) -> bool:
        if isinstance(data, np.ndarray):
            return data.ndim == 1
        return isinstance(data, (list, tuple))

    def schema(self, data: object) -> Any:
        if isinstance(data, (list, tuple)):
            raise MakeTypeError("a list or tuple has no schema to read its type from: pass "
                                "domain=dp.vector_domain(dp.atom_domain(T=float)) (or T=int, T=str), "
                                "or a numpy array")
        return series_schema(getattr(data, "dtype", None))

    def snapshot(self, data: object) -> Any:
        return data.copy() if isinstance(data, np.ndarray) else data   # a member is admitted as an array
