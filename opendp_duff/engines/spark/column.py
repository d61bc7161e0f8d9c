"""Spark data: admission of frames and columns, and the lazy column the constructors pass on.

A frame domain with ``engine="spark"`` declares some columns of a pyspark DataFrame, each with an
:class:`~opendp_duff.domains.AtomDomain` (float, int or str).  Admission checks the schema
(each declared column exists and has a Spark type that holds its element type exactly), then
runs ONE distributed pass that looks for elements that are not members (null; NaN in a float
column unless the domain admits it; values outside declared bounds) and, when a size is
declared, counts the rows.  A refusal names the column and the requirement, never a value.
Admission never raises: an error of Spark itself is a refusal too.

Between constructors the data travels as a :class:`SparkColumn`: the admitted frame (or a part
of one) and a row-wise expression of its columns, evaluated only by the statistic at the end of
a chain (a count, candidate counts, a sum, a rank window), so a chain runs its passes once, at
the end.

Proof: ``proofs/engines/spark/admission.tex``.
"""
from __future__ import annotations

from typing import Any

import attrs

from ...membership import Refusal
from ...domains import AtomDomain
from ...errors import NotAMemberTypeError, NotAMemberValueError
from . import _pyspark as ps
from . import collection, snapshot
from ._pyspark import quoted

__all__ = ["SparkColumn", "check_spark_frame", "check_spark_column", "non_member", "first_refusal", "quoted"]


# [proof:element_refusal]
def non_member(expr: Any, domain: AtomDomain) -> Any:
    """A boolean Spark expression: true on a row whose value of ``expr`` is not a member of
    ``domain`` (null; NaN unless ``domain.nan``; outside ``domain.bounds``)."""
    F = ps.functions()
    bad = expr.isNull()
    if domain.T is float and not domain.nan:
        bad = bad | F.isnan(expr)
    if domain.bounds is not None:
        lo, hi = domain.bounds
        bad = bad | (expr < F.lit(lo)) | (expr > F.lit(hi))
    return bad


def first_refusal(frame: Any, checks: list[tuple[str, Any]], size: int | None,
                  extra: list[Any] | None = None) -> tuple[str | None, Any]:
    """ONE pass over ``frame``: for each (label, non-member expression) whether some row is
    bad, the number of rows if ``size`` is given, and the ``extra`` aggregations.  Returns the
    first failed requirement (a label, or the size requirement) or None, and the row of the pass."""
    F = ps.functions()
    aggs = [F.max(bad.cast("int")).alias(f"b{i}") for i, (_, bad) in enumerate(checks)]
    if size is not None:
        aggs.append(F.count(F.lit(1)).alias("n"))
    aggs += extra or []
    if not aggs:
        return None, None
    row = collection.collect(frame.agg(*aggs))[0]
    for i, (label, _) in enumerate(checks):
        if row[f"b{i}"] == 1:
            return label, row
    if size is not None and row["n"] != size:
        return f"the frame must have exactly {size} rows", row
    return None, row
# [end:element_refusal]


def _requirement(name: str, domain: AtomDomain) -> str:
    what = {float: "floats", int: "integers", str: "strings"}[domain.T]
    text = f"column {name!r}: every element must be one of the {what} of {domain!r} (no null"
    if domain.T is float and not domain.nan:
        text += ", no NaN: impute first"
    return text + (", within the bounds)" if domain.bounds is not None else ")")


# [proof:_UNREADABLE]
_UNREADABLE = Refusal(NotAMemberTypeError, "the data could not be read as a Spark frame")
# [end:_UNREADABLE]


