"""The Spark engine: pyspark DataFrames as data, statistics computed by Spark, releases sampled
on the driver by the single-machine samplers (so each has the single-machine law).

* Admission: the schema's types, then one distributed pass (:mod:`.column`).
* Columns are lazy :class:`~.column.SparkColumn` values; clamp and impute are row-wise steps,
  sort a marker (a Spark column has no row order of its own).
* Statistics in Spark, only numbers or the rank window to the driver: counts (one
  aggregation), candidate counts (one join with the candidates, one aggregation), exact sums
  (integer limbs, :mod:`.sum`), rank sources (exact histograms bracket the window, :mod:`.ranks`).
* ``collect`` (the Duff mean, the smooth mechanisms): one pass that brings the column to the
  driver, driver memory O(n).
* ``split``: lazy parts of one frame by public keys; every statistic of a part is computed for
  all the keys at once, in shared passes (:mod:`.parts`).

Proof of what the constructors cite: ``proofs/engines/spark/``.
"""
from __future__ import annotations

import decimal
import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..._constants import EXACT_INT_BOUND, INT64_MAX, INT64_MIN
from ...membership import Refusal
from ...errors import NotAMemberTypeError
from .._base import Engine, Predict
from ..candidates import Candidates
from ..rank_window import Pairs, RankSource, RankWindow, Tail
from . import _pyspark as ps
from . import collection, rounds, snapshot
from .column import SparkColumn, check_spark_column, check_spark_frame
from .parts import KID, VAL, SparkPart, checked_rows, shared, split_by_keys, whole_frame
from .ranks import KeyRanks, SparkDataChanged, spark_rank_sources
from ._brackets import BINS
from .sum import exact_sums, grid_floor, limb_exponents

__all__ = ["SparkEngine"]


