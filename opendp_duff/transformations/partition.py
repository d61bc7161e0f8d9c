"""make_partition_by: split a data frame into one part per public key (group-by over public keys)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _validate as v
from ..core import Transformation, then
from ..engines import engine_for, engine_named
from ..errors import MakeError
from ..frames.domain import DataFrameDomain, PartitionDomain
from ..metrics import Metric, PartitionBound, PartitionDistance, SymmetricDistance
from ..metrics_id import GroupedSymmetricDistance
from ..engines.candidates import validate_candidates
from ._partition_keys import tuple_codes, validate_tuple_keys

__all__ = ["make_partition_by", "then_partition_by"]


def make_partition_by(input_domain: DataFrameDomain, input_metric: Metric, by: str | Sequence[str],
                      keys: Sequence[Any]) -> Transformation:
    """Split a frame by the value of column ``by`` (or of several columns) into one part per public key.

    Part i holds the rows whose ``by`` value equals ``keys[i]`` (with several columns, whose
    tuple of values equals the tuple ``keys[i]``), in their order in the frame;
    a key absent from the data gets an empty part; rows whose value is no key are dropped.
    The parts keep the declared columns only.  The keys are public: they are never read from
    the data, so which groups exist reveals nothing.  The engine of the domain splits: a
    local frame into light parts (views of the declared columns gathered in key order, each a
    frame of its library on demand); a Spark frame into lazy parts whose statistics are
    computed for every key in the same passes (:mod:`opendp_duff.engines.spark`).

    Contract:
        * Input domain: ``dataframe_domain(columns, size, engine)`` with ``by`` among the
          columns (float, int or str), or several such columns, on every engine.
        * Input metric: ``symmetric_distance()`` (frames as multisets of rows), or
          ``grouped_symmetric_distance(by)`` over the same columns (the output of
          ``make_truncate_per_group``).
        * Output domain: ``PartitionDomain(dataframe_domain(columns, engine=engine), keys)``:
          tuples of len(keys) parts of any size.
        * Output metric: ``partition_distance(symmetric_distance())``.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: ``symmetric_distance()`` or ``grouped_symmetric_distance(by)``.
        by: the name of a declared column, or a tuple (a non-empty sequence) of distinct
            declared columns; a sequence of one name is that name.
        keys: a public, non-empty list, tuple or 1-d array of distinct values of the column's
            type, compared as in ``make_count_by_candidates`` (floats as float64 values, -0.0
            equal to 0.0; strings with ``==``); with several columns, distinct tuples with one
            such value per column, e.g. ``[("AA", "JFK"), ("BA", "LHR")]``.

    Stability map:
        ``map(d_in) = (d_in, d_in, d_in)``: each row added or removed lands in at most one
        part, so at most d_in parts differ, their symmetric distances sum to at most d_in,
        and each is at most d_in.  Exact; ``map(0) = (0, 0, 0)``.  Under
        ``grouped_symmetric_distance((by,))``: ``map((l0, l1, linf)) = (l0, l1, linf)``, the
        parts being some of the groups the metric counts (with several columns, the groups
        are the tuples of values).

    Running time (local frames): O(rows + keys) plus the copy of the declared columns: the key
    column is coded against the keys (a hash lookup for strings, a binary search among the
    keys for numbers; several columns one after the other, each code combined with the prefix
    so far and looked up among the keys' prefixes), the rows are grouped by a stable radix
    sort of the integer codes, the numeric columns are gathered in that order by numpy and the
    other string columns by the library (a string key column is not copied: part j holds key
    j), and each part is a contiguous slice of the gathered columns.  Spark: no pass (a part's
    rows are those whose every key column equals the key's component, found by the statistic's
    own pass: a lookup for one int or str column, a broadcast join with the keys otherwise).

    Raises:
        MakeTypeError: ``input_domain`` or ``input_metric`` is of the wrong kind; ``keys`` is
            not a list, tuple or array (of tuples of the right length, with several columns).
        MakeError: ``by`` names no declared column, is empty or repeats a column; the grouped
            metric counts other columns; ``keys`` is empty,
            repeats a key or holds a value not of its column's type.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/partition/make_partition_by.tex``.

    References: [McS09] (parallel composition over disjoint parts).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
        >>> t = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("region", keys=["N", "S", "W"])
        >>> parts = t(pd.DataFrame({"region": ["S", "N", "S", "E"], "income": [1.0, 2.0, 3.0, 4.0]}))
        >>> [p.column("income").tolist() for p in parts], t.map(1)
        ([[2.0], [1.0, 3.0], []], PartitionBound(l0=1, l1=1, linf=1))
    """
    # [proof:make_partition_by]
    v.instance("input_domain", input_domain, DataFrameDomain, "a DataFrameDomain (dp.dataframe_domain)")
    v.instance("input_metric", input_metric, (SymmetricDistance, GroupedSymmetricDistance),
               "symmetric_distance() or grouped_symmetric_distance(by)")
    names = _by_columns(by, input_domain)
    per_group = isinstance(input_metric, GroupedSymmetricDistance)     # a triple already
    if isinstance(input_metric, GroupedSymmetricDistance) and input_metric.by != names:
        raise MakeError(f"input_metric ({input_metric!r}) must count the groups of by ({by!r})")
    if len(names) == 1:
        keys = validate_candidates(keys, input_domain.columns[names[0]].T, name="keys")
    else:
        keys = validate_tuple_keys(keys, [input_domain.columns[b].T for b in names])
    out = PartitionDomain(DataFrameDomain(input_domain.columns, None, input_domain.engine), keys)
    named = None if input_domain.engine is None else engine_named(input_domain.engine)

    def function(df: Any) -> tuple[Any, ...]:
        engine = named or engine_for(df)             # a member is a frame of the engine (a local one if None)
        if len(names) == 1:
            return engine.split(df, names[0], keys, input_domain)
        if input_domain.engine == "spark":   # the Spark engine's split also takes a tuple of columns
            split: Any = engine.split
            return split(df, names, keys, input_domain)
        codes = tuple_codes(engine, df, names, keys, input_domain)     # a local engine
        return engine.split_by_codes(df, codes, len(keys), input_domain)

    return Transformation(input_domain, out, input_metric, PartitionDistance(SymmetricDistance()), function,
                          lambda d_in: PartitionBound(*d_in) if per_group else PartitionBound(d_in, d_in, d_in))
    # [end:make_partition_by]


then_partition_by = then(make_partition_by)


# [proof:by_columns]
def _by_columns(by: Any, domain: DataFrameDomain) -> tuple[str, ...]:
    """``by`` as a tuple of distinct declared column names."""
    names = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, (list, tuple)) else None
    if not names or len(set(names)) != len(names) or any(
            not isinstance(b, str) or b not in domain.columns for b in names):
        raise MakeError(f"by ({by!r}) must be one of the declared columns {list(domain.columns)!r}, or a "
                        "non-empty sequence of distinct declared columns")
    return names
# [end:by_columns]

