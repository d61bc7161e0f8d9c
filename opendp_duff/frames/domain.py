"""Data-frame domains: pandas or Polars DataFrames with declared columns, and partitions of
them into one frame per public key.

``DataFrameDomain`` describes a frame by the domains of the columns a pipeline reads; other
columns are allowed and never read.  ``PartitionDomain`` is the output domain of
``make_partition_by`` and the input domain of ``make_parallel_composition``.  Both are
engine-neutral: the engine a domain names (or, without one, the local engine that recognises
the data) admits the data (:mod:`opendp_duff.engines`, looked up at call time because the
engines are built on these domains).  No frame library is imported here.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from .. import _validate as v
from .._constants import EXACT_INT_BOUND
from ..membership import Admits
from ..domains import AtomDomain, VectorDomain
from ..engine_lookup import installed
from ..errors import MakeError, MakeTypeError

__all__ = ["ColumnDomains", "DataFrameDomain", "PartitionDomain", "dataframe_domain"]


class ColumnDomains(Mapping[str, AtomDomain]):
    """A read-only mapping column name -> AtomDomain, hashable, equal to any mapping with the
    same items (the order of the columns does not change the set of members)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, AtomDomain]) -> None:
        self._items = dict(items)

    def __getitem__(self, name: str) -> AtomDomain:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and self._items == dict(other.items())

    def __repr__(self) -> str:
        return repr(self._items)




# [proof:DataFrameDomain]
@attrs.frozen(repr=False)
class DataFrameDomain(Admits):
    """Data frames whose declared columns are members of their domains.

    Build it with :func:`dataframe_domain`, which validates the fields.

    Members, without an engine (``engine=None``): a ``pandas.DataFrame``, ``polars.DataFrame``
    or ``polars.LazyFrame`` (subclasses included), or a part of one made by
    ``make_partition_by``, that has exactly one column of each declared name, each a member of
    ``vector_domain(columns[name], size=size)`` when read as a numpy array (numbers in their
    dtype, a missing numeric value as NaN; strings as Python str, a missing one as None or
    NaN, which no string domain admits); other columns are allowed and never read.  With
    ``size``, exactly that many rows.  A LazyFrame is admitted as its collected declared
    columns.  With ``engine="pandas"`` (``"polars"``) only that library's frames; with
    ``engine="spark"`` pyspark DataFrames whose schema holds each declared column's element type
    and whose every element is a member (one distributed pass; :mod:`opendp_duff.engines.spark`),
    admitted as a persisted snapshot of its declared columns, which the first pass of every
    release checks again (count, fingerprint, membership; ``SparkDataChanged`` when it changed:
    a lost cache of a non-deterministic plan is recomputed with other rows, so ``.checkpoint()``
    such a frame first).

    Attributes:
        columns: the declared columns, name -> AtomDomain (a read-only mapping).
        size: the public number of rows, or None.
        engine: the engine of the members, or None (any local frame).
    """

    columns: ColumnDomains = attrs.field(converter=ColumnDomains)
    size: int | None = None
    engine: str | None = attrs.field(default=None)

    @engine.validator
    def _check_engine(self, attribute: Any, value: str | None) -> None:
        if value is not None:
            frame_engine_names = installed().frame_engine_names   # the engines are built on the domains
            if value not in frame_engine_names():
                raise MakeError(f"engine ({value!r}) must be None (any local frame) or one of {frame_engine_names()}")

    def __repr__(self) -> str:
        size = "" if self.size is None else f", size={self.size}"
        engine = "" if self.engine is None else f", engine={self.engine!r}"
        return f"DataFrameDomain(columns={self.columns!r}{size}{engine})"

    def column_domain(self, name: str) -> VectorDomain:
        """``vector_domain(columns[name], size=size)`` of this domain's engine's columns: the
        domain of a member's column."""
        return VectorDomain(self.columns[name], self.size, False, self.column_engine)

    @property
    def column_engine(self) -> str | None:
        """The ``engine`` of the vector domains of this domain's columns (None: local arrays)."""
        if self.engine is None:
            return None
        return installed().engine_named(self.engine).column_engine   # the engines are built on the domains

    def check(self, x: object) -> Any:
        """The admitted frame (``x`` itself, or a LazyFrame's collected declared columns), or a
        refusal: a type refusal when ``x`` is not a frame of the engine, lacks a declared column
        (or has it twice) or a column holds values of the wrong kind; a value refusal when the
        number of rows differs from ``size`` or a column holds NaN or values outside its bounds.
        Never raises; the refusal names declared columns only."""
        return installed().check_frame(self, x)   # the engines are built on the domains

    def with_(self, **changes: Any) -> DataFrameDomain:
        """A copy with some fields changed."""
        return attrs.evolve(self, **changes)
