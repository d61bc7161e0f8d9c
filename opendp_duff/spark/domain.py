"""Spark data: the domain of pyspark DataFrames, and the lazy column that Spark constructors pass on.

A :class:`SparkFrameDomain` declares some columns of a pyspark DataFrame, each with an
:class:`~opendp_duff.domains.AtomDomain` (float, int or str).  Admission checks the schema
(each declared column exists and has a Spark type that holds its element type exactly), then
runs ONE distributed pass that looks for elements that are not members (null; NaN in a
float column unless the domain admits it; values outside declared bounds) and, when a size
is declared, counts the rows.  A refusal names the column and the requirement, never a value.

Between Spark constructors the data travels as a :class:`SparkColumn`: the admitted frame and
a row-wise expression of its columns, evaluated only by the statistic at the end of a chain
(a count, candidate counts, a rank window), so a chain runs its passes once, at the end.

Proof: ``proofs/spark/domain/spark_frame_domain.tex``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .. import _validate as v
from .._constants import EXACT_INT_BOUND
from ..domains import AtomDomain, atom_domain
from ..errors import MakeError, MakeTypeError, NotAMember, NotAMemberTypeError, NotAMemberValueError
from . import _pyspark as ps
from . import collection

__all__ = ["SparkFrameDomain", "SparkColumnDomain", "SparkColumn", "spark_frame_domain",
           "spark_frame_domain_of", "quoted"]


def quoted(name: str) -> str:
    """A column name as a Spark identifier (backquoted), so dots and spaces are literal."""
    return "`" + name.replace("`", "``") + "`"


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


def first_refusal(frame: Any, checks: list[tuple[str, Any]], size: int | None) -> str | None:
    """ONE pass over ``frame``: for each (label, non-member expression) whether some row is
    bad, and the number of rows if ``size`` is given.  Returns the first failed requirement
    (a label, or the size requirement), or None."""
    F = ps.functions()
    aggs = [F.max(bad.cast("int")).alias(f"b{i}") for i, (_, bad) in enumerate(checks)]
    if size is not None:
        aggs.append(F.count(F.lit(1)).alias("n"))
    if not aggs:
        return None
    row = collection.collect(frame.agg(*aggs))[0]
    for i, (label, _) in enumerate(checks):
        if row[f"b{i}"] == 1:
            return label
    if size is not None and row["n"] != size:
        return f"the frame must have exactly {size} rows"
    return None
# [end:element_refusal]


def _requirement(name: str, domain: AtomDomain) -> str:
    what = {float: "floats", int: "integers", str: "strings"}[domain.T]
    text = f"column {name!r}: every element must be one of the {what} of {domain!r} (no null"
    if domain.T is float and not domain.nan:
        text += ", no NaN: impute first"
    return text + (", within the bounds)" if domain.bounds is not None else ")")


def admits(domain: Any, x: object) -> bool:
    """Whether ``domain.admit(x)`` accepts ``x``: the ``member`` of the Spark domains, whose
    admission is a distributed pass (never raises on a refusal)."""
    try:
        domain.admit(x)
    except NotAMember:
        return False
    return True


@attrs.frozen(repr=False)
class SparkFrameDomain:
    """pyspark DataFrames with the declared columns (others are allowed and never read).

    Build it with :func:`spark_frame_domain` (or :func:`spark_frame_domain_of` from a
    frame's schema).  Members: a ``pyspark.sql.DataFrame`` whose schema has every declared
    column with a Spark type holding its element type (Float/Double for float, Byte/Short/
    Integer/Long for int, String for str), whose every element is a member of its atom
    domain (no null, no NaN unless admitted, within bounds), and with ``size`` rows if a
    size is declared.  The DataFrame must evaluate to the same rows on every action
    (a deterministic plan over unchanging input; ``.cache()`` or ``.checkpoint()`` it
    otherwise), since a release reads it in several passes.
    """

    columns: tuple[tuple[str, AtomDomain], ...]
    size: int | None = None

    def __repr__(self) -> str:
        cols = ", ".join(f"{k!r}: {d!r}" for k, d in self.columns)
        return f"SparkFrameDomain({{{cols}}}" + (f", size={self.size})" if self.size is not None else ")")

    def column(self, name: str) -> AtomDomain:
        """The element domain of a declared column."""
        for k, d in self.columns:
            if k == name:
                return d
        raise MakeError(f"key ({name!r}) is not a column of {self!r}")

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member (one distributed pass).  Never raises on a DataFrame."""
        return admits(self, x)

    # [proof:spark_frame_admit]
    def admit(self, x: object) -> Any:
        """``x`` itself if it is a member, after one distributed pass over the declared columns.

        Raises:
            NotAMemberTypeError: ``x`` is not a pyspark DataFrame, or a declared column is
                missing or has a Spark type that does not hold its element type.
            NotAMemberValueError: an element is null, NaN (unless admitted) or outside the
                bounds, or the number of rows is not the declared size.
        """
        if not ps.is_spark_frame(x):
            raise NotAMemberTypeError(self, "a member must be a pyspark.sql.DataFrame")
        fields = {f.name: f.dataType for f in x.schema.fields}  # type: ignore[attr-defined]
        checks = []
        for name, dom in self.columns:
            if name not in fields or ps.spark_type_kind(fields[name]) is not dom.T:
                raise NotAMemberTypeError(self, f"column {name!r} must exist with a Spark type "
                                                f"holding {dom.T.__name__} values")
            checks.append((_requirement(name, dom), non_member(ps.functions().col(quoted(name)), dom)))
        refusal = first_refusal(x, checks, self.size)
        if refusal is not None:
            raise NotAMemberValueError(self, refusal)
        return x
    # [end:spark_frame_admit]


def spark_frame_domain(columns: Mapping[str, AtomDomain], size: int | None = None) -> SparkFrameDomain:
    """The domain of pyspark DataFrames with the given columns.

    Args:
        columns: a non-empty mapping from column names (str) to atom domains (T float,
            int or str).
        size: the public number of rows, an integer in [0, 2^53], or None (unknown).

    Returns:
        A :class:`SparkFrameDomain`; see its docstring for the members.

    Raises:
        MakeTypeError: columns is not a mapping of str to AtomDomain; size is not an integer.
        MakeError: columns is empty; size is negative or above 2^53.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain
        >>> spark_frame_domain({"income": dp.atom_domain(T=float)})
        SparkFrameDomain({'income': AtomDomain(T=float)})
    """
    if not isinstance(columns, Mapping):
        raise MakeTypeError(f"columns ({columns!r}) must be a mapping of column names to atom domains")
    if not columns:
        raise MakeError("columns ({}) must declare at least one column")
    for k, d in columns.items():
        if not isinstance(k, str) or not isinstance(d, AtomDomain):
            raise MakeTypeError(f"columns[{k!r}] ({d!r}) must map a str to an AtomDomain")
    if size is not None:
        size = v.number("size", size, integer=True, nonneg=True)
        if size > EXACT_INT_BOUND:
            raise MakeError(f"size ({size!r}) must be at most 2^53")
    return SparkFrameDomain(tuple(columns.items()), size)


def spark_frame_domain_of(frame: Any) -> SparkFrameDomain:
    """The domain read from a DataFrame's schema only (never from its values): float
    columns ``atom_domain(T=float)``, integer columns ``atom_domain(T=int)``, string columns
    ``atom_domain(T=str)`` when string domains exist; other columns are not declared.

    Raises:
        MakeTypeError: ``frame`` is not a pyspark DataFrame.
        MakeError: no column has a float, integer or string type.
    """
    if not ps.is_spark_frame(frame):
        raise MakeTypeError(f"data (a {type(frame).__name__}) must be a pyspark DataFrame")
    cols: dict[str, AtomDomain] = {}
    for f in frame.schema.fields:
        T = ps.spark_type_kind(f.dataType)
        if T is None:
            continue
        try:
            cols[f.name] = atom_domain(T=T)
        except (MakeError, MakeTypeError):   # a string column where string domains do not exist
            continue
    if not cols:
        raise MakeError("the DataFrame has no column of a float, integer or string type")
    return spark_frame_domain(cols)


# [proof:spark_column]
@attrs.frozen(eq=False)
class SparkColumn:
    """One column of a Spark DataFrame, lazily: the frame and the row-wise steps that make
    the column's value in each row from that row alone.

    Attributes:
        frame: the pyspark DataFrame (a member of the chain's input domain), or the part of
            one that a grouped release hands to a per-key measurement.
        T: the element type (float, int or str).
        steps: public, hashable steps: ``("column", name, T)`` reads a column (a float
            column as double, a zero as +0.0; an int column as long), ``("clamp", lo, hi)``
            clamps, ``("row",)`` is the constant 0 (one value per row, to count rows).
    """

    frame: Any
    T: type
    steps: tuple[tuple[Any, ...], ...]

    def then(self, *step: Any) -> SparkColumn:
        """This column with one more step."""
        return SparkColumn(self.frame, self.T, self.steps + (step,))

    @property
    def expr(self) -> Any:
        """The Spark expression of the steps."""
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
        return col
# [end:spark_column]


@attrs.frozen(repr=False)
class SparkColumnDomain:
    """:class:`SparkColumn` values whose every element is a member of ``element_domain``
    (and with ``size`` elements, if a size is given).

    The output domain of the Spark column transformations.  Admitting a column directly
    (not through a chain that starts from a frame) runs one distributed pass over it.
    """

    element_domain: AtomDomain
    size: int | None = None

    def __repr__(self) -> str:
        size = f", size={self.size}" if self.size is not None else ""
        return f"SparkColumnDomain({self.element_domain!r}{size})"

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member (one distributed pass)."""
        return admits(self, x)

    def admit(self, x: object) -> SparkColumn:
        """``x`` itself if it is a member.

        Raises:
            NotAMemberTypeError: ``x`` is not a SparkColumn of the element type.
            NotAMemberValueError: an element is null, NaN or outside the bounds.
        """
        if not isinstance(x, SparkColumn) or x.T is not self.element_domain.T or not ps.is_spark_frame(x.frame):
            # (a part of a grouped release is never admitted: the whole frame was)
            raise NotAMemberTypeError(self, f"a member must be a SparkColumn of {self.element_domain.T.__name__}")
        refusal = first_refusal(x.frame, [(_requirement("the column", self.element_domain),
                                           non_member(x.expr, self.element_domain))], self.size)
        if refusal is not None:
            raise NotAMemberValueError(self, refusal)
        return x
