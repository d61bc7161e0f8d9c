"""Context: an interactive sequential compositor over one dataset, with a budget and queries."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..combinators.sequential import make_sequential_composition
from ..core import Measurement
from ..errors import BudgetExceeded, MakeError, MakeTypeError, NotAMember
from ._backends import Backend, backend_for
from ._budget import Budget, PrivacyLoss, PrivacyUnit, fits, is_zero, parse_split, query_budget, shown, split
from ._query import Query, _State

__all__ = ["Context"]

_NAN_HINT = ("; if the column has missing values, declare it with nan=True through domain= "
             "and add .impute(constant) to the query")


class Context:
    """A dataset behind a privacy budget: queries on it run one after another, each charged
    to the budget, until it is spent.

    Build it with :meth:`compositor`.  The data is reached only through the compositor
    ``dp.c.make_sequential_composition``, which checks each query's measurement and budget
    before it runs it, and charges the query when its function starts, for good (adaptive
    sequential composition, [DR14] Thm 3.16 for pure DP, [BS16] Lemma 2.3 for zCDP, basic
    composition for (epsilon, delta)).  It runs only measurements the library built, unless
    the feature "honest-but-curious" is on (``docs/threat-model.md``).  The context adds the
    budget's bookkeeping: shares, per-query budgets, and the calibration of each query.

    Attributes:
        privacy_unit: what one person may change (``dp.unit_of(...)``).
        privacy_loss: the total budget (``dp.loss_of(...)``).
        domain: the domain of the data, inferred from its schema or given.
        d_in: the privacy unit's distance.

    Example:
        >>> import numpy as np
        >>> import opendp_duff as dp
        >>> ctx = dp.Context.compositor(data=np.arange(100.0), privacy_unit=dp.unit_of(contributions=1),
        ...                             privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=2)
        >>> median = ctx.query().clamp((0.0, 100.0)).median().release()
        >>> ctx.remaining
        0.5
        >>> ctx.query().count().release() > -1e6, ctx.remaining
        (True, 0.0)
    """

    def __init__(self, *, data: Any, backend: Backend, privacy_unit: PrivacyUnit, privacy_loss: PrivacyLoss,
                 shares: Optional[list[Budget]], domain: Any) -> None:
        self.privacy_unit, self.privacy_loss, self.domain = privacy_unit, privacy_loss, domain
        self._backend, self._shares, self._charged = backend, shares, 0
        compositor = make_sequential_composition(domain, privacy_unit.metric, privacy_loss.measure,
                                                 privacy_unit.d_in, privacy_loss.budget)
        try:
            self._queryable = compositor(data)
        except NotAMember as exc:   # 1-D data is admitted whole; frames column by column
            raise _hinted(exc) from None
        self._frame_like = data   # only its library is used: grouped results are frames of it

    @classmethod
    def compositor(cls, data: Any, privacy_unit: PrivacyUnit, privacy_loss: PrivacyLoss,
                   split_evenly_over: Optional[int] = None, split_by_weights: Optional[Sequence[float]] = None,
                   domain: Any = None) -> Context:
        """A context over ``data`` with the total budget ``privacy_loss``.

        Args:
            data: a pandas or Polars DataFrame, a 1-D numpy array, a pandas or Polars Series,
                or a list or tuple (with ``domain=``).  Other engines plug in their own
                backend (``opendp_duff.context.register_backend``).
            privacy_unit: ``dp.unit_of(contributions=k)``.
            privacy_loss: ``dp.loss_of(epsilon=...)``, ``loss_of(rho=...)`` or
                ``loss_of(epsilon=..., delta=...)``.
            split_evenly_over: n: the budget is cut into n equal shares (rounded down; the last
                is what the others leave), one per query in order; ``ctx.query()`` takes the next.
            split_by_weights: shares in proportion to these positive weights, likewise.
                Without either, each query gives its own budget: ``ctx.query(epsilon=...)``.
            domain: the domain of the data.  By default it is inferred from the schema only
                (the dtypes, never the values): float columns ``atom_domain(T=float)`` without
                NaN, integer columns ``atom_domain(T=int)``, string columns
                ``atom_domain(T=str)``, size unknown; other columns are left out.

        Returns:
            The :class:`Context`.

        Raises:
            MakeError, MakeTypeError: a parameter is refused (before the data is read).
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
        weights = parse_split(split_evenly_over, split_by_weights)
        shares = None if weights is None else split(privacy_loss.budget, weights)
        backend = backend_for(data)
        if domain is None:
            domain = backend.domain_of(data)
        else:
            backend.check_domain(domain)
        return cls(data=data, backend=backend, privacy_unit=privacy_unit, privacy_loss=privacy_loss,
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

    def query(self, *, epsilon: Optional[float] = None, rho: Optional[float] = None,
              delta: Optional[float] = None) -> Query:
        """A new query on the data.

        With a split, the query takes the next share (give no budget here).  Without one, give
        the query's budget in the context's measure (``epsilon=``, ``rho=``, or ``epsilon=`` with
        ``delta=``), or leave it out and give the mechanism every parameter: the query is then
        charged its map.

        Raises:
            BudgetExceeded: the shares are used up, or the budget given exceeds what remains.
            MakeError: a budget with a split, or in another measure than the context's.
        """
        budget = query_budget(self.privacy_loss.measure, epsilon, rho, delta)
        if self._shares is not None:
            if budget is not None:
                raise MakeError("this context splits its budget into shares: call ctx.query() without a budget")
            self._next_share()   # refuses at once when the shares are used up
        elif budget is not None:
            self._refuse_beyond_remaining(budget)
            if is_zero(budget):
                raise MakeError(f"the query's budget ({budget!r}) allows no release")
        return Query(self, budget, _State(space=(self.domain, self.privacy_unit.metric)))

    def _next_share(self) -> Optional[Budget]:
        """The share the next query takes (None without a split); BudgetExceeded when none is left."""
        if self._shares is None:
            return None
        if self._charged >= len(self._shares):
            raise BudgetExceeded(f"the budget was split into {len(self._shares)} shares and all have been "
                                 f"spent (remaining: {self.remaining!r})")
        return self._shares[self._charged]

    def _refuse_beyond_remaining(self, budget: Budget, what: str = "budget") -> None:
        left = self._queryable.remaining_exact
        if not fits(budget, left if isinstance(left, tuple) else (left,)):
            raise BudgetExceeded(f"the query's {what} ({budget!r}) exceeds the remaining budget ({self.remaining!r})")

    def _run(self, measurement: Measurement, budget: Optional[Budget]) -> Any:
        """Run ``measurement`` through the compositor and charge ``budget`` (its map if None).

        The compositor charges the query when its function starts; from then on the share is
        used, whether the release returns or raises."""
        d_mid = measurement.map(self.d_in) if budget is None else budget
        if self._shares is not None and budget != self._next_share():
            raise MakeError("the query was calibrated to another share: resolve it again")
        self._refuse_beyond_remaining(d_mid, "budget" if budget is not None else "cost (its map at the unit)")
        started = self._queryable.queries
        try:
            return self._queryable(measurement, d_mid)
        except NotAMember as exc:
            raise _hinted(exc) from None
        finally:
            if self._shares is not None and self._queryable.queries > started:
                self._charged += 1

    def _frame(self, columns: dict[str, list[Any]]) -> Any:
        """A data frame of the data's library holding ``columns`` (public values)."""
        return self._backend.result_frame(self._frame_like, columns)

    def __repr__(self) -> str:
        split_text = "" if self._shares is None else f", shares={len(self._shares)} ({self._charged} used)"
        return (f"Context({self._backend.name} data, privacy_unit={self.privacy_unit!r}, "
                f"privacy_loss={self.privacy_loss!r}, remaining={self.remaining!r}{split_text})")


def _hinted(exc: NotAMember) -> NotAMember:
    """The same refusal, with how to declare and impute missing values when NaN was the reason."""
    requirement = exc.requirement + (_NAN_HINT if "NaN" in exc.requirement else "")
    return type(exc)(exc.domain, requirement)