# [proof:spark_frame_admit]
def check_spark_frame(domain: Any, x: Any) -> Any:
    """A snapshot of ``x`` if it is a member of the Spark frame domain: its declared columns,
    persisted, checked, counted and fingerprinted, and its numeric columns' distinct values
    estimated, in one distributed pass (:mod:`.snapshot`);
    else a refusal.  Never raises."""
    frame = None
    try:
        fields = {f.name: f.dataType for f in x.schema.fields}
        checks = []
        for name, dom in domain.columns.items():
            if name not in fields or ps.spark_type_kind(fields[name]) is not dom.T:
                return Refusal(NotAMemberTypeError, f"column {name!r} must exist with a Spark type "
                                                    f"holding {dom.T.__name__} values")
            checks.append((_requirement(name, dom), non_member(ps.functions().col(quoted(name)), dom)))
        columns = tuple(domain.columns)
        numeric = tuple(c for c in columns if domain.columns[c].T in (float, int))
        frame = snapshot.persist_declared(x, columns)
        refusal, row = first_refusal(frame, checks, domain.size,
                                     snapshot.aggregates(columns) + snapshot.estimates(numeric))
        if refusal is None:
            snapshot.record(frame, columns, checks, row, numeric)
            return frame
    except Exception:  # noqa: BLE001 - Spark (or the object) raised: no value of the data is quoted
        refusal = None
    if frame is not None:
        snapshot.discard(frame)
    return _UNREADABLE if refusal is None else Refusal(NotAMemberValueError, refusal)
# [end:spark_frame_admit]


# [proof:check_spark_column]
def check_spark_column(domain: Any, x: object) -> Any:
    """``x`` itself if it is a :class:`SparkColumn` of a whole frame whose elements are members
    of ``domain`` (one pass), marked sorted if the domain is sorted; else a refusal.  A column of
    a part of a split is never admitted alone (the whole frame was, before the split)."""
    elem = domain.element_domain
    try:
        if (not isinstance(x, SparkColumn) or x.T is not elem.T or not ps.is_spark_frame(x.frame)
                or (domain.sorted and not x.is_sorted)):
            return Refusal(NotAMemberTypeError, f"a member must be a Spark column of {elem.T.__name__}"
                                                + (" marked sorted (make_sort)" if domain.sorted else ""))
        refusal, _ = first_refusal(x.frame, [(_requirement("the column", elem), non_member(x.expr, elem))],
                                   domain.size)
    except Exception:  # noqa: BLE001 - Spark (or the object's own code) raised: no value is quoted
        return _UNREADABLE
    return x if refusal is None else Refusal(NotAMemberValueError, refusal)
# [end:check_spark_column]


# [proof:spark_column]
@attrs.frozen(eq=False)
class SparkColumn:
    """One column of a Spark DataFrame, lazily: the frame and the row-wise steps that make
    the column's value in each row from that row alone.

    Attributes:
        frame: the pyspark DataFrame (a member of the chain's input domain), or a part of one
            made by the split of a grouped release.
        T: the element type (float, int or str).
        steps: public, hashable steps: ``("column", name, T)`` reads a column (a float
            column as double, a zero as +0.0; an int column as long), ``("clamp", lo, hi)``
            clamps, ``("impute", c)`` replaces NaN by c, ``("sort",)`` marks the column sorted
            (no effect on the values: a Spark column has no row order of its own, and every
            listing the engine makes of a marked column is sorted).
        log: what this column's statistics bring to the driver (a part's: its split's log).
    """

    frame: Any
    T: type
    steps: tuple[tuple[Any, ...], ...]
    log: collection.CollectionLog = attrs.field(factory=collection.CollectionLog)

    def then(self, *step: Any) -> SparkColumn:
        """This column with one more step."""
        return SparkColumn(self.frame, self.T, self.steps + (step,), self.log)

    @property
    def is_sorted(self) -> bool:
        """Whether the column is marked sorted."""
        return ("sort",) in self.steps

    @property
    def expr(self) -> Any:
        """The Spark expression of the steps (built once per session and steps: a function of the
        public steps alone, :func:`._pyspark.session_memo`)."""
        return ps.session_memo(self.frame.sparkSession, ("column", self.steps), self._build)

    def _build(self) -> Any:
        F = ps.functions()
        col = F.lit(0)
        for step in self.steps:
            if step[0] == "column":
                col = F.col(quoted(step[1]))
                if step[2] is float:   # read as double (a float32 widens exactly), a zero as +0.0
                    col = col.cast("double")
                    col = F.when(col == 0.0, F.lit(0.0)).otherwise(col)
                elif step[2] is int:
                    col = col.cast("long")
            elif step[0] == "clamp":
                col = F.least(F.greatest(col, F.lit(step[1])), F.lit(step[2]))
            elif step[0] == "impute":
                col = F.when(F.isnan(col), F.lit(step[1])).otherwise(col)
        return col
# [end:spark_column]
