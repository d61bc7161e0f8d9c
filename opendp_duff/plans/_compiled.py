"""A compiled plan and its calibration to a budget.

The planner turns a plan into a :class:`State`: the chain of transformations it reached (from
the data, or from one part when the plan groups), the partition if any, and the statistic's
:class:`Family` -- measurements indexed by one free parameter (a scale, or the smooth
mechanisms' ``s``).  :meth:`Compiled.measurement` picks the parameter for a budget and returns
the one :class:`~opendp_duff.core.Measurement` the context runs.

A plan that ends in several statistics (``query.agg(...)``) holds one :class:`Part` each; the
budget is cut into :class:`~opendp_duff.plans.Shares` by the parts' weights, each part is
calibrated to its share as a plan of its own would be, and the parts run as one non-adaptive
composition (``dp.c.make_composition``), inside the partition when the plan groups (the rows
are split once).  The composition's map is the exact sum of the parts' maps, each within its
share, so the whole is within the budget; the result is one frame with a column per part.

The search for the parameter works on the per-part measurement.  A grouped plan's cost is the
parallel composition's map at the partition distance; rather than building the grouped
measurement for every candidate, the parallel composition is built once around a stand-in
whose privacy map is the candidate's, and built again around the chosen part at the end.

In a context whose budget is a pair (rho, delta), the statistics are calibrated and composed in
zCDP to the budget's rho, and the whole is restated as (rho, 0) (:func:`._casts.restate`); the
delta pays for the discovery of keys only.
"""
from __future__ import annotations

import math
import threading
from typing import Any, Callable, Optional

import attrs

from .. import arithmetic as ar
from .. import combinators as comb
from ..combinators.search import binary_search_param
from ..core import Measurement, Transformation
from ..errors import MakeError
from ..measures import ApproximateZeroConcentratedDivergence
from ..metrics import Metric
from ._casts import Budget, cast, epsilon_part, restate, statistics_budget, statistics_measure
from ._discovery import Discovery
from ._shares import Shares

