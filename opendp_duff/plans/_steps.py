"""The steps of a plan: frozen values that know no data and no context.

Each step is one call of the plan builder, holds only public values (:mod:`._values`), prints
as that call, and has a JSON form tagged by its ``kind``.  A planner visits the steps in order
through :meth:`Step.accept`, which calls the visitor's method for its class, so a new kind of step is a
new class here and one method in each planner.

* :class:`Column` selects a column of a data frame; :class:`GroupBy` splits the rows by public
  keys; :class:`Clamp`, :class:`Impute` and :class:`Transform` (any ``dp.t.make_<name>``) are
  transformations; :class:`Statistic` ends the plan in a measurement of the vocabulary
  (:mod:`._vocabulary`); :class:`Then` appends a partial constructor built by hand (it has no
  JSON form).
* :class:`Agg` ends the plan in several statistics at once: named :class:`Stat` values (each
  a statistic of the vocabulary on a column, ``dp.median("x", bounds=...)``) and the weights
  by which the query's budget is split among them.
* :class:`Filter` and :class:`WithColumn` are frame-level steps holding an expression of
  :mod:`opendp_duff.expressions` in its canonical text (parsed when the step is built, so a
  syntax error is refused at once and two spellings of one expression are one step).
* ``group_by`` with discovered keys is :class:`GroupBy` with ``keys=None``; over several
  columns, a longer ``by``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar, Optional, Protocol

import attrs

from ..core import PartialConstructor
from ..errors import MakeError, MakeTypeError
from ..expressions import parse, to_text
from ._values import decode, encode, normalise

__all__ = ["Step", "Column", "GroupBy", "Clamp", "Impute", "Transform", "Statistic", "Then", "Stat", "Agg",
           "Filter", "WithColumn", "STEP_KINDS"]

Arguments = tuple[tuple[str, Any], ...]


class Visitor(Protocol):
    """What a planner implements: one method per kind of step."""

    def visit_column(self, step: Column, state: Any) -> Any: ...
    def visit_group_by(self, step: GroupBy, state: Any) -> Any: ...
    def visit_clamp(self, step: Clamp, state: Any) -> Any: ...
    def visit_impute(self, step: Impute, state: Any) -> Any: ...
    def visit_transform(self, step: Transform, state: Any) -> Any: ...
    def visit_statistic(self, step: Statistic, state: Any) -> Any: ...
    def visit_then(self, step: Then, state: Any) -> Any: ...
    def visit_agg(self, step: Agg, state: Any) -> Any: ...
    def visit_filter(self, step: Filter, state: Any) -> Any: ...
    def visit_with_column(self, step: WithColumn, state: Any) -> Any: ...


class Step:
    """One step of a plan (an abstract base)."""

    kind: ClassVar[str] = "step"
    ends: ClassVar[bool] = False   # whether the step ends the plan in a measurement

    def accept(self, visitor: Visitor, state: Any) -> Any:
        raise NotImplementedError

    def to_json_data(self) -> dict[str, Any]:
        fields = {a.name: getattr(self, a.name) for a in attrs.fields(type(self))}  # type: ignore[arg-type]
        return {"step": self.kind, **{k: {n: encode(x) for n, x in v} if k == "args" else encode(v)
                                      for k, v in fields.items()}}

    @classmethod
    def from_json_data(cls, data: dict[str, Any]) -> Step:
        names = {a.name for a in attrs.fields(cls)}   # type: ignore[arg-type]
        if set(data) != names:
            raise MakeError(f"a {cls.kind!r} step has the fields {sorted(names)!r}, not {sorted(data)!r}")
        values = {}
        for name, value in data.items():
            if name == "args":       # keyword arguments: an object of public values
                if not isinstance(value, dict):
                    raise MakeError(f"the args of a {cls.kind!r} step are an object of named values")
                values[name] = tuple(sorted((str(k), decode(x)) for k, x in value.items()))
            else:
                values[name] = decode(value)
        try:
            return cls(**values)
        except TypeError as exc:
            raise MakeError(f"a {cls.kind!r} step in the JSON plan is malformed: {exc}") from None


def arguments(kwargs: dict[str, Any], name: str) -> Arguments:
    """Keyword arguments as a plan holds them: sorted by name, None values left out."""
    return tuple(sorted((k, normalise(v, f"{name}: {k}")) for k, v in kwargs.items() if v is not None))


def _arguments_field(value: Any) -> Arguments:
    return tuple((str(k), v) for k, v in value)


def call_text(name: str, args: Arguments) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args)})"


@attrs.frozen
class Column(Step):
    """Select the column ``name`` of a data frame."""

    kind: ClassVar[str] = "column"
    name: str = attrs.field(validator=attrs.validators.instance_of(str))

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_column(self, state)

    def __str__(self) -> str:
        return f"column({self.name!r})"


def _by(value: Any) -> tuple[str, ...]:
    by = (value,) if isinstance(value, str) else normalise(value, "by")
    if not by or not all(isinstance(b, str) for b in by):
        raise MakeTypeError(f"by ({value!r}) must be a column name or a non-empty sequence of names")
    return tuple(by)


def _keys(value: Any) -> Optional[tuple[Any, ...]]:
    return None if value is None else tuple(normalise(value, "keys"))


def _key_share(value: Any) -> Any:
    share = normalise(value, "key_share")
    if isinstance(share, bool) or not isinstance(share, (int, float, Fraction)) or not 0 < share < 1:
        raise MakeError(f"key_share ({value!r}) must be a number in (0, 1): the part of the query's budget "
                        "spent on discovering the keys")
    return share


@attrs.frozen
class GroupBy(Step):
    """Split the rows by the columns ``by``, one group per public key (``keys``), or per key
    discovered from the data (``keys=None``) with the part ``key_share`` of the query's budget."""

    kind: ClassVar[str] = "group_by"
    by: tuple[str, ...] = attrs.field(converter=_by)
    keys: Optional[tuple[Any, ...]] = attrs.field(converter=_keys)
    key_share: Any = attrs.field(default=0.5, converter=_key_share)

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_group_by(self, state)

    def __str__(self) -> str:
        by = self.by[0] if len(self.by) == 1 else self.by
        share = "" if self.keys is not None else f", key_share={self.key_share!r}"
        return f"group_by({by!r}, keys={self.keys!r}{share})"

    def to_json_data(self) -> dict[str, Any]:
        data = super().to_json_data()
        if self.keys is not None:          # the share matters only when the keys are discovered
            del data["key_share"]
        return data

    @classmethod
    def from_json_data(cls, data: dict[str, Any]) -> Step:
        if "key_share" not in data:
            data = {**data, "key_share": 0.5}
        return super().from_json_data(data)


