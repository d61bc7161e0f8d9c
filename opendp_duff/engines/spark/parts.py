"""Parts of a Spark frame by public keys, and the rows a statistic reads: (key index, value).

A grouped release (``make_partition_by`` then ``make_parallel_composition`` on a Spark frame
domain) runs a per-key measurement on every part, in key order.  A part is a
:class:`SparkPart`: a lazy proxy of the DataFrame of the frame's rows whose key equals that
public key (any attribute access builds that DataFrame, so a measurement that treats it as a
DataFrame works, at one pass per key).  The Spark engine's statistics recognise a part and
compute every key's statistic at once, in the same passes: the first part that asks computes
them all (:meth:`Batch.shared`), the others read the cached results.  No Spark call is made per
key, so a release over many keys costs the passes plus the driver's sampling.

A statistic reads :func:`keyed_rows`: for an ungrouped column, (0, value) per row; for a
column of a part, (i, value) for every row of the whole frame whose key is the i-th public
key (an inner join with a broadcast table of the keys), so rows of other keys are dropped
and key i's rows are exactly the rows of part i.

A key of several columns is a tuple with one value per column; a row's key equals it when
each column equals its component, compared as a key of that one column is (in the column's
key type), so a part of several columns holds exactly the rows the local engines put there.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from . import _pyspark as ps
from . import collection
from .column import SparkColumn, quoted

__all__ = ["Batch", "SparkPart", "whole_frame", "split_by_keys", "keyed_rows", "checked_rows", "shared", "KID",
           "VAL"]

# [proof:VAL]
KID, VAL = "__opendp_kid", "__opendp_value"   # column names of keyed rows
# [end:VAL]
_KEY = "__opendp_key"


@attrs.define(eq=False)
class Batch:
    """The public partition of one frame: the key columns ``by`` (of element types ``T``, one
    per column), the public ``keys`` in order (values for one column, tuples for several),
    and the statistics computed so far for all keys at once."""

    frame: Any
    by: tuple[str, ...]
    T: tuple[type, ...]
    keys: tuple[Any, ...]
    results: dict[Any, Any] = attrs.field(factory=dict)
    log: collection.CollectionLog = attrs.field(factory=collection.CollectionLog)

    def shared(self, name: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time ``name`` is asked for, the cached result after."""
        if name not in self.results:
            self.results[name] = compute()
        return self.results[name]

    # [proof:Batch.key_expr]
    def key_expr(self, j: int = 0) -> Any:
        """The key column ``by[j]`` as Spark compares it with the public keys (built once per
        session, :func:`._pyspark.session_memo`)."""
        return ps.session_memo(self.frame.sparkSession, ("key column", self.by[j], self.T[j]),
                               lambda: ps.functions().col(quoted(self.by[j])).cast(ps.key_type(self.T[j])))

    def matches(self, key: Any) -> Any:
        """The condition that a row's key equals the public ``key``: every key column equals its
        component (a key of one column is its own component)."""
        F = ps.functions()
        parts = (key,) if len(self.by) == 1 else key
        condition = None
        for j, component in enumerate(parts):
            equal = self.key_expr(j) == F.lit(component)
            condition = equal if condition is None else condition & equal
        return condition
    # [end:Batch.key_expr]

    # [proof:Batch.key_table]
    def key_table(self) -> Any:
        """A small DataFrame (key index, key column per key column) of the public keys, typed
        for comparison, and the join condition of a row of the frame with one of its rows."""
        t, F = ps.types(), ps.functions()
        names = [f"{_KEY}{j}" for j in range(len(self.by))]
        schema = t.StructType([t.StructField(KID, t.IntegerType(), False)]
                              + [t.StructField(n, ps.key_type(T), False) for n, T in zip(names, self.T, strict=True)])
        rows = [(i, key) if len(self.by) == 1 else (i, *key) for i, key in enumerate(self.keys)]
        condition = None
        for j, name in enumerate(names):
            equal = self.key_expr(j) == F.col(name)
            condition = equal if condition is None else condition & equal
        return ps.local_frame(self.frame.sparkSession, schema, rows), condition
    # [end:Batch.key_table]


# [proof:SparkPart]
class SparkPart:
    """Part ``index`` of a :class:`Batch`: a lazy proxy of ``frame.where(by == keys[index])``."""

    def __init__(self, batch: Batch, index: int) -> None:
        self.batch, self.index = batch, index
        self._frame: Any = None

    def dataframe(self) -> Any:
        """The DataFrame of this part's rows (built on first use)."""
        if self._frame is None:
            self._frame = self.batch.frame.where(self.batch.matches(self.batch.keys[self.index]))
        return self._frame

    @property
    def sparkSession(self) -> Any:  # noqa: N802 - the DataFrame attribute's name
        """The whole frame's session (the part's DataFrame is not built for it)."""
        return self.batch.frame.sparkSession

    def __getitem__(self, item: Any) -> Any:
        return self.dataframe()[item]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("batch", "index", "_frame"):
            raise AttributeError(name)
        return getattr(self.dataframe(), name)

    def __repr__(self) -> str:
        return f"SparkPart(part {self.index})"
