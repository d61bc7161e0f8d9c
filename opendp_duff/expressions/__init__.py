"""A small row-wise expression language for filters and derived columns, on every engine.

Text is parsed once into a frozen, hashable tree (:func:`parse`), which prints back to
canonical text (:func:`to_text`) and to JSON (:func:`to_json`, :func:`from_json`).  The tree is
typed against a schema before any data is read (:func:`check`), and compiled to numpy, pandas,
Polars or Spark (:func:`compile_numpy`, :func:`compile_pandas`, :func:`compile_polars`,
:func:`compile_spark`); every compiler computes, row for row, what the reference evaluator
:func:`evaluate_row` computes.

    >>> from opendp_duff.expressions import ExprType, parse, check, to_text
    >>> e = parse("age >= 18 and income / 12 > 1000.0 OR region IN ('north', 'east')")
    >>> to_text(e)
    "age >= 18 AND income / 12 > 1000.0 OR region IN ('north', 'east')"
    >>> check(e, {"age": ExprType(int), "income": ExprType(float, nullable=True), "region": ExprType(str)})
    ExprType(bool, nullable)

The grammar is in :mod:`.parser`, the typing rules in :mod:`.check`, and the value semantics
(three-valued logic, NaN as NULL, exact int64 arithmetic with NULL on overflow, float division
with NULL for a zero divisor, exact comparison of ints with floats) in :mod:`.reference`.
"""
from .check import ExprType, Schema, annotate, check, check_predicate
from .nodes import (MAX_DEPTH, Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic, Negate,
                    Not, from_json, to_json)
from .parser import ExpressionSyntaxError, parse
from .printer import to_text
from typing import TYPE_CHECKING

# The evaluator and the compilers load on first use: a plan that only parses and checks an
# expression (every plan built before data is seen) does not pay for them at import.
_LAZY = {"evaluate_row": "reference", "NumpyExpression": "to_numpy", "compile_numpy": "to_numpy",
         "PandasExpression": "to_pandas", "compile_pandas": "to_pandas", "compile_polars": "to_polars",
         "compile_spark": "to_spark"}
if TYPE_CHECKING:
    from .reference import evaluate_row
    from .to_numpy import NumpyExpression, compile_numpy
    from .to_pandas import PandasExpression, compile_pandas
    from .to_polars import compile_polars
    from .to_spark import compile_spark


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = ["parse", "to_text", "to_json", "from_json", "check", "check_predicate", "annotate", "evaluate_row",
           "compile_numpy", "compile_pandas", "compile_polars", "compile_spark", "ExprType", "Schema",
           "ExpressionSyntaxError", "NumpyExpression", "PandasExpression", "MAX_DEPTH", "Expr", "Column",
           "Literal", "Arith", "Negate", "Abs", "Compare", "Logic", "Not", "IsNull", "In", "Between"]
