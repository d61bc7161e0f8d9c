"""Data-free query plans and the planner that compiles them to measurements.

* :class:`Query` -- ``dp.query().column("income").clamp((0.0, 5e5)).median()``: a frozen value,
  printable, comparable and written as JSON; :func:`query` starts one.
* :mod:`._steps` -- the kinds of steps; :mod:`._vocabulary` -- the one table of names a plan
  understands.
* :func:`count`, :func:`median`, :func:`quantile`, :func:`mean`, :func:`sum`, :func:`mode` --
  statistics as values (:class:`Stat`), released together by ``query.agg(...)`` (:class:`Agg`).
* :func:`summarize` -- what each statistic of a compiled plan promises, before release.
* :class:`Target` -- what a planner may know of the data (domain, privacy unit, measure), and
  :func:`compile_plan`, which turns a plan into a :class:`Compiled` whose
  ``measurement(budget)`` is the one measurement to run.

A context (:mod:`opendp_duff.context`) owns the budget and runs plans; this package knows no
data and no context.
"""
from ._casts import measure_name
from ._compiled import Compiled, Family, Target
from ._planner import Planner, check_target, compile_plan
from ._query import Query, query
from ._summary import summarize
from ._shares import Shares, exact
from ._stats import count, mean, median, mode, quantile, sum  # noqa: A004
from ._steps import Agg, Clamp, Column, Filter, GroupBy, Impute, Stat, Statistic, Step, Then, Transform, WithColumn

__all__ = ["Query", "query", "Target", "Compiled", "Family", "Planner", "compile_plan", "check_target",
           "measure_name", "Shares", "exact", "summarize",
           "Step", "Column", "GroupBy", "Clamp", "Impute", "Transform", "Statistic", "Then",
           "Agg", "Stat", "Filter", "WithColumn", "count", "median", "quantile", "mean", "sum", "mode"]
