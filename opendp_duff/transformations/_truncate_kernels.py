"""Truncation kernels for local frames: pandas, and Polars eager and lazy frames.

Each kernel keeps, for each identifier, the ``contributions`` rows that come first in the
order ``(row hash, canonical content)``; grouped, it first keeps the ``max_groups`` groups (values
of the ``by`` columns) of each identifier that come first in the order ``(group hash,
canonical group value)``, then that many rows in each kept group.  Every decision about a
person is a function of that person's rows and the key alone, which is what the stability
proofs (``proofs/transformations/truncate/``) rest on.

Canonical content.  A row is read through its declared columns, each as the type of its
atom domain: a float column as float64 with -0.0 read as 0.0 and every NaN or null as one
NaN; an int column as int64; a str column as Python (or Polars) strings.  So rows that the
frame metrics count as equal have equal canonical content and equal hashes, whatever their
dtypes, the sign of their zeros or the spelling of their missing values.

The keyed hash.  pandas: each string is hashed by pandas' keyed SipHash
(``hash_array(hash_key=...)``), each number contributes its canonical 64 bits, and the words
of a row go through SipHash-2-4 under the key (:mod:`._keyed_hash`).  Polars: the row's
canonical struct hashed by Polars with a seed taken from the key.  The engines need not
agree.  Privacy does not rest on the hash's strength: stability holds for every fixed key
(ties, equal hashes of different contents included, are broken by the canonical content).
The key, secret and fresh per context, only keeps a data subject from choosing which of
their rows are kept.

pandas and Polars are never imported here: a frame is recognised by its library, already
loaded by whoever built it.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from ._common import as_array
from ._keyed_hash import key_words, siphash24

__all__ = ["Truncation", "kept_positions", "truncate_local", "truncate_pandas", "truncate_polars"]

# [proof:_ROW]
_ROW, _GROUP = 0, 1            # the first word of a hashed message: rows and groups never share one
# [end:_ROW]


# [proof:Truncation]
@attrs.frozen
class Truncation:
    """The public parameters of a truncation (validated by the constructors).

    Attributes:
        identifier: the identifier column.
        columns: the declared columns ``(name, T)`` in the domain's order (T float, int or str).
        contributions: the rows kept per identifier (per group when grouped), >= 1.
        key: the 16-byte secret key.
        by: the grouping columns; ``()`` for a truncation per identifier only.
        max_groups: the groups kept per identifier (grouped only).
    """

    identifier: str
    columns: tuple[tuple[str, type], ...]
    contributions: int
    key: bytes = attrs.field(repr=False)
    by: tuple[str, ...] = ()
    max_groups: int | None = None

    def __attrs_post_init__(self) -> None:
        if bool(self.by) != (self.max_groups is not None):
            raise ValueError("a truncation has both by columns and max_groups (grouped) or neither")

    @property
    def names(self) -> list[str]:
        """The declared column names, in the domain's order (the output's columns)."""
        return [name for name, _ in self.columns]

    @property
    def hashed(self) -> list[tuple[str, type]]:
        """The declared columns sorted by name: the order of a row's hashed and compared
        content, independent of the order in which the domain lists them."""
        return sorted(self.columns, key=lambda c: c[0])

    def type_of(self, name: str) -> type:
        """The atom type T of a declared column."""
        return dict(self.columns)[name]
# [end:Truncation]


# [proof:truncate_local]
def truncate_local(frame: Any, spec: Truncation) -> Any:
    """The truncation of a pandas DataFrame or a Polars DataFrame or LazyFrame, a frame of the
    same kind holding the declared columns of the kept rows."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(frame, pd.DataFrame):
        return truncate_pandas(frame, spec)
    return truncate_polars(frame, spec)
# [end:truncate_local]


# --- the order-and-cut kernel (numpy) ---------------------------------------------------

