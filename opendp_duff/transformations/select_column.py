"""make_select_column: one declared column of a data frame, as a vector; make_select_columns:
the frame restricted to some declared columns."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _validate as v
from ..core import Transformation, then
from ..engines import engine_for, engine_named
from ..errors import MakeError
from ..frames.domain import DataFrameDomain
from ..metrics import ChangeOneDistance, Metric
from ._common import DATASET_METRICS

__all__ = ["make_select_column", "then_select_column", "make_select_columns", "then_select_columns"]


def make_select_column(input_domain: DataFrameDomain, input_metric: Metric, key: str) -> Transformation:
    """Select the column ``key`` of a data frame: frame -> the column as a vector.

    On a local frame the column is read as a numpy array and admitted by its vector domain: a
    float64 or int64 array for numbers, an object array of Python ``str`` for strings.  On a
    Spark frame it is the lazy column of the frame (no pass: the statistic at the end of the
    chain reads it).

    Contract:
        * Input domain: ``dataframe_domain(columns, size, engine)`` with ``key`` among the columns.
        * Input metric: ``symmetric_distance()``, or ``change_one_distance()`` with a known
          size.  Frames are compared as multisets of rows.
        * Output domain: ``vector_domain(columns[key], size=size)`` of the engine's columns
          (``engine=None`` for a local frame: a numpy array; ``engine="spark"`` for Spark).
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: the dataset metric (see the contract).
        key: the name of a declared column.

    Stability map:
        ``map(d_in) = d_in``: the row -> its value in column ``key`` is a record-wise map,
        which sends frames within d_in to vectors within d_in under both dataset metrics
        (rows added, removed or replaced become values added, removed or replaced).  Exact;
        ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a DataFrameDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: ``key`` not a declared column; ``change_one_distance()`` on a domain of unknown size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/select_column/make_select_column.tex``.

    References: [GM-Duff] Definition 1 (add/remove neighbours, here rows); [BS19] §2 (substitution).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"income": dp.atom_domain(T=float)})
        >>> t = (dom, dp.symmetric_distance()) >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 5.0))
        >>> t(pd.DataFrame({"income": [1.0, 9.0]})).tolist(), t.map(1)
        ([1.0, 5.0], 1)
    """
    # [proof:make_select_column]
    v.instance("input_domain", input_domain, DataFrameDomain, "a DataFrameDomain (dp.dataframe_domain)")
    v.instance("input_metric", input_metric, DATASET_METRICS, "symmetric_distance() or change_one_distance()")
    if isinstance(input_metric, ChangeOneDistance) and input_domain.size is None:
        raise MakeError(f"input_metric ({input_metric!r}) needs a domain of known size, not {input_domain!r}")
    if not isinstance(key, str) or key not in input_domain.columns:
        raise MakeError(f"key ({key!r}) must be one of the declared columns {list(input_domain.columns)!r}")
    out = input_domain.column_domain(key)      # vector_domain(columns[key], size=size) of the engine
    named = None if input_domain.engine is None else engine_named(input_domain.engine)

    def function(df: Any) -> Any:
        engine = named or engine_for(df)       # a member is a frame of the engine (a local one if None)
        return engine.column(df, key, out)     # the column of a member is a member of out

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_select_column]


then_select_column = then(make_select_column)


def make_select_columns(input_domain: DataFrameDomain, input_metric: Metric, keys: Sequence[str]) -> Transformation:
    """Restrict a data frame to some of its declared columns: frame -> frame.

    What a query runs first when it reads few of many declared columns, so that later
    steps (``make_partition_by`` gathers every declared column of each part) move only
    those.  The frame's rows, and their order, are kept.  A Spark frame, or a part of a
    split, is kept as it is (it is a member of the output domain: its other columns are
    never read).

    Contract:
        * Input domain: ``dataframe_domain(columns, size, engine)`` with every key among the columns.
        * Input metric: ``symmetric_distance()``, or ``change_one_distance()`` with a known size.
        * Output domain: ``dataframe_domain({k: columns[k] for k in keys}, size, engine)``.
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: the dataset metric (see the contract).
        keys: a non-empty list or tuple of distinct names of declared columns.

    Stability map:
        ``map(d_in) = d_in``: each row is mapped to its restriction to ``keys``, a record-wise
        map, 1-stable under both dataset metrics.  Exact; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a DataFrameDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: ``keys`` not a non-empty list of distinct declared columns; ``change_one_distance()``
            on a domain of unknown size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/select_column/make_select_columns.tex``.

    References: [GM-Duff] Definition 1 (add/remove neighbours, here rows); [BS19] §2 (substitution).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float),
        ...                            "age": dp.atom_domain(T=int)})
        >>> t = (dom, dp.symmetric_distance()) >> dp.t.then_select_columns(["region", "income"])
        >>> list(t(pd.DataFrame({"region": ["N"], "income": [1.0], "age": [30]})).columns), t.map(1)
        (['region', 'income'], 1)
    """
    # [proof:make_select_columns]
    v.instance("input_domain", input_domain, DataFrameDomain, "a DataFrameDomain (dp.dataframe_domain)")
    v.instance("input_metric", input_metric, DATASET_METRICS, "symmetric_distance() or change_one_distance()")
    if isinstance(input_metric, ChangeOneDistance) and input_domain.size is None:
        raise MakeError(f"input_metric ({input_metric!r}) needs a domain of known size, not {input_domain!r}")
    if (not isinstance(keys, (list, tuple)) or not keys or len(set(keys)) != len(keys)
            or any(not isinstance(k, str) or k not in input_domain.columns for k in keys)):
        raise MakeError(f"keys ({keys!r}) must be a non-empty list of distinct declared columns "
                        f"{list(input_domain.columns)!r}")
    names = list(keys)
    out = input_domain.with_(columns={k: input_domain.columns[k] for k in names})
    named = None if input_domain.engine is None else engine_named(input_domain.engine)

    def function(df: Any) -> Any:
        engine = named or engine_for(df)       # a member is a frame of the engine (a local one if None)
        return engine.select(df, names)        # the same rows, in order, with (at least) these columns

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_select_columns]


then_select_columns = then(make_select_columns)