class SparkEngine(Engine):
    """pyspark DataFrames (classic or Connect), their parts and their lazy columns."""

    name = "spark"
    column_engine = "spark"
    local = False

    def recognises(self, data: object) -> bool:
        return ps.is_spark_frame(data) or isinstance(data, (SparkPart, SparkColumn))

    def is_frame(self, data: object) -> bool:
        return ps.is_spark_frame(data) or isinstance(data, SparkPart)

    def schema(self, data: object) -> Any:
        from ...frames.domain import dataframe_domain
        from ..local import element_domain
        columns = {}
        for field in data.schema.fields:  # type: ignore[attr-defined]
            elem = element_domain(ps.spark_type_kind(field.dataType))
            if elem is not None:
                columns[field.name] = elem
        return dataframe_domain(columns, engine="spark")

    # ---- admission --------------------------------------------------------------------------

    def check_frame(self, domain: Any, x: object) -> Any:
        return check_spark_frame(domain, x)

    def check_column(self, domain: Any, x: object) -> Any:
        return check_spark_column(domain, x)

    # [proof:spark_check_parts]
    def check_parts(self, domain: Any, x: object) -> Any:
        """The parts of one frame split by ``domain.keys``, in key order, whose frame is a member
        of the part domain (one pass over the frame), else a refusal.  Never raises."""
        parts = tuple(x) if type(x) is tuple or type(x) is list else None   # type() reads no attribute of x
        if (parts is None or len(parts) != len(domain.keys)
                or any(not isinstance(p, SparkPart) or p.index != i or p.batch is not parts[0].batch
                       for i, p in enumerate(parts))
                or parts[0].batch.keys != domain.keys):
            return Refusal(NotAMemberTypeError, f"a member is a tuple of the {len(domain.keys)} parts of one "
                                                "Spark frame split by these keys, in key order")
        frame = domain.part_domain.check(parts[0].batch.frame)
        return frame if isinstance(frame, Refusal) else parts
    # [end:spark_check_parts]

    # ---- frames -----------------------------------------------------------------------------

    # [proof:SparkEngine.column]
    def column(self, frame: Any, name: str, domain: Any) -> SparkColumn:
        T = domain.element_domain.T
        whole = whole_frame(frame)
        log = frame.batch.log if isinstance(frame, SparkPart) else collection.CollectionLog()
        if log.snapshot is None and (snap := snapshot.of(whole)) is not None:
            log.snapshot = snapshot.Check(whole, snap, SparkDataChanged)   # the release's first action carries it
        return SparkColumn(frame, T, (("column", name, T),), log)
    # [end:SparkEngine.column]

    # [proof:SparkEngine.select]
    def select(self, frame: Any, names: Sequence[str]) -> Any:
        return frame                   # its other columns are never read
    # [end:SparkEngine.select]

    # [proof:SparkEngine.split]
    def split(self, frame: Any, by: str | tuple[str, ...], keys: tuple[Any, ...], domain: Any) -> tuple[Any, ...]:
        names = (by,) if isinstance(by, str) else tuple(by)      # several columns: a key is a tuple
        return tuple(split_by_keys(frame, names, tuple(domain.columns[b].T for b in names), keys))   # no Spark call
    # [end:SparkEngine.split]

    # [proof:SparkEngine.map_parts]
    def map_parts(self, f: Callable[[Any], Any], parts: tuple[Any, ...]) -> tuple[Any, ...]:
        if not parts:
            return ()
        with collection.release(parts[0].batch.log):   # the whole grouped release, tails shared per round
            thread = ps.inheritable_thread(parts[0].batch.frame.sparkSession)
            return tuple(rounds.run_in_rounds([functools.partial(f, part) for part in parts], thread))
    # [end:SparkEngine.map_parts]

    def result_frame(self, like: Any, columns: dict[str, list[Any]]) -> Any:
        """A small Spark DataFrame of these public columns, built on the driver as a local
        relation (collecting it runs no Spark job)."""
        t = ps.types()
        typed = {name: _spark_type(list(values)) for name, values in columns.items()}
        schema = t.StructType([t.StructField(name, kind, False) for name, (kind, _) in typed.items()])
        rows = list(zip(*(values for _, values in typed.values()), strict=True))
        session = whole_frame(like).sparkSession
        return ps.local_frame(session, schema, rows)

    # ---- columns: row-wise steps ------------------------------------------------------------

    def clamp(self, column: Any, T: type, lo: Any, hi: Any) -> SparkColumn:
        return cast(SparkColumn, column).then("clamp", lo, hi)

    def impute(self, column: Any, constant: float) -> SparkColumn:
        return cast(SparkColumn, column).then("impute", constant)

    def sort(self, column: Any, T: type) -> SparkColumn:
        col = cast(SparkColumn, column)
        return col if col.is_sorted else col.then("sort")

    # ---- columns: statistics ----------------------------------------------------------------

    # [proof:spark_statistics]
    def count(self, column: Any) -> int:
        def counts(rows: Any, n_keys: int) -> list[int]:
            got = collection.collect(rows.groupBy(KID).count())
            n = [0] * n_keys
            for row in got:
                n[row[KID]] = min(int(row["count"]), EXACT_INT_BOUND)
                collection.current().note(row[KID], counts=1)
            return n
        return int(shared(column, ("count",), counts))

    def exact_sum(self, column: Any) -> Fraction:
        def sums(rows: Any, n_keys: int) -> list[Fraction]:
            low, M = grid_floor(rows)
            return exact_sums(rows, n_keys, limb_exponents(M, low))
        return Fraction(shared(column, ("sum",), sums))

    def candidate_counts(self, column: Any, candidates: tuple[Any, ...] | Candidates, T: type) -> np.ndarray:
        values = list(candidates) if isinstance(candidates, tuple) else candidates.values.tolist()

        def counts(rows: Any, n_keys: int) -> list[np.ndarray]:
            F, t = ps.functions(), ps.types()
            schema = t.StructType([t.StructField("__cid", t.IntegerType(), False),
                                   t.StructField("__cand", ps.key_type(T), False)])
            table = rows.sparkSession.createDataFrame(list(enumerate(values)), schema)
            # compared as the partition compares keys (Batch.key_expr): in the key type, so a
            # string column of another collation is compared in the binary one, as Python's ==
            joined = rows.join(F.broadcast(table), F.col(VAL).cast(ps.key_type(T)) == F.col("__cand"))
            got = collection.collect(joined.groupBy(KID, "__cid").count())
            out = [np.zeros(len(candidates), dtype=np.int64) for _ in range(n_keys)]
            for row in got:
                out[row[KID]][row["__cid"]] = min(int(row["count"]), EXACT_INT_BOUND)
                collection.current().note(row[KID], counts=1)
            return out
        return np.array(shared(column, ("candidates", T, candidates), counts), dtype=np.int64)

    def collect(self, column: Any) -> np.ndarray:
        dtype = {float: np.float64, int: np.int64, str: object}[column.T]

        def values(rows: Any, n_keys: int) -> list[np.ndarray]:
            got = collection.collect(rows)
            out: list[list[Any]] = [[] for _ in range(n_keys)]
            for row in got:
                out[row[KID]].append(row[VAL])
            for k, vs in enumerate(out):
                collection.current().note(k, values=len(vs))
            return [np.array(vs, dtype=dtype) for vs in out]
        arr = np.array(shared(column, ("collect",), values), dtype=dtype)
        if column.is_sorted:
            arr.sort(kind="stable")
        return arr
    # [end:spark_statistics]

    # [proof:SparkEngine.rank_source]
    def rank_source(self, column: Any, bounds: tuple[float, float], is_sorted: bool,
                    predict: Predict) -> RankSource:
        return _ColumnRanks(column, bounds, predict)
    # [end:SparkEngine.rank_source]


