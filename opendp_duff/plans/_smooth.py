"""The smooth-sensitivity statistics of the vocabulary: the median and the trimmed mean plus
noise scaled to their t-smooth sensitivity ([BS19]), with ``s`` calibrated to the budget and
``t`` and the noise's shape chosen from public facts (size, bounds, budget) unless given."""
from __future__ import annotations

import math
from typing import Any, Optional

from .. import measurements as meas
from ..core import Measurement
from ..errors import MakeError, MakeTypeError
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..smooth.noises import SmoothNoise, lookup, resolve
from ..smooth.parameters import choose_smoothing
from ._casts import Budget, castable, measure_name, statistics_measure
from ._compiled import Family, State

__all__ = ["smooth_entries"]

SHAPES = ("sigma", "d", "gamma", "delta")


def smooth_median(noise: Optional[str] = None, t: Optional[float] = None,
                  bounds: Optional[tuple[float, float]] = None, s: Optional[float] = None, *,
                  sigma: Optional[float] = None, d: Optional[float] = None, gamma: Optional[float] = None,
                  delta: Optional[float] = None) -> None:
    """The median plus noise scaled to its t-smooth sensitivity ([BS19]); the data's size must
    be public.  ``noise`` defaults to ``"student_t"`` (pure DP) or ``"lln"`` (zCDP, cast to
    (epsilon, delta) there); ``t`` and the shape (``sigma``, ``d``, ``gamma`` or ``delta``)
    default to choices made from the public size, bounds and budget
    (:func:`opendp_duff.smooth.choose_smoothing`); ``s`` is calibrated unless given."""


def trimmed_mean(m: int, noise: Optional[str] = None, t: Optional[float] = None,
                 bounds: Optional[tuple[float, float]] = None, s: Optional[float] = None, *,
                 sigma: Optional[float] = None, d: Optional[float] = None, gamma: Optional[float] = None,
                 delta: Optional[float] = None) -> None:
    """The mean of the rows left after trimming ``m`` at each end, plus smooth-sensitivity noise
    (as :meth:`smooth_median`).  Also ``.smooth_trimmed_mean(m, ...)``."""


def _build(statistic: str, planner: Any, state: State, args: dict[str, Any],
           m: Optional[int] = None) -> tuple[State, Family]:
    what = f".{statistic}()"
    state = planner.sorted(planner.numeric(state, args.get("bounds"), what))
    domain: Any = state.chain.output_domain
    metric: Any = state.chain.output_metric
    if domain.size is None:
        raise MakeError(f"{what} needs the number of rows to be public: declare it with domain=... size=n "
                        "when creating the context (and the privacy unit unit_of(changes=k))")
    measure = statistics_measure(planner.target.measure)
    noise, t, s = args.get("noise"), args.get("t"), args.get("s")
    shapes = {k: args[k] for k in SHAPES if k in args}
    record = lookup(noise if noise is not None else _default_noise(measure))
    if not castable(record.measure, type(measure)):
        raise MakeError(f"noise {record.name!r} gives an {measure_name(record.measure())} guarantee, which "
                        f"cannot be restated in this context's {measure_name(measure)}: choose another noise")
    resolve(record, required=False, **shapes)   # refuses a shape that does not apply, at once
    lo, hi = domain.element_domain.bounds
    chosen: dict[Any, tuple[float, dict[str, Any]]] = {}
    constructor = meas.make_smooth_median if m is None else meas.make_smooth_trimmed_mean

    def parameters(budget: Optional[Budget]) -> tuple[float, dict[str, Any]]:
        """t and the shape: given, or chosen from the public size, bounds and budget only."""
        if budget not in chosen:
            native = _native_budget(record, measure, budget)
            t_value = t if t is not None else choose_smoothing(
                record.name, domain.size, (lo, hi), statistic="median" if m is None else "trimmed_mean",
                m=m or 0, **native)
            given = dict(shapes)
            if record.shape_name == "delta" and given.get("delta") is None:
                given["delta"] = native.get("delta")
            if all(x is None for x in given.values()) and record.tuned_shape is not None:
                eps = native.get("epsilon") or math.sqrt(2 * native["rho"])
                given = {record.shape_name: record.tuned_shape(eps, t_value)}
            chosen[budget] = (t_value, given)
        return chosen[budget]

    def make(param: Any, budget: Optional[Budget]) -> Measurement:
        t_value, given = parameters(budget)
        extra = {} if m is None else {"m": m}
        return constructor(domain, metric, t=t_value, s=param if s is None else s, noise=record.name,
                           **extra, **given)

    return state, Family(make, statistic, param=None if s is not None else "s")


def _median(planner: Any, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    return _build("smooth_median", planner, state, args)


def _trimmed_mean(planner: Any, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    if "m" not in args:
        raise MakeTypeError("trimmed_mean() is missing m")
    return _build("trimmed_mean", planner, state, args, m=args["m"])


def _default_noise(measure: Any) -> str:
    """Student's T in a pure-DP context; LLN (zCDP, cast to (epsilon, delta) if need be) otherwise."""
    return "student_t" if isinstance(measure, MaxDivergence) else "lln"


def _native_budget(record: SmoothNoise, measure: Any, budget: Optional[Budget]) -> dict[str, Any]:
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


def smooth_entries() -> list[tuple[Any, ...]]:
    """The smoothed statistics' entries, as the arguments of ``_vocabulary.Entry`` (which builds them:
    this module is below the vocabulary)."""
    return [(smooth_median, _median, meas.make_smooth_median),
            (trimmed_mean, _trimmed_mean, meas.make_smooth_trimmed_mean, ("smooth_trimmed_mean",))]