# [end:SparkPart]


# [proof:whole_frame]
def whole_frame(frame: Any) -> Any:
    """The DataFrame a column's frame reads: a part's whole frame (its batch's), else ``frame``."""
    return frame.batch.frame if isinstance(frame, SparkPart) else frame
# [end:whole_frame]


def split_by_keys(frame: Any, by: str | tuple[str, ...], T: type | tuple[type, ...],
                  keys: tuple[Any, ...]) -> list[SparkPart]:
    """One part per public key, in key order, sharing one new :class:`Batch` (no Spark call):
    ``by`` the key column and ``T`` its element type, or tuples of them for several columns
    (a key then being a tuple of values)."""
    batch = Batch(frame, (by,) if isinstance(by, str) else by, T if isinstance(T, tuple) else (T,), keys)
    return [SparkPart(batch, i) for i in range(len(keys))]


# [proof:keyed_rows]
def _key_index(session: Any, T: type, keys: tuple[Any, ...]) -> Any:
    """The literal map from each public key (of element type T, cast to its key type) to its
    index: built once per session and key list (an expression of public values only), as a
    release's query builds it again and again."""
    def build() -> Any:
        F, kt = ps.functions(), ps.key_type(T)
        return F.create_map(*[x for i, key in enumerate(keys) for x in (F.lit(key).cast(kt), F.lit(i))])
    return ps.session_memo(session, ("key index", T, keys), build)


def keyed_rows(column: SparkColumn, every: bool = False, terms: Sequence[Any] = ()) -> tuple[Any, int]:
    """(rows, number of keys).  ``rows`` has the columns KID (int) and VAL (the column's
    value), then ``terms`` (columns of the whole frame): for an ungrouped column one row
    (0, value) per row of its frame (a cross join with the one-row table (0)); for a column of
    a part, one row (i, value) for every row of the whole frame whose key is the i-th public
    key, and with ``every`` also one row (null, null) for each of its other rows."""
    F = ps.functions()
    if not isinstance(column.frame, SparkPart):
        # KID from a one-row broadcast table, not a literal: Spark folds a literal out of a
        # window's partitioning and then moves every row to one partition, with a warning
        t = ps.types()
        one = ps.local_frame(column.frame.sparkSession, t.StructType([t.StructField(KID, t.IntegerType(), False)]),
                             [(0,)])
        return column.frame.crossJoin(F.broadcast(one)).select(F.col(KID), column.expr.alias(VAL), *terms), 1
    batch = column.frame.batch
    if len(batch.by) > 1 or batch.T[0] is float:
        # a join compares doubles as the part's filter does (-0.0 equals 0.0); several key
        # columns join on the equality of every column
        table, condition = batch.key_table()
        rows, kid = batch.frame.join(F.broadcast(table), condition, "left" if every else "inner"), F.col(KID)
    else:
        # integers and strings: a lookup in a literal map from key to index, exact equality, no join
        kid = F.element_at(_key_index(batch.frame.sparkSession, batch.T[0], batch.keys), batch.key_expr())
        rows = batch.frame if every else batch.frame.where(kid.isNotNull())
    value = F.when(kid.isNotNull(), column.expr) if every else column.expr
    return rows.select(kid.alias(KID), value.alias(VAL), *terms), len(batch.keys)
# [end:keyed_rows]


# [proof:checked_rows]
def checked_rows(column: SparkColumn, check: Any) -> Any:
    """For a column read straight from the snapshot of ``check`` (a :class:`.snapshot.Check` that
    folds into a pass over that frame), :func:`keyed_rows` of EVERY row of it, with the check's
    row terms; else None (the check then rides on the pass instead)."""
    if not check.folds(whole_frame(column.frame)):
        return None
    return keyed_rows(column, every=True, terms=check.row_terms())[0]
# [end:checked_rows]


# [proof:shared]
def shared(column: SparkColumn, token: Any, compute: Callable[[Any, int], list[Any]]) -> Any:
    """This column's entry of a per-key statistic: ``compute(rows, n_keys)`` returns one
    result per key index, computed under the column's log.  For a part it runs once per
    batch, under the name (``token``, the column's steps): the same statistic of another
    column is another entry.  ``token`` is a public, hashable description of the statistic."""
    with collection.release(column.log):
        if not isinstance(column.frame, SparkPart):
            return compute(*keyed_rows(column))[0]
        part = column.frame
        return part.batch.shared((token, column.steps), lambda: compute(*keyed_rows(column)))[part.index]
# [end:shared]
