"""Measure casts: a measurement restated in the context's measure, when that is sound.

A context whose budget is a pair (rho, delta) (``approximate_zero_concentrated_divergence()``)
pays its statistics in zCDP: they are planned, searched and composed in
``zero_concentrated_divergence()`` with the budget's rho (:func:`statistics_measure`,
:func:`statistics_budget`), and the whole is restated as (rho, 0) at the end (:func:`restate`):
rho-zCDP is delta-approximate rho-zCDP with delta = 0 (the mixture with weight 0 on the bad part).
Only the discovery of keys spends the delta.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

from .. import combinators as comb
from ..combinators.measure_cast import restate_zCDP_as_approximate
from ..core import Measurement
from ..errors import MakeError
from ..measures import (ApproximateDivergence, ApproximateZeroConcentratedDivergence, MaxDivergence,
                        SmoothedMaxDivergence, ZeroConcentratedDivergence)

__all__ = ["Budget", "cast", "castable", "measure_name", "epsilon_part", "statistics_measure", "statistics_budget",
           "restate"]

Budget = Union[float, Tuple[float, float]]


def measure_name(measure: Any) -> str:
    """How a user names the budget of ``measure`` (for messages)."""
    if isinstance(measure, ApproximateDivergence):
        return "(epsilon, delta)"
    if isinstance(measure, ApproximateZeroConcentratedDivergence):
        return "(rho, delta)"
    return "rho" if isinstance(measure, ZeroConcentratedDivergence) else "epsilon"


def epsilon_part(d: Any) -> float:
    """The first component of a privacy loss (epsilon or rho); inf for anything else."""
    x = d[0] if isinstance(d, tuple) else d
    return float(x) if isinstance(x, (int, float)) and x == x else float("inf")


def castable(have: type, want: type) -> bool:
    """Whether :func:`cast` restates a measure of class ``have`` in one of class ``want``."""
    return have is want or have is MaxDivergence or (
        have in (ZeroConcentratedDivergence, SmoothedMaxDivergence) and want is ApproximateDivergence)


def cast(measurement: Measurement, measure: Any, budget: Optional[Budget]) -> Measurement:
    """``measurement`` restated in ``measure``: pure DP -> zCDP ([BS16] Prop. 1.4), pure DP ->
    (epsilon, 0), zCDP -> (epsilon(delta), delta) at the budget's delta.  Other directions are
    refused: no mechanism is weakened into a stronger measure."""
    have = measurement.output_measure
    if type(have) is type(measure):
        return measurement
    if isinstance(have, MaxDivergence) and isinstance(measure, ZeroConcentratedDivergence):
        return comb.make_pureDP_to_zCDP(measurement)
    if isinstance(have, MaxDivergence) and isinstance(measure, ApproximateDivergence):
        return comb.make_pureDP_to_approxDP(measurement)
    if castable(type(have), type(measure)):   # zCDP or a privacy profile, to (epsilon, delta)
        delta = budget[1] if isinstance(budget, tuple) else 0.0
        if not delta > 0:
            raise MakeError("a zCDP mechanism in an (epsilon, delta) context needs a delta > 0: "
                            "give the query a budget with delta")
        zcdp = isinstance(have, ZeroConcentratedDivergence)
        profile = comb.make_zCDP_to_approxDP(measurement) if zcdp else measurement
        return comb.make_fix_delta(profile, delta)
    raise MakeError(f"an {measure_name(have)} mechanism cannot run in a context that measures privacy in "
                    f"{measure_name(measure)}: choose a mechanism with a {measure_name(measure)} guarantee "
                    "or a stronger one (pure DP converts to zCDP and to (epsilon, delta))")


def statistics_measure(measure: Any) -> Any:
    """The measure a context's statistics are planned in: zCDP for a (rho, delta) budget, else
    the context's own."""
    return ZeroConcentratedDivergence() if isinstance(measure, ApproximateZeroConcentratedDivergence) else measure


def statistics_budget(measure: Any, budget: Optional[Budget]) -> Optional[Budget]:
    """A budget of ``measure`` as the statistics see it: the rho of a (rho, delta) budget."""
    if budget is not None and isinstance(measure, ApproximateZeroConcentratedDivergence):
        assert isinstance(budget, tuple)
        return budget[0]
    return budget


# [proof:restate]
def restate(measurement: Measurement, measure: Any) -> Measurement:
    """``measurement`` in ``measure``: a zCDP one as delta-approximate zCDP with delta = 0
    (``dp.c.measure_cast.restate_zCDP_as_approximate``); a measurement already in ``measure``
    unchanged."""
    if type(measurement.output_measure) is type(measure):
        return measurement
    if not (isinstance(measurement.output_measure, ZeroConcentratedDivergence)
            and isinstance(measure, ApproximateZeroConcentratedDivergence)):
        raise MakeError(f"cannot restate {measure_name(measurement.output_measure)} in {measure_name(measure)}")
    return restate_zCDP_as_approximate(measurement)
# [end:restate]
