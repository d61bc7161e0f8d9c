"""The mechanisms a query can end in, each with its one free parameter, and the measure casts.

A :class:`Mechanism` builds a measurement from the space the query has reached, given the
free parameter (a scale, or the smooth mechanisms' s) and the query's budget; the query
searches the parameter so that the map meets the budget.  The builders below are the named
methods of :class:`~opendp_duff.context.Query`; a backend may replace any of them.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Tuple, Union

import attrs

from .. import combinators as comb
from .. import measurements as meas
from .. import transformations as trans
from ..core import Measurement, Transformation
from ..domains import VectorDomain
from ..errors import MakeError
from ..measures import (ApproximateDivergence, MaxDivergence, SmoothedMaxDivergence,
                        ZeroConcentratedDivergence)
from ..metrics import SymmetricDistance
from ..smooth.noises import lookup, resolve
from ..smooth.parameters import choose_smoothing
from ._budget import Budget, measure_name

__all__ = ["Mechanism", "Space", "output_space", "cast", "BUILDERS"]

Space = Union[Transformation, Tuple[Any, Any]]
Param = Any   # the free parameter: a float, an int, or None when there is none


@attrs.frozen
class Mechanism:
    """The end of a query: ``make(param, budget)`` is the measurement, in its own measure,
    from the space the query reached.

    Attributes:
        make: ``(param, budget) -> Measurement``; budget is the query's (or None).
        label: the statistic's name in a grouped result (``"median"``, ``"quantile_0.9"``...).
        param: the name of the free parameter, or None when every parameter is given.
        T: the free parameter's type, float or int.
    """

    make: Callable[[Param, Optional[Budget]], Measurement]
    label: str
    param: Optional[str] = "scale"
    T: type = float


def output_space(space: Space) -> tuple[Any, Any]:
    """(domain, metric) that ``space`` leads to."""
    if isinstance(space, Transformation):
        return space.output_domain, space.output_metric
    return space


def then(space: Space, partial: Any) -> Space:
    """``space >> partial`` for a space given as a Transformation or a (domain, metric) pair."""
    return space >> partial


def vector_space(space: Space, what: str) -> tuple[Any, Any]:
    """The (domain, metric) of a column; refuse a frame (no column selected yet)."""
    domain, metric = output_space(space)
    if not isinstance(domain, VectorDomain):
        raise MakeError(f"{what} needs a column: call .column(name) first")
    return domain, metric


def bounded(space: Space, bounds: Any, what: str) -> Space:
    """The column clamped to ``bounds`` if given; else it must be bounded already."""
    domain, _ = vector_space(space, what)
    if bounds is not None:
        return then(space, trans.then_clamp(bounds=bounds))
    if domain.element_domain.bounds is None:
        raise MakeError(f"{what} needs public bounds: call .clamp((lo, hi)) first, or pass bounds=(lo, hi)")
    return space


def sorted_(space: Space, backend: Any) -> Space:
    domain, _ = output_space(space)
    return space if domain.sorted else then(space, backend.sort())


# ---- measure casts ----------------------------------------------------------------------------

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


# ---- the named mechanisms -------------------------------------------------------------------

@attrs.frozen
class Info:
    """What a builder may know of the context: its measure and privacy unit (public)."""

    measure: Any
    d_in: Any
    backend: Any


Built = Tuple[Space, Mechanism]


def _scaled(space: Space, label: str, constructor: Callable[..., Measurement], **kwargs: Any) -> Built:
    domain, metric = output_space(space)

    def make(scale: Param, budget: Optional[Budget]) -> Measurement:
        return constructor(domain, metric, scale=scale, **kwargs)

    make(1.0, None)   # refuses a space or an argument that does not fit, now rather than at release
    return space, Mechanism(make, label)


# The Duff median, quantiles and mean take unsorted records (they select the ranks they need in
# O(n)), so no sort is added for them; the smooth mechanisms read sorted records.
def median(space: Space, info: Info, bounds: Any = None) -> Built:
    space = bounded(space, bounds, ".median()")
    return _scaled(space, "median", meas.make_duff_median)


def quantile(space: Space, info: Info, alpha: Any, bounds: Any = None) -> Built:
    space = bounded(space, bounds, ".quantile()")
    return _scaled(space, f"quantile_{alpha}", meas.make_duff_quantile, alpha=alpha)


def mean(space: Space, info: Info, bounds: Any = None) -> Built:
    space = bounded(space, bounds, ".mean()")
    return _scaled(space, "mean", meas.make_duff_mean)


def mode(space: Space, info: Info, candidates: Any) -> Built:
    vector_space(space, ".mode()")
    return _scaled(space, "mode", meas.make_duff_mode, candidates=candidates)


def count(space: Space, info: Info) -> Built:
    vector_space(space, ".count()")
    return _scaled(then(space, trans.then_count()), "count", meas.make_laplace)


def sum_(space: Space, info: Info, bounds: Any = None) -> Built:
    space = bounded(space, bounds, ".sum()")
    if output_space(space)[0].size is None:
        raise MakeError(".sum() needs the number of rows to be public: declare it with "
                        "domain=... size=n when creating the context")
    return _scaled(then(space, trans.then_sum()), "sum", meas.make_laplace)


def _smooth(statistic: str, space: Space, info: Info, noise: Optional[str], t: Optional[float],
            bounds: Any, shapes: dict[str, Any], m: Optional[int] = None) -> Built:
    what = f".{statistic}()"
    space = sorted_(bounded(space, bounds, what), info.backend)
    domain, metric = output_space(space)
    if domain.size is None:
        raise MakeError(f"{what} needs the number of rows to be public: declare it with domain=... size=n "
                        "when creating the context")
    if isinstance(metric, SymmetricDistance) and info.d_in < 2:
        raise MakeError(f"{what} protects rows changed in data of a public size; one row added or removed "
                        "changes the size, so the privacy unit must be unit_of(contributions=2) or more "
                        "(one changed row is one removed plus one added)")
    record = lookup(noise if noise is not None else _default_noise(info.measure))
    if not castable(record.measure, type(info.measure)):
        raise MakeError(f"noise {record.name!r} gives an {measure_name(record.measure())} guarantee, which "
                        f"cannot be restated in this context's {measure_name(info.measure)}: choose another noise")
    lo, hi = domain.element_domain.bounds
    chosen: dict[Any, tuple[float, dict[str, Any]]] = {}

    def parameters(budget: Optional[Budget]) -> tuple[float, dict[str, Any]]:
        """t and the shape: given, or chosen from the public size, bounds and budget only."""
        key = budget
        if key not in chosen:
            native = _native_budget(record, info.measure, budget)
            t_value = t if t is not None else choose_smoothing(
                record.name, domain.size, (lo, hi), statistic="median" if m is None else "trimmed_mean",
                m=m or 0, **native)
            given = dict(shapes)
            if record.shape_name == "delta" and given.get("delta") is None:
                given["delta"] = native.get("delta")
            if all(x is None for x in given.values()) and record.tuned_shape is not None:
                eps = native.get("epsilon") or math.sqrt(2 * native["rho"])
                given = {record.shape_name: record.tuned_shape(eps, t_value)}
            chosen[key] = (t_value, given)
        return chosen[key]

    resolve(record, required=False, **shapes)   # refuses a shape that does not apply, at once

    def make(s: Param, budget: Optional[Budget]) -> Measurement:
        t_value, given = parameters(budget)
        if m is None:
            return meas.make_smooth_median(domain, metric, t=t_value, s=s, noise=record.name, **given)
        return meas.make_smooth_trimmed_mean(domain, metric, m=m, t=t_value, s=s, noise=record.name, **given)

    return space, Mechanism(make, statistic, param="s")


def smooth_median(space: Space, info: Info, noise: Optional[str] = None, t: Optional[float] = None,
                  bounds: Any = None, **shapes: Any) -> Built:
    return _smooth("smooth_median", space, info, noise, t, bounds, shapes)


def trimmed_mean(space: Space, info: Info, m: int, noise: Optional[str] = None, t: Optional[float] = None,
                 bounds: Any = None, **shapes: Any) -> Built:
    return _smooth("trimmed_mean", space, info, noise, t, bounds, shapes, m=m)


def _default_noise(measure: Any) -> str:
    """Student's T in a pure-DP context; LLN (zCDP, cast to (epsilon, delta) if need be) otherwise."""
    return "student_t" if isinstance(measure, MaxDivergence) else "lln"


