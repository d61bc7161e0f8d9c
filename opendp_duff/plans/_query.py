"""Query: a data-free plan, built step by step.

A :class:`Query` is a frozen value: the sequence of its steps.  It knows no data and no
context; it prints as the calls that built it, compares and hashes by its steps, and writes
itself as JSON (:meth:`Query.to_json`, :meth:`Query.from_json`), so that it can cross a process
boundary.  ``dp.query()`` (or ``dp.Query()``) starts an empty plan; ``ctx.release(plan)`` runs it
on a context's data, and the same plan runs on any context whose data fits it.

``ctx.query()`` starts a plan *bound* to the context: each step is checked against the
context's data domain as it is added (a step that cannot fit is refused at once, before any
data is read), and ``.release()``, ``.resolve()`` and ``.budget`` ask the context.  The binding
is not part of the plan: it is not compared, printed or serialised.
"""
from __future__ import annotations

import inspect
import json
from typing import Any, Callable, Iterable, Optional, Protocol, Sequence

import attrs

from ..core import Measurement, PartialConstructor
from ..errors import MakeError, MakeTypeError
from ._casts import Budget
from ._steps import STEP_KINDS, Agg, Clamp, Column, Filter, GroupBy, Impute, Stat, Step, Then, WithColumn
from ._vocabulary import ENTRIES, step_factory

__all__ = ["Query", "query", "Binding"]

FORMAT, VERSION = "opendp_duff.query", 1


class Binding(Protocol):
    """What a plan built by ``ctx.query()`` is bound to (the context's side of the plan)."""

    @property
    def budget(self) -> Optional[Budget]: ...
    def check(self, plan: Query) -> None: ...
    def resolve(self, plan: Query) -> Measurement: ...
    def release(self, plan: Query) -> Any: ...
    def summarize(self, plan: Query, alpha: float, **assumptions: Any) -> Any: ...


