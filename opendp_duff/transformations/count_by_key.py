"""make_count_by_key: how many records hold each value, for values not known in advance."""
from __future__ import annotations

import collections
from typing import Any, Callable

import numpy as np

from .. import _validate as v
from ..core import Transformation, then
from ..domains import VectorDomain
from ..engines import engine_for, engine_named
from ..errors import MakeError
from ..frames.domain import DataFrameDomain
from ..map_domain import count_map_domain
from ..metrics import ChangeOneDistance, L01InfDistance, Metric, PartitionBound, SymmetricDistance
from ..metrics_id import GroupedSymmetricDistance
from ._common import as_array, dataset_space

__all__ = ["make_count_by_key", "then_count_by_key"]


def make_count_by_key(input_domain: VectorDomain | DataFrameDomain, input_metric: Metric,
                      by: str | tuple[str, ...] | None = None) -> Transformation:
    """Count the records of each distinct value: x -> {key: number of records equal to key}.

    The keys are the values that occur (each count is at least 1), in increasing order; they
    are private, which is why ``make_threshold_keys`` releases only those with a large noisy
    count.  When the keys are public, ``make_count_by_candidates`` counts them instead.  On a
    frame the key of a row is its value in the column ``by``, or with several columns the
    tuple of its values in them; the engine of the domain counts (pandas and Polars: the
    canonical column, counted by ``np.unique`` or, for strings and tuples, by a hash table;
    Spark: one aggregation, whose result, one row per key, reaches the driver).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T str, int or float, without NaN
          (bounds are allowed and ignored), of local data; or ``dataframe_domain(columns,
          size, engine)`` of any engine with ``by`` a declared column of such a domain, or a
          tuple of at least two distinct such columns.
        * Input metric: vectors: ``symmetric_distance()`` or ``change_one_distance()`` (known
          size); frames: ``symmetric_distance()`` or ``grouped_symmetric_distance((by,))`` (the
          output of ``make_truncate_per_group``).
        * Output domain: ``count_map_domain(T)``: keys of type T (with several columns, tuples
          of values of their types), counts in [0, 2^53].
        * Output metric: ``l01inf_distance()``, a missing key read as a count of 0.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).
        by: for a frame, the name of the key column, or a tuple (a sequence) of distinct names
            (a sequence of one name is that name); None for a vector.

    Stability map:
        * symmetric distance: ``map(d) = (d, d, d)``: each added or removed record changes one
          count by 1, so at most d counts change, by at most d in total and each by at most d.
        * change-one distance: ``map(d) = (2 d, 2 d, d)``: a substitution removes one record
          and adds one.
        * grouped distance over ``(by,)``: ``map((l0, l1, linf)) = (l0, l1, linf)``: the count
          of key v changes by at most the symmetric distance of the rows of group v.

        Exact integers; ``map(0) = (0, 0, 0)``.

    Float keys compare as float64 values, -0.0 being the key 0.0; strings compare with ``==``.

    Raises:
        MakeTypeError: ``input_domain`` or ``input_metric`` is of the wrong kind.
        MakeError: a vector domain of another engine, with NaN, or ``by`` given; a frame
            without ``by``, ``by`` not a declared column (or repeating one), a key column's
            domain admitting NaN; a
            change-one metric without a size; a grouped metric over other columns.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/count_by_key/make_count_by_key.tex``.

    References: [KKMN09] (counts per query, then noisy thresholding); [DVGM22] (partition
    selection: the keys of a GROUP BY are data).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_count_by_key()
        >>> t(["N", "S", "N"]), t.map(1)
        ({'N': 2, 'S': 1}, PartitionBound(l0=1, l1=1, linf=1))
        >>> import pandas as pd
        >>> frame = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
        >>> (frame, dp.symmetric_distance()) >> dp.t.then_count_by_key(by="region") >> dp.m.then_threshold_keys(
        ...     scale=1.0, threshold=5.0)  # doctest: +ELLIPSIS
        Measurement(...)
    """
    # [proof:make_count_by_key]
    if isinstance(input_domain, DataFrameDomain):
        elem, counter, stability_map = _frame_space(input_domain, input_metric, by)
    else:
        if by is not None:
            raise MakeError(f"by ({by!r}) names a column of a frame: a vector domain has none")
        elem = dataset_space(input_domain, input_metric, allow_str=True)
        counter = lambda x: count_values(x, elem.T)   # noqa: E731 - a member is a local column
        change_one = isinstance(input_metric, ChangeOneDistance)

        def stability_map(d_in: Any) -> PartitionBound:
            return PartitionBound(2 * d_in, 2 * d_in, d_in) if change_one else PartitionBound(d_in, d_in, d_in)

    T = tuple(e.T for e in elem) if isinstance(elem, tuple) else elem.T
    return Transformation(input_domain, count_map_domain(T), input_metric, L01InfDistance(),
                          counter, stability_map)
    # [end:make_count_by_key]


