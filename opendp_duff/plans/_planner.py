"""The planner: a visitor over a plan's steps that builds its measurement from public
constructors, for one target (the data's domain, the privacy unit and the measure).

Every plan starts from ``make_identity`` on the target's space.  A privacy unit of changed rows
(``change_one_distance``, data of public size) is restated at once as the symmetric distance
through ``make_change_one_to_symmetric`` (k changes are 2k rows added or removed), so that
every later step works under the one dataset metric the statistics are proven for, and a
statistic is charged what a person's k changed rows can do.  Each public constructor picks
its engine's implementation from its input domain (which names the engine), so the planner
never asks which engine it is.
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from .. import transformations as trans
from ..core import Measurement, Transformation
from ..errors import MakeError, MakeTypeError
from ..expressions import Between, Compare, In, IsNull, Logic, parse
from ..expressions import Column as ExprColumn
from ..metrics import ChangeOneDistance
from ..metrics_id import SymmetricIdDistance
from ._discovery import Discovery, placeholders, refuse_measure
from ._compiled import Compiled, Family, Grouping, Part, State, Target
from ._steps import Agg, Clamp, Column, Filter, GroupBy, Impute, Stat, Statistic, Step, Then, Transform, WithColumn
from ._vocabulary import entry_for

__all__ = ["Planner", "compile_plan", "check_target"]


def check_target(target: Target) -> None:
    """Refuse a privacy unit that would let a statistic be charged less than one person's rows
    changing: data of public size needs ``unit_of(changes=k)`` (under the symmetric distance a
    same-size neighbour is at even distance, so ``contributions=1`` would protect nobody), and
    the change-one distance needs a public size."""
    size = getattr(target.domain, "size", None)
    if isinstance(target.metric, SymmetricIdDistance):
        columns = getattr(target.domain, "columns", None)
        if columns is None or target.metric.identifier not in columns:
            raise MakeError(f"a unit by identifier ({target.metric.identifier!r}) needs a data frame with that column")
        if target.contributions is None or target.key is None:
            raise MakeError("a unit by identifier needs contributions=k and the context's key")
        if size is not None:
            raise MakeError("a unit by identifier protects whole persons, whose rows appear or disappear: the "
                            "data's size cannot be public")
    changes = isinstance(target.metric, ChangeOneDistance)
    if size is not None and not changes:
        raise MakeError(f"the data's size is declared public (size={size}): one person's rows then change "
                        "rather than appear or disappear, so the privacy unit must be dp.unit_of(changes=k)")
    if size is None and changes:
        raise MakeError("dp.unit_of(changes=k) protects rows changing in data of a public size: declare the "
                        "size with domain=... size=n, or use dp.unit_of(contributions=k)")


class Planner:
    """Compiles plans for one :class:`Target` (see the module docstring)."""

    def __init__(self, target: Target) -> None:
        check_target(target)
        self.target = target

    def compile(self, steps: tuple[Step, ...]) -> Compiled:
        """The plan's :class:`Compiled` form (its measurement is calibrated later, per budget)."""
        state = self.start()
        for step in steps:
            if state.family is not None or state.parts:
                raise MakeError("the query already ends in a measurement: call .resolve() or .release()")
            if state.truncate and not isinstance(step, (Filter, WithColumn, GroupBy)):
                state = self.truncated(state)    # row-wise steps run on a person's rows; the rest on k of them
            state = step.accept(self, state)
        return Compiled(self.target, state)

    def truncated(self, state: State, by: Any = None) -> State:
        """Each person's rows bounded, under a unit by identifier: at most k rows
        (``make_truncate_per_id``), or, grouping by ``by`` with ``max_groups`` g, at most g
        groups of k rows (``make_truncate_per_group``), with the context's secret key."""
        if not state.truncate:
            return state
        target = self.target
        if by is not None and target.max_groups is not None:
            state = self.apply(state, trans.make_truncate_per_group, by=by, max_groups=target.max_groups,
                               contributions=target.contributions, key=target.key)
        else:
            state = self.apply(state, trans.make_truncate_per_id, contributions=target.contributions, key=target.key)
        return attrs.evolve(state, truncate=False)

    def start(self) -> State:
        target = self.target
        chain = trans.make_identity(target.domain, target.metric)
        if isinstance(target.metric, ChangeOneDistance):
            domain: Any = chain.output_domain
            chain = _transformation(chain >> trans.make_change_one_to_symmetric(domain, chain.output_metric))
        return State(chain, truncate=isinstance(target.metric, SymmetricIdDistance))

    # ---- what statistics ask for ---------------------------------------------------------------

    def apply(self, state: State, make: Callable[..., Any], **kwargs: Any) -> State:
        """The state's chain followed by ``make(domain, metric, **kwargs)``."""
        chain = state.chain
        built = make(chain.output_domain, chain.output_metric, **kwargs)
        return attrs.evolve(state, chain=_transformation(chain >> built))

    def column_space(self, state: State, what: str, missing_ok: bool = False) -> tuple[Any, Any]:
        """The (domain, metric) of the column the plan reached; refuses a frame, and a column that
        may hold missing values unless ``missing_ok``."""
        domain, metric = state.chain.output_domain, state.chain.output_metric
        element = getattr(domain, "element_domain", None)
        if element is None:
            raise MakeError(f"{what} needs a column: call .column(name) first")
        if element.nan and not missing_ok:
            where = "the data" if state.column is None else f"column {state.column!r}"
            raise MakeError(f"{what}: {where} may hold missing values (its domain admits NaN): add "
                            ".impute(constant) before this step, or declare it without NaN through domain= "
                            "when creating the context")
        return domain, metric

    def numeric(self, state: State, bounds: Any, what: str) -> State:
        """The column clamped to ``bounds`` if given (else it must be bounded already), and an
        integer column cast exactly to floats."""
        domain: Any = self.column_space(state, what)[0]
        if bounds is not None:
            state = self.apply(state, trans.make_clamp, bounds=bounds)
        elif domain.element_domain.bounds is None:
            raise MakeError(f"{what} needs public bounds: call .clamp((lo, hi)) first, or pass bounds=(lo, hi)")
        reached: Any = state.chain.output_domain
        if reached.element_domain.T is int:
            state = self.apply(state, trans.make_int_to_float)
        return state

    def sorted(self, state: State) -> State:
        return state if getattr(state.chain.output_domain, "sorted", False) else self.apply(state, trans.make_sort)

    # ---- the visitor -------------------------------------------------------------------------

    def visit_column(self, step: Column, state: State) -> State:
        if state.column is not None:
            raise MakeError(f"column {state.column!r} is already selected")
        if getattr(state.chain.output_domain, "columns", None) is None:
            raise MakeError("this data is a single column: build the query without .column()")
        selected = attrs.evolve(self.apply(state, trans.make_select_column, key=step.name), column=step.name)
        if step.name in state.not_null and selected.chain.output_domain.element_domain.nan:
            # a filter kept only rows where the column is not NULL: the imputation never applies,
            # and the column's domain then says what the filter guarantees
            return self.apply(selected, trans.make_impute_constant, constant=0.0)
        return selected

    def visit_group_by(self, step: GroupBy, state: State) -> State:
        if state.grouping is not None or state.column is not None:
            raise MakeError(".group_by() comes first in a query, before .column()")
        columns = getattr(state.chain.output_domain, "columns", None)
        if columns is None:
            raise MakeError(".group_by() needs a data frame")
        missing = [b for b in step.by if b not in columns]
        if missing:
            raise MakeError(f"by ({missing[0]!r}) must be one of the declared columns {list(columns)!r}")
        by: Any = step.by[0] if len(step.by) == 1 else step.by     # a key is a value, or a tuple of values
        discovery = None
        keys = step.keys
        # [proof:discovered_keys]
        if keys is None:        # discovered: the grouped stage is calibrated on placeholder keys
            refuse_measure(self.target.measure)
            types = tuple(columns[b].T for b in step.by)     # a key of several columns is a tuple
            # the counts bound each person's rows on their own: k rows reach at most k keys, k rows
            # in all, where g groups of k rows would reach g keys but g k rows in all
            counts = self.apply(self.truncated(state), trans.make_count_by_key, by=by).chain
            state = self.truncated(state, by)

            def partition(found: tuple[Any, ...]) -> Transformation:
                return self.apply(state, trans.make_partition_by, by=by, keys=found).chain

            l0 = partition(placeholders(types, 1)).map(self.target.d_in)[0]   # parts a person reaches
            keys = placeholders(types, max(1, l0))
            discovery = Discovery(counts, partition, step.key_share, self.target.measure)
        # [end:discovered_keys]
        outer = self.apply(self.truncated(state, by), trans.make_partition_by, by=by, keys=keys).chain
        domain: Any = outer.output_domain
        metric: Any = outer.output_metric
        part = trans.make_identity(domain.part_domain, metric.inner)
        return State(part, Grouping(outer, step.by, tuple(domain.keys), discovery), not_null=state.not_null)

    def visit_filter(self, step: Filter, state: State) -> State:
        filtered = self._row_wise(state, ".filter()", trans.make_filter, predicate=step.predicate)
        return attrs.evolve(filtered, not_null=state.not_null | not_null_columns(parse(step.predicate)))

    def visit_with_column(self, step: WithColumn, state: State) -> State:
        return self._row_wise(state, ".with_column()", trans.make_with_column, name=step.name, expr=step.expr)

    def _row_wise(self, state: State, what: str, make: Callable[..., Any], **kwargs: Any) -> State:
        """A row-wise step on the frame the plan reached (the data, or each group): the
        constructor types its expression against the frame's columns before any data is read."""
        if state.column is not None or getattr(state.chain.output_domain, "columns", None) is None:
            raise MakeError(f"{what} acts on the rows of a data frame: put it before .column()")
        return self.apply(state, make, **kwargs)

    def visit_clamp(self, step: Clamp, state: State) -> State:
        self.column_space(state, ".clamp()")
        return self.apply(state, trans.make_clamp, bounds=step.bounds)

    def visit_impute(self, step: Impute, state: State) -> State:
        self.column_space(state, ".impute()", missing_ok=True)
        return self.apply(state, trans.make_impute_constant, constant=step.constant)

    def visit_transform(self, step: Transform, state: State) -> State:
        if f"make_{step.name}" not in trans.__all__:
            raise MakeError(f"no transformation named {step.name!r} in dp.t")
        return self.apply(state, getattr(trans, f"make_{step.name}"), **dict(step.args))

    def visit_statistic(self, step: Statistic, state: State) -> State:
        state, family = self._statistic(state, step.name, dict(step.args))
        return attrs.evolve(state, family=family)

    def _statistic(self, state: State, name: str, args: dict[str, Any]) -> tuple[State, Family]:
        entry = entry_for(name)
        unknown = sorted(set(args) - entry.parameters)
        if unknown:
            raise MakeTypeError(f"{name}() takes no argument {unknown!r}")
        return entry.build(self, state, args)

    def visit_agg(self, step: Agg, state: State) -> State:
        """Each statistic on its own column (from the data, or from one group), labelled; labels
        are unique and never a grouping column's name."""
        parts = []
        for (label, stat), weight in zip(step.statistics, step.weights, strict=True):
            read = [s.column for _, s in step.statistics if s.column is not None]
            reached, family = self._statistic(self._stat_column(state, stat, read), stat.name, dict(stat.args))
            if label is None:
                column = stat.column if stat.column is not None else state.column
                label = family.label if column is None else f"{column}_{family.label}"
            parts.append(Part(label, reached.chain, family, weight))
        labels = [part.label for part in parts]
        taken = set() if state.grouping is None else set(state.grouping.by)
        for label in labels:
            if label in taken:
                what = "a grouping column" if state.grouping is not None and label in state.grouping.by \
                    else "another statistic"
                raise MakeError(f"agg(): the label {label!r} is also {what}'s: name the statistics apart, "
                                f"as in .agg({label}_2=...)")
            taken.add(label)
        return attrs.evolve(state, parts=tuple(parts))

    def _stat_column(self, state: State, stat: Stat, read: list[str]) -> State:
        """The state at the statistic's column: the one it names, or the one the plan selected.
        A count of rows reads any column without missing values (its length is the number of
        rows): preferably one the other statistics read (the engine reads it once), else a
        numeric one (cheaper than strings), else the first, its missing values imputed."""
        if stat.column is not None:
            return self.visit_column(Column(stat.column), state)
        columns = getattr(state.chain.output_domain, "columns", None)
        if columns is None:
            return state
        if stat.name != "count":
            raise MakeError(f"{stat.name}() needs a column here: dp.{stat.name}(column, ...)")
        complete = [c for c, e in columns.items() if not e.nan or c in state.not_null]
        preferred = [c for c in read if c in complete] + [c for c in complete if columns[c].T is not str] + complete
        if preferred:
            return self.visit_column(Column(preferred[0]), state)
        first = self.visit_column(Column(next(iter(columns))), state)   # a float column, admitting NaN
        return self.apply(first, trans.make_impute_constant, constant=0.0)

    def visit_then(self, step: Then, state: State) -> State:
        chain = state.chain
        built = step.partial(chain.output_domain, chain.output_metric)
        if isinstance(built, Measurement):
            label = step.partial.name.split("(")[0].replace("then_", "")
            return attrs.evolve(state, family=Family(lambda p, b: built, label, None))
        return attrs.evolve(state, chain=_transformation(chain >> built))


def not_null_columns(expr: Any) -> frozenset[str]:
    """The columns that are not NULL on every row where ``expr`` is TRUE: those compared, tested
    with IN or BETWEEN, or tested IS NOT NULL, in a conjunct (a comparison with a NULL is NULL,
    never TRUE, in three-valued logic); nothing is inferred through OR or NOT."""
    if isinstance(expr, Logic):
        return frozenset().union(*(not_null_columns(a) for a in expr.args)) if expr.op == "AND" else frozenset()
    if isinstance(expr, Compare):
        operands: tuple[Any, ...] = (expr.left, expr.right)
    elif isinstance(expr, (In, Between)) or (isinstance(expr, IsNull) and expr.negated):
        operands = (expr.operand,)
    else:
        return frozenset()
    return frozenset(o.name for o in operands if isinstance(o, ExprColumn))


def compile_plan(steps: tuple[Step, ...], target: Target) -> Compiled:
    """``Planner(target).compile(steps)``."""
    return Planner(target).compile(steps)


def _transformation(built: Any) -> Transformation:
    if not isinstance(built, Transformation):
        raise MakeTypeError(f"expected a transformation here, not {type(built).__name__}")
    return built
