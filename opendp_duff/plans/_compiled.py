"""A compiled plan and its calibration to a budget.

The planner turns a plan into a :class:`State`: the chain of transformations it reached (from
the data, or from one part when the plan groups), the partition if any, and the statistic's
:class:`Family` -- measurements indexed by one free parameter (a scale, or the smooth
mechanisms' ``s``).  :meth:`Compiled.measurement` picks the parameter for a budget and returns
the one :class:`~opendp_duff.core.Measurement` the context runs.

The search for the parameter works on the per-part measurement.  A grouped plan's cost is the
parallel composition's map at the partition distance; rather than building the grouped
measurement for every candidate, the parallel composition is built once around a stand-in
whose privacy map is the candidate's, and built again around the chosen part at the end.
"""
from __future__ import annotations

import math
import threading
from typing import Any, Callable, Optional

import attrs

from .. import combinators as comb
from ..combinators.search import binary_search_param
from ..core import Measurement, Transformation
from ..errors import MakeError
from ..metrics import Metric
from ._casts import Budget, cast, epsilon_part

__all__ = ["Target", "Family", "Grouping", "State", "Compiled"]

_CALIBRATIONS = 16   # budgets whose measurement a compiled plan keeps


def _as_dict(columns: dict[str, list[Any]]) -> Any:
    return columns


@attrs.frozen
class Target:
    """What a planner may know of the data: public facts only.

    Attributes:
        domain: the domain of the data (from its schema, or declared).
        metric: the privacy unit's metric; ``d_in`` its distance.
        measure: the privacy measure of the budget.
        frame: builds a grouped release, ``{column: values}``, as a frame of the data's library
            (by default the dict itself).

    The domain names its engine (``dataframe_domain(..., engine="spark")``; none: local data),
    and every public constructor the planner calls picks that engine's implementation from its
    input domain: a target needs nothing else of the engine.
    """

    domain: Any
    metric: Metric
    d_in: Any
    measure: Any
    frame: Callable[[dict[str, list[Any]]], Any] = attrs.field(default=_as_dict, eq=False)


@attrs.frozen
class Family:
    """The end of a plan: ``make(param, budget)`` is the measurement, in its own measure, on the
    space the chain reached.

    Attributes:
        make: ``(param, budget) -> Measurement``; budget is the query's (or None).
        label: the statistic's name in a grouped release (``"median"``, ``"quantile_0.9"``...).
        param: the name of the free parameter, or None when every parameter is given.
        T: the free parameter's type, float or int.
    """

    make: Callable[[Any, Optional[Budget]], Measurement] = attrs.field(eq=False)
    label: str
    param: Optional[str] = "scale"
    T: type = float


@attrs.frozen
class Grouping:
    """A partition of the rows by public keys: ``outer`` maps the data to the parts."""

    outer: Transformation
    by: str
    keys: tuple[Any, ...]


@attrs.frozen
class State:
    """Where a plan has got to: ``chain`` starts at the data, or at a part when grouped."""

    chain: Transformation
    grouping: Optional[Grouping] = None
    column: Optional[str] = None
    family: Optional[Family] = None


