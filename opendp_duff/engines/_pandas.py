"""The pandas engine: pandas DataFrames and Series (pandas is never imported here).

The library is looked up in ``sys.modules`` when data is recognised: an object of one of its
classes implies it was imported.  A column is read as a numpy array: numbers in their numpy
dtype (a missing value, NaN or ``pd.NA``, reads as NaN), strings as an object array (a missing
one as None or NaN, which no string domain admits).  Proof: ``proofs/engines/local.tex`` (L1).
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..frames.domain import dataframe_domain
from ._frames import LocalFrames, freeze
from .local import dtype_T, element_domain, series_schema

__all__ = ["PandasEngine"]


def _is_object(values: Any) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind == "O"


# [proof:pandas_engine]
class PandasEngine(LocalFrames):
    """pandas.DataFrame (columns by label: exactly one column per declared name) and pandas.Series."""

    name = "pandas"

    @staticmethod
    def _pd() -> Any:
        return sys.modules.get("pandas")

    def is_frame(self, x: object) -> bool:
        pd = self._pd()
        return pd is not None and isinstance(x, pd.DataFrame)

    def recognises(self, data: object) -> bool:
        pd = self._pd()
        return super().recognises(data) or (pd is not None and isinstance(data, pd.Series))

    def columns(self, df: Any) -> list[Any]:
        return list(df.columns)

    def has_column(self, df: Any, name: str) -> bool:
        if name not in df.columns:
            return False
        return isinstance(df.columns.get_loc(name), int)   # a slice or mask: a duplicated label

    def read_column(self, df: Any, name: str) -> np.ndarray:
        return np.asarray(df.iloc[:, df.columns.get_loc(name)].to_numpy())

    def n_rows(self, df: Any) -> int:
        return int(df.shape[0])

    def take_columns(self, df: Any, names: Sequence[str]) -> Any:
        return df.iloc[:, [df.columns.get_loc(n) for n in names]]

    def take_rows(self, df: Any, rows: np.ndarray) -> Any:
        return df.take(np.asarray(rows, dtype=np.intp))

    def slice_rows(self, df: Any, start: int, stop: int) -> Any:
        return df.iloc[start:stop]

    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray:
        index = self._pd().Index(list(keys))             # a hash table of the keys: str equality
        codes = np.asarray(index.get_indexer(df.iloc[:, df.columns.get_loc(name)]), dtype=np.intp)
        return np.where(codes < 0, len(keys), codes)     # -1 (no key) -> k

    def frame_from(self, columns: dict[str, Any]) -> Any:
        return self._pd().DataFrame({k: list(v) if _is_object(v) else v for k, v in columns.items()})
# [end:pandas_engine]

    def schema(self, data: object) -> Any:
        if not self.is_frame(data):
            return series_schema(getattr(data, "dtype", None))
        columns = {}
        for name, dtype in data.dtypes.items():  # type: ignore[attr-defined]
            elem = element_domain(dtype_T(dtype)) if isinstance(name, str) else None
            if elem is not None:
                columns[name] = elem
        return dataframe_domain(columns)

    def snapshot(self, data: object) -> Any:
        pd = self._pd()
        if pd is not None and isinstance(data, pd.DataFrame):
            return freeze(data.copy(deep=True))   # only the context holds the copy: it never changes
        if pd is not None and isinstance(data, pd.Series):
            return data.copy(deep=True)
        return data
