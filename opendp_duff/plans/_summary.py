"""Accuracy before release: what each statistic of a compiled plan promises, from public facts.

:func:`summarize` calibrates the plan to a budget exactly as a release would (no data is read,
nothing is charged) and asks each statistic's :class:`~opendp_duff.plans.Family` for its
accuracy record (:mod:`opendp_duff.accuracy`, proved in ``proofs/accuracy/accuracy.tex``) at the
parameter chosen.  The Duff quantiles have no rank bound that holds for all data (ties at the
target defeat every one): their row states a bound only under the condition the analyst gives
(``spread``, ``within``), and otherwise says so with an infinite figure.  Likewise the Duff
mean's bound is for data of ``n`` records, a number the analyst states.  A plan that discovers
its keys has a first row for them: the count from which a key is released with probability at
least 1 - alpha, under the noise of the discovery (Laplace, or Gaussian in a (rho, delta) context).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping, Optional

from .. import _validate as v
from ..accuracy import (Accuracy, duff_mean_accuracy, duff_mode_accuracy, duff_quantile_accuracy, laplace_accuracy,
                        threshold_keys_accuracy)
from ._compiled import Assumptions, Compiled

__all__ = ["summarize", "rank_accuracy", "mean_accuracy", "mode_accuracy", "noise_accuracy", "COLUMNS"]

COLUMNS = ("statistic", "budget", "mechanism", "scale", "accuracy", "unit", "statement")


def rank_accuracy(q: Any, bounds: tuple[float, float]) -> Any:
    """The accuracy of a Duff quantile at ``q`` on a column in ``bounds``: the rank bound under
    the analyst's spread condition, or the statement that none holds without one."""
    name = "duff_median" if q == Fraction(1, 2) else "duff_quantile"

    def rank_bound(scale: float, alpha: float, assume: Assumptions) -> Accuracy:
        if assume.spread is not None:
            return duff_quantile_accuracy(scale, alpha, quantile=q, bounds=bounds, spread=assume.spread,
                                          within=assume.within)
        return Accuracy(name, scale, math.inf, "rank",
                        "no rank bound holds for all data (ties at the target rank defeat every one); give "
                        "spread=w to state the bound for data whose order statistics of ranks R - within and "
                        "R + within are at least w apart")
    return rank_bound


def mean_accuracy(bounds: tuple[float, float]) -> Any:
    """The accuracy of the Duff mean on a column in ``bounds``, for data of n records (given)."""
    def mean_bound(scale: float, alpha: float, assume: Assumptions) -> Accuracy:
        if assume.n is not None:
            return duff_mean_accuracy(scale, alpha, bounds=bounds, n=assume.n)
        return Accuracy("duff_mean", scale, math.inf, "value",
                        "the bound depends on the number of records, which is private: give n= to state it "
                        "for data of n records")
    return mean_bound


def mode_accuracy(candidates: Any) -> Any:
    """The Duff mode's count gap over the public candidates, whatever the data."""
    def mode_bound(scale: float, alpha: float, assume: Assumptions) -> Accuracy:
        return duff_mode_accuracy(scale, alpha, candidates=len(candidates))
    return mode_bound


def noise_accuracy(scale: float, alpha: float, assume: Assumptions) -> Accuracy:
    """Laplace noise: a half-width in value, whatever the data."""
    return laplace_accuracy(scale, alpha)


def _for(value: Any, label: str) -> Any:
    """An assumption given once for every statistic, or by label (a dict)."""
    if isinstance(value, Mapping):
        return value.get(label)
    return value


def summarize(compiled: Compiled, budget: Any, alpha: float, *, spread: Any = None, within: Any = 1,
              n: Any = None) -> Any:
    """One row per statistic of ``compiled`` at ``budget`` (see the module docstring): its label,
    its share of the budget, the mechanism, the scale (or temperature), the accuracy figure, its
    unit and the statement, each from :mod:`opendp_duff.accuracy`.  A frame of the data's library
    (the :data:`COLUMNS`) for a frame's plan, a list of dicts for 1-D data."""
    v.probability("alpha", alpha)
    state = compiled.state
    found = compiled.parameter(budget)
    if state.parts:
        entries = [(p.label, p.family, param) for p, param in zip(state.parts, found, strict=True)]
    else:
        assert state.family is not None
        entries = [(state.family.label, state.family, found)]
    rows: list[dict[str, Any]] = []
    discovery = compiled.key_parameters(budget)
    if discovery is not None:
        assert state.grouping is not None and state.grouping.discovery is not None
        keys_budget, scale, threshold = discovery
        keys = threshold_keys_accuracy(scale, alpha, threshold=threshold, noise=state.grouping.discovery.noise)
        rows.append({"statistic": f"keys of {', '.join(state.grouping.by)}", "budget": keys_budget,
                     "mechanism": keys.mechanism, "scale": keys.scale, "accuracy": keys.accuracy, "unit": keys.unit,
                     "statement": keys.statement})
    for (label, family, param), share in zip(entries, compiled.shares(budget), strict=True):
        assume = Assumptions(_number(_for(spread, label), "spread"),
                             v.number("within", 1 if _for(within, label) is None else _for(within, label),
                                      integer=True, positive=True),
                             _count(_for(n, label)))
        record: Optional[Accuracy] = None if family.accuracy is None else family.accuracy(param, alpha, assume)
        rows.append({"statistic": label, "budget": share,
                     "mechanism": None if record is None else record.mechanism,
                     "scale": param if record is None else record.scale,
                     "accuracy": math.inf if record is None else record.accuracy,
                     "unit": None if record is None else record.unit,
                     "statement": "no accuracy statement for this mechanism" if record is None
                     else record.statement})
    if getattr(compiled.target.domain, "columns", None) is None:
        return rows
    return compiled.target.frame({column: [row[column] for row in rows] for column in COLUMNS})


def _number(value: Any, name: str) -> Any:
    return None if value is None else v.number(name, value, positive=True)


def _count(value: Any) -> Any:
    return None if value is None else v.number("n", value, integer=True, positive=True)