def _steps(steps: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(steps)


@attrs.frozen(repr=False)
class Query:
    """A data-free query plan: a sequence of steps, each added by a method that returns a new plan.

    Steps: :meth:`column`, :meth:`group_by`, :meth:`clamp`, :meth:`impute`, the statistics of the
    vocabulary (``median``, ``quantile``, ``mean``, ``mode``, ``count``, ``sum``,
    ``smooth_median``, ``trimmed_mean``, and their constructors' names ``duff_median``...),
    any ``dp.t.make_x`` as ``.x(...)``, any ``dp.m.make_x`` as ``.x(...)`` (a measurement whose
    one numeric parameter left out is calibrated to the budget), and :meth:`then` for a partial
    constructor built by hand.  A plan ends with its statistic.

    Example:
        >>> import numpy as np
        >>> import opendp_duff as dp
        >>> plan = dp.query().clamp((0.0, 100.0)).median()
        >>> plan
        query().clamp(bounds=(0.0, 100.0)).median()
        >>> dp.Query.from_json(plan.to_json()) == plan
        True
        >>> ctx = dp.Context.compositor(data=np.linspace(0.0, 100.0, 1001),
        ...     privacy_unit=dp.unit_of(contributions=1), privacy_loss=dp.loss_of(epsilon=1.0))
        >>> ctx.resolve(plan, epsilon=0.5).map(1) <= 0.5
        True
        >>> 0.0 <= ctx.query(epsilon=0.5).clamp((0.0, 100.0)).median().release() <= 100.0
        True
    """

    steps: tuple[Step, ...] = attrs.field(default=(), converter=_steps)
    _binding: Optional[Binding] = attrs.field(default=None, eq=False, hash=False, alias="binding")

    def _then(self, step: Step) -> Query:
        if self.steps and self.steps[-1].ends:
            raise MakeError("the query already ends in a measurement: call .resolve() or .release()")
        plan = Query(self.steps + (step,), binding=self._binding)
        if self._binding is not None:
            self._binding.check(plan)     # refused now, before any data is read
        return plan

    # ---- steps --------------------------------------------------------------------------------

    def column(self, name: str) -> Query:
        """Select the column ``name`` of a data frame."""
        return self._then(Column(name))

    def group_by(self, by: str | Sequence[str], keys: Optional[Sequence[Any]] = None, *,
                 key_share: float = 0.5) -> Query:
        """Split the data frame by the column ``by`` (or the columns, a key then being a tuple of
        their values) into one group per key, in order.

        With public ``keys``, rows whose key is not among them are dropped, and a key absent
        from the data still gets a release.  Without ``keys``, the keys are discovered from the
        data, in an (epsilon, delta) context or a (rho, delta) one (``dp.loss_of(rho=...,
        delta=...)``): pure DP cannot release a key that one person holds, and a rho-only budget
        has no delta.  The part ``key_share`` (in (0, 1); half by default) of the query's budget
        releases the keys whose noisy count passes a threshold (``dp.m.make_threshold_keys``,
        Laplace noise for (epsilon, delta), Gaussian for (rho, delta); calibrated so that a key
        held by one person's rows is released with probability within that part's delta), and
        the rest pays for the statistics of each discovered key; in a (rho, delta) context the
        keys take all of the delta and ``key_share`` of rho, the statistics (zCDP) the rest of
        rho.  With several columns a discovered key is a tuple of their values.  The release is
        a data frame of the data's library with the grouping columns (the keys) and one column
        per statistic (``<column>_<statistic>`` for one statistic, with ``_dp`` appended if that
        is a grouping column; see :meth:`agg` for several).  Proof of the discovery:
        ``proofs/plans/discovery.tex``.
        """
        return self._then(GroupBy(by, keys, key_share))

    def filter(self, predicate: str) -> Query:
        """Keep the rows of the data frame (or of each group) on which ``predicate`` is TRUE, an
        expression of :mod:`opendp_duff.expressions` such as ``"dep_delay IS NOT NULL AND origin =
        'JFK'"`` (``dp.t.make_filter``).  It is parsed now and typed against the data's columns
        before any data is read."""
        return self._then(Filter(predicate))

    def with_column(self, name: str, expr: str) -> Query:
        """Add the column ``name`` computed from each row by ``expr``, such as ``"dep_delay -
        arr_delay"`` (``dp.t.make_with_column``); later steps and statistics may read it."""
        return self._then(WithColumn(name, expr))

    def clamp(self, bounds: tuple[Any, Any]) -> Query:
        """Clamp every value of the column into ``bounds = (lo, hi)`` (public)."""
        return self._then(Clamp(bounds))

    def impute(self, constant: float) -> Query:
        """Replace a missing value (NaN) of the column by ``constant``: a column whose domain
        admits NaN (a float column of a data frame, unless declared otherwise) needs this before
        a statistic that reads values."""
        return self._then(Impute(constant))

    def agg(self, *statistics: Stat, weights: Any = None, **named: Stat) -> Query:
        """End the plan in several statistics released together, as one frame.

        Each statistic is a value such as ``dp.count()``, ``dp.median("delay", bounds=(0, 600))``
        or ``dp.quantile("delay", 0.9, bounds=...)``; named ones (``n=dp.count()``) give their
        column of the release its name, the others are named ``<column>_<statistic>``
        (``count`` for a count of rows).  Without :meth:`group_by` the release is a one-row
        frame of the data's library (a dict for 1-D data); after it, one row per key.

        The query's budget is split among the statistics in proportion to ``weights`` (a list
        in the order given, or a dict by name; equal shares by default): each statistic's share
        is ``budget * w_i / sum(w)`` rounded down (the last takes what the others leave), its
        free parameter is calibrated to that share, and the release is charged the query's
        budget once (the exact sum of the shares never exceeds it).  Two statistics with one
        name, or one named as a grouping column, are refused before any data is read.

        Example:
            >>> import opendp_duff as dp
            >>> dp.query().agg(n=dp.count(), median=dp.median("delay", bounds=(0.0, 600.0)))
            query().agg(n=count(), median=median('delay', bounds=(0.0, 600.0)), weights=(1, 1))
        """
        pairs = [(None, s) for s in statistics] + list(named.items())
        labels = [label for label, _ in pairs]
        if weights is None:
            weights = (1,) * len(pairs)
        elif isinstance(weights, dict):
            if None in labels or set(weights) != set(labels):
                raise MakeError(f"weights by name ({sorted(map(str, weights))!r}) need every statistic named "
                                f"(n=dp.count(), ...) and one weight per name ({labels!r})")
            weights = tuple(weights[label] for label in labels)
        return self._then(Agg(tuple(pairs), weights))

    def then(self, partial: PartialConstructor) -> Query:
        """Append a partial constructor (``dp.t.then_x(...)``, or a fully given ``dp.m.then_x(...)``).
        The plan then has no JSON form: prefer ``.x(...)``."""
        if not isinstance(partial, PartialConstructor):
            raise MakeTypeError(f"partial ({partial!r}) must be a partial constructor, such as dp.t.then_sort()")
        return self._then(Then(partial))

    def step(self, name: str, *args: Any, **kwargs: Any) -> Query:
        """The step ``name`` of the vocabulary: ``plan.step("duff_median", scale=2.0)`` is
        ``plan.duff_median(scale=2.0)``."""
        factory = step_factory(name)
        if factory is None:
            raise MakeError(f"no step named {name!r}: a statistic ({sorted(ENTRIES)!r}), or a constructor "
                            f"of dp.t or dp.m (make_{name})")
        return self._then(factory(*args, **kwargs))

    def __getattr__(self, name: str) -> Callable[..., Query]:
        if name.startswith("_"):
            raise AttributeError(name)
        factory = step_factory(name)
        if factory is None:
            raise AttributeError(f"Query has no step {name!r}: no statistic of that name and no "
                                 f"dp.t.then_{name} or dp.m.then_{name}")
        return lambda *args, **kwargs: self._then(factory(*args, **kwargs))

    def __dir__(self) -> list[str]:
        from .. import measurements as meas
        from .. import transformations as trans
        names = [n[5:] for n in list(trans.__all__) + list(meas.__all__) if n.startswith("make_")]
        return sorted(set(super().__dir__()) | set(names))

    # ---- a value --------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return "query()" + "".join(f".{step}" for step in self.steps)

    def to_json(self) -> str:
        """The plan as JSON text (MakeError for a :meth:`then` step, which has no JSON form)."""
        return json.dumps({"format": FORMAT, "version": VERSION,
                           "steps": [step.to_json_data() for step in self.steps]})

    @classmethod
    def from_json(cls, text: str) -> Query:
        """The plan written by :meth:`to_json` (unbound: run it with ``ctx.release(plan)``)."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError):
            raise MakeError("the text is not a JSON query plan") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
            raise MakeError(f"the JSON is not a query plan of format {FORMAT!r}, version {VERSION}")
        steps = data.get("steps")
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            raise MakeError("a JSON query plan holds a list of steps")
        built = []
        for item in steps:
            item = dict(item)
            kind = STEP_KINDS.get(item.pop("step", None))
            if kind is None:
                raise MakeError(f"unknown step in a JSON query plan: {sorted(STEP_KINDS)!r} are known")
            built.append(kind.from_json_data(item))
        return cls(tuple(built))

    # ---- bound to a context ---------------------------------------------------------------------

    def _bound(self) -> Binding:
        if self._binding is None:
            raise MakeError("this plan is not bound to a context: run it with ctx.release(plan), or build it "
                            "with ctx.query()")
        return self._binding

    @property
    def budget(self) -> Optional[Budget]:
        """What the release will charge: the query's own budget, the context's next share, or
        None (a measurement with every parameter given, charged its map)."""
        return self._bound().budget

    def resolve(self) -> Measurement:
        """The measurement :meth:`release` will run: input the context's data, output measure the
        context's, its map at the privacy unit within the query's budget."""
        return self._bound().resolve(self)

    def release(self) -> Any:
        """Run the plan on the context's data and charge its budget (see ``Context.release``)."""
        return self._bound().release(self)

    def summarize(self, alpha: float = 0.05, *, spread: Any = None, within: int = 1, n: Any = None) -> Any:
        """What each statistic of the plan promises, before anything is spent (see
        ``Context.summarize``): one row per statistic with its budget, mechanism, scale,
        accuracy, unit and the statement the accuracy stands for."""
        return self._bound().summarize(self, alpha, spread=spread, within=within, n=n)


def _statistic_method(name: str, declaration: Callable[..., Any]) -> Callable[..., Query]:
    signature = inspect.signature(declaration)

    def method(self: Query, *args: Any, **kwargs: Any) -> Query:
        return self.step(name, *args, **kwargs)

    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = declaration.__doc__
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[self_parameter, *signature.parameters.values()], return_annotation="Query")
    return method


for _name, _entry in ENTRIES.items():   # the statistics' methods come from the one vocabulary
    setattr(Query, _name, _statistic_method(_name, _entry.declaration))


def query() -> Query:
    """An empty query plan (``dp.query().column("x").clamp((0, 1)).median()``)."""
    return Query()
