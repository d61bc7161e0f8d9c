"""Context: a dataset behind a privacy budget, running query plans one after another."""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Sequence

import attrs

from ..combinators.sequential import make_sequential_composition
from ..core import Measurement
from ..domains import AtomDomain, VectorDomain
from ..engines import Engine, engine_for
from ..errors import BudgetExceeded, MakeError, MakeTypeError, NotAMember
from ..frames import DataFrameDomain
from ..transformations import draw_truncation_key
from ..plans import Compiled, Query, Target, check_target, compile_plan, summarize
from ._budget import Budget, PrivacyLoss, PrivacyUnit, Shares, fits, is_zero, parse_split, query_budget, shown

__all__ = ["Context"]

_NAN_HINT = ("; if the column has missing values, declare it with nan=True through domain= "
             "and add .impute(constant) to the query")
_CACHE_SIZE = 64   # compiled plans kept per context (a plan is a value: equal plans share one)


class Context:
    """A dataset behind a privacy budget: query plans run on it one after another, each charged
    to the budget, until it is spent.

    Build it with :meth:`compositor`. The data is reached only through the compositor
    ``dp.c.make_sequential_composition``, which checks each query's measurement and budget before it
    runs it, and charges the query when its function starts, for good (adaptive sequential
    composition, [DR14] Thm 3.16 for pure DP, [BS16] Lemma 2.3 for zCDP, basic composition for
    (epsilon, delta), both parts added for (rho, delta)). It runs only measurements the library
    built, unless the feature "honest-but-curious" is on (``docs/threat-model.md``). The context
    owns the budget's bookkeeping (shares, per-query budgets) and compiles each plan
    (:mod:`opendp_duff.plans`) for its data's domain, privacy unit and measure. Releases on one
    context from several threads run one at a time, each taking the next share.

    Attributes:
        privacy_unit: what one person may change (``dp.unit_of(...)``).
        privacy_loss: the total budget (``dp.loss_of(...)``).
        domain: the domain of the data, inferred from its schema or given.
        target: what a plan is compiled for: the domain, the privacy unit and the measure.

    Example:
        >>> import numpy as np
        >>> import opendp_duff as dp
        >>> ctx = dp.Context.compositor(data=np.arange(100.0), privacy_unit=dp.unit_of(contributions=1),
        ...                             privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=2)
        >>> median = ctx.query().clamp((0.0, 100.0)).median().release()
        >>> ctx.remaining
        0.5
        >>> ctx.release(dp.query().count()) > -1e6, ctx.remaining
        (True, 0.0)
    """

    def __init__(self, *, data: Any, engine: Engine, privacy_unit: PrivacyUnit, privacy_loss: PrivacyLoss,
                 shares: Optional[Shares], domain: Any) -> None:
        self.privacy_unit, self.privacy_loss, self.domain = privacy_unit, privacy_loss, domain
        self._engine, self._shares, self._used, self._data = engine, shares, 0, data
        self._lock = threading.RLock()
        self._compiled: dict[Query, Compiled] = {}
        key = None if privacy_unit.contributions is None else draw_truncation_key()   # secret, per context
        self.target = Target(domain, privacy_unit.metric, privacy_unit.d_in, privacy_loss.measure,
                             frame=lambda columns: engine.result_frame(data, columns),
                             contributions=privacy_unit.contributions, max_groups=privacy_unit.max_groups, key=key)
        check_target(self.target)
        compositor = make_sequential_composition(domain, privacy_unit.metric, privacy_loss.measure,
                                                 privacy_unit.d_in, privacy_loss.budget)
        try:
            self._queryable = compositor(data)
        except NotAMember as exc:   # 1-D data is admitted whole; frames column by column
            raise _hinted(exc) from None

    @classmethod
    def compositor(cls, data: Any, privacy_unit: PrivacyUnit, privacy_loss: PrivacyLoss,
                   split_evenly_over: Optional[int] = None, split_by_weights: Optional[Sequence[float]] = None,
                   domain: Any = None) -> Context:
        """A context over ``data`` with the total budget ``privacy_loss``.

        Args:
            data: a pandas or Polars DataFrame (or Polars LazyFrame), a Spark DataFrame, a 1-D
                numpy array, a pandas or Polars Series, or a list or tuple (with ``domain=``):
                whatever an engine of :mod:`opendp_duff.engines` reads.
            privacy_unit: ``dp.unit_of(contributions=k)``, or ``dp.unit_of(changes=k)`` when
                the data's size is public (required then).
            privacy_loss: ``dp.loss_of(epsilon=...)``, ``loss_of(rho=...)``,
                ``loss_of(epsilon=..., delta=...)`` or ``loss_of(rho=..., delta=...)`` (the
                last two discover keys: ``group_by`` without keys).
            split_evenly_over: n: the budget is cut into n equal shares (rounded down; the last
                is what the others leave), one per query in order; ``ctx.query()`` takes the next.
                The shares are computed when taken, so any n is instant.
            split_by_weights: shares in proportion to these positive weights, likewise.
                Without either, each query gives its own budget: ``ctx.query(epsilon=...)``.
            domain: the domain of the data, checked when the context is created.  By default
                it is inferred from the schema only (the dtypes, never the values): integer
                columns ``atom_domain(T=int)``, string columns ``atom_domain(T=str)``, float
                columns of a data frame of any engine ``atom_domain(T=float, nan=True)`` (a query
                on one says how missing values are treated: ``.impute(c)``), a 1-D float array
                ``atom_domain(T=float)`` without NaN; size unknown; other columns are left out.

        Returns:
            The :class:`Context`.

        Raises:
            MakeError, MakeTypeError: a parameter is refused, or the privacy unit does not fit
                the data's public size (before the data is read).
            NotAMemberTypeError, NotAMemberValueError: the data is not a member of the domain
                (the message never quotes the data).

        Example:
            >>> import numpy as np
            >>> import opendp_duff as dp
            >>> ctx = dp.Context.compositor(data=np.arange(10), privacy_unit=dp.unit_of(contributions=1),
            ...                             privacy_loss=dp.loss_of(rho=0.5), split_by_weights=[1, 3])
            >>> ctx.domain, ctx.query().budget
            (VectorDomain(AtomDomain(T=int)), 0.125)
        """
        if not isinstance(privacy_unit, PrivacyUnit):
            raise MakeTypeError(f"privacy_unit ({privacy_unit!r}) must come from dp.unit_of(...)")
        if not isinstance(privacy_loss, PrivacyLoss):
            raise MakeTypeError(f"privacy_loss ({privacy_loss!r}) must come from dp.loss_of(...)")
        shares = parse_split(privacy_loss.budget, split_evenly_over, split_by_weights)
        engine = engine_for(data)
        if domain is None:
            domain = _missing_values_admitted(engine.schema(data))
        else:
            _check_kind(domain, engine.is_frame(data))
        return cls(data=data, engine=engine, privacy_unit=privacy_unit, privacy_loss=privacy_loss,
                   shares=shares, domain=domain)

    @property
    def d_in(self) -> Any:
        return self.privacy_unit.d_in

    @property
    def remaining(self) -> Budget:
        """The budget left, in the context's measure (rounded down; shown briefly, never above it)."""
        return shown(self._queryable.remaining, upward=False)

    @property
    def spent(self) -> Budget:
        """The budget spent, in the context's measure (rounded up; shown briefly, never below it)."""
        return shown(self._queryable.spent, upward=True)

    @property
    def shares(self) -> Optional[Shares]:
        """The shares of a split budget, in the order queries take them (None without a split)."""
        return self._shares

    # ---- budgets ------------------------------------------------------------------------------

    def _budget(self, epsilon: Any, rho: Any, delta: Any) -> Optional[Budget]:
        """The budget a query states, checked against what remains (None: the next share, or the
        measurement's own map)."""
        budget = query_budget(self.privacy_loss.measure, epsilon, rho, delta)
        if self._shares is not None:
            if budget is not None:
                raise MakeError("this context splits its budget into shares: call ctx.query() without a budget")
            self._next_share()   # refuses at once when the shares are used up
        elif budget is not None:
            self._refuse_beyond_remaining(budget)
            if is_zero(budget):
                raise MakeError(f"the query's budget ({budget!r}) allows no release")
        return budget

    def _next_share(self) -> Optional[Budget]:
        """The share the next query takes (None without a split); BudgetExceeded when none is left."""
        if self._shares is None:
            return None
        if self._used >= len(self._shares):
            raise BudgetExceeded(f"the budget was split into {len(self._shares)} shares and all have been "
                                 f"spent (remaining: {self.remaining!r})")
        return self._shares[self._used]

    def _refuse_beyond_remaining(self, budget: Budget, what: str = "budget") -> None:
        left = self._queryable.remaining_exact
        if not fits(budget, left if isinstance(left, tuple) else (left,)):
            raise BudgetExceeded(f"the query's {what} ({budget!r}) exceeds the remaining budget ({self.remaining!r})")

    # ---- plans --------------------------------------------------------------------------------

    def query(self, *, epsilon: Optional[float] = None, rho: Optional[float] = None,
              delta: Optional[float] = None) -> Query:
        """An empty plan bound to this context: each step is checked against the data's domain
        as it is added, and ``.release()`` runs the plan here (``ctx.release(plan, ...)``).

        With a split, the query takes the next share when it is released (give no budget here).
        Without one, give the query's budget in the context's measure (``epsilon=``, ``rho=``, or
        ``epsilon=`` with ``delta=``), or leave it out and give the mechanism every parameter:
        the query is then charged its map.

        Raises:
            BudgetExceeded: the shares are used up, or the budget given exceeds what remains.
            MakeError: a budget with a split, or in another measure than the context's.
        """
        stated = self._budget(epsilon, rho, delta)
        return Query(binding=_Binding(lambda: stated if stated is not None else self._next_share(), self.compile,
                                      lambda plan: self._measurement(plan, stated),
                                      lambda plan: self._release(plan, stated),
                                      lambda plan, alpha, **a: self._summarize(plan, stated, alpha, **a)))

    def resolve(self, plan: Query, *, epsilon: Optional[float] = None, rho: Optional[float] = None,
                delta: Optional[float] = None) -> Measurement:
        """The measurement :meth:`release` would run for ``plan`` now (with the next share, or
        the budget given).  Reads no data and charges nothing."""
        return self._measurement(plan, self._budget(epsilon, rho, delta))

    def release(self, plan: Query, *, epsilon: Optional[float] = None, rho: Optional[float] = None,
                delta: Optional[float] = None) -> Any:
        """Run ``plan`` on the data and charge its budget: the budget given, the next share, or
        (without either) the map of a measurement whose every parameter is given.

        Everything that can refuse the query (its compilation, the budget, a measurement the
        library did not build without the feature "honest-but-curious") is checked before the
        data is read, and a refused query charges nothing.  Once the measurement's function has
        started the query is charged for good: a release that raises (in a sampler, a
        post-processing step, a Spark pass) still counts, and takes its share.
        """
        return self._release(plan, self._budget(epsilon, rho, delta))

    def summarize(self, plan: Query, alpha: float = 0.05, *, spread: Any = None, within: Any = 1, n: Any = None,
                  epsilon: Optional[float] = None, rho: Optional[float] = None,
                  delta: Optional[float] = None) -> Any:
        """What each statistic of ``plan`` promises at the budget :meth:`release` would charge (the
        next share, or the budget given), before anything is spent: reads no data, charges nothing.

        One row per statistic: ``statistic`` (its label), ``budget`` (its share), ``mechanism``,
        ``scale`` (or temperature), ``accuracy``, ``unit`` (``"value"`` for noise, ``"rank"``
        for the Duff quantiles, ``"count"``) and ``statement``: the promise in words, with
        probability at least 1 - ``alpha``, and its conditions (:mod:`opendp_duff.accuracy`).
        A frame of the data's library, or a list of dicts for 1-D data.  A grouped plan's
        accuracy is that of each group's release.

        Args:
            alpha: the probability that a release misses its stated accuracy, in (0, 1).
            spread: for the Duff median and quantiles, the least gap w the analyst assumes
                between the order statistics of ranks R - within and R + within around the
                target rank R (a number, or a dict by statistic).  No rank bound holds for all
                data (ties at the target defeat it): without ``spread`` the row says so and its
                accuracy is ``inf``.
            within: the ranks on each side of the target that the spread spans (>= 1).
            n: for the Duff mean, the number of records the bound is stated for.

        Raises:
            MakeError, MakeTypeError: as :meth:`resolve`, or an assumption out of range.
        """
        budget = self._budget(epsilon, rho, delta)
        return self._summarize(plan, budget, alpha, spread=spread, within=within, n=n)

    def _summarize(self, plan: Query, budget: Optional[Budget], alpha: float, **assumptions: Any) -> Any:
        with self._lock:
            chosen = budget if budget is not None else self._next_share()
        return summarize(self.compile(plan), chosen, alpha, **assumptions)

    def compile(self, plan: Query) -> Compiled:
        """``plan`` compiled for this context's target (kept for the next equal plan)."""
        if not isinstance(plan, Query):
            raise MakeTypeError(f"plan ({plan!r}) must be a query plan (dp.query()...)")
        with self._lock:
            compiled = self._compiled.get(plan)
        if compiled is None:
            compiled = compile_plan(plan.steps, self.target)
            grouping = compiled.state.grouping   # public keys the data's schema rules out: refused before a read
            if grouping is not None and grouping.discovery is None:
                for j, column in enumerate(grouping.by):     # several columns: each column's components
                    values = grouping.keys if len(grouping.by) == 1 else \
                        tuple(dict.fromkeys(key[j] for key in grouping.keys))
                    refusal = self._engine.keys_refusal(self._data, column, values)
                    if refusal is not None:
                        raise MakeError(refusal)
            with self._lock:
                if len(self._compiled) >= _CACHE_SIZE:
                    self._compiled.pop(next(iter(self._compiled)))
                self._compiled[plan] = compiled
        return compiled

    def _measurement(self, plan: Query, budget: Optional[Budget]) -> Measurement:
        with self._lock:
            chosen = budget if budget is not None else self._next_share()
        return self.compile(plan).measurement(chosen)

    def _release(self, plan: Query, budget: Optional[Budget]) -> Any:
        """Run ``plan`` under ``budget`` (None: the next share, or its own map).  Under the lock,
        so that the share taken is the one the plan was calibrated to and is used once."""
        with self._lock:
            share = budget is None and self._shares is not None
            chosen = self._next_share() if share else budget
            measurement = self.compile(plan).measurement(chosen)
            d_mid = measurement.map(self.d_in) if chosen is None else chosen
            self._refuse_beyond_remaining(d_mid, "budget" if chosen is not None else "cost (its map at the unit)")
            started = self._queryable.queries
            try:
                return self._queryable(measurement, d_mid)
            except NotAMember as exc:
                raise _hinted(exc) from None
            finally:   # charged once the measurement's function started, whether it returned or raised
                if share and self._queryable.queries > started:
                    self._used += 1

    def __repr__(self) -> str:
        split_text = "" if self._shares is None else f", shares={len(self._shares)} ({self._used} used)"
        return (f"Context({self._engine.name} data, privacy_unit={self.privacy_unit!r}, "
                f"privacy_loss={self.privacy_loss!r}, remaining={self.remaining!r}{split_text})")