# [proof:kept_positions]
def kept_positions(id_codes: np.ndarray, row_hash: np.ndarray, content: Sequence[np.ndarray],
                   contributions: int, group_codes: Sequence[np.ndarray] = (),
                   group_hash: np.ndarray | None = None, max_groups: int | None = None) -> np.ndarray:
    """The positions (increasing) of the rows kept.

    Rows are sorted by identifier, then (grouped) by group hash and group codes, then by row
    hash and content codes; a row is kept when fewer than ``contributions`` rows precede it in
    its run of equal identifier (and group), and, grouped, fewer than ``max_groups`` groups
    precede its group in its identifier's run.  Codes are integers equal exactly when the
    values are equal and ordered as the values are."""
    keys = [row_hash, *reversed(group_codes)]
    keys += [id_codes] if group_hash is None else [group_hash, id_codes]
    order = np.lexsort(keys)                            # the last key is the primary one
    if len(order) == 0:
        return order
    if _ties_of_different_content(order, keys, content):   # equal hashes of different rows
        order = np.lexsort([*reversed(content), *keys])
    new_id = _run_starts([id_codes[order]])
    new_group = _run_starts([id_codes[order], *(c[order] for c in group_codes)])
    keep = _position_in_run(new_group) < contributions
    if group_hash is not None:
        group_number = np.cumsum(new_group)                          # 1, 2, ... over all groups
        first = group_number[np.flatnonzero(new_id)][np.cumsum(new_id) - 1]
        keep &= group_number - first < max_groups
    return np.sort(order[keep])


def _ties_of_different_content(order: np.ndarray, keys: list[np.ndarray], content: Sequence[np.ndarray]) -> bool:
    """Whether two rows next to each other in ``order`` agree on every key but not on content.
    If none do, every run of rows equal on the keys has one content, and ``order`` is also
    sorted by content within the runs; checking this spares the content keys of the sort."""
    tied = ~_run_starts([k[order] for k in keys])[1:]
    if not tied.any():
        return False
    return bool((tied & _run_starts([c[order] for c in content])[1:]).any())


def _run_starts(columns: list[np.ndarray]) -> np.ndarray:
    """True where a row starts a new run of equal values in the (sorted) columns."""
    starts = np.zeros(len(columns[0]), dtype=bool)
    starts[0] = True
    for c in columns:
        starts[1:] |= c[1:] != c[:-1]
    return starts