# [proof:spark_column_ranks]
class _ColumnRanks:
    """The rank source of one Spark column (or of one part of a split), computed on first use:
    reading ``n`` runs the shared passes (:mod:`.ranks`), under the column's log, as do the
    window and its tails when the sampler asks for them."""

    def __init__(self, column: SparkColumn, bounds: tuple[float, float], predict: Predict) -> None:
        self._column, self._bounds, self._predict = column, bounds, predict
        self._source: KeyRanks | None = None

    def _get(self) -> KeyRanks:
        if self._source is None:
            lo, hi = self._bounds
            few, small = read_plan(self._column)
            checked = functools.partial(checked_rows, self._column)
            self._source = shared(self._column, ("ranks", lo, hi, self._predict),
                                  lambda rows, k: spark_rank_sources(rows, k, self._predict, lo, hi, few, small,
                                                                     checked))
        return self._source

    @property
    def n(self) -> int:
        return self._get().n

    def window(self, first: int, last: int) -> RankWindow:
        source = self._get()
        with collection.release(self._column.log):
            w = source.window(first, last)
        return RankWindow(w.n, w.first, w.values, self._logged(w.left), self._logged(w.right))

    def _logged(self, tail: Tail) -> Tail:
        log = self._column.log

        def rest() -> Pairs:
            with collection.release(log):
                return tail.rest()
        return Tail(tail.count, tail.ties, rest, tail.near)
# [end:spark_column_ranks]


# [proof:read_plan]
SMALL_ROWS = 1 << 21     # a snapshot of at most this many rows is moved whole in a predicted pass


def read_plan(column: SparkColumn) -> tuple[bool, bool]:
    """(few, small) for a column's rank sources, by its snapshot's record (both False without
    one): whether the column has few distinct values by the snapshot's estimate (at most BINS:
    a column read from an admitted snapshot whose later steps, clamp, impute and sort, never
    add more than one value), and whether the snapshot has at most SMALL_ROWS rows.  Private
    counts that choose the passes only."""
    snap = snapshot.of(whole_frame(column.frame))
    base = column.steps[0]
    if snap is None or base[0] != "column" or any(s[0] not in ("clamp", "impute", "sort") for s in column.steps[1:]):
        return False, False
    estimate = snap.distinct.get(base[1])
    return estimate is not None and estimate <= BINS, snap.n <= SMALL_ROWS
# [end:read_plan]


def _spark_type(values: list[Any]) -> tuple[Any, list[Any]]:
    """A Spark type holding ``values`` exactly (public values of one column), and the values
    as that type wants them."""
    t = ps.types()
    if all(isinstance(x, bool) for x in values):
        return t.BooleanType(), values
    if all(isinstance(x, int) and not isinstance(x, bool) for x in values):
        if all(INT64_MIN <= x <= INT64_MAX for x in values):
            return t.LongType(), values
        return t.DecimalType(38, 0), [decimal.Decimal(x) for x in values]
    if all(isinstance(x, float) for x in values):
        return t.DoubleType(), values
    if all(isinstance(x, str) for x in values):
        return t.StringType(), values
    return t.StringType(), [str(x) for x in values]
