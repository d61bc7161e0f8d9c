"""Query: a builder of one measurement over the context's data, calibrated to the query's budget."""
from __future__ import annotations

import inspect
import math
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import attrs

from .. import measurements as meas
from .. import transformations as trans
from ..combinators.search import binary_search_param
from ..core import Measurement, PartialConstructor, Transformation
from ..errors import MakeError, MakeTypeError
from ._budget import Budget, epsilon_part
from ._mechanisms import Info, Mechanism, Space, cast, output_space, then

if TYPE_CHECKING:  # pragma: no cover
    from ._context import Context

__all__ = ["Query"]


@attrs.frozen
class _State:
    space: Space                               # the chain so far (inside a group when grouped)
    outer: Optional[Transformation] = None     # the partition into groups
    by: Optional[str] = None
    keys: tuple[Any, ...] = ()
    column: Optional[str] = None
    mechanism: Optional[Mechanism] = None


class Query:
    """One release from a :class:`~opendp_duff.context.Context`, built step by step.

    Each step returns a new query.  ``.x(...)`` reaches any ``dp.t.then_x`` or ``dp.m.then_x``;
    the named methods add what their mechanism needs (a clamp when given ``bounds``, a sort for
    the smooth ones, a count).  A measurement whose one numeric parameter is left out (a scale,
    or ``s``) gets it from the budget: the parameter is searched so that the privacy map meets
    the query's budget exactly (never above it, within 1e-12 relative).  Get one with
    ``ctx.query()``.

    Example:
        >>> import numpy as np
        >>> import opendp_duff as dp
        >>> ctx = dp.Context.compositor(data=np.linspace(0.0, 100.0, 1001),
        ...     privacy_unit=dp.unit_of(contributions=1), privacy_loss=dp.loss_of(epsilon=1.0))
        >>> query = ctx.query(epsilon=0.5).clamp((0.0, 100.0)).median()
        >>> query.resolve().map(1) <= 0.5
        True
        >>> 0.0 <= query.release() <= 100.0
        True
    """

    def __init__(self, context: Context, budget: Optional[Budget], state: _State) -> None:
        self._context, self._budget, self._state = context, budget, state
        self._resolved: dict[Any, Measurement] = {}

    def _with(self, **changes: Any) -> Query:
        self._open()
        return Query(self._context, self._budget, attrs.evolve(self._state, **changes))

    def _then(self, partial: PartialConstructor) -> Query:
        self._open()
        return self._with(space=then(self._state.space, partial))

    def _open(self) -> None:
        if self._state.mechanism is not None:
            raise MakeError("the query already ends in a measurement: call .resolve() or .release()")

    # ---- transformations ------------------------------------------------------------------

    def column(self, name: str) -> Query:
        """Select the column ``name`` of a data frame."""
        if self._state.column is not None:
            raise MakeError(f"column {self._state.column!r} is already selected")
        query = self._then(self._context._backend.column(name))
        return query._with_column(name)

    def _with_column(self, name: str) -> Query:
        return Query(self._context, self._budget, attrs.evolve(self._state, column=name))

    def group_by(self, by: str, keys: Sequence[Any]) -> Query:
        """Split the data frame by the column ``by`` into one group per public key, in order.

        Rows whose key is not in ``keys`` are dropped; a key absent from the data still gets a
        release.  The release is a data frame of the data's library with one row per key.
        """
        if self._state.outer is not None or self._state.column is not None:
            raise MakeError(".group_by() comes first in a query, before .column()")
        outer = then(self._state.space, self._context._backend.partition(by, keys))
        assert isinstance(outer, Transformation)
        domain: Any = outer.output_domain
        metric: Any = outer.output_metric
        return self._with(space=(domain.part_domain, metric.inner), outer=outer, by=by, keys=tuple(domain.keys))

    def clamp(self, bounds: tuple[Any, Any]) -> Query:
        """Clamp every value of the column into ``bounds = (lo, hi)`` (public)."""
        return self._then(self._context._backend.clamp(bounds))

    def impute(self, constant: float) -> Query:
        """Replace NaN by ``constant`` (the column must be declared ``nan=True`` via ``domain=``)."""
        return self._then(trans.then_impute_constant(constant=constant))

    def then(self, partial: PartialConstructor) -> Query:
        """Append any partial constructor (``dp.t.then_x(...)``, or a fully given ``dp.m.then_x(...)``)."""
        if not isinstance(partial, PartialConstructor):
            raise MakeTypeError(f"partial ({partial!r}) must be a partial constructor, such as dp.t.then_sort()")
        self._open()
        space = self._state.space
        built = partial(*output_space(space))
        if isinstance(built, Measurement):
            return self._end(Mechanism(lambda p, b: built, partial.name.split("(")[0].replace("then_", ""), None))
        return self._with(space=built if not isinstance(space, Transformation) else space >> built)

    # ---- mechanisms -----------------------------------------------------------------------

    def _named(self, kind: str, *args: Any, **kwargs: Any) -> Query:
        self._open()
        ctx = self._context
        builder = ctx._backend.mechanisms[kind]
        space, mechanism = builder(self._state.space, Info(ctx.privacy_loss.measure, ctx.d_in, ctx._backend),
                                   *args, **kwargs)
        return self._with(space=space, mechanism=mechanism)

    def _end(self, mechanism: Mechanism) -> Query:
        return self._with(mechanism=mechanism)

    def median(self, bounds: Optional[tuple[float, float]] = None) -> Query:
        """The Duff median ([GM-Duff] §4.1): clamps to ``bounds`` if given; the scale is searched."""
        return self._named("median", bounds=bounds)

    def quantile(self, alpha: Any, bounds: Optional[tuple[float, float]] = None) -> Query:
        """The Duff alpha-quantile, alpha in (0, 1) (as :meth:`median`)."""
        return self._named("quantile", alpha, bounds=bounds)

    def mean(self, bounds: Optional[tuple[float, float]] = None) -> Query:
        """The Duff mean ([GM-Duff] §4.1, Means): clamps to ``bounds`` if given."""
        return self._named("mean", bounds=bounds)

    def mode(self, candidates: Sequence[Any]) -> Query:
        """The Duff mode over public ``candidates`` ([GM-Duff] §4.1, Modes)."""
        return self._named("mode", candidates)

    def count(self) -> Query:
        """The number of rows plus Laplace noise."""
        return self._named("count")

    def sum(self, bounds: Optional[tuple[float, float]] = None) -> Query:
        """The sum of the column (clamped, of public size) plus Laplace noise."""
        return self._named("sum", bounds=bounds)

    def smooth_median(self, noise: Optional[str] = None, t: Optional[float] = None,
                      bounds: Optional[tuple[float, float]] = None, **shape: Any) -> Query:
        """The median plus noise scaled to its t-smooth sensitivity ([BS19]); the data's size must
        be public.  ``noise`` defaults to ``"student_t"`` (pure DP) or ``"lln"`` (zCDP, cast to
        (epsilon, delta) there); ``t`` and the shape default to choices made from the public size,
        bounds and budget (:func:`opendp_duff.smooth.choose_smoothing`); ``s`` is searched."""
        return self._named("smooth_median", noise=noise, t=t, bounds=bounds, **shape)

    def trimmed_mean(self, m: int, noise: Optional[str] = None, t: Optional[float] = None,
                     bounds: Optional[tuple[float, float]] = None, **shape: Any) -> Query:
        """The mean of the rows left after trimming ``m`` at each end, plus smooth-sensitivity noise
        (as :meth:`smooth_median`)."""
        return self._named("trimmed_mean", m, noise=noise, t=t, bounds=bounds, **shape)

    def __getattr__(self, name: str) -> Callable[..., Query]:
        if name.startswith("_"):
            raise AttributeError(name)
        constructor = getattr(trans, f"then_{name}", None) or getattr(meas, f"then_{name}", None)
        if constructor is None:
            raise AttributeError(f"Query has no step {name!r}: no dp.t.then_{name} or dp.m.then_{name}")
        if f"then_{name}" in trans.__all__:
            return lambda *args, **kwargs: self._then(constructor(*args, **kwargs))

        def step(*args: Any, **kwargs: Any) -> Query:
            self._open()
            return self._end(_free(name, constructor, self._state.space, args, kwargs))

        return step

    def __dir__(self) -> list[str]:
        steps = [n[5:] for n in list(trans.__all__) + list(meas.__all__) if n.startswith("then_")]
        return sorted(set(super().__dir__()) | set(steps))

    # ---- resolution -----------------------------------------------------------------------

    @property
    def budget(self) -> Optional[Budget]:
        """What the release will charge: the query's own budget, the context's next share, or
        None (a measurement with every parameter given, charged its map)."""
        return self._budget if self._budget is not None else self._context._next_share()

    def resolve(self) -> Measurement:
        """The measurement :meth:`release` will run: input the context's data, output measure
        the context's, its map at the privacy unit within the query's budget."""
        state, ctx = self._state, self._context
        mechanism = state.mechanism
        if mechanism is None:
            raise MakeError("the query does not end in a measurement: add .median(), .count(), .laplace()...")
        budget = self.budget
        if budget in self._resolved:
            return self._resolved[budget]
        measure, d_in = ctx.privacy_loss.measure, ctx.d_in
        start: Space = state.outer if state.outer is not None else state.space
        d_mid = start.map(d_in) if isinstance(start, Transformation) else d_in
        backend = ctx._backend

        def build(param: Any) -> Measurement:
            inner = cast(mechanism.make(param, budget), measure, budget)
            if state.outer is None:
                return inner
            part = inner if not isinstance(state.space, Transformation) else state.space >> inner
            assert isinstance(part, Measurement)
            return _measurement(backend.parallel(part)(state.outer.output_domain, state.outer.output_metric))

        if mechanism.param is None:
            tail = build(None)
        elif budget is None:
            raise MakeError(f"the query's {mechanism.param} is left to the budget, but the query has none: "
                            "use ctx.query(epsilon=...) (or rho=, delta=), or give the parameter")
        else:
            found = _search(build, mechanism, d_mid, budget)
            tail = build(found)
        measurement = tail if not isinstance(start, Transformation) else start >> tail
        assert isinstance(measurement, Measurement)
        if state.outer is not None:
            label = mechanism.label if state.column is None else f"{state.column}_{mechanism.label}"
            by, keys, frame = str(state.by), list(state.keys), ctx._frame
            measurement = measurement >> (lambda releases: frame({by: keys, label: list(releases)}))
        if budget is not None and not measurement.check(d_in, budget):
            raise MakeError(f"the query costs {measurement.map(d_in)!r}, more than its budget {budget!r}")
        self._resolved[budget] = measurement
        return measurement

    def release(self) -> Any:
        """Run the measurement on the context's data and charge the query's budget.

        Everything that can refuse the query (its construction, the budget, a measurement the
        library did not build without the feature "honest-but-curious") is checked before the
        data is read, and a refused query charges nothing.  Once the measurement's function
        has started the query is charged for good: a release that raises (in a sampler, a
        post-processing step, a Spark pass) still counts, and takes its share.
        """
        measurement = self.resolve()
        return self._context._run(measurement, self.budget)

    def __repr__(self) -> str:
        s = self._state
        steps = [f"group_by({s.by!r}, keys={list(s.keys)!r})"] if s.outer is not None else []
        steps += [f"column({s.column!r})"] if s.column is not None else []
        steps += [f"{s.mechanism.label}()"] if s.mechanism is not None else []
        return f"Query({'.'.join(steps) or 'data'}, budget={self._budget!r})"