def _position_in_run(starts: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within each run that ``starts`` marks."""
    index = np.arange(len(starts))
    return index - np.maximum.accumulate(np.where(starts, index, 0))
# [end:kept_positions]


# --- pandas --------------------------------------------------------------------------------

# [proof:pandas_hashes]
def canonical_array(values: Any, T: type) -> np.ndarray:
    """A column's values as canonical numpy data: int64, object str, or float64 with -0.0
    read as 0.0 and every NaN as numpy's one NaN."""
    if T is str:
        return np.asarray(values, dtype=object)
    a = as_array(values, T)                  # a new int64 array, or float64 with -0.0 read as 0.0
    if T is float:
        a[np.isnan(a)] = np.nan              # NaNs of any payload as one
    return a


def _codes_and_words(canonical: np.ndarray, T: type, key: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes, equal exactly when the canonical values are equal and ordered as the
    values (strings by code point; NaN after every number), and one 64-bit word per value: the
    canonical bits of a number, pandas' keyed SipHash of a string (over its ``unicode_escape``
    bytes, which every Python str has; each distinct string is hashed once)."""
    pd = sys.modules["pandas"]
    codes, uniques = pd.factorize(canonical, sort=True, use_na_sentinel=False)
    codes = np.asarray(codes, dtype=np.int64)
    if T is not str:
        return codes, np.ascontiguousarray(canonical).view(np.uint64)
    hashed = pd.util.hash_array(np.asarray(uniques, dtype=object), encoding="unicode_escape",
                                hash_key=key[:8].hex(), categorize=False)
    return codes, hashed[codes]


def pandas_hashes(df: Any, spec: Truncation) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray | None]:
    """The codes of the canonical columns, the row hashes and (grouped) the group hashes of a
    pandas frame."""
    codes, words = {}, {}
    for name, T in spec.columns:
        canonical = canonical_array(df.iloc[:, df.columns.get_loc(name)].to_numpy(), T)
        codes[name], words[name] = _codes_and_words(canonical, T, spec.key)
    n = len(df)
    tag = [np.full(n, _ROW, dtype=np.uint64)]
    row_hash = siphash24(tag + [words[name] for name, _ in spec.hashed], spec.key)
    group_hash = None
    if spec.by:
        group = [np.full(n, _GROUP, dtype=np.uint64), words[spec.identifier]]
        group_hash = siphash24(group + [words[b] for b in spec.by], spec.key)
    return codes, row_hash, group_hash
# [end:pandas_hashes]


# [proof:truncate_pandas]
def truncate_pandas(df: Any, spec: Truncation) -> Any:
    """The kept rows of a pandas DataFrame, in their order, with the declared columns only
    and a fresh RangeIndex."""
    codes, row_hash, group_hash = pandas_hashes(df, spec)
    kept = kept_positions(codes[spec.identifier], row_hash, [codes[name] for name, _ in spec.hashed],
                          spec.contributions, [codes[b] for b in spec.by], group_hash, spec.max_groups)
    columns = [df.columns.get_loc(name) for name in spec.names]
    return df.iloc[kept, columns].reset_index(drop=True)
# [end:truncate_pandas]


@attrs.frozen
class TempColumns:
    """The names of the working columns a Polars or Spark kernel adds: one canonical column per
    declared column, the row hash and the group hash, none of them a declared name."""

    canonical: dict[str, str]
    row_hash: str
    group_hash: str


# [proof:temp_columns]
def temp_columns(spec: Truncation) -> TempColumns:
    """Working column names that no declared column has (the kernels drop the others first)."""
    names = spec.names
    prefix = "__truncate_"
    while any(name.startswith(prefix) for name in names):
        prefix = "_" + prefix
    return TempColumns({name: f"{prefix}{i}" for i, name in enumerate(names)},
                       f"{prefix}row_hash", f"{prefix}group_hash")
# [end:temp_columns]


# --- Polars --------------------------------------------------------------------------------

# [proof:polars_hashed]
def _polars_canonical(pl: Any, name: str, T: type) -> Any:
    """The canonical value of a column as a Polars expression.  A zero is mapped explicitly:
    Polars simplifies ``x + 0.0`` to ``x``, which keeps -0.0."""
    if T is str:
        return pl.col(name).cast(pl.String, strict=False)
    if T is int:
        return pl.col(name).cast(pl.Int64, strict=False)
    c = pl.col(name).cast(pl.Float64, strict=False)
    return (pl.when(c.is_null() | c.is_nan()).then(pl.lit(math.nan))
            .when(c == 0.0).then(pl.lit(0.0)).otherwise(c))


def polars_hashed(frame: Any, spec: Truncation) -> Any:
    """A LazyFrame of the declared columns, their canonical values and the hashes
    (:func:`temp_columns` names them)."""
    pl = sys.modules["polars"]
    tmp = temp_columns(spec)
    seed_row, seed_group = key_words(spec.key)
    c = {name: pl.col(tmp.canonical[name]) for name in spec.names}
    lf = frame.lazy().select(spec.names).with_columns(
        *(_polars_canonical(pl, name, T).alias(tmp.canonical[name]) for name, T in spec.columns))
    hashes = [pl.struct([c[name] for name, _ in spec.hashed]).hash(seed_row).alias(tmp.row_hash)]
    if spec.by:
        group = pl.struct(c[spec.identifier], *(c[b] for b in spec.by))
        hashes.append(group.hash(seed_group).alias(tmp.group_hash))
    return lf.with_columns(*hashes)
# [end:polars_hashed]


# [proof:truncate_polars]
def truncate_polars(frame: Any, spec: Truncation) -> Any:
    """The kept rows of a Polars DataFrame or LazyFrame (a frame of the same kind), with the
    declared columns only.  Lazy: the plan is extended and nothing is collected."""
    pl = sys.modules["polars"]
    tmp = temp_columns(spec)
    c = {name: pl.col(tmp.canonical[name]) for name in spec.names}
    content = [c[name] for name, _ in spec.hashed]
    groups = [c[b] for b in spec.by]
    row_order = pl.struct(pl.col(tmp.row_hash), *content)
    keep = row_order.rank("ordinal").over([c[spec.identifier], *groups]) <= spec.contributions
    if spec.by:
        group_order = pl.struct(pl.col(tmp.group_hash), *groups)
        keep = keep & (group_order.rank("dense").over(c[spec.identifier]) <= spec.max_groups)
    out = polars_hashed(frame, spec).filter(keep).select(spec.names)
    return out if isinstance(frame, pl.LazyFrame) else out.collect()
# [end:truncate_polars]