def _expression(value: Any) -> str:
    """An expression's canonical text (the parser refuses a syntax error, quoting the text)."""
    if not isinstance(value, str):
        raise MakeTypeError(f"an expression must be text (str), not {type(value).__name__}")
    return to_text(parse(value))


@attrs.frozen
class Filter(Step):
    """Keep the rows on which the expression ``predicate`` is TRUE."""

    kind: ClassVar[str] = "filter"
    predicate: str = attrs.field(converter=_expression)

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_filter(self, state)

    def __str__(self) -> str:
        return f"filter({self.predicate!r})"


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise MakeTypeError(f"name ({value!r}) must be a non-empty column name (str)")
    return value


@attrs.frozen
class WithColumn(Step):
    """Add the column ``name`` computed from each row by the expression ``expr``."""

    kind: ClassVar[str] = "with_column"
    name: str = attrs.field(converter=_name)
    expr: str = attrs.field(converter=_expression)

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_with_column(self, state)

    def __str__(self) -> str:
        return f"with_column({self.name!r}, {self.expr!r})"


@attrs.frozen
class Clamp(Step):
    """Clamp every value of the column into ``bounds = (lo, hi)``."""

    kind: ClassVar[str] = "clamp"
    bounds: tuple[Any, ...] = attrs.field(converter=lambda b: normalise(b, "bounds"))

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_clamp(self, state)

    def __str__(self) -> str:
        return f"clamp(bounds={self.bounds!r})"


@attrs.frozen
class Impute(Step):
    """Replace a missing value (NaN) by ``constant``."""

    kind: ClassVar[str] = "impute"
    constant: Any = attrs.field(converter=lambda c: normalise(c, "constant"))

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_impute(self, state)

    def __str__(self) -> str:
        return f"impute({self.constant!r})"


@attrs.frozen
class Transform(Step):
    """The transformation ``dp.t.make_<name>(domain, metric, **args)``."""

    kind: ClassVar[str] = "transform"
    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    args: Arguments = attrs.field(converter=_arguments_field)

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_transform(self, state)

    def __str__(self) -> str:
        return call_text(self.name, self.args)


@attrs.frozen
class Statistic(Step):
    """A statistic of the vocabulary (:mod:`._vocabulary`), by its canonical name, with the
    arguments given (a free parameter left out is calibrated to the budget)."""

    kind: ClassVar[str] = "statistic"
    ends: ClassVar[bool] = True
    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    args: Arguments = attrs.field(converter=_arguments_field)

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_statistic(self, state)

    def __str__(self) -> str:
        return call_text(self.name, self.args)


@attrs.frozen(eq=False)
class Then(Step):
    """A partial constructor built by hand (``query.then(dp.t.then_x(...))``): compared by
    identity, and without a JSON form (use the named steps for a plan that travels)."""

    kind: ClassVar[str] = "then"
    partial: PartialConstructor = attrs.field(validator=attrs.validators.instance_of(PartialConstructor))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Then) and other.partial is self.partial

    def __hash__(self) -> int:
        return id(self.partial)

    def to_json_data(self) -> dict[str, Any]:
        raise MakeError(f"the step then({self.partial.name}) is a partial constructor built by hand, which "
                        "has no JSON form: write it as a named step (query.<name>(...)) to serialise the plan")

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_then(self, state)

    def __str__(self) -> str:
        return f"then({self.partial.name})"