@attrs.frozen(eq=False)
class Compiled:
    """A plan compiled for a target; :meth:`measurement` calibrates it to a budget."""

    target: Target
    state: State
    _calibrated: dict[Any, tuple[Any, Measurement]] = attrs.field(factory=dict, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    @property
    def param(self) -> Optional[str]:
        """The free parameter the budget decides, or None."""
        return None if self.state.family is None else self.state.family.param

    def measurement(self, budget: Optional[Budget]) -> Measurement:
        """The measurement of the plan: input the target's domain and metric, output measure the
        target's, its map at the privacy unit within ``budget`` (None: every parameter given)."""
        return self._entry(budget)[1]

    def parameter(self, budget: Optional[Budget]) -> Any:
        """The free parameter's value at ``budget`` (None when every parameter is given)."""
        return self._entry(budget)[0]

    def _entry(self, budget: Optional[Budget]) -> tuple[Any, Measurement]:
        with self._lock:
            entry = self._calibrated.get(budget)
        if entry is None:
            entry = self._calibrate(budget)
            with self._lock:
                if len(self._calibrated) >= _CALIBRATIONS:      # forget the oldest budget
                    self._calibrated.pop(next(iter(self._calibrated)))
                self._calibrated[budget] = entry
        return entry

    def _calibrate(self, budget: Optional[Budget]) -> tuple[Any, Measurement]:
        state, target = self.state, self.target
        family = state.family
        if family is None:
            raise MakeError("the query does not end in a measurement: add .median(), .count(), .laplace()...")
        if family.param is not None and budget is None:
            raise MakeError(f"the query's {family.param} is left to the budget, but the query has none: "
                            "use ctx.query(epsilon=...) (or rho=, delta=), or give the parameter")

        def part(param: Any) -> Measurement:
            tail = cast(family.make(param, budget), target.measure, budget)
            return _measurement(state.chain >> tail)

        grouping = state.grouping
        if grouping is None:
            found = None if family.param is None else _search(part, family, target.d_in, budget)
            measurement = part(found)
        else:
            parallel: Callable[..., Measurement] = comb.make_parallel_composition
            outer = grouping.outer
            found = None
            if family.param is not None:
                candidates = _Candidates(parallel, outer, target.measure)
                found = _search(lambda p: candidates.with_part(part(p)), family, outer.map(target.d_in), budget)
            grouped = _measurement(outer >> parallel(outer.output_domain, outer.output_metric, part(found)))
            measurement = grouped >> _release_frame(target, grouping, _label(state, family))
        if budget is not None and not measurement.check(target.d_in, budget):
            raise MakeError(f"the query costs {measurement.map(target.d_in)!r}, more than its budget {budget!r}")
        return found, measurement


def _measurement(built: Any) -> Measurement:
    if not isinstance(built, Measurement):
        raise MakeError(f"expected a measurement here, not {type(built).__name__}")
    return built


class _Candidates:
    """The parallel composition, built once around a stand-in whose privacy map is that of the
    candidate part under test (the stand-in is never run: only maps are evaluated)."""

    def __init__(self, parallel: Callable[..., Measurement], outer: Transformation, measure: Any) -> None:
        domain, metric = outer.output_domain, outer.output_metric
        self._part: Optional[Measurement] = None
        stand_in = Measurement(domain.part_domain, metric.inner, measure, self._never_run, self._part_map)  # type: ignore[attr-defined]
        self._grouped = parallel(domain, metric, stand_in)

    def _part_map(self, d_in: Any) -> Any:
        assert self._part is not None
        return self._part.privacy_map(d_in)

    @staticmethod
    def _never_run(data: Any) -> Any:
        raise AssertionError("the stand-in of the parameter search is never run on data")

    def with_part(self, part: Measurement) -> Measurement:
        """The grouped measurement's map as if ``part`` ran on every part."""
        self._part = part
        return self._grouped


def _label(state: State, family: Family) -> str:
    """The statistic's column in a grouped release; never the name of the group column."""
    assert state.grouping is not None
    label = family.label if state.column is None else f"{state.column}_{family.label}"
    while label == state.grouping.by:
        label += "_dp"
    return label


def _release_frame(target: Target, grouping: Grouping, label: str) -> Callable[[Any], Any]:
    by, keys, frame = grouping.by, list(grouping.keys), target.frame

    def to_frame(releases: Any) -> Any:
        return frame({by: keys, label: list(releases)})

    return to_frame


def _search(build: Callable[[Any], Measurement], family: Family, d_in: Any, budget: Any) -> Any:
    """The free parameter at which the map at ``d_in`` is the largest one within ``budget``."""
    try:
        return binary_search_param(build, d_in, budget, T=family.T, guess=_guess(build, d_in, budget))
    except MakeError:
        pass
    build(1.0 if family.T is float else 1)   # a mechanism that fits nowhere says why
    raise MakeError(f"no value of {family.param} meets the query's budget {budget!r}"
                    + (": choose a smaller t" if family.param == "s" else ""))


def _guess(build: Callable[[Any], Measurement], d_in: Any, budget: Budget) -> Optional[float]:
    """Where the search starts: the maps at 1 and 2 fitted by a power law c p^k, solved for the
    budget.  Exact for maps proportional to 1/scale or 1/scale^2; elsewhere only a start."""
    try:
        m1, m2 = (epsilon_part(build(p).map(d_in)) for p in (1.0, 2.0))
    except (TypeError, ValueError):
        return None
    target = epsilon_part(budget)
    if not (0 < m1 < math.inf and 0 < m2 < math.inf and 0 < target < math.inf) or m1 == m2:
        return None
    k = math.log2(m2) - math.log2(m1)            # logs of each: a tiny budget must not underflow
    try:
        guess = 2.0 ** ((math.log2(target) - math.log2(m1)) / k)
    except OverflowError:                        # a budget far out of reach: search the whole range
        return None
    return guess if 0 < guess < math.inf else None
