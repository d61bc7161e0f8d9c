"""The one vocabulary of plan steps: every name a plan understands, in one table.

A named statistic is an :class:`Entry`: its declaration (a function whose signature and
docstring are those of the builder method, ``query.median(bounds=None, scale=None)``), the
constructor it ends in, the names under which that constructor is also reached
(``query.duff_median(scale=...)`` is the same entry, its arguments bound as
``dp.m.then_duff_median`` binds them), and how a planner builds it.  A name that is not a
statistic of the table is looked up among the library's constructors: ``dp.m.make_<name>``
is a statistic whose one missing numeric parameter is calibrated to the budget, and
``dp.t.make_<name>`` a transformation step.  ``count`` and ``sum`` are the statistics (the
transformations of those names are reached by ``query.then(dp.t.then_count())``).
"""
from __future__ import annotations

import inspect
from fractions import Fraction
from typing import Any, Callable, Optional, Protocol, Sequence

import attrs

from .. import _validate as v
from .. import measurements as meas
from .. import transformations as trans
from ..core import then
from ..errors import MakeError, MakeTypeError
from ._compiled import Family, State, Target
from ._summary import mean_accuracy, mode_accuracy, noise_accuracy, rank_accuracy
from ._steps import Clamp, Column, Impute, Statistic, Step, Transform, arguments

__all__ = ["Entry", "ENTRIES", "step_factory", "entry_for", "Builder", "bind"]


class Builder(Protocol):
    """What a statistic's builder may ask of the planner."""

    target: Target

    def apply(self, state: State, make: Callable[..., Any], **kwargs: Any) -> State: ...
    def column_space(self, state: State, what: str, missing_ok: bool = False) -> tuple[Any, Any]: ...
    def numeric(self, state: State, bounds: Any, what: str) -> State: ...
    def sorted(self, state: State) -> State: ...


Build = Callable[[Builder, State, dict[str, Any]], tuple[State, Family]]


@attrs.frozen
class Entry:
    """A named statistic.

    Attributes:
        declaration: its parameters and documentation, as the builder method shows them.
        build: ``(planner, state, arguments) -> (state, family)``.
        constructor: the ``make_x`` it ends in, whose other names reach this entry.
        aliases: those other names (``"duff_median"``...).
    """

    declaration: Callable[..., Any]
    build: Build
    constructor: Optional[Callable[..., Any]] = None
    aliases: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.declaration.__name__

    @property
    def parameters(self) -> frozenset[str]:
        return frozenset(inspect.signature(self.declaration).parameters)


def _output(state: State) -> tuple[Any, Any]:
    return state.chain.output_domain, state.chain.output_metric


def _scaled(planner: Builder, state: State, label: str, make: Callable[..., Any], scale: Any,
            accuracy: Optional[Callable[..., Any]] = None, **kwargs: Any) -> tuple[State, Family]:
    """A family indexed by ``scale`` (fixed when given) of ``make`` on the state's space, whose
    accuracy is ``accuracy(scale, alpha, assumptions)``."""
    domain, metric = _output(state)
    stated = None if accuracy is None else (
        lambda p, alpha, assume: accuracy(scale if p is None else p, alpha, assume))
    if scale is not None:
        fixed = make(domain, metric, scale=scale, **kwargs)
        return state, Family(lambda p, b: fixed, label, None, accuracy=stated)
    make(domain, metric, scale=1.0, **kwargs)   # refuses a space or an argument that does not fit, now
    return state, Family(lambda p, b: make(domain, metric, scale=p, **kwargs), label, accuracy=stated)


def _bounds(state: State) -> Any:
    """The public bounds of the column the state reached (clamped)."""
    return _output(state)[0].element_domain.bounds


def _required(args: dict[str, Any], name: str, statistic: str) -> Any:
    if name not in args:
        raise MakeTypeError(f"{statistic}() is missing {name}")
    return args[name]


# ---- declarations: the builder methods' signatures and documentation --------------------------