# [end:DataFrameDomain]


# [proof:dataframe_domain]
def dataframe_domain(columns: Mapping[str, AtomDomain], size: int | None = None,
                     engine: str | None = None) -> DataFrameDomain:
    """The domain of data frames with the declared columns.

    Args:
        columns: a mapping column name (str) -> :class:`~opendp_duff.AtomDomain`, the
            domain of each column a pipeline may read (e.g. ``{"region": atom_domain(T=str),
            "income": atom_domain(T=float)}``).
        size: the public number of rows, an integer in [0, 2^53], or None (unknown).
        engine: None (any local frame: pandas, Polars eager or lazy), or the name of an engine
            with frames: ``"pandas"``, ``"polars"`` or ``"spark"``.

    Returns:
        A :class:`DataFrameDomain`; see its docstring for the members.

    Raises:
        MakeTypeError: columns is not a mapping, a name is not a str, a domain is not an
            AtomDomain; size is not an integer.
        MakeError: size is negative or above 2^53; engine names no engine with frames.

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
        >>> dom.member(pd.DataFrame({"region": ["N", "S"], "income": [1.0, 2.0], "id": [7, 8]}))
        True
        >>> dom.member(pd.DataFrame({"region": ["N", None], "income": [1.0, 2.0]}))
        False
    """
    if not isinstance(columns, Mapping):
        raise MakeTypeError(f"columns ({columns!r}) must be a mapping column name -> AtomDomain")
    for name, elem in columns.items():
        if not isinstance(name, str):
            raise MakeTypeError(f"columns: the name {name!r} must be a str")
        v.instance(f"columns[{name!r}]", elem, AtomDomain, "an AtomDomain")
    if size is not None:
        size = v.number("size", size, integer=True, nonneg=True)
        if size > EXACT_INT_BOUND:
            raise MakeError(f"size ({size!r}) must be at most 2^53: no frame has more rows")
    return DataFrameDomain(ColumnDomains(columns), size, engine)   # the class checks the engine
# [end:dataframe_domain]


def _keys(value: Any) -> tuple[Any, ...]:
    return tuple(value)


# [proof:PartitionDomain]
@attrs.frozen(repr=False)
class PartitionDomain(Admits):
    """Tuples of frames, one per public key: the parts of a frame split by a column.

    Members: a tuple or list of ``len(keys)`` members of ``part_domain`` (part i holds the
    rows whose key is ``keys[i]``); for the Spark engine, the parts of one frame split by
    these keys, in order.  ``admit`` returns a tuple.

    Attributes:
        part_domain: the domain of each part, a :class:`DataFrameDomain`.
        keys: the public keys, a non-empty tuple of distinct values, in the parts' order.
    """

    part_domain: DataFrameDomain = attrs.field()
    keys: tuple[Any, ...] = attrs.field(converter=_keys)

    @part_domain.validator
    def _check_part(self, attribute: Any, value: Any) -> None:
        v.instance("part_domain", value, DataFrameDomain, "a DataFrameDomain")

    @keys.validator
    def _check_keys(self, attribute: Any, value: tuple[Any, ...]) -> None:
        if not value:
            raise MakeError("keys (()) must not be empty")
        if len(set(value)) != len(value):
            raise MakeError(f"keys ({value!r}) must be distinct")

    def __repr__(self) -> str:
        return f"PartitionDomain(part_domain={self.part_domain!r}, keys={self.keys!r})"

    def check(self, x: object) -> Any:
        """The tuple of admitted parts, or a refusal (not a tuple or list of the right length,
        or a part is not a member of ``part_domain``; the refusal names its position).  The
        engine of ``part_domain`` decides.  Never raises."""
        engines = installed()   # the engines are built on the domains
        engine = engines.local if self.part_domain.engine is None else engines.engine_named(self.part_domain.engine)
        return engine.check_parts(self, x)
# [end:PartitionDomain]