@attrs.frozen
class _Binding:
    """What ``ctx.query(...)`` binds a plan to: the context's own functions, with the budget
    stated there (see :class:`opendp_duff.plans.Query`)."""

    next_budget: Callable[[], Optional[Budget]]
    check: Callable[[Query], Any]
    resolve: Callable[[Query], Measurement]
    release: Callable[[Query], Any]
    summarize: Callable[..., Any]

    @property
    def budget(self) -> Optional[Budget]:
        return self.next_budget()


def _check_kind(domain: Any, frame: bool) -> None:
    """Refuse a declared domain of the wrong kind for the data (the engine it names is checked
    when the data is admitted)."""
    if frame and not isinstance(domain, DataFrameDomain):
        raise MakeTypeError(f"domain ({domain!r}) must be a dp.dataframe_domain for a data frame")
    if not frame and not isinstance(domain, VectorDomain):
        raise MakeTypeError(f"domain ({domain!r}) must be a vector_domain for 1-D data")


def _missing_values_admitted(domain: Any) -> Any:
    """An inferred frame domain whose float columns admit NaN: whether a column holds one is a
    fact about the values, which a schema never states, and a query that reads such a column
    says how missing values are treated.  (1-D data is one column, which every query reads: its
    inferred domain admits no NaN and the context refuses data holding one when it is created.)"""
    if not isinstance(domain, DataFrameDomain):
        return domain
    columns = {name: AtomDomain(float, None, True) if elem.T is float else elem
               for name, elem in domain.columns.items()}
    return domain.with_(columns=columns)


def _hinted(exc: NotAMember) -> NotAMember:
    """The same refusal, with how to declare and impute missing values when NaN was the reason."""
    requirement = exc.requirement + (_NAN_HINT if "NaN" in exc.requirement else "")
    return type(exc)(exc.domain, requirement)