def median(bounds: Optional[tuple[float, float]] = None, scale: Optional[float] = None) -> None:
    """The Duff median of the column ([GM-Duff] §4.1): clamped to ``bounds`` if given (else the
    column must be bounded already), an integer column cast exactly to floats; the scale is
    calibrated to the budget unless given.  Also ``.duff_median(scale=...)``."""


def quantile(alpha: Any, bounds: Optional[tuple[float, float]] = None, scale: Optional[float] = None) -> None:
    """The Duff alpha-quantile, alpha in (0, 1) (as :meth:`median`).  Also ``.duff_quantile(alpha, ...)``."""


def mean(bounds: Optional[tuple[float, float]] = None, scale: Optional[float] = None) -> None:
    """The Duff mean ([GM-Duff] §4.1, Means), as :meth:`median`.  Also ``.duff_mean(...)``."""


def mode(candidates: Sequence[Any], scale: Optional[float] = None) -> None:
    """The Duff mode over public ``candidates`` ([GM-Duff] §4.1, Modes).  Also ``.duff_mode(...)``."""


def count(scale: Optional[float] = None) -> None:
    """The number of rows of the column plus Laplace noise.  Refused on data whose size is
    declared public (the size is the count)."""


def sum(bounds: Optional[tuple[float, float]] = None, scale: Optional[float] = None) -> None:  # noqa: A001
    """The exact sum of the column, clamped to ``bounds`` (as :meth:`median`), plus Laplace noise;
    the number of rows must be public (and then the privacy unit is ``unit_of(changes=k)``: the
    sum's sensitivity is k (hi - lo))."""


# ---- builders -----------------------------------------------------------------------------------

