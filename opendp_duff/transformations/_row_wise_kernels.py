"""The kernels of the row-wise steps (``make_filter``, ``make_with_column``) on local frames.

A kernel receives an admitted member (a pandas or Polars DataFrame, a collected LazyFrame, or a
part made by ``make_partition_by``) and evaluates the checked expression with the compiler of
its library (:mod:`opendp_duff.expressions`), which computes the reference value on every row
(``proofs/expressions/semantics.tex``).  The output holds the declared columns (and the derived
one), the rows in their order.  pandas and Polars are imported only when a frame is evaluated.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..engines import LocalPart, engine_for
from ..expressions import compile_pandas, compile_polars
from ._row_step import RowStep

__all__ = ["row_kernel", "local_rows"]


# [proof:row_kernel]
def row_kernel(input_domain: Any) -> Callable[[Any, RowStep], Any]:
    """The kernel of the domain's engine: Spark frames by Spark SQL (lazily), local frames
    (pandas, Polars eager or lazy, parts of either) by :func:`local_rows`."""
    if input_domain.engine == "spark":
        from ._row_wise_spark import spark_rows
        return spark_rows
    return local_rows


def local_rows(frame: Any, step: RowStep) -> Any:
    """The kept rows (a filter) or the frame with the derived column, in the frame's library."""
    engine = frame.batch.engine if isinstance(frame, LocalPart) else engine_for(frame)
    df = frame.frame() if isinstance(frame, LocalPart) else frame
    if engine.name == "polars":
        return _polars_rows(df, step)
    return _pandas_rows(engine.select(df, list(step.names)), step)


def _pandas_rows(df: Any, step: RowStep) -> Any:
    compiled = compile_pandas(step.expr, step.schema)
    if step.name is None:
        return df.iloc[np.asarray(compiled.mask(df), dtype=bool)]
    out = df.copy(deep=False)             # a new frame of the declared columns: the caller's is not changed
    out[step.name] = np.asarray(compiled.column(df).to_numpy())   # float NULL as NaN
    return out


def _polars_rows(df: Any, step: RowStep) -> Any:
    import polars as pl
    compiled = compile_polars(step.expr, step.schema)
    declared = pl.DataFrame([df.get_column(name) for name in step.names])   # by name, never as a pattern
    if step.name is None:
        return declared.filter(compiled)
    if step.column is not None and step.column.nan:
        compiled = compiled.fill_null(float("nan"))                            # a float NULL as NaN
    return declared.with_columns(compiled.alias(step.name))
# [end:row_kernel]
