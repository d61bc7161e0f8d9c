"""Privacy units, privacy losses and budget shares, in exact arithmetic.

A budget is the ``d_out`` of a measure: a float for pure DP and zCDP, a pair (epsilon, delta)
for approximate DP, a pair (rho, delta) for approximate zCDP.  Sums and differences of budgets
are exact (:class:`fractions.Fraction`); what is shown or handed out is rounded in the safe
direction: a share or a remainder down, an amount spent up (:func:`shown` adds a short repr that keeps that direction).
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

from .. import _validate as v
from .. import arithmetic as ar
from ..errors import MakeError, MakeTypeError
from ..measures import (ApproximateDivergence, ApproximateZeroConcentratedDivergence, MaxDivergence,
                        ZeroConcentratedDivergence)
from ..metrics import ChangeOneDistance, Metric, SymmetricDistance
from ..metrics_id import symmetric_id_distance
from ..plans import Shares, exact, measure_name

__all__ = ["PrivacyUnit", "PrivacyLoss", "unit_of", "loss_of", "Shares"]

Budget = Union[float, Tuple[float, float]]
Measure = Union[MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence, ApproximateZeroConcentratedDivergence]


class _Unit(NamedTuple):
    metric: Metric
    d_in: int


class PrivacyUnit(_Unit):
    """What one person may change in the data: a dataset metric and the distance ``d_in``
    between the data with and without that person, or with that person's rows changed (a pair:
    it unpacks as ``metric, d_in``).  A unit by identifier also says how many rows
    (``contributions``) and groups (``max_groups``) of each person a query keeps."""

    contributions: Optional[int]
    max_groups: Optional[int]

    def __new__(cls, metric: Metric, d_in: int, contributions: Optional[int] = None,
                max_groups: Optional[int] = None) -> PrivacyUnit:
        unit = super().__new__(cls, metric, d_in)
        unit.__dict__.update(contributions=contributions, max_groups=max_groups)
        return unit

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a privacy unit is immutable: cannot set {name}")

    def bounds(self) -> tuple[Optional[int], Optional[int]]:
        """(contributions, max_groups): what a unit by identifier keeps of each person."""
        return self.contributions, self.max_groups

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PrivacyUnit) and self.bounds() != other.bounds():
            return False
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self), self.bounds()))

    def __repr__(self) -> str:
        extra = "".join(f", {name}={value!r}" for name, value in zip(("contributions", "max_groups"), self.bounds(),
                                                                     strict=True) if value is not None)
        return f"PrivacyUnit(metric={self.metric!r}, d_in={self.d_in!r}{extra})"


class PrivacyLoss(NamedTuple):
    """A privacy measure and a budget in it (unpacks as ``measure, budget``)."""

    measure: Measure
    budget: Budget


def unit_of(*, contributions: Optional[int] = None, changes: Optional[int] = None,
            identifier: Optional[str] = None, max_groups: Optional[int] = None) -> PrivacyUnit:
    """The privacy unit: how many rows one person's data may add, remove or change.

    Give one of:

    * ``contributions=k``: one person adds or removes at most k rows (the data's size is
      private).  ``PrivacyUnit(symmetric_distance(), k)``: neighbouring datasets differ by at
      most k rows added or removed ([GM-Duff] Definition 1).
    * ``changes=k``: the data's size is public (declared with ``domain=... size=n``) and one
      person changes at most k rows.  ``PrivacyUnit(change_one_distance(), k)``: neighbouring
      datasets of the same size differ by at most k substituted rows ([BS19] §2).  A context
      whose data size is public requires this unit: under the symmetric distance a person's
      rows would have to disappear, which a public size rules out, and a release calibrated to
      one row added or removed would protect nobody.
    * ``identifier="user", contributions=k`` (and ``max_groups=g`` for grouped queries): a
      person is all the rows sharing a value of the column ``identifier``, however many
      (``symmetric_id_distance(identifier)``, d_in = 1 person).  Every query first keeps at
      most k rows of each person (``make_truncate_per_id``), or, when it groups, at most g of
      the person's groups with at most k rows in each (``make_truncate_per_group``); which
      rows is decided by a keyed hash whose secret key the context draws from the samplers
      and never shows ([WZLDSG20]).  A statistic is then charged k rows per person (g groups
      of k rows when grouped), whatever the data.

    Args:
        contributions: an integer >= 1 (rows per person, or per person and group).
        changes: an integer >= 1.
        identifier: the name of a column of int or str values identifying a person.
        max_groups: with ``identifier``, an integer >= 1: the groups of each person a grouped
            query keeps (default: any number, each person's k rows kept before grouping).

    Returns:
        The :class:`PrivacyUnit`.

    Raises:
        MakeError: neither or both of ``contributions`` and ``changes``; ``identifier`` with
            ``changes`` or without ``contributions``; ``max_groups`` without ``identifier``; a
            value that is not a positive integer.
        MakeTypeError: an identifier that is not a non-empty column name.

    Example:
        >>> import opendp_duff as dp
        >>> dp.unit_of(contributions=2)
        PrivacyUnit(metric=SymmetricDistance(), d_in=2)
        >>> dp.unit_of(changes=1)
        PrivacyUnit(metric=ChangeOneDistance(), d_in=1)
        >>> dp.unit_of(identifier="user", contributions=5, max_groups=2)
        PrivacyUnit(metric=SymmetricIdDistance(identifier='user'), d_in=1, contributions=5, max_groups=2)
    """
    if (contributions is None) == (changes is None):
        raise MakeError("give the privacy unit as contributions=k (rows added or removed) or changes=k "
                        "(rows changed, in data of a public size), exactly one of them")
    if identifier is not None:
        if changes is not None:
            raise MakeError("a unit by identifier bounds each person's rows with contributions=k, not changes=k")
        return PrivacyUnit(symmetric_id_distance(identifier), 1,
                           v.number("contributions", contributions, integer=True, positive=True),
                           None if max_groups is None else v.number("max_groups", max_groups, integer=True,
                                                                    positive=True))
    if max_groups is not None:
        raise MakeError(f"max_groups ({max_groups!r}) bounds the groups of a person named by an identifier: "
                        "give identifier= too")
    if changes is not None:
        return PrivacyUnit(ChangeOneDistance(), v.number("changes", changes, integer=True, positive=True))
    return PrivacyUnit(SymmetricDistance(), v.number("contributions", contributions, integer=True, positive=True))


def loss_of(*, epsilon: Optional[float] = None, rho: Optional[float] = None,
            delta: Optional[float] = None) -> PrivacyLoss:
    """A privacy loss: the measure is chosen by the arguments given.

    Args:
        epsilon: alone, pure DP (``max_divergence()``); with ``delta``, approximate DP.
            A finite number >= 0.
        rho: alone, zCDP (``zero_concentrated_divergence()``); with ``delta``, delta-approximate
            zCDP (``approximate_zero_concentrated_divergence()``: the budget of a context that
            discovers keys with Gaussian noise, [BS16]).  A finite number >= 0.
        delta: with ``epsilon``, approximate DP (``approximate_divergence()``); with ``rho``,
            approximate zCDP; in [0, 1).  Only the discovery of keys spends the delta of a
            (rho, delta) budget; the other statistics are zCDP mechanisms, charged (rho, 0).

    Returns:
        ``PrivacyLoss(measure, budget)`` with budget ``epsilon``, ``rho``, ``(epsilon, delta)``
        or ``(rho, delta)``.

    Raises:
        MakeError: no argument, ``rho`` with ``epsilon``, or ``delta`` alone.

    Example:
        >>> import opendp_duff as dp
        >>> dp.loss_of(epsilon=1.0, delta=1e-7)
        PrivacyLoss(measure=ApproximateDivergence(), budget=(1.0, 1e-07))
        >>> dp.loss_of(rho=0.5).budget
        0.5
        >>> dp.loss_of(rho=0.5, delta=1e-7)
        PrivacyLoss(measure=ApproximateZeroConcentratedDivergence(), budget=(0.5, 1e-07))
    """
    if rho is not None:
        if epsilon is not None:
            raise MakeError(f"rho ({rho!r}) is a zCDP budget: give it without epsilon (with delta for approximate "
                            "zCDP)")
        if delta is not None:
            return PrivacyLoss(ApproximateZeroConcentratedDivergence(),
                               (v.number("rho", rho, nonneg=True), v.probability("delta", delta, lo_open=False)))
        return PrivacyLoss(ZeroConcentratedDivergence(), v.number("rho", rho, nonneg=True))
    if epsilon is None:
        raise MakeError("give a budget: epsilon, rho, or epsilon with delta")
    eps = v.number("epsilon", epsilon, nonneg=True)
    if delta is None:
        return PrivacyLoss(MaxDivergence(), eps)
    return PrivacyLoss(ApproximateDivergence(), (eps, v.probability("delta", delta, lo_open=False)))


def query_budget(measure: Measure, epsilon: Any, rho: Any, delta: Any) -> Optional[Budget]:
    """The budget of ``ctx.query(epsilon=, rho=, delta=)`` in the context's ``measure``, or None
    when no argument is given.  An approximate-DP query without ``delta`` has delta 0, and so has
    an approximate-zCDP one."""
    if epsilon is None and rho is None and delta is None:
        return None
    if isinstance(measure, ApproximateDivergence) and rho is None and epsilon is not None and delta is None:
        delta = 0.0
    if isinstance(measure, ApproximateZeroConcentratedDivergence) and epsilon is None and rho is not None \
            and delta is None:
        delta = 0.0
    loss = loss_of(epsilon=epsilon, rho=rho, delta=delta)
    if type(loss.measure) is not type(measure):
        raise MakeError(f"the query's budget is a {measure_name(loss.measure)} budget, but this context "
                        f"measures privacy in {measure_name(measure)}: give "
                        f"{_argument_hint(measure)}")
    return loss.budget


def _argument_hint(measure: Measure) -> str:
    if isinstance(measure, ApproximateDivergence):
        return "epsilon= (and delta=)"
    if isinstance(measure, ApproximateZeroConcentratedDivergence):
        return "rho= (and delta=)"
    return "rho=" if isinstance(measure, ZeroConcentratedDivergence) else "epsilon="


class _Bound(float):
    """A float that bounds a budget from one side, with a short repr that stays on that side.

    The value is the float itself.  Its repr (and str) is the shorter of ``repr(value)`` and the
    repr of the adjacent float one step further on the safe side, so that Python reads the
    printed number back as the value or as that neighbour: never below an upper bound (an amount
    spent), never above a lower bound (what remains).  Spending 0.7 of 1.0 leaves exactly the
    float 0.30000000000000004, shown as 0.3, one step below; spending 0.1 and then 0.2 has spent
    0.3000000000000000166... (the exact sum of the two floats), which no decimal shorter than
    0.3000000000000001 bounds from above: 0.3 would understate it.
    """

    _toward = 0.0

    def __repr__(self) -> str:
        own = float.__repr__(self)
        if not math.isfinite(self):
            return own
        step = float.__repr__(math.nextafter(float(self), self._toward))
        return step if len(step) < len(own) else own

    __str__ = __repr__


class _Spent(_Bound):
    _toward = math.inf


class _Remaining(_Bound):
    _toward = -math.inf


def shown(budget: Budget, upward: bool) -> Budget:
    """``budget`` (a float or a pair) as bounds with a short repr: from above (``upward``, an amount
    spent) or from below (what remains).  The values are unchanged.

    >>> shown(0.30000000000000004, upward=False), shown(0.30000000000000004, upward=True)
    (0.3, 0.3000000000000001)
    >>> shown((1.0, 1e-07), upward=True)
    (1.0, 1e-07)
    """
    kind = _Spent if upward else _Remaining
    if isinstance(budget, tuple):
        return (kind(budget[0]), kind(budget[1]))
    return kind(budget)


def fits(need: Budget, available: Sequence[Any]) -> bool:
    """Whether ``need`` <= ``available`` in every component, exactly.  ``available`` holds
    Fractions or ``inf``; an infinite component of ``need`` (a map at infinity, for a scale 0)
    fits only an infinite one."""
    parts = need if isinstance(need, tuple) else (need,)
    for a, b in zip(available, parts, strict=True):
        if b == math.inf:
            if a != math.inf:
                return False
        elif a != math.inf and a < ar.Q(b):
            return False
    return True


def parse_split(total: Budget, split_evenly_over: Any, split_by_weights: Any) -> Optional[Shares]:
    """The shares of a split (None for no split), validated."""
    if split_evenly_over is not None and split_by_weights is not None:
        raise MakeError("give split_evenly_over or split_by_weights, not both")
    if split_evenly_over is not None:
        return Shares(total, v.number("split_evenly_over", split_evenly_over, integer=True, positive=True))
    if split_by_weights is None:
        return None
    if isinstance(split_by_weights, (str, bytes)) or not isinstance(split_by_weights, Sequence):
        raise MakeTypeError(f"split_by_weights ({split_by_weights!r}) must be a list of positive numbers")
    if not split_by_weights:
        raise MakeError("split_by_weights ([]) must hold at least one weight")
    weights = [v.number(f"split_by_weights[{i}]", w, positive=True) for i, w in enumerate(split_by_weights)]
    return Shares(total, len(weights), [ar.Q(w) for w in weights])


def is_zero(budget: Budget) -> bool:
    """Whether the budget allows nothing (epsilon or rho 0; for (epsilon, delta), epsilon 0 and delta 0)."""
    return all(p == 0 for p in exact(budget))