__all__ = ["Target", "Family", "Grouping", "State", "Compiled", "Part", "Assumptions"]

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
        contributions, max_groups: under a unit by identifier (``metric`` a
            ``SymmetricIdDistance``), the rows (and groups) of each person a query keeps.
        key: the secret key of those truncations, drawn per context; never shown.

    The domain names its engine (``dataframe_domain(..., engine="spark")``; none: local data),
    and every public constructor the planner calls picks that engine's implementation from its
    input domain: a target needs nothing else of the engine.
    """

    domain: Any
    metric: Metric
    d_in: Any
    measure: Any
    frame: Callable[[dict[str, list[Any]]], Any] = attrs.field(default=_as_dict, eq=False)
    contributions: Optional[int] = None
    max_groups: Optional[int] = None
    key: Optional[bytes] = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class Assumptions:
    """What an analyst states about the data for an accuracy statement (public, never checked
    against the data): ``spread`` and ``within`` the condition of the Duff quantiles' rank
    bound (``accuracy.duff_quantile_accuracy``), ``n`` the number of records the Duff mean's
    bound is for."""

    spread: Optional[float] = None
    within: int = 1
    n: Optional[int] = None


@attrs.frozen
class Family:
    """The end of a plan: ``make(param, budget)`` is the measurement, in its own measure, on the
    space the chain reached.

    Attributes:
        make: ``(param, budget) -> Measurement``; budget is the query's (or None).
        label: the statistic's name in a grouped release (``"median"``, ``"quantile_0.9"``...).
        param: the name of the free parameter, or None when every parameter is given.
        T: the free parameter's type, float or int.
        accuracy: ``(param, alpha, assumptions) -> accuracy.Accuracy`` at the parameter chosen
            (None for a given one), or None when the statistic states no accuracy.
    """

    make: Callable[[Any, Optional[Budget]], Measurement] = attrs.field(eq=False)
    label: str
    param: Optional[str] = "scale"
    T: type = float
    accuracy: Optional[Callable[[Any, Any, Assumptions], Any]] = attrs.field(default=None, eq=False)


@attrs.frozen
class Part:
    """One statistic of several released together: its column's ``label`` in the release, the
    chain from the data (or from one group) to its measurement, and its weight in the split."""

    label: str
    chain: Transformation
    family: Family
    weight: Any = 1


@attrs.frozen
class Grouping:
    """A partition of the rows by public keys: ``outer`` maps the data to the parts.  With
    ``discovery``, the keys are discovered from the data and ``outer`` is the partition by
    placeholder keys that the grouped stage is calibrated on (:mod:`._discovery`)."""

    outer: Transformation
    by: tuple[str, ...]
    keys: tuple[Any, ...]
    discovery: Optional[Discovery] = None


@attrs.frozen
class State:
    """Where a plan has got to: ``chain`` starts at the data, or at a part when grouped;
    ``not_null`` names the columns that a filter of the plan left without missing values;
    ``truncate`` says that each person's rows (a unit by identifier) are still to be bounded."""

    chain: Transformation
    grouping: Optional[Grouping] = None
    column: Optional[str] = None
    family: Optional[Family] = None
    parts: tuple[Part, ...] = ()
    not_null: frozenset[str] = frozenset()
    truncate: bool = False


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

    def shares(self, budget: Optional[Budget]) -> tuple[Optional[Budget], ...]:
        """The budget of each statistic: the parts' shares by their weights of what the
        statistics get (one statistic: all of it; None: every parameter is given)."""
        parts, budget = self.state.parts, self._split(budget)[1]
        if not parts:
            return (budget,)
        if budget is None:
            return (None,) * len(parts)
        return tuple(Shares(budget, len(parts), [ar.Q(p.weight) for p in parts]))

    def key_parameters(self, budget: Optional[Budget]) -> Optional[tuple[Budget, float, float]]:
        """(budget, scale, threshold) of the discovery of keys, or None when the keys are public."""
        grouping = self.state.grouping
        if grouping is None or grouping.discovery is None:
            return None
        keys_budget = self._split(budget)[0]
        assert keys_budget is not None
        return (keys_budget, *grouping.discovery.parameters(self.target.d_in, keys_budget))

    # [proof:discovery_split]
    def _split(self, budget: Optional[Budget]) -> tuple[Optional[Budget], Optional[Budget]]:
        """(the keys' part, the statistics' part) of the budget: all to the statistics unless the
        keys are discovered; then ``key_share`` of it to the keys, and, for (rho, delta), all of
        the delta, which the statistics (zCDP) do not use."""
        grouping = self.state.grouping
        if grouping is None or grouping.discovery is None:
            return None, budget
        if budget is None:
            raise MakeError("discovering keys needs a budget: use ctx.query(epsilon=..., delta=...) or "
                            "ctx.query(rho=..., delta=...)")
        share = ar.Q(grouping.discovery.share)
        if isinstance(self.target.measure, ApproximateZeroConcentratedDivergence):
            # the statistics are zCDP (charged (rho, 0)): the keys take all of the delta
            assert isinstance(budget, tuple)
            rhos: Any = Shares(budget[0], 2, [share, 1 - share])
            return (rhos[0], budget[1]), (rhos[1], 0.0)
        keys, statistics = Shares(budget, 2, [share, 1 - share])
        return keys, statistics
    # [end:discovery_split]

    def _calibrate(self, budget: Optional[Budget]) -> tuple[Any, Measurement]:
        state = self.state
        if state.parts:
            return self._calibrate_parts(budget)
        family = state.family
        if family is None:
            raise MakeError("the query does not end in a measurement: add .median(), .count(), .laplace()...")
        found, part = self._fit(state.chain, family, self._split(budget)[1])
        measurement = restate(part, self.target.measure) if state.grouping is None else (
            self._grouped(part, budget) >> _release_frame(self.target, state.grouping.by,
                                                          [_label(state, family)], single=True))
        self._check(measurement, budget, "the query")
        return found, measurement

    # [proof:calibrate_statistics]
    def _calibrate_parts(self, budget: Optional[Budget]) -> tuple[Any, Measurement]:
        """Several statistics: each calibrated to its share, run as one composition."""
        state, target = self.state, self.target
        found, measurements = [], []
        for part, share in zip(state.parts, self.shares(budget), strict=True):
            param, measurement = self._fit(part.chain, part.family, share)
            self._check(restate(measurement if state.grouping is None else self._parallel(measurement),
                                target.measure), share, f"the statistic {part.label!r}")
            found.append(param)
            measurements.append(measurement)
        composed = comb.make_composition(measurements)
        labels = [part.label for part in state.parts]
        if state.grouping is None:
            whole = restate(composed, target.measure) >> _release_row(target, labels)
        else:
            whole = self._grouped(composed, budget) >> _release_frame(target, state.grouping.by, labels, single=False)
        self._check(whole, budget, "the query")
        return tuple(found), whole

    def _fit(self, chain: Transformation, family: Family, budget: Optional[Budget]) -> tuple[Any, Measurement]:
        """The family's measurement after ``chain`` at the parameter the budget decides: the
        largest map within ``budget`` at the privacy unit, through the partition if any."""
        target, grouping = self.target, self.state.grouping
        if family.param is not None and budget is None:
            raise MakeError(f"the query's {family.param} is left to the budget, but the query has none: "
                            "use ctx.query(epsilon=...) (or rho=, delta=), or give the parameter")

        measure, budget = statistics_measure(target.measure), statistics_budget(target.measure, budget)

        def part(param: Any) -> Measurement:
            tail = cast(family.make(param, budget), measure, budget)
            return _measurement(chain >> tail)

        found = None
        if family.param is not None and grouping is None:
            found = _search(part, family, target.d_in, budget)
        elif family.param is not None:
            assert grouping is not None
            candidates = _Candidates(comb.make_parallel_composition, grouping.outer, measure)
            found = _search(lambda p: candidates.with_part(part(p)), family, grouping.outer.map(target.d_in), budget)
        return found, part(found)
    # [end:calibrate_statistics]

    def _parallel(self, part: Measurement, outer: Optional[Transformation] = None) -> Measurement:
        """``part`` on every group of ``outer`` (by default the grouping's), in ``part``'s measure."""
        assert self.state.grouping is not None
        outer = self.state.grouping.outer if outer is None else outer
        domain: Any = outer.output_domain
        return _measurement(outer >> comb.make_parallel_composition(domain, outer.output_metric, part))

    # [proof:discovery_grouped]
    def _grouped(self, part: Measurement, budget: Optional[Budget]) -> Measurement:
        """The grouped release ``(keys, releases)``: over the public keys, or over the keys
        discovered with the keys' part of ``budget``."""
        grouping = self.state.grouping
        assert grouping is not None
        measure = self.target.measure
        if grouping.discovery is None:
            keys = grouping.keys
            return restate(self._parallel(part), measure) >> (lambda releases: (keys, releases))
        zero = part.map(0)      # the stand-in's bound covers every key set only if an unchanged group costs 0
        if any(z != 0 for z in (zero if isinstance(zero, tuple) else (zero,))):
            raise MakeError(f"discovering keys needs a statistic that costs nothing on an unchanged group, not "
                            f"{zero!r}: give the public keys")
        keys_budget = self._split(budget)[0]
        found = grouping.discovery.keys(self.target.d_in, keys_budget)
        return grouping.discovery.measurement(found, restate(self._parallel(part), measure),
                                              lambda outer: self._parallel(part, outer))
    # [end:discovery_grouped]

    # [proof:Compiled._check]
    def _check(self, measurement: Measurement, budget: Optional[Budget], what: str) -> None:
        if budget is not None and not measurement.check(self.target.d_in, budget):
            raise MakeError(f"{what} costs {measurement.map(self.target.d_in)!r}, more than its budget {budget!r}")
    # [end:Compiled._check]


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
        stand_in = Measurement(domain.part_domain, metric.inner, measure, self._never_run, self._part_map)
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
    while label in state.grouping.by:
        label += "_dp"
    return label


def _release_frame(target: Target, by: tuple[str, ...], labels: list[str], single: bool) -> Callable[[Any], Any]:
    """A grouped release ``(keys, releases)`` (per key: one value, or a tuple with one per label)
    as one frame with a column per grouping column (a key of several columns is a tuple) and
    one per label."""
    frame = target.frame

    def to_frame(grouped: Any) -> Any:
        keys, releases = grouped
        rows = [(r,) for r in releases] if single else list(releases)
        key_columns = {by[0]: list(keys)} if len(by) == 1 else \
            {name: [key[i] for key in keys] for i, name in enumerate(by)}
        return frame({**key_columns, **{label: [row[i] for row in rows] for i, label in enumerate(labels)}})

    return to_frame


def _release_row(target: Target, labels: list[str]) -> Callable[[Any], Any]:
    """The releases of an ungrouped query with several statistics: a one-row frame of the data's
    library, or a dict of label -> value for data that is not a frame."""
    tabular = getattr(target.domain, "columns", None) is not None
    frame = target.frame

    def to_row(releases: tuple[Any, ...]) -> Any:
        if tabular:
            return frame({label: [value] for label, value in zip(labels, releases, strict=True)})
        return dict(zip(labels, releases, strict=True))

    return to_row


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
