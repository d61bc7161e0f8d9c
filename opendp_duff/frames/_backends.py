"""Backend adapters (private): what the frame domain and the frame transformations need of a
pandas or Polars DataFrame.

Neither library is imported here.  :func:`backend_of` recognises a frame by looking for its
library in ``sys.modules`` (an object of a library's class implies that the library has been
imported), so ``import opendp_duff`` works with neither installed.  A Spark DataFrame is not a
frame of this module (the Spark backend has its own domain).

Each adapter reads a column as a numpy array: numbers in their numpy dtype (a missing value,
a pandas NA or a Polars null, reads as NaN in a numeric column), strings as an object array
(a missing value reads as None or NaN, which no string domain admits).  The membership check
of :mod:`opendp_duff.frames.domain` then decides, as for any vector.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["FrameBackend", "backend_of"]


class FrameBackend(Protocol):
    """The operations on a frame that the library uses (positions are 0-based row numbers)."""

    name: str

    def columns(self, df: Any) -> list[Any]: ...
    def has_column(self, df: Any, name: str) -> bool: ...
    def column(self, df: Any, name: str) -> np.ndarray: ...
    def n_rows(self, df: Any) -> int: ...
    def select(self, df: Any, names: Sequence[str]) -> Any: ...
    def take(self, df: Any, row_indices: np.ndarray) -> Any: ...
    def slice(self, df: Any, start: int, stop: int) -> Any: ...
    def frame_from(self, columns: dict[str, Any], like: Any) -> Any: ...
    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray: ...
    def only_strings(self, df: Any, name: str) -> bool: ...


def _missing_to_k(codes: np.ndarray, k: int) -> np.ndarray:
    """Codes with the 'no key' marker -1 replaced by k, as intp."""
    codes = np.asarray(codes, dtype=np.intp)
    return np.where(codes < 0, k, codes)


# [proof:pandas_backend]
class _Pandas:
    """pandas.DataFrame: columns by label (exactly one column per declared name)."""

    name = "pandas"

    def __init__(self, pd: Any) -> None:
        self.pd = pd

    def columns(self, df: Any) -> list[Any]:
        return list(df.columns)

    def has_column(self, df: Any, name: str) -> bool:
        if name not in df.columns:
            return False
        return isinstance(df.columns.get_loc(name), int)   # a slice or mask: a duplicated label

    def column(self, df: Any, name: str) -> np.ndarray:
        return df.iloc[:, df.columns.get_loc(name)].to_numpy()

    def n_rows(self, df: Any) -> int:
        return int(df.shape[0])

    def select(self, df: Any, names: Sequence[str]) -> Any:
        return df.iloc[:, [df.columns.get_loc(n) for n in names]]

    def take(self, df: Any, row_indices: np.ndarray) -> Any:
        return df.take(np.asarray(row_indices, dtype=np.intp))

    def slice(self, df: Any, start: int, stop: int) -> Any:
        return df.iloc[start:stop]

    def frame_from(self, columns: dict[str, Any], like: Any) -> Any:
        return self.pd.DataFrame({k: list(v) if _is_object(v) else v for k, v in columns.items()})

    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray:
        index = self.pd.Index(list(keys))             # a hash table of the keys: str equality
        return _missing_to_k(index.get_indexer(df.iloc[:, df.columns.get_loc(name)]), len(keys))

    def only_strings(self, df: Any, name: str) -> bool:
        return False          # a pandas string column may hold str subclasses: check each value


# [end:pandas_backend]


# [proof:polars_backend]
class _Polars:
    """polars.DataFrame: column names are unique by construction."""

    name = "polars"

    def __init__(self, pl: Any) -> None:
        self.pl = pl

    def columns(self, df: Any) -> list[Any]:
        return list(df.columns)

    def has_column(self, df: Any, name: str) -> bool:
        return name in df.columns

    def column(self, df: Any, name: str) -> np.ndarray:
        return df.get_column(name).to_numpy()

    def n_rows(self, df: Any) -> int:
        return int(df.height)

    def select(self, df: Any, names: Sequence[str]) -> Any:
        return df.select(list(names))

    def take(self, df: Any, row_indices: np.ndarray) -> Any:
        return df[np.asarray(row_indices, dtype=np.int64)]

    def slice(self, df: Any, start: int, stop: int) -> Any:
        return df.slice(start, stop - start)

    def frame_from(self, columns: dict[str, Any], like: Any) -> Any:
        return self.pl.DataFrame({k: list(v) if _is_object(v) else v for k, v in columns.items()})

    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray:
        k = len(keys)
        codes = df.get_column(name).replace_strict(list(keys), list(range(k)), default=k,
                                                   return_dtype=self.pl.Int64)
        return np.asarray(codes.to_numpy(), dtype=np.intp)   # a member has no null: no NaN here

    def only_strings(self, df: Any, name: str) -> bool:
        """A String column without nulls: every value reads as a Python str (Polars stores
        valid UTF-8), so the column is a member of any string vector domain of its length."""
        column = df.get_column(name)
        return bool(column.dtype == self.pl.String and column.null_count() == 0)


# [end:polars_backend]


def _is_object(values: Any) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind == "O"


_CACHE: dict[str, FrameBackend] = {}


# [proof:backend_of]
def backend_of(df: object) -> FrameBackend | None:
    """The adapter for a pandas or Polars DataFrame, or None for anything else.  Never
    imports a library (``isinstance`` can only raise through the object's own code, which
    the membership check guards)."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(df, pd.DataFrame):
        return _CACHE.setdefault("pandas", _Pandas(pd))
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(df, pl.DataFrame):
        return _CACHE.setdefault("polars", _Polars(pl))
    return None
# [end:backend_of]