@attrs.frozen(repr=False)
class Stat:
    """A statistic as a value, before any data: the vocabulary's statistic ``name`` on
    ``column`` (None: the column the plan selected, or the rows for ``count``), with its
    arguments.  Built by ``dp.median("x", bounds=(0, 10))``, ``dp.count()``... and aggregated
    by ``query.agg(...)``."""

    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    column: Optional[str] = attrs.field(validator=attrs.validators.optional(attrs.validators.instance_of(str)))
    args: Arguments = attrs.field(converter=_arguments_field)

    def __repr__(self) -> str:
        column = () if self.column is None else ((None, self.column),)
        return f"{self.name}({', '.join(repr(v) if k is None else f'{k}={v!r}' for k, v in (*column, *self.args))})"

    def to_json_data(self) -> dict[str, Any]:
        return {"statistic": self.name, "column": self.column, "args": {k: encode(v) for k, v in self.args}}

    @classmethod
    def from_json_data(cls, data: Any) -> Stat:
        if not isinstance(data, dict) or set(data) != {"statistic", "column", "args"} \
                or not isinstance(data["args"], dict):
            raise MakeError("a statistic of an 'agg' step is an object with the fields ['args', 'column', "
                            "'statistic']")
        try:
            return cls(data["statistic"], data["column"],
                       tuple(sorted((str(k), decode(x)) for k, x in data["args"].items())))
        except TypeError as exc:
            raise MakeError(f"a statistic of an 'agg' step in the JSON plan is malformed: {exc}") from None


def _weight(value: Any) -> Any:
    weight = normalise(value, "weights")
    if isinstance(weight, bool) or not isinstance(weight, (int, float, Fraction)) \
            or not (0 < weight < math.inf):
        raise MakeError(f"a weight ({value!r}) must be a positive, finite number")
    return weight


def _statistics(value: Any) -> tuple[tuple[Optional[str], Stat], ...]:
    statistics = tuple((label, stat) for label, stat in value)
    if not statistics:
        raise MakeError("agg() needs at least one statistic: .agg(n=dp.count(), ...)")
    for label, stat in statistics:
        if not isinstance(stat, Stat):
            raise MakeTypeError(f"agg() takes statistics such as dp.count() or dp.median(column, bounds=...), "
                                f"not {type(stat).__name__}")
        if label is not None and (not isinstance(label, str) or not label):
            raise MakeTypeError(f"a statistic's label ({label!r}) must be a non-empty string")
    return statistics


@attrs.frozen
class Agg(Step):
    """Several statistics released together: ``statistics`` holds (label, :class:`Stat`) pairs
    (a label None is derived from the statistic and its column), and the query's budget is
    split among them in proportion to ``weights`` (all 1 by default: equal shares)."""

    kind: ClassVar[str] = "agg"
    ends: ClassVar[bool] = True
    statistics: tuple[tuple[Optional[str], Stat], ...] = attrs.field(converter=_statistics)
    weights: tuple[Any, ...] = attrs.field(converter=lambda w: tuple(_weight(x) for x in w))

    @weights.validator
    def _one_per_statistic(self, attribute: Any, value: tuple[Any, ...]) -> None:
        if len(value) != len(self.statistics):
            raise MakeError(f"weights ({list(value)!r}) must give one weight per statistic "
                            f"({len(self.statistics)})")

    def accept(self, visitor: Visitor, state: Any) -> Any:
        return visitor.visit_agg(self, state)

    def __str__(self) -> str:
        stats = [repr(s) if label is None else f"{label}={s!r}" for label, s in self.statistics]
        return f"agg({', '.join(stats)}, weights={self.weights!r})"

    def to_json_data(self) -> dict[str, Any]:
        return {"step": self.kind, "weights": encode(self.weights),
                "statistics": [{"label": label, **stat.to_json_data()} for label, stat in self.statistics]}

    @classmethod
    def from_json_data(cls, data: dict[str, Any]) -> Step:
        if set(data) != {"statistics", "weights"} or not isinstance(data["statistics"], list):
            raise MakeError("an 'agg' step has the fields ['statistics', 'weights']")
        statistics = []
        for item in data["statistics"]:
            if not isinstance(item, dict) or "label" not in item:
                raise MakeError("each statistic of an 'agg' step has a label (or null)")
            item = dict(item)
            statistics.append((item.pop("label"), Stat.from_json_data(item)))
        return cls(tuple(statistics), decode(data["weights"]))


STEP_KINDS: dict[str, type[Step]] = {cls.kind: cls for cls in (Column, GroupBy, Clamp, Impute, Transform, Statistic,
                                                              Agg, Filter, WithColumn)}
