"""make_filter and make_with_column: row-wise steps on data frames, written in the expression
language (:mod:`opendp_duff.expressions`).

Both read one row at a time: a filter keeps a row when its predicate is TRUE on that row, a
derived column is a value computed from that row.  The expression is parsed and typed against
the domain's schema when the transformation is built, so an unknown column or a type mismatch
is refused before any data is read; the engine of the domain runs it (:mod:`._row_wise_kernels`
for pandas and Polars, :mod:`._row_wise_spark` for Spark).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import _validate as v
from ..core import Transformation, then
from ..errors import MakeError, MakeTypeError
from ..expressions import ExprType, check, check_predicate, parse, to_text
from ..expressions.nodes import Expr
from ..expressions.to_polars import check_polars_names
from ..domains import AtomDomain
from ..frames.domain import DataFrameDomain
from ..metrics import Metric, SymmetricDistance
from ..metrics_id import GroupedSymmetricDistance, SymmetricIdDistance
from ._row_step import RowStep
from ._row_wise_kernels import row_kernel

__all__ = ["make_filter", "then_filter", "make_with_column", "then_with_column", "frame_schema"]

ROW_METRICS = (SymmetricDistance, SymmetricIdDistance, GroupedSymmetricDistance)


# [proof:frame_schema]
def frame_schema(domain: DataFrameDomain) -> dict[str, ExprType]:
    """The schema of the expression language for a frame domain: each declared column with its
    element type, nullable exactly when it is a float column that admits NaN (NaN is NULL)."""
    return {name: ExprType(elem.T, elem.T is float and elem.nan) for name, elem in domain.columns.items()}
# [end:frame_schema]


# [proof:row_space]
def _row_space(input_domain: Any, input_metric: Any, text: Any, what: str) -> Expr:
    """Check the space shared by the row-wise constructors and parse the expression."""
    v.instance("input_domain", input_domain, DataFrameDomain, "a DataFrameDomain (dp.dataframe_domain)")
    v.instance("input_metric", input_metric, ROW_METRICS, "symmetric_distance(), symmetric_id_distance(identifier) "
               "or grouped_symmetric_distance(by)")
    if not input_domain.columns:
        raise MakeError("input_domain must declare at least one column: a frame's rows are read through its "
                        "declared columns")
    named = ((input_metric.identifier,) if isinstance(input_metric, SymmetricIdDistance)
             else input_metric.by if isinstance(input_metric, GroupedSymmetricDistance) else ())
    for name in named:
        if name not in input_domain.columns:
            raise MakeError(f"input_metric ({input_metric!r}) names the column {name!r}, which must be one of the "
                            f"declared columns {list(input_domain.columns)!r}")
    if not isinstance(text, str):
        raise MakeTypeError(f"{what} must be an expression (str), not {type(text).__name__}")
    expr = parse(text)
    if input_domain.engine in (None, "polars"):      # Polars would read some names as patterns
        check_polars_names(expr)
    return expr
# [end:row_space]


# [proof:row_transformation]
def _transformation(input_domain: DataFrameDomain, output_domain: DataFrameDomain, input_metric: Metric,
                    step: RowStep) -> Transformation:
    kernel: Callable[[Any, RowStep], Any] = row_kernel(input_domain)

    def function(frame: Any) -> Any:
        return kernel(frame, step)

    return Transformation(input_domain, output_domain, input_metric, input_metric, function, lambda d_in: d_in)
# [end:row_transformation]


def make_filter(input_domain: DataFrameDomain, input_metric: Metric, predicate: str) -> Transformation:
    """Keep the rows of a frame on which ``predicate`` is TRUE: frame -> frame.

    The predicate is an expression of :mod:`opendp_duff.expressions` over the declared columns,
    evaluated on each row alone in SQL's three-valued logic: a row is kept exactly when the value
    is TRUE, and dropped when it is FALSE or NULL (UNKNOWN).  A float column's NaN is NULL;
    integer overflow and division by zero give NULL (``proofs/expressions/semantics.tex``).  The
    predicate is typed against the domain's schema when the filter is built, so an unknown
    column or a type mismatch is refused before any data is read, by a message that quotes the
    expression and names the column, never a value.  The output holds the declared columns only,
    the kept rows in their order (local frames; Spark: a lazy plan, no pass).

    Contract:
        * Input domain: ``dataframe_domain(columns, size, engine)`` with at least one column,
          any engine (pandas, Polars eager or lazy, Spark, or any local frame).
        * Input metric: ``symmetric_distance()``, ``symmetric_id_distance(identifier)`` or
          ``grouped_symmetric_distance(by)``, the columns it names declared.
        * Output domain: ``dataframe_domain(columns, engine=engine)``: the same columns, any
          number of rows.
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: the frame metric (see the contract).
        predicate: an expression of type bool, e.g. ``"age >= 18 AND region IN ('N', 'S')"``.

    Stability map:
        ``map(d_in) = d_in`` under each metric (the identity on integers or on triples
        ``(l0, l1, linf)``): the filter acts row by row, so rows added or removed become at
        most as many rows added or removed, a person's rows a subset of them, a group's rows a
        subset of that group's.  Exact; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` or ``input_metric`` is of the wrong kind, or
            ``predicate`` is not a str.
        MakeError: the domain declares no column; the metric names an undeclared column;
            ``predicate`` is not an expression (``ExpressionSyntaxError``, with the
            position), names an unknown column, is ill-typed or is not of type bool.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/row_wise/make_filter.tex``.

    References: [McS09] (a transformation that maps each record alone, such as Where, is 1-stable).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"age": dp.atom_domain(T=int), "income": dp.atom_domain(T=float, nan=True)})
        >>> t = ((dom, dp.symmetric_distance()) >> dp.t.then_filter("age >= 18 AND income > 0.0")
        ...      >> dp.t.then_select_column("income"))
        >>> t(pd.DataFrame({"age": [17, 30, 40], "income": [5.0, float("nan"), 2.0]})).tolist(), t.map(1)
        ([2.0], 1)
    """
    # [proof:make_filter]
    expr = _row_space(input_domain, input_metric, predicate, "predicate")
    check_predicate(expr, frame_schema(input_domain))
    step = RowStep(expr, tuple(input_domain.columns), frame_schema(input_domain), None, None)
    return _transformation(input_domain, input_domain.with_(size=None), input_metric, step)
    # [end:make_filter]


then_filter = then(make_filter)


# [proof:derived_domain]
def derived_domain(t: ExprType, text: str) -> AtomDomain:
    """The atom domain of a derived column whose values have type ``t``: float (NaN for NULL
    when ``t`` is nullable), int and str when never NULL; bool, or an int or str that may be
    NULL, has no column domain and is refused."""
    if t.T is float:
        return AtomDomain(float, None, t.nullable)
    if t.T is bool:
        raise MakeError(f"`{text}` is a predicate (bool): a frame column holds float, int or str values; "
                        "keep rows with make_filter instead")
    if t.nullable:
        hint = ("; an int result outside int64 is NULL: compute it in float (e.g. `1.0 * a + b`), whose "
                "NULL is stored as NaN") if t.T is int else ""
        raise MakeError(f"`{text}` may be NULL, and a column of {t.T.__name__} holds no NULL{hint}")
    return AtomDomain(t.T, None, False)
# [end:derived_domain]


def make_with_column(input_domain: DataFrameDomain, input_metric: Metric, name: str,
                     expr: str) -> Transformation:
    """Add the column ``name`` computed from each row by ``expr``: frame -> frame.

    ``expr`` is an expression of :mod:`opendp_duff.expressions` over the declared columns (row-wise
    arithmetic, ``ABS``, columns and literals), evaluated on each row alone: integer overflow and
    division by zero give NULL, a float NULL is stored as NaN (``proofs/expressions/semantics.tex``).
    The new column's domain comes from the expression's type: ``atom_domain(T=float, nan=...)``
    (NaN admitted exactly when the value may be NULL), ``atom_domain(T=int)`` or
    ``atom_domain(T=str)``, without bounds (chain ``make_clamp`` to bound it).  The column may not
    replace a declared column (refused, so the row's other values keep their meaning).  The
    output holds the declared columns and the new one, the rows in their order.

    Contract:
        * Input domain: ``dataframe_domain(columns, size, engine)`` with at least one column,
          any engine, ``name`` not among the columns.
        * Input metric: ``symmetric_distance()``, ``symmetric_id_distance(identifier)`` or
          ``grouped_symmetric_distance(by)``, the columns it names declared.
        * Output domain: ``dataframe_domain({**columns, name: domain of expr}, size, engine)``.
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the frames (see the contract).
        input_metric: the frame metric (see the contract).
        name: the new column's name, a non-empty str that is not a declared column.
        expr: an expression of type float, or of type int or str that is never NULL, e.g.
            ``"income / 12"``.

    Stability map:
        ``map(d_in) = d_in`` under each metric (the identity on integers or on triples): each
        row is extended by a value of that row, so rows added or removed stay as many, a
        person's rows stay theirs and a group's rows stay in their group (the ``by`` and
        identifier columns are unchanged).  Exact; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` or ``input_metric`` is of the wrong kind, or ``name``
            or ``expr`` is not a str.
        MakeError: the domain declares no column; the metric names an undeclared column;
            ``name`` is empty or is a declared column; ``expr`` is not an expression, names an
            unknown column, is ill-typed, is a predicate (bool), or is an int that may be NULL
            (overflow; compute it in float).
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/row_wise/make_with_column.tex``.

    References: [McS09] (a transformation that maps each record alone, such as Select, is 1-stable).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"income": dp.atom_domain(T=float)})
        >>> t = ((dom, dp.symmetric_distance()) >> dp.t.then_with_column("monthly", "income / 12")
        ...      >> dp.t.then_select_column("monthly") >> dp.t.then_clamp((0.0, 10.0)))
        >>> t(pd.DataFrame({"income": [60.0, 240.0]})).tolist(), t.map(1)
        ([5.0, 10.0], 1)
    """
    # [proof:make_with_column]
    tree = _row_space(input_domain, input_metric, expr, "expr")
    if not isinstance(name, str):
        raise MakeTypeError(f"name must be a column name (str), not {type(name).__name__}")
    if not name:
        raise MakeError("name ('') must be a non-empty column name")
    if name in input_domain.columns:
        raise MakeError(f"name ({name!r}) is a declared column: make_with_column adds a column and never "
                        "replaces one; choose a new name")
    schema = frame_schema(input_domain)
    column = derived_domain(check(tree, schema), to_text(tree))
    out = input_domain.with_(columns={**input_domain.columns, name: column})
    step = RowStep(tree, tuple(input_domain.columns), schema, name, column)
    return _transformation(input_domain, out, input_metric, step)
    # [end:make_with_column]


then_with_column = then(make_with_column)
