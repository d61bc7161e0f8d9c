"""make_sequential_composition: an interactive compositor with a fixed total budget.

Called on the data, the measurement releases a :class:`Queryable` that holds the data and
answers adaptively chosen queries ``queryable(measurement, d_mid)``, each with a budget
stated before it runs, refused before it touches the data when it does not fit in what
remains (a privacy filter, [RRUV16]), and otherwise charged exactly before its function
starts, for good: a query that raises after that point is not refunded.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction
from typing import Any

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..core import Measurement, check_fit, then
from ..engines import snapshot
from ..errors import BudgetExceeded, MakeError, MakeTypeError, MapError, MeasureMismatch
from ..measures import (ApproximateDivergence, ApproximateZeroConcentratedDivergence, MaxDivergence,
                        ZeroConcentratedDivergence)
from ..metrics import Metric
from ..samplers import check_entropy
from .composition import check_part, same_measure

__all__ = ["make_sequential_composition", "then_sequential_composition", "Queryable"]

COMPOSABLE = (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence, ApproximateZeroConcentratedDivergence)
PAIRS = (ApproximateDivergence, ApproximateZeroConcentratedDivergence)


# [proof:exact_budget]
def _exact(d: Any) -> Any:
    """A validated distance read exactly: a Fraction (or +inf) per component."""
    if isinstance(d, tuple):
        return tuple(_exact(c) for c in d)
    return d if d == math.inf else Fraction(d)


def _add(a: Any, b: Any) -> Any:
    """a + b exactly, componentwise for pairs (inf absorbs)."""
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b, strict=True))
    return math.inf if math.inf in (a, b) else a + b


def _fits(total: Any, spent: Any) -> bool:
    """Whether spent <= total, componentwise for pairs."""
    if isinstance(total, tuple):
        return all(_fits(t, s) for t, s in zip(total, spent, strict=True))
    return spent <= total
# [end:exact_budget]


def _remaining(total: Any, spent: Any) -> Any:
    """total - spent exactly (spent <= total); an infinite total stays infinite."""
    if isinstance(total, tuple):
        return tuple(_remaining(t, s) for t, s in zip(total, spent, strict=True))
    return math.inf if total == math.inf else total - spent


def _rounded(x: Any, up: bool) -> Any:
    """An exact budget as floats: rounded up (spent) or down (remaining)."""
    if isinstance(x, tuple):
        return tuple(_rounded(c, up) for c in x)
    return math.inf if x == math.inf else (ar.up(x) if up else ar.down(x))


# [proof:holds_queryable]
def _holds_queryable(release: Any) -> bool:
    """Whether ``release`` is a Queryable or holds one, at any depth, in tuples, lists, dicts
    (keys and values), sets and numpy object arrays.  Iterative, and each container is visited
    once, so deep or self-referencing releases end."""
    stack, seen = [release], set()
    while stack:
        x = stack.pop()
        if isinstance(x, Queryable):
            return True
        if id(x) in seen:
            continue
        if isinstance(x, (tuple, list, set, frozenset)):
            seen.add(id(x))
            stack.extend(x)
        elif isinstance(x, dict):
            seen.add(id(x))
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, np.ndarray) and x.dtype == object:
            seen.add(id(x))
            stack.extend(x.ravel().tolist())
    return False
# [end:holds_queryable]


def _cast_hint(total: Any, query: Any) -> str:
    """What to do when a query's measure is not the compositor's (no data is involved)."""
    if isinstance(query, PAIRS) and not isinstance(total, PAIRS):
        return ("the query needs a delta, which a budget without delta cannot pay (key discovery, "
                "make_threshold_keys, may release a key held by one person, with a small probability): "
                "use an approximate_divergence() or approximate_zero_concentrated_divergence() budget")
    if isinstance(query, ApproximateZeroConcentratedDivergence):
        return "cast the query first with dp.c.make_approximate_zCDP_to_approxDP(query, delta)"
    return "a query must use the compositor's output measure (cast it first)"


# [proof:Queryable]
class Queryable:
    """The release of :func:`make_sequential_composition`: answers queries on the data it holds.

    ``queryable(measurement, d_mid)`` (or ``queryable.query(measurement, d_mid)``) runs
    ``measurement`` on the data and returns its release, charging ``d_mid`` to the budget.

    Before the data is read, a query is refused, and charged nothing, when the measurement does
    not have the compositor's input domain, input metric and output measure (DomainMismatch,
    MetricMismatch, MeasureMismatch), when it is interactive (MakeError: concurrent
    composition, [VW21], is not supported), when the library did not build it and the feature
    "honest-but-curious" is off (:class:`~opendp_duff.errors.FeatureNotEnabled`), when
    ``d_mid`` is not a distance of the measure (MapError) or ``measurement.check(d_in, d_mid)``
    fails (MakeError), when the random source fails its check
    (:class:`~opendp_duff.samplers.EntropyError`), or when ``d_mid`` does not fit exactly in
    what remains (:class:`~opendp_duff.errors.BudgetExceeded`).

    Otherwise ``d_mid`` is charged, and then the measurement's function starts.  The charge is
    never refunded: whatever happens after that point (a sampler or a post-processing step
    raising, an exception carrying the release, a Spark frame changing between passes) may
    depend on the data, so it counts as a release.  A release that is, or holds in a tuple,
    list, dict, set or numpy object array, a :class:`Queryable` is dropped with MakeError (a
    second line of defence behind the refusal of interactive measurements); its charge stands.

    Attributes:
        spent, remaining: the budget used and left, in the measure's units, as floats rounded
            in the safe direction (spent up, remaining down); pairs for (eps, delta) and (rho, delta).
        spent_exact, remaining_exact: the same as exact Fractions (or ``inf``).
        queries: the number of queries charged so far.
        d_in, d_out, input_domain, input_metric, output_measure: the compositor's (public).
    """

    def __init__(self, data: Any, input_domain: Any, input_metric: Any, output_measure: Any,
                 d_in: Any, d_out: Any) -> None:
        self._data = snapshot(data)             # the admitted member, no longer the caller's
        self.input_domain, self.input_metric, self.output_measure = input_domain, input_metric, output_measure
        self.d_in, self.d_out = d_in, d_out
        self._total = _exact(d_out)
        self._spent = _exact((0.0, 0.0) if isinstance(output_measure, PAIRS) else 0.0)
        self._queries = 0
        self._lock = threading.Lock()

    def __call__(self, measurement: Measurement, d_mid: Any) -> Any:
        return self.query(measurement, d_mid)

    # [proof:queryable_query]
    def query(self, measurement: Measurement, d_mid: Any) -> Any:
        """Run ``measurement`` on the data if it is admissible and ``d_mid`` fits; charge
        ``d_mid`` before it runs, for good.  See the class docstring for the refusals."""
        d_mid = self._admissible(measurement, d_mid)         # public checks: the data is untouched
        charge = _exact(d_mid)
        self._charge(charge, d_mid, commit=False)            # refuse early: no byte drawn
        check_entropy()                                      # a broken source fails before the charge
        self._charge(charge, d_mid, commit=True)             # again under the lock: another may have won
        # charged: from here on nothing is refunded, whatever the function does
        release = measurement._function(self._data)         # the data is a member (admitted once)
        if _holds_queryable(release):                        # dropped, still charged
            raise MakeError("a query may not release an interactive Queryable (concurrent "
                            "composition is not supported); its budget stays charged")
        return release

    def _charge(self, charge: Any, d_mid: Any, commit: bool) -> None:
        """Add ``charge`` to the spent budget if it fits exactly (only test it unless ``commit``);
        BudgetExceeded, having added nothing, if it does not."""
        with self._lock:
            after = _add(self._spent, charge)
            fits = _fits(self._total, after)
            if fits and commit:
                self._spent, self._queries = after, self._queries + 1
            left = _remaining(self._total, self._spent)
        if not fits:
            raise BudgetExceeded(f"d_mid ({d_mid!r}) does not fit in the remaining budget "
                                 f"({_rounded(left, up=False)!r}) of d_out ({self.d_out!r})")

    def _admissible(self, measurement: Any, d_mid: Any) -> Any:
        v.instance("measurement", measurement, Measurement, "a Measurement")
        check_fit(self.input_domain, self.input_metric, measurement.input_domain, measurement.input_metric,
             "a query must take the compositor's input domain", "a query must use the compositor's input metric")
        if not same_measure(self.output_measure, measurement.output_measure):
            raise MeasureMismatch(self.output_measure, measurement.output_measure,
                                  _cast_hint(self.output_measure, measurement.output_measure))
        check_part(measurement, "the query's measurement")
        d_mid = self.output_measure.validate(d_mid, "d_mid")
        if not measurement.check(self.d_in, d_mid):
            raise MakeError(f"the measurement's privacy map at d_in ({self.d_in!r}) exceeds "
                            f"d_mid ({d_mid!r})")
        return d_mid
    # [end:queryable_query]

    @property
    def queries(self) -> int:
        """The number of queries charged so far (each one started its function)."""
        with self._lock:
            return self._queries

    @property
    def spent_exact(self) -> Any:
        """The exact sum of the charged budgets (componentwise for pairs)."""
        with self._lock:
            return self._spent

    @property
    def remaining_exact(self) -> Any:
        """d_out minus what was charged, exactly (an infinite budget stays infinite)."""
        return _remaining(self._total, self.spent_exact)

    @property
    def spent(self) -> Any:
        """The charged budget as float(s) rounded up."""
        return _rounded(self.spent_exact, up=True)

    @property
    def remaining(self) -> Any:
        """The remaining budget as float(s) rounded down."""
        return _rounded(self.remaining_exact, up=False)

    def __repr__(self) -> str:
        return (f"Queryable({self.output_measure!r}, d_in={self.d_in!r}, d_out={self.d_out!r}, "
                f"spent={self.spent!r})")
# [end:Queryable]


def make_sequential_composition(input_domain: Any, input_metric: Metric, output_measure: Any,
                                d_in: Any, d_out: Any) -> Measurement:
    """An interactive compositor: releases a :class:`Queryable` that answers adaptively chosen
    queries on the data until their budgets, stated before each one runs, would exceed d_out.

    Contract:
        * Input domain: any domain (a vector or data-frame domain...); the data is admitted
          once, when the compositor is called, and every query must have this input domain.
        * Input metric: any metric; every query must have it.
        * Output measure: ``max_divergence()``, ``zero_concentrated_divergence()`` or
          ``approximate_divergence()`` or ``approximate_zero_concentrated_divergence()``; every
          query must have it.
        * The result is an *interactive* measurement (``interactive=True``): the other
          compositors refuse it, and so does a Queryable, however it is wrapped.
        * Every query must be non-interactive, and built by the library unless the feature
          "honest-but-curious" is on (see :class:`Queryable` for every refusal).

    Args:
        input_domain: the domain of the data.
        input_metric: the metric on the data.
        output_measure: the privacy measure of the queries and of the total.
        d_in: the input distance every query is calibrated to (e.g. 1 for one record).
        d_out: the total budget, a distance of ``output_measure`` (eps, rho, (eps, delta) or
            (rho, delta)).

    Privacy map:
        ``map(d) = d_out`` for ``d <= d_in``; a larger ``d`` raises MapError (the queries'
        budgets only hold at distances up to d_in).  Each query's d_mid is admitted when
        ``measurement.check(d_in, d_mid)`` holds and the exact sum of the admitted d_mid stays
        within d_out (componentwise for pairs); a privacy filter for pure DP, zCDP, (eps, delta)
        and delta-approximate zCDP with budgets fixed per query is d_out-private.  A query is charged its
        d_mid before its function starts and never refunded, so a query whose release raises
        (in a sampler, a post-processing step, a Spark pass) still counts; only the refusals
        before the data is read are free.

    Raises:
        MakeTypeError: ``input_domain`` has no ``member`` and ``admit``, ``input_metric`` is not a
            Metric, or ``output_measure`` is not ``max_divergence()``,
            ``zero_concentrated_divergence()``, ``approximate_divergence()`` or
            ``approximate_zero_concentrated_divergence()``.
        MapError: ``d_in`` is not a distance of ``input_metric`` or ``d_out`` not one of
            ``output_measure``; ``map`` at a ``d_in`` beyond the compositor's.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).

    Proof: ``proofs/combinators/sequential/make_sequential_composition.tex``.

    References: [DR14] Thm. 3.16 (composition); [RRUV16] (privacy filters); [BS16] and
    [WRRW23] (zCDP with adaptively chosen budgets); [VW21] (interactive mechanisms).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> sc = dp.c.make_sequential_composition(*space, dp.max_divergence(), d_in=1, d_out=1.0)
        >>> queryable = sc([1.0, 2.0, 3.0])
        >>> count = space >> dp.t.then_count() >> dp.m.then_laplace(scale=2.0)
        >>> _ = queryable(count, 0.5)
        >>> queryable.spent, queryable.remaining, sc.map(1)
        (0.5, 0.5, 1.0)
    """
    # [proof:make_sequential_composition]
    if not (callable(getattr(input_domain, "admit", None)) and callable(getattr(input_domain, "member", None))):
        raise MakeTypeError(f"input_domain ({input_domain!r}) must be a domain (with member and admit)")
    v.instance("input_metric", input_metric, Metric, "a metric")
    if not isinstance(output_measure, COMPOSABLE):
        raise MakeTypeError(f"output_measure ({output_measure!r}) must be max_divergence(), "
                            "zero_concentrated_divergence(), approximate_divergence() or "
                            "approximate_zero_concentrated_divergence()")
    d_in = input_metric.validate_distance(d_in, "d_in")
    d_out = output_measure.validate(d_out, "d_out")

    def function(data: Any) -> Queryable:
        return Queryable(data, input_domain, input_metric, output_measure, d_in, d_out)

    def privacy_map(d: Any) -> Any:
        if not d <= d_in:
            raise MapError(f"d_in ({d!r}) must be at most the compositor's d_in ({d_in!r}): "
                           "its queries are calibrated to that distance")
        return d_out

    return Measurement(input_domain, input_metric, output_measure, function, privacy_map, interactive=True)
    # [end:make_sequential_composition]


then_sequential_composition = then(make_sequential_composition)
