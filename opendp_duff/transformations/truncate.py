"""make_truncate_per_id and make_truncate_per_group: bound what each person contributes, a
person being all the rows that share an identifier.

The rows a person keeps depend on that person's rows and a secret key only (the kernels of
:mod:`._truncate_kernels` and :mod:`._truncate_spark`), so a person's influence is bounded
however many rows the data holds for them.  The key is drawn once per context with
:func:`draw_truncation_key`.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from .. import _validate as v
from .._constants import EXACT_INT_BOUND
from ..core import Transformation, then
from ..errors import MakeError
from ..frames.domain import DataFrameDomain
from ..metrics import PartitionBound, SymmetricDistance
from ..metrics_id import SymmetricIdDistance, grouped_symmetric_distance
from ._keyed_hash import as_key, draw_truncation_key
from ._truncate_kernels import Truncation, truncate_local

__all__ = ["make_truncate_per_id", "then_truncate_per_id", "make_truncate_per_group",
           "then_truncate_per_group", "draw_truncation_key"]


def _count(name: str, value: Any) -> int:
    value = v.number(name, value, integer=True, positive=True)
    if value > EXACT_INT_BOUND:
        raise MakeError(f"{name} ({value!r}) must be at most 2^53: no frame has more rows")
    return int(value)


# [proof:truncation_kernel]
def _kernel(input_domain: DataFrameDomain) -> Callable[[Any, Truncation], Any]:
    """The kernel of the domain's engine: Spark frames are truncated by Spark SQL (lazily), local
    frames (pandas, Polars eager or lazy) by :func:`truncate_local`."""
    if input_domain.engine == "spark":
        from ._truncate_spark import truncate_spark
        return truncate_spark
    return truncate_local
# [end:truncation_kernel]


# [proof:_truncation]
def _truncation(input_domain: DataFrameDomain, input_metric: SymmetricIdDistance, contributions: Any,
                key: Any, by: tuple[str, ...] = (), max_groups: int | None = None) -> Truncation:
    """The validated parameters shared by both constructors."""
    v.instance("input_domain", input_domain, DataFrameDomain, "a DataFrameDomain (dp.dataframe_domain)")
    v.instance("input_metric", input_metric, SymmetricIdDistance, "symmetric_id_distance(identifier)")
    identifier = input_metric.identifier
    if identifier not in input_domain.columns:
        raise MakeError(f"the identifier ({identifier!r}) must be one of the declared columns "
                        f"{list(input_domain.columns)!r}")
    if input_domain.columns[identifier].T not in (int, str):
        raise MakeError(f"the identifier column {identifier!r} must hold int or str values, "
                        f"not {input_domain.columns[identifier]!r}")
    for b in by:
        if b not in input_domain.columns:
            raise MakeError(f"by ({b!r}) must be one of the declared columns {list(input_domain.columns)!r}")
    columns = tuple((name, elem.T) for name, elem in input_domain.columns.items())
    return Truncation(identifier, columns, _count("contributions", contributions), as_key(key), by, max_groups)
# [end:_truncation]


def make_truncate_per_id(input_domain: DataFrameDomain, input_metric: SymmetricIdDistance,
                         contributions: int, key: bytes | int) -> Transformation:
    """Keep at most ``contributions`` rows of each person: frame -> frame.

    A person is all the rows sharing a value of the identifier column.  Each person keeps the
    ``contributions`` rows that come first when the person's rows are ordered by a keyed hash
    of their content and then by the content itself; a person with fewer rows keeps them all.
    The kept rows depend on the person's rows and the key only, never on other persons or on
    the order of the rows, so one person added or removed changes at most ``contributions``
    rows of the output, however many rows that person has.

    Content is read through the declared columns, each as the type of its atom domain:
    -0.0 and 0.0 are one value, every NaN or missing float is one value, so rows the frame
    metrics count as equal are treated alike.  The output has the declared columns only; its
    row order carries no meaning.  The hash's strength is not what the stability rests on
    (it holds for every key); the secret key keeps a person from choosing which of their rows
    are kept.

    Contract:
        * Input domain: ``dataframe_domain(columns, size)`` (pandas or Polars frames) with the
          identifier among the columns, of type int or str.
        * Input metric: ``symmetric_id_distance(identifier)``.
        * Output domain: ``dataframe_domain(columns)`` (any number of rows).
        * Output metric: ``symmetric_distance()``.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: ``symmetric_id_distance(identifier)``, naming the identifier column.
        contributions: k, the rows kept per person, an integer in [1, 2^53].
        key: the secret key, 16 bytes or an integer in [0, 2^128): draw it with
            :func:`draw_truncation_key`, once per context, and keep it secret.

    Stability map:
        ``map(d_in) = k * d_in``: each person added or removed brings or takes at most k kept
        rows (a person whose rows change counts 2 in d_in and changes at most 2k rows).
        Exact integers; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a DataFrameDomain; ``input_metric`` is not
            ``symmetric_id_distance(...)``; ``contributions`` is not an integer; ``key`` is neither 16
            bytes nor an integer.
        MakeError: the identifier not a declared column of int or str values; ``contributions`` not
            positive or above 2^53; ``key`` of the wrong length or outside [0, 2^128).
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/truncate/make_truncate_per_id.tex``.

    References: [WZLDSG20] (bounding each user's contributions by keeping at most a fixed
    number of their rows); [AB12] §2 (SipHash, the keyed hash of the pandas kernel).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> from opendp_duff.metrics_id import symmetric_id_distance
        >>> dom = dp.dataframe_domain({"user": dp.atom_domain(T=int), "spend": dp.atom_domain(T=float)})
        >>> t = ((dom, symmetric_id_distance("user"))
        ...      >> dp.t.then_truncate_per_id(contributions=2, key=bytes(range(16)))
        ...      >> dp.t.then_select_column("spend"))
        >>> len(t(pd.DataFrame({"user": [1, 1, 1, 2], "spend": [5.0, 6.0, 7.0, 1.0]}))), t.map(1)
        (3, 2)
    """
    # [proof:make_truncate_per_id]
    spec = _truncation(input_domain, input_metric, contributions, key)
    k, kernel = spec.contributions, _kernel(input_domain)

    def function(frame: Any) -> Any:
        return kernel(frame, spec)

    return Transformation(input_domain, input_domain.with_(size=None), input_metric,
                          SymmetricDistance(), function, lambda d_in: k * d_in)
    # [end:make_truncate_per_id]


then_truncate_per_id = then(make_truncate_per_id)


def make_truncate_per_group(input_domain: DataFrameDomain, input_metric: SymmetricIdDistance,
                            by: str | Sequence[str], max_groups: int, contributions: int,
                            key: bytes | int) -> Transformation:
    """Keep at most ``max_groups`` groups of each person, and at most ``contributions`` rows of
    each kept group: frame -> frame.

    A person is all the rows sharing a value of the identifier column; a group is a value of
    the ``by`` columns.  Each person keeps the ``max_groups`` of their groups that come first in
    the order of a keyed hash of (identifier, group) and then of the group's value, and in each
    kept group the ``contributions`` rows that come first in the order of a keyed hash of the
    row's content and then of the content.  Every choice depends on the person's rows and the
    key only.  Values are read as in :func:`make_truncate_per_id` (-0.0 is 0.0, every NaN or
    missing float is one value).

    The output metric counts the symmetric distance group by group, so that
    ``make_partition_by(by, keys)`` followed by ``make_parallel_composition`` charges for
    ``max_groups`` parts changed by ``contributions`` rows each, not for
    ``max_groups * contributions`` rows in every part.

    Contract:
        * Input domain: ``dataframe_domain(columns, size)`` (pandas or Polars frames) with the
          identifier (int or str) and the ``by`` columns among the columns.
        * Input metric: ``symmetric_id_distance(identifier)``.
        * Output domain: ``dataframe_domain(columns)`` (any number of rows).
        * Output metric: ``grouped_symmetric_distance(by)``: the triple (l0, l1, linf) over
          the groups.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: ``symmetric_id_distance(identifier)``, naming the identifier column.
        by: a declared column, or a non-empty sequence of distinct declared columns (a group is
            the tuple of their values).
        max_groups: g, the groups kept per person, an integer in [1, 2^53].
        contributions: k, the rows kept per person in each kept group, an integer in [1, 2^53].
        key: the secret key, 16 bytes or an integer in [0, 2^128): draw it with
            :func:`draw_truncation_key`, once per context, and keep it secret.

    Stability map:
        ``map(d_in) = (g * d_in, g * k * d_in, k * d_in)``: each person added or removed
        changes at most g groups, each by at most k rows.  Exact integers;
        ``map(0) = (0, 0, 0)``.

    Raises:
        MakeTypeError: ``input_domain`` is not a DataFrameDomain; ``input_metric`` is not
            ``symmetric_id_distance(...)``; ``by`` is not a column name or a sequence of them;
            ``contributions`` or ``max_groups`` is not an integer; ``key`` is neither 16 bytes nor an
            integer.
        MakeError: the identifier not a declared column of int or str values; a column of ``by`` not
            declared; ``contributions`` or ``max_groups`` not positive or above 2^53; ``key`` of the
            wrong length or outside [0, 2^128).
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/truncate/make_truncate_per_group.tex``.

    References: [WZLDSG20] (bounding the partitions a user contributes to, and the
    contributions to each); [McS09] (parallel composition over the parts);
    [AB12] §2 (SipHash).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> from opendp_duff.metrics_id import symmetric_id_distance
        >>> dom = dp.dataframe_domain({"user": dp.atom_domain(T=str), "airline": dp.atom_domain(T=str)})
        >>> t = ((dom, symmetric_id_distance("user"))
        ...      >> dp.t.then_truncate_per_group("airline", max_groups=1, contributions=2, key=7)
        ...      >> dp.t.then_partition_by("airline", keys=["A", "B"]))
        >>> parts = t(pd.DataFrame({"user": ["u", "u", "u", "v"], "airline": ["A", "A", "B", "B"]}))
        >>> sum(len(p) for p in parts), t.map(1)
        (3, PartitionBound(l0=1, l1=2, linf=2))
    """
    # [proof:make_truncate_per_group]
    out_metric = grouped_symmetric_distance(by)
    g = _count("max_groups", max_groups)
    spec = _truncation(input_domain, input_metric, contributions, key, out_metric.by, g)
    k, kernel = spec.contributions, _kernel(input_domain)

    def function(frame: Any) -> Any:
        return kernel(frame, spec)

    return Transformation(input_domain, input_domain.with_(size=None), input_metric,
                          out_metric, function, lambda d_in: PartitionBound(g * d_in, g * k * d_in, k * d_in))
    # [end:make_truncate_per_group]


then_truncate_per_group = then(make_truncate_per_group)
