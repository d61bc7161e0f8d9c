"""Metrics for data whose privacy unit is a person with many rows.

* :class:`SymmetricIdDistance`: frames compared person by person, a person being all the rows
  that share a value of the identifier column.  The input metric of the truncations
  (:mod:`opendp_duff.transformations.truncate`).
* :class:`GroupedSymmetricDistance`: frames compared group by group (groups are the values of
  the ``by`` columns), a distance being a triple ``(l0, l1, linf)``.  The output metric of
  ``make_truncate_per_group``, which ``make_partition_by`` maps to the same triple between
  partitions.

Rows are compared as the frame metrics compare them (``proofs/transformations/select_column/
make_select_column.tex``): a row is the tuple of its values in the declared columns, values
compared as the records of their atom domains (float64 values, -0.0 equal to 0.0, a missing
float read as NaN; integers; strings).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from .errors import MakeError, MakeTypeError
from .metrics import L01InfDistance, Metric, PartitionBound

__all__ = ["SymmetricIdDistance", "GroupedSymmetricDistance", "symmetric_id_distance",
           "grouped_symmetric_distance"]


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise MakeTypeError(f"{what} ({value!r}) must be a non-empty column name (str)")
    return value


@attrs.frozen
class SymmetricIdDistance(Metric):
    """The number of persons added or removed, a person being all the rows that share a value
    of the column ``identifier``.

    For a frame x and an identifier value u, let x_u be the multiset of the rows of x whose
    identifier is u (empty when u is absent).  Then

        d(x, x') = sum over u of  0 if x_u = x'_u,  1 if exactly one of x_u, x'_u is empty,
                                  2 otherwise,

    the size of the symmetric difference between the sets of persons {(u, x_u)} of the two
    frames: the fewest whole persons, with all their rows, to add or remove to turn x into x'
    (a person whose rows change is removed, then added back).  Neighbours (distance 1) differ
    by one person and all of that person's rows, however many.  Distances are integers.
    """

    identifier: str = attrs.field(validator=lambda _, __, value: _name(value, "identifier"))
    distance_type = int


@attrs.frozen
class GroupedSymmetricDistance(Metric):
    """The symmetric distance between frames counted group by group: a triple
    ``(l0, l1, linf)``.

    For a frame y and a value v of the columns ``by``, let y_v be the multiset of its rows whose
    ``by`` values equal v, and d_v = |y_v triangle y'_v|.  Frames y, y' are within
    ``(l0, l1, linf)`` when at most l0 groups have d_v > 0, sum_v d_v <= l1 and
    max_v d_v <= linf.  Partitioning both frames by ``by`` (over any public keys) gives
    partitions within the same triple under ``partition_distance(symmetric_distance())``.
    Distances are :class:`~opendp_duff.metrics.PartitionBound` triples, compared
    componentwise.
    """

    by: tuple[str, ...]
    distance_type = PartitionBound

    def validate_distance(self, d_in: object, name: str = "d_in") -> PartitionBound:
        """A triple ``(l0, l1, linf)`` of non-negative integers, as a
        :class:`~opendp_duff.metrics.PartitionBound`.

        Raises:
            MapError: ``d_in`` is not a triple, or a component is not a non-negative integer.
        """
        return L01InfDistance().validate_distance(d_in, name)   # the same triples


def symmetric_id_distance(identifier: str) -> SymmetricIdDistance:
    """The distance between frames in persons added or removed, a person being all the rows
    that share a value of the column ``identifier`` (see :class:`SymmetricIdDistance`).

    Args:
        identifier: the name of the identifier column.

    Raises:
        MakeTypeError: ``identifier`` is not a non-empty str.

    Example:
        >>> from opendp_duff.metrics_id import symmetric_id_distance
        >>> metric = symmetric_id_distance("user_id")
        >>> metric, metric.validate_distance(1)
        (SymmetricIdDistance(identifier='user_id'), 1)
    """
    return SymmetricIdDistance(_name(identifier, "identifier"))


# [proof:grouped_symmetric_distance]
def grouped_symmetric_distance(by: str | Sequence[str]) -> GroupedSymmetricDistance:
    """The symmetric distance between frames counted group by group over the values of the
    columns ``by``, a triple ``(l0, l1, linf)`` (see :class:`GroupedSymmetricDistance`).

    Args:
        by: a column name or a non-empty sequence of distinct column names.

    Raises:
        MakeTypeError: a name is not a non-empty str.
        MakeError: ``by`` is empty or repeats a name.

    Example:
        >>> from opendp_duff.metrics_id import grouped_symmetric_distance
        >>> metric = grouped_symmetric_distance("airline")
        >>> metric, metric.validate_distance((2, 6, 3))
        (GroupedSymmetricDistance(by=('airline',)), PartitionBound(l0=2, l1=6, linf=3))
    """
    names = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, Sequence) else None
    if names is None:
        raise MakeTypeError(f"by ({by!r}) must be a column name or a sequence of column names")
    for b in names:
        _name(b, "by")
    if not names or len(set(names)) != len(names):
        raise MakeError(f"by ({names!r}) must be a non-empty sequence of distinct column names")
    return GroupedSymmetricDistance(names)
# [end:grouped_symmetric_distance]