def _native_budget(record: Any, measure: Any, budget: Optional[Budget]) -> dict[str, Any]:
    """The budget in the noise's own measure, for choosing t and the shape (public heuristics:
    the privacy of the release rests on the map and the search, not on these numbers)."""
    if budget is None:
        raise MakeError("the smooth mechanisms choose t and the shape from the query's budget: "
                        "give the query a budget")
    eps, delta = (budget if isinstance(budget, tuple) else (budget, 0.0))
    if record.measure is ApproximateDivergence:
        return {"epsilon": eps, "delta": delta}
    if isinstance(measure, ZeroConcentratedDivergence):
        return {"rho": eps} if record.measure is ZeroConcentratedDivergence else {"epsilon": math.sqrt(2 * eps)}
    if record.measure is ZeroConcentratedDivergence and delta > 0:
        log_inv = -math.log(delta)   # the rho with rho + 2 sqrt(rho log(1/delta)) = eps ([BS16] Prop. 1.3)
        return {"rho": (math.sqrt(log_inv + eps) - math.sqrt(log_inv)) ** 2}
    return {"epsilon": eps}


BUILDERS: dict[str, Callable[..., Built]] = {
    "median": median, "quantile": quantile, "mean": mean, "mode": mode, "count": count, "sum": sum_,
    "smooth_median": smooth_median, "trimmed_mean": trimmed_mean,
}