# The Duff median, quantiles and mean take unsorted records (they select the ranks they need in
# O(n)), so no sort is added for them; the smooth mechanisms read sorted records.
def _median(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    state = planner.numeric(state, args.get("bounds"), ".median()")
    return _scaled(planner, state, "median", meas.make_duff_median, args.get("scale"),
                   rank_accuracy(Fraction(1, 2), _bounds(state)))


def _quantile(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    alpha = _required(args, "alpha", "quantile")
    state = planner.numeric(state, args.get("bounds"), ".quantile()")
    return _scaled(planner, state, f"quantile_{alpha}", meas.make_duff_quantile, args.get("scale"),
                   rank_accuracy(v.alpha("alpha", alpha), _bounds(state)), alpha=alpha)


def _mean(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    state = planner.numeric(state, args.get("bounds"), ".mean()")
    return _scaled(planner, state, "mean", meas.make_duff_mean, args.get("scale"), mean_accuracy(_bounds(state)))


def _mode(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    candidates = _required(args, "candidates", "mode")
    planner.column_space(state, ".mode()")
    return _scaled(planner, state, "mode", meas.make_duff_mode, args.get("scale"), mode_accuracy(candidates),
                   candidates=candidates)


def _count(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    domain, _ = planner.column_space(state, ".count()")
    if state.grouping is None and getattr(domain, "size", None) is not None:
        raise MakeError(f".count(): the number of rows is declared public (size={domain.size}); there is "
                        "nothing to release")
    state = planner.apply(state, trans.make_count)
    return _scaled(planner, state, "count", meas.make_laplace, args.get("scale"), noise_accuracy)


def _sum(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
    state = planner.numeric(state, args.get("bounds"), ".sum()")
    if getattr(_output(state)[0], "size", None) is None:
        raise MakeError(".sum() needs the number of rows to be public: declare it with domain=... size=n "
                        "when creating the context (a grouped sum is not available: the groups' sizes are private)")
    state = planner.apply(state, trans.make_sum)
    return _scaled(planner, state, "sum", meas.make_laplace, args.get("scale"), noise_accuracy)


def _generic(name: str) -> Entry:
    """``dp.m.make_<name>`` as a statistic: its one missing required numeric parameter, if any,
    is calibrated to the budget."""
    make = getattr(meas, f"make_{name}")
    parameters = list(inspect.signature(make).parameters.values())[2:]

    def build(planner: Builder, state: State, args: dict[str, Any]) -> tuple[State, Family]:
        missing = [p for p in parameters if p.default is p.empty and p.name not in args
                   and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if len(missing) > 1:
            raise MakeTypeError(f"{name}() is missing {[p.name for p in missing]}: leave out one numeric "
                                "parameter at most")
        domain, metric = _output(state)
        if not missing:
            fixed = make(domain, metric, **args)
            return state, Family(lambda p, b: fixed, name, None)
        free = missing[0].name
        T = int if str(missing[0].annotation).strip("'\"") == "int" else float
        return state, Family(lambda p, b: make(domain, metric, **{**args, free: p}), name, free, T)

    def declaration(*args: Any, **kwargs: Any) -> None:
        """A measurement of ``dp.m``."""

    declaration.__name__ = name
    declaration.__signature__ = inspect.signature(then(make))  # type: ignore[attr-defined]
    return Entry(declaration, build, make)


def _entries() -> dict[str, Entry]:
    from ._smooth import smooth_entries
    table = [Entry(median, _median, meas.make_duff_median, ("duff_median",)),
             Entry(quantile, _quantile, meas.make_duff_quantile, ("duff_quantile",)),
             Entry(mean, _mean, meas.make_duff_mean, ("duff_mean",)),
             Entry(mode, _mode, meas.make_duff_mode, ("duff_mode",)),
             Entry(count, _count), Entry(sum, _sum), *(Entry(*args) for args in smooth_entries())]
    return {entry.name: entry for entry in table}


ENTRIES: dict[str, Entry] = _entries()
_ALIASES: dict[str, Entry] = {alias: e for e in ENTRIES.values() for alias in e.aliases}
# transformations that are steps of their own (a plan holds the step, whichever name built it)
_STEP_ALIASES: dict[str, Callable[..., Step]] = {"clamp": Clamp, "impute_constant": Impute,
                                                 "select_column": lambda key: Column(key)}


def entry_for(name: str) -> Entry:
    """The entry of the canonical statistic ``name``, or of ``dp.m.make_<name>``."""
    if name in ENTRIES:
        return ENTRIES[name]
    if f"make_{name}" in meas.__all__:
        return _generic(name)
    raise MakeError(f"no statistic named {name!r}: the statistics are {sorted(ENTRIES)!r} and the "
                    "measurements of dp.m")


def bind(signature: inspect.Signature, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
           partial: bool = False) -> dict[str, Any]:
    """The arguments by name; with ``partial``, required ones may be left out (the free
    parameter of a constructor is, and the planner names any other that is missing)."""
    try:
        bound = signature.bind_partial(*args, **kwargs) if partial else signature.bind(*args, **kwargs)
        return dict(bound.arguments)
    except TypeError as exc:
        raise MakeTypeError(f"{name}(): {exc}") from None


def step_factory(name: str) -> Optional[Callable[..., Step]]:
    """What ``query.<name>(...)`` appends, or None when no step has that name."""
    if name in ENTRIES or name in _ALIASES or f"make_{name}" in meas.__all__:
        entry = _ALIASES.get(name) or entry_for(name)
        partial = name not in ENTRIES
        if name in _ALIASES:        # bound as the constructor binds them, plus bounds=
            assert entry.constructor is not None
            signature = inspect.signature(then(entry.constructor))
            extra = [inspect.Parameter("bounds", inspect.Parameter.KEYWORD_ONLY, default=None)]
            signature = signature.replace(parameters=[*signature.parameters.values(), *extra])
        else:
            signature = inspect.signature(entry.declaration)

        def statistic(*args: Any, **kwargs: Any) -> Step:
            return Statistic(entry.name, arguments(bind(signature, name, args, kwargs, partial), entry.name))

        return statistic
    if name in _STEP_ALIASES:
        return _STEP_ALIASES[name]
    if f"make_{name}" in trans.__all__:
        signature = inspect.signature(then(getattr(trans, f"make_{name}")))

        def transform(*args: Any, **kwargs: Any) -> Step:
            return Transform(name, arguments(bind(signature, name, args, kwargs), name))

        return transform
    return None