def _free(name: str, constructor: Callable[..., PartialConstructor], space: Space, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> Mechanism:
    """A mechanism for ``dp.m.then_<name>(*args, **kwargs)``, whose one missing required numeric
    parameter (if any) is left to the search."""
    signature = inspect.signature(constructor)
    bound = signature.bind_partial(*args, **kwargs)
    missing = [p for p in signature.parameters.values()
               if p.default is p.empty and p.name not in bound.arguments
               and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if len(missing) > 1:
        raise MakeTypeError(f"{name}() is missing {[p.name for p in missing]}: leave out one numeric parameter at most")
    domain, metric = output_space(space)
    if not missing:
        fixed = _measurement(constructor(*args, **kwargs)(domain, metric))
        return Mechanism(lambda p, b: fixed, name, None)
    free = missing[0].name
    T = int if str(missing[0].annotation).strip("'\"") == "int" else float
    return Mechanism(lambda p, b: _measurement(constructor(*args, **{**kwargs, free: p})(domain, metric)),
                     name, free, T)


def _measurement(built: Any) -> Measurement:
    if not isinstance(built, Measurement):
        raise MakeTypeError(f"expected a measurement here, not {type(built).__name__}")
    return built


def _search(build: Callable[[Any], Measurement], mechanism: Mechanism, d_mid: Any, budget: Budget) -> Any:
    """The free parameter at which the map at ``d_mid`` is the largest one within ``budget``."""
    try:
        return binary_search_param(build, d_mid, budget, T=mechanism.T, guess=_guess(build, d_mid, budget))
    except MakeError:
        pass
    build(1.0 if mechanism.T is float else 1)   # a mechanism that fits nowhere says why
    raise MakeError(f"no value of {mechanism.param} meets the query's budget {budget!r}"
                    + (": choose a smaller t" if mechanism.param == "s" else ""))


def _guess(build: Callable[[Any], Measurement], d_mid: Any, budget: Budget) -> Optional[float]:
    """Where the search starts: the maps at 1 and 2 fitted by a power law c p^k, solved for the
    budget.  Exact for maps proportional to 1/scale or 1/scale^2; elsewhere only a start."""
    try:
        m1, m2 = (epsilon_part(build(p).map(d_mid)) for p in (1.0, 2.0))
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
