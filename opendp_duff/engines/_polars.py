"""The Polars engine: Polars DataFrames, LazyFrames and Series (Polars is never imported here).

A LazyFrame is admitted by collecting its declared columns (one collection): the collected
DataFrame is the admitted value, so every later step reads the same rows.  Column names are
unique; a null reads as NaN in a numeric column and as None in a string column.  Key columns
of type Enum or Categorical are compared as strings.  A String key column is coded by one cast
to the Enum of the public keys (a hash lookup of each row's string); an Enum or Categorical
column by its physical codes, through a table of the codes of its categories (of its distinct
values).  An Enum fixes the values its column can hold, so public keys outside its categories
are refused when a plan is compiled for the data (:meth:`PolarsEngine.keys_refusal`), before
any value is read, as are keys Polars cannot hold (not UTF-8).  Proof:
``proofs/engines/local.tex`` (L2).
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..frames.domain import dataframe_domain
from ._frames import LocalFrames
from .local import dtype_T, element_domain, series_schema

__all__ = ["PolarsEngine"]


def _is_object(values: Any) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind == "O"


# [proof:polars_engine]
def _utf8(key: str) -> bool:
    """Whether ``key`` is a string Polars can hold (one without a lone surrogate)."""
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class PolarsEngine(LocalFrames):
    """polars.DataFrame and polars.LazyFrame (admitted as the collected DataFrame), polars.Series."""

    name = "polars"

    @staticmethod
    def _pl() -> Any:
        return sys.modules.get("polars")

    def is_frame(self, x: object) -> bool:
        pl = self._pl()
        return pl is not None and isinstance(x, (pl.DataFrame, pl.LazyFrame))

    def recognises(self, data: object) -> bool:
        pl = self._pl()
        return super().recognises(data) or (pl is not None and isinstance(data, pl.Series))

    def _lazy(self, x: Any) -> bool:
        return isinstance(x, self._pl().LazyFrame)

    def materialize(self, x: Any, names: Sequence[str]) -> Any:
        return x.select(list(names)).collect() if self._lazy(x) else x

    def columns(self, df: Any) -> list[Any]:
        return list(df.collect_schema().names() if self._lazy(df) else df.columns)

    def has_column(self, df: Any, name: str) -> bool:
        return name in self.columns(df)

    def read_column(self, df: Any, name: str) -> np.ndarray:
        return np.asarray(df.get_column(name).to_numpy())

    def n_rows(self, df: Any) -> int:
        return int(df.height)

    def take_columns(self, df: Any, names: Sequence[str]) -> Any:
        return df.select(list(names))

    def take_rows(self, df: Any, rows: np.ndarray) -> Any:
        return df[np.asarray(rows, dtype=np.int64)]

    def slice_rows(self, df: Any, start: int, stop: int) -> Any:
        return df.slice(start, stop - start)

    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray:
        pl, k = self._pl(), len(keys)
        column = df.get_column(name)
        width = np.min_scalar_type(k)                      # cost only: the codes' integer type holds 0..k
        if isinstance(column.dtype, pl.Enum):              # its physical codes index its categories:
            categories = column.dtype.categories            # code the categories, then look each row up
            table = np.append(self._key_positions(categories, keys), k).astype(width)
            physical = column.to_physical().fill_null(len(categories))    # a member has no null
            codes: np.ndarray = table[np.asarray(physical.to_numpy())]
            return codes
        if isinstance(column.dtype, pl.Categorical) and column.null_count() == 0:
            distinct = column.unique()                     # equal values, equal physical codes: code the few
            ids = np.asarray(distinct.to_physical().to_numpy())
            top = int(ids.max()) + 1 if ids.size else 0
            if top <= 4 * len(column) + 2 ** 16:           # cost only: else the table would outgrow the column
                table = np.full(top, k, dtype=width)
                table[ids] = self._key_positions(distinct, keys)
                codes = table[np.asarray(column.to_physical().to_numpy())]
                return codes
        return self._key_positions(column, keys)

    def _key_positions(self, values: Any, keys: Sequence[str]) -> np.ndarray:
        """For each value of a String, Categorical or Enum Series, the position of the key it
        equals, else ``len(keys)``: one cast to the Enum of the keys (a hash lookup of each
        value's string among them; with ``strict=False`` a value outside them becomes null)."""
        pl, k = self._pl(), len(keys)
        held = [j for j, key in enumerate(keys) if _utf8(key)]   # Polars holds UTF-8 only: no value equals the others
        enum = pl.Enum([keys[j] for j in held])
        codes = np.asarray(values.cast(enum, strict=False).to_physical().fill_null(len(held)).to_numpy())
        return codes if len(held) == k else np.array([*held, k], dtype=np.intp)[codes]

    def only_strings(self, df: Any, name: str) -> bool:
        """A String column without nulls: every value reads as a Python str (Polars stores
        valid UTF-8), so the column is a member of any string vector domain of its length."""
        column = df.get_column(name)
        return bool(column.dtype == self._pl().String and column.null_count() == 0)

    def frame_from(self, columns: dict[str, Any]) -> Any:
        return self._pl().DataFrame({k: list(v) if _is_object(v) else v for k, v in columns.items()})
# [end:polars_engine]

    def schema(self, data: object) -> Any:
        if not self.is_frame(data):
            return series_schema(getattr(data, "dtype", None))
        schema = data.collect_schema() if self._lazy(data) else data.schema  # type: ignore[attr-defined]
        columns = {}
        for name, dtype in schema.items():
            elem = element_domain(dtype_T(dtype))
            if elem is not None:
                columns[name] = elem
        return dataframe_domain(columns)

    def keys_refusal(self, data: object, by: str, keys: tuple[Any, ...]) -> str | None:
        """Public keys that no Polars column can hold (strings that are not UTF-8: a lone
        surrogate; nor could the released frame hold them), then those an Enum key column cannot
        hold (its categories are its dtype's: the schema, not the data).  A Categorical column
        has no fixed categories: nothing more to refuse."""
        pl = self._pl()
        if pl is None or not self.is_frame(data):
            return None
        unheld = [key for key in keys if isinstance(key, str) and not _utf8(key)]
        if unheld:
            return (f"group_by({by!r}): the public keys {unheld!r} are not valid UTF-8 (a lone surrogate), and a "
                    "Polars frame holds UTF-8 strings only: give keys that encode as UTF-8")
        try:
            schema = data.collect_schema() if self._lazy(data) else data.schema  # type: ignore[attr-defined]
            dtype = schema.get(by)
            if dtype is None or not isinstance(dtype, pl.Enum):
                return None
            categories = set(dtype.categories.to_list())
        except Exception:  # noqa: BLE001 - an unreadable schema: the split's rule applies (no row matches)
            return None
        outside = [key for key in keys if key not in categories]
        if not outside:
            return None
        return (f"group_by({by!r}): column {by!r} is a Polars Enum, and the public keys {outside!r} are not among "
                "its categories, so they can hold no rows: give keys from the Enum's categories")

    def snapshot(self, data: object) -> Any:
        pl = self._pl()
        if pl is not None and isinstance(data, (pl.DataFrame, pl.Series)):
            return data.clone()
        if pl is not None and isinstance(data, pl.LazyFrame):
            return data.collect()
        return data
