"""Data-frame domains: pandas or Polars DataFrames with declared columns, and partitions of
them into one frame per public key.

``DataFrameDomain`` describes a frame by the domains of the columns a pipeline reads; other
columns are allowed and never read.  ``PartitionDomain`` is the output domain of
``make_partition_by`` and the input domain of ``make_parallel_composition``.  pandas and
Polars are never imported here (:mod:`opendp_duff.frames._backends`).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

import attrs

from .. import _validate as v
from .._constants import EXACT_INT_BOUND
from .._membership import Refusal, check_vector
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError, MakeTypeError, NotAMemberTypeError, NotAMemberValueError
from ._backends import backend_of

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


# [proof:check_frame]
def check_frame(domain: DataFrameDomain, x: object) -> tuple[Any, Refusal | None]:
    """``(x, None)`` if x is a member of ``domain``, else ``(None, refusal)``.  Never raises;
    the refusal names declared columns only (public), never a value or an undeclared name."""
    try:
        refusal = _frame_refusal(domain, x)
    except Exception:  # noqa: BLE001 - foreign code (the frame library, properties) raised
        refusal = _UNREADABLE
    return (None, refusal) if refusal is not None else (x, None)


_UNREADABLE = Refusal(NotAMemberTypeError, "the data could not be read as a data frame")


def _frame_refusal(domain: DataFrameDomain, x: object) -> Refusal | None:
    backend = backend_of(x)
    if backend is None:
        return Refusal(NotAMemberTypeError, "data must be a pandas or Polars DataFrame, "
                                            f"not {type(x).__name__}")
    n = backend.n_rows(x)
    if n > EXACT_INT_BOUND:
        return Refusal(NotAMemberValueError, "a frame has at most 2^53 rows")
    if domain.size is not None and n != domain.size:
        return Refusal(NotAMemberValueError, f"the domain has size {domain.size}: the frame must "
                                             "have exactly that many rows")
    for name in domain.columns:
        if not backend.has_column(x, name):
            return Refusal(NotAMemberTypeError, f"the frame must have exactly one column named {name!r}")
        if domain.columns[name].T is str and backend.only_strings(x, name):
            continue                  # the size was checked above; strings have no other condition
        _, refusal = check_vector(domain.column_domain(name), backend.column(x, name))
        if refusal is not None:
            return Refusal(refusal.error, f"column {name!r}: {refusal.requirement}")
    return None
# [end:check_frame]


@attrs.frozen(repr=False)
class DataFrameDomain:
    """pandas or Polars DataFrames whose declared columns are members of their domains.

    Build it with :func:`dataframe_domain`, which validates the fields.

    Members: a ``pandas.DataFrame`` or ``polars.DataFrame`` (subclasses included) that has
    exactly one column of each declared name, each a member of
    ``vector_domain(columns[name], size=size)`` when read as a numpy array (numbers in their
    dtype, a missing numeric value as NaN; strings as Python str, a missing one as None or
    NaN, which no string domain admits); other columns are allowed and never read.  With
    ``size``, exactly that many rows.  Refused: anything else, a Spark DataFrame included.

    Attributes:
        columns: the declared columns, name -> AtomDomain (a read-only mapping).
        size: the public number of rows, or None.
    """

    columns: ColumnDomains = attrs.field(converter=ColumnDomains)
    size: int | None = None

    def __repr__(self) -> str:
        size = "" if self.size is None else f", size={self.size}"
        return f"DataFrameDomain(columns={self.columns!r}{size})"

    def column_domain(self, name: str) -> VectorDomain:
        """``vector_domain(columns[name], size=size)``: the domain of a member's column."""
        return VectorDomain(self.columns[name], self.size, False)

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member (see the class docstring).  Never raises."""
        return check_frame(self, x)[1] is None

    def admit(self, x: object) -> Any:
        """``x`` itself if it is a member; the columns are admitted when a transformation
        selects them.

        Raises:
            NotAMemberTypeError: ``x`` is not a pandas or Polars frame, lacks a declared column
                (or has it twice), or a column holds values of the wrong kind.
            NotAMemberValueError: the number of rows differs from ``size``, or a column holds
                NaN or values outside its bounds.
        """
        frame, refusal = check_frame(self, x)
        if refusal is not None:
            raise refusal.exception(self)
        return frame

    def with_(self, **changes: Any) -> DataFrameDomain:
        """A copy with some fields changed."""
        return attrs.evolve(self, **changes)


def dataframe_domain(columns: Mapping[str, AtomDomain], size: int | None = None) -> DataFrameDomain:
    """The domain of pandas or Polars DataFrames with the declared columns.

    Args:
        columns: a mapping column name (str) -> :class:`~opendp_duff.AtomDomain`, the
            domain of each column a pipeline may read (e.g. ``{"region": atom_domain(T=str),
            "income": atom_domain(T=float)}``).
        size: the public number of rows, an integer in [0, 2^53], or None (unknown).

    Returns:
        A :class:`DataFrameDomain`; see its docstring for the members.

    Raises:
        MakeTypeError: columns is not a mapping, a name is not a str, a domain is not an
            AtomDomain; size is not an integer.
        MakeError: size is negative or above 2^53.

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
    return DataFrameDomain(ColumnDomains(columns), size)


def _keys(value: Any) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen(repr=False)
class PartitionDomain:
    """Tuples of frames, one per public key: the parts of a frame split by a column.

    Members: a tuple or list of ``len(keys)`` members of ``part_domain`` (part i holds the
    rows whose key is ``keys[i]``).  ``admit`` returns a tuple.

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

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member.  Never raises."""
        return self._check(x)[1] is None

    def admit(self, x: object) -> tuple[Any, ...]:
        """``x`` as a tuple of admitted parts, if it is a member.

        Raises:
            NotAMemberTypeError, NotAMemberValueError: ``x`` is not a tuple or list of the
                right length, or a part is not a member of ``part_domain``.
        """
        parts, refusal = self._check(x)
        if refusal is not None:
            raise refusal.exception(self)
        return parts

    # [proof:check_partition]
    def _check(self, x: object) -> tuple[Any, Refusal | None]:
        if type(x) not in (tuple, list):
            return None, Refusal(NotAMemberTypeError, "a partition must be a tuple of frames, "
                                                      f"not {type(x).__name__}")
        parts: tuple[Any, ...] = tuple(cast("tuple[Any, ...]", x))
        if len(parts) != len(self.keys):
            return None, Refusal(NotAMemberValueError, f"a partition has one frame per key: "
                                                       f"{len(self.keys)} frames")
        for i, part in enumerate(parts):
            _, refusal = check_frame(self.part_domain, part)
            if refusal is not None:
                return None, Refusal(refusal.error, f"part {i}: {refusal.requirement}")
        return parts, None
    # [end:check_partition]