# [proof:count_values]
def count_values(x: Any, T: type) -> dict[Any, int]:
    """The counts of the distinct values of a local column (a member), in increasing key order."""
    if T is str:
        tally = collections.Counter(x)                 # by str equality
        return {k: tally[k] for k in sorted(tally)}
    keys, counts = np.unique(as_array(x, T), return_counts=True)   # -0.0 read as 0.0
    return dict(zip(keys.tolist(), counts.tolist(), strict=True))


def _frame_space(domain: DataFrameDomain, metric: Metric,
                 by: Any) -> tuple[Any, Callable[[Any], dict[Any, int]], Callable[[Any], Any]]:
    """The key column's domain (a tuple of them for several columns), the counting function of
    the domain's engine, and the map."""
    v.instance("input_metric", metric, (SymmetricDistance, GroupedSymmetricDistance),
               "symmetric_distance() or grouped_symmetric_distance((by,))")
    names = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, (list, tuple)) else ()
    if not names or len(set(names)) != len(names) or any(not isinstance(b, str) or b not in domain.columns
                                                          for b in names):
        raise MakeError(f"by ({by!r}) must be one of the declared columns {list(domain.columns)!r}, or a "
                        "sequence of distinct declared columns")
    for name in names:
        if domain.columns[name].nan:
            raise MakeError(f"the key column {name!r} must not admit NaN (impute it first)")
    if isinstance(metric, GroupedSymmetricDistance) and metric.by != names:
        raise MakeError(f"input_metric ({metric!r}) must count the groups of by ({by!r})")
    elems = tuple(domain.columns[name] for name in names)
    types = tuple(e.T for e in elems)
    elem: Any = elems[0] if len(names) == 1 else elems
    if domain.engine == "spark":
        from ._count_by_key_spark import count_by_key_spark
        return elem, lambda df: count_by_key_spark(df, names, types), _same_triple(metric)
    engine = None if domain.engine is None else engine_named(domain.engine)

    def counter(df: Any) -> dict[Any, int]:
        read = engine or engine_for(df)
        if len(names) == 1:
            return count_values(read.column(df, names[0], domain.column_domain(names[0])), types[0])
        columns = [canonical_values(read.column(df, name, domain.column_domain(name)), T)
                   for name, T in zip(names, types, strict=True)]
        tally = collections.Counter(zip(*columns, strict=True))      # tuples of Python values
        return {k: tally[k] for k in sorted(tally)}

    return elem, counter, _same_triple(metric)


def canonical_values(x: Any, T: type) -> list[Any]:
    """A local column's values as Python values of type T, a float's zero as +0.0 (``as_array``)."""
    return list(x) if T is str else as_array(x, T).tolist()


def _same_triple(metric: Metric) -> Callable[[Any], PartitionBound]:
    if isinstance(metric, GroupedSymmetricDistance):
        return lambda d_in: PartitionBound(*d_in)
    return lambda d_in: PartitionBound(d_in, d_in, d_in)
# [end:count_values]


then_count_by_key = then(make_count_by_key)
