"""The checked row-wise step (``make_filter``, ``make_with_column``) that every engine's kernel
runs: one place below the local kernels (:mod:`._row_wise_kernels`) and the Spark kernel
(:mod:`._row_wise_spark`), so that neither imports the other for it.
"""
from __future__ import annotations

import attrs

from ..domains import AtomDomain
from ..expressions import ExprType
from ..expressions.nodes import Expr

__all__ = ["RowStep"]


@attrs.frozen(eq=False)
class RowStep:
    """A checked row-wise step.

    Attributes:
        expr: the expression (a predicate for a filter), typed against ``schema``.
        names: the declared columns, in the output's order.
        schema: the expression schema of the declared columns.
        name: the derived column's name, or None for a filter.
        column: the derived column's atom domain (NaN for NULL when it admits NaN), or None.
    """

    expr: Expr
    names: tuple[str, ...]
    schema: dict[str, ExprType]
    name: str | None
    column: AtomDomain | None
