"""pandas: an expression evaluated on a DataFrame, as a boolean mask or a Series.

Each column the expression names is read into a numpy pair (data, null) with pandas' own
conversion (``Series.isna`` and ``Series.to_numpy`` with an ``na_value``), so that NaN, None,
``pd.NA`` and ``NaT``-free nullable dtypes (``Float64``, ``Int64``, ``boolean``, ``string``,
``str``) all read as NULL, and the numpy primitives compute the value: the pandas result is the
numpy result, row for row.  pandas is imported only when a frame is evaluated.
"""
from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from .check import Schema, annotate
from .nodes import Expr
from .to_numpy import NumpyExpression, NumpyPrimitives, Values, as_column

__all__ = ["compile_pandas", "PandasExpression", "read_series"]

_NA_FILL: dict[type, Any] = {float: np.nan, int: 0, bool: False, str: ""}
_DTYPES: dict[type, Any] = {float: np.float64, int: np.int64, bool: np.bool_, str: object}


def read_series(series: Any, T: type) -> Values:
    """A pandas Series (any numeric, boolean, object or string dtype) as values of type T."""
    if T is float:
        data = series.to_numpy(dtype=np.float64, na_value=np.nan)
        return Values(data, np.isnan(data))
    null = np.asarray(series.isna().to_numpy(), dtype=bool)
    data = series.to_numpy(dtype=_DTYPES[T], na_value=_NA_FILL[T])
    if T is str:                           # an element that is not a str is NULL, as in numpy
        present = np.fromiter((isinstance(v, str) for v in data), dtype=bool, count=len(data))
        data = np.where(present, data, "").astype(object)
        null = null | ~present
    return Values(np.asarray(data), null)


@attrs.frozen(eq=False)
class PandasExpression(NumpyExpression):
    """A checked expression, ready to evaluate on pandas DataFrames: the numpy evaluation of the
    frame's columns, returned on the frame's index.

    Attributes:
        expr: the tree.
        type: the type of its value (from :func:`~opendp_duff.expressions.check`).
    """

    def _primitives(self, df: Any) -> NumpyPrimitives:
        return NumpyPrimitives(lambda name, T: read_series(df[name], T), len(df))

    # [proof:PandasExpression.mask]
    def mask(self, df: Any) -> Any:
        """A filter's mask, a bool Series on ``df``'s index: True exactly where the predicate is
        TRUE (``df[mask]`` keeps those rows)."""
        import pandas as pd
        return pd.Series(super().mask(df), index=df.index, dtype=bool)
    # [end:PandasExpression.mask]

    def column(self, df: Any) -> Any:
        """The values as a Series on ``df``'s index: float64 (NULL as NaN); int64 or, when the
        type is nullable, ``Int64``; bool or, when nullable, ``boolean``; object (str, NULL as
        None)."""
        import pandas as pd
        values, T = self.values(df), self.type.T
        if self.type.nullable and T is int:
            array: Any = pd.arrays.IntegerArray(values.data.astype(np.int64), values.null.copy())
        elif self.type.nullable and T is bool:
            array = pd.arrays.BooleanArray(values.data.astype(bool), values.null.copy())
        else:
            array = np.ma.getdata(as_column(values, T))
        return pd.Series(array, index=df.index, dtype=object if T is str else None)


# [proof:compile_pandas]
def compile_pandas(expr: Expr, schema: Schema) -> PandasExpression:
    """Check ``expr`` against ``schema`` and prepare it for pandas DataFrames.

    Raises:
        MakeError: ``expr`` is ill-typed for ``schema`` (see :func:`~opendp_duff.expressions.check`).
    """
    types = annotate(expr, schema)
    return PandasExpression(expr, types[expr], types)
# [end:compile_pandas]
