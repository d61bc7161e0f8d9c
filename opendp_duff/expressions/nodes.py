"""The syntax tree of a row-wise expression: frozen, hashable attrs classes, and their JSON form.

A tree is built by :func:`opendp_duff.expressions.parse` (or by hand, or by :func:`from_json`);
every constructor validates its fields, so a tree that exists is well formed: operators are
known, literals are finite values of a known type, an ``AND``/``OR`` node has at least two
operands none of which is a node of the same operator (chains are flattened: both are
associative in three-valued logic), and no tree is deeper than :data:`MAX_DEPTH`, which keeps
every recursive walk (printing, typing, compiling) far from Python's recursion limit.

The JSON form is a tree of dicts: ``{"column": name}``, ``{"literal": value, "type": T}`` with
T one of ``"int"``, ``"float"``, ``"str"``, ``"bool"``, ``"null"``, and ``{"op": OP, "args":
[...]}`` for every operator (``"items"`` holds an ``IN`` list).  A float is written as a JSON
number (Python's shortest round-trip form, so ``-0.0`` stays negative) and the ``type`` field
keeps ``3`` and ``3.0`` apart for readers that do not.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Union

import attrs

from .._constants import INT64_MAX, INT64_MIN
from ..errors import MakeError, MakeTypeError

__all__ = ["MAX_DEPTH", "Column", "Literal", "Arith", "Negate", "Abs", "Compare", "Logic", "Not",
           "IsNull", "In", "Between", "Expr", "to_json", "from_json", "children"]

#: The deepest tree accepted (a column or literal has depth 1).
MAX_DEPTH = 48

ARITH_OPS = ("+", "-", "*", "/")
COMPARE_OPS = ("=", "!=", "<", "<=", ">", ">=")
LOGIC_OPS = ("AND", "OR")
LiteralValue = Union[int, float, str, bool, None]


def _depth_of(node: Expr) -> int:
    depth = 1 + max((child.depth for child in children(node)), default=0)
    if depth > MAX_DEPTH:
        raise MakeError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    return depth


# Every node's last field, ``depth``: computed from its operands, neither compared nor shown.
_DEPTH = attrs.Factory(_depth_of, takes_self=True)


def _node(value: object) -> Expr:
    if not isinstance(value, _NODE_TYPES):
        raise MakeTypeError(f"an operand must be an expression node, not {type(value).__name__}")
    return value


def _literal_key(value: LiteralValue) -> tuple[str, object]:
    """Equality of literals: by type, and floats by their bits (``0.0`` is not ``-0.0``, and
    ``1`` is neither ``1.0`` nor ``TRUE``), since each prints and computes differently."""
    return (type(value).__name__, value.hex() if isinstance(value, float) else value)


def _check_literal(_: object, __: object, value: Any) -> None:
    if type(value) is int:
        if not INT64_MIN <= value <= INT64_MAX:
            raise MakeError(f"integer literal {value} is outside int64 [-2^63, 2^63 - 1]")
    elif type(value) is float:
        if not math.isfinite(value):
            raise MakeError(f"float literal {value!r} must be finite")
    elif type(value) not in (str, bool, type(None)):
        raise MakeTypeError(f"a literal is an int, float, str, bool or None, not {type(value).__name__}")


def _instance(kind: type) -> Any:
    # [proof:_instance.check]
    def check(_: object, attribute: Any, value: object) -> None:
        if not isinstance(value, kind):
            raise MakeTypeError(f"{attribute.name} must be a {kind.__name__}, not {type(value).__name__}")
    # [end:_instance.check]
    return check


def _one_of(options: tuple[str, ...]) -> Any:
    # [proof:_one_of.check]
    def check(_: object, attribute: Any, value: object) -> None:
        if value not in options:
            raise MakeError(f"{attribute.name} ({value!r}) must be one of {', '.join(options)}")
    # [end:_one_of.check]
    return check


# [proof:Column]
@attrs.frozen(cache_hash=True)
class Column:
    """The value of the named column in the current row."""

    name: str = attrs.field(validator=_instance(str))
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise MakeError("a column name must not be empty")
# [end:Column]


@attrs.frozen(cache_hash=True)
class Literal:
    """A constant: an int64, a finite float, a str, a bool, or None (the NULL literal)."""

    value: LiteralValue = attrs.field(validator=_check_literal, eq=_literal_key)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class Arith:
    """``left op right`` for op in ``+ - * /``."""

    op: str = attrs.field(validator=_one_of(ARITH_OPS))
    left: Expr = attrs.field(converter=_node)
    right: Expr = attrs.field(converter=_node)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class Negate:
    """``-operand``."""

    operand: Expr = attrs.field(converter=_node)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class Abs:
    """``ABS(operand)``."""

    operand: Expr = attrs.field(converter=_node)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class Compare:
    """``left op right`` for op in ``= != < <= > >=``."""

    op: str = attrs.field(validator=_one_of(COMPARE_OPS))
    left: Expr = attrs.field(converter=_node)
    right: Expr = attrs.field(converter=_node)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


def _flatten(op: str, args: Any) -> tuple[Expr, ...]:
    if not isinstance(args, (tuple, list)):
        raise MakeTypeError(f"the operands of {op} must be a tuple of expressions")
    flat: list[Expr] = []
    for arg in map(_node, args):
        flat.extend(arg.args if isinstance(arg, Logic) and arg.op == op else (arg,))
    if len(flat) < 2:
        raise MakeError(f"{op} needs at least two operands")
    return tuple(flat)


@attrs.frozen                 # no cache_hash: attrs caches only with its own __init__; the args cache theirs
class Logic:
    """``args[0] op args[1] op ...`` for op ``AND`` or ``OR``; nested nodes of the same
    operator are flattened into one (``a AND (b AND c)`` is ``a AND b AND c``)."""

    op: str = attrs.field(validator=_one_of(LOGIC_OPS))
    args: tuple[Expr, ...]
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)

    def __init__(self, op: str, args: Any) -> None:
        self.__attrs_init__(op, _flatten(op, args))  # type: ignore[attr-defined]


@attrs.frozen(cache_hash=True)
class Not:
    """``NOT operand``."""

    operand: Expr = attrs.field(converter=_node)
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class IsNull:
    """``operand IS NULL`` (``IS NOT NULL`` when ``negated``)."""

    operand: Expr = attrs.field(converter=_node)
    negated: bool = attrs.field(default=False, validator=_instance(bool))
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


def _literals(items: Any) -> tuple[Literal, ...]:
    if not isinstance(items, (tuple, list)) or not items:
        raise MakeError("an IN list needs at least one literal")
    if not all(isinstance(item, Literal) for item in items):
        raise MakeTypeError("an IN list holds literals only")
    return tuple(items)


@attrs.frozen(cache_hash=True)
class In:
    """``operand IN (items...)`` (``NOT IN`` when ``negated``); the items are literals."""

    operand: Expr = attrs.field(converter=_node)
    items: tuple[Literal, ...] = attrs.field(converter=_literals)
    negated: bool = attrs.field(default=False, validator=_instance(bool))
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


@attrs.frozen(cache_hash=True)
class Between:
    """``operand BETWEEN low AND high`` (``NOT BETWEEN`` when ``negated``)."""

    operand: Expr = attrs.field(converter=_node)
    low: Expr = attrs.field(converter=_node)
    high: Expr = attrs.field(converter=_node)
    negated: bool = attrs.field(default=False, validator=_instance(bool))
    depth: int = attrs.field(init=False, eq=False, repr=False, default=_DEPTH)


Expr = Union[Column, Literal, Arith, Negate, Abs, Compare, Logic, Not, IsNull, In, Between]
_NODE_TYPES = (Column, Literal, Arith, Negate, Abs, Compare, Logic, Not, IsNull, In, Between)


def children(expr: Expr) -> tuple[Expr, ...]:
    """The operands of a node, in order (an ``IN`` list's literals are not operands)."""
    if isinstance(expr, (Column, Literal)):
        return ()
    if isinstance(expr, (Arith, Compare)):
        return (expr.left, expr.right)
    if isinstance(expr, Logic):
        return expr.args
    if isinstance(expr, Between):
        return (expr.operand, expr.low, expr.high)
    return (expr.operand,)


# JSON -------------------------------------------------------------------------------------

_TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool", type(None): "null"}
_UNARY: dict[str, Callable[[Expr], Expr]] = {"neg": Negate, "abs": Abs, "not": Not}


def to_json(expr: Expr) -> dict[str, Any]:
    """The JSON form of a tree: dicts, lists, strings, numbers, booleans and None only."""
    if isinstance(expr, Column):
        return {"column": expr.name}
    if isinstance(expr, Literal):
        return {"literal": expr.value, "type": _TYPE_NAMES[type(expr.value)]}
    args = [to_json(child) for child in children(expr)]
    if isinstance(expr, (Arith, Compare, Logic)):
        return {"op": expr.op, "args": args}
    if isinstance(expr, (Negate, Abs, Not)):
        return {"op": {Negate: "neg", Abs: "abs", Not: "not"}[type(expr)], "args": args}
    if isinstance(expr, IsNull):
        return {"op": "is_not_null" if expr.negated else "is_null", "args": args}
    if isinstance(expr, In):
        return {"op": "not_in" if expr.negated else "in", "args": args,
                "items": [to_json(item) for item in expr.items]}
    return {"op": "not_between" if expr.negated else "between", "args": args}


def from_json(obj: Any) -> Expr:
    """The tree of a JSON form made by :func:`to_json` (after ``json.loads``).

    Raises:
        MakeError: ``obj`` is not the JSON form of a tree (a message says which part).
    """
    try:
        return _from_json(obj, 1)
    except MakeError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise MakeError(f"not the JSON form of an expression: {exc}") from None


def _from_json(obj: Any, level: int) -> Expr:
    if level > MAX_DEPTH:
        raise MakeError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    if not isinstance(obj, dict):
        raise MakeError(f"an expression node is a JSON object, not {type(obj).__name__}")
    if set(obj) == {"column"}:
        return Column(obj["column"])
    if set(obj) == {"literal", "type"}:
        return Literal(_literal_from_json(obj["literal"], obj["type"]))
    op, args = obj.get("op"), obj.get("args")
    if set(obj) - {"op", "args", "items"} or not isinstance(args, list) or not isinstance(op, str):
        raise MakeError(f"unknown node with keys {sorted(obj)}")
    nodes = [_from_json(arg, level + 1) for arg in args]
    arity = {"neg": 1, "abs": 1, "not": 1, "is_null": 1, "is_not_null": 1, "in": 1, "not_in": 1,
             "between": 3, "not_between": 3}.get(op, 2)
    if len(nodes) != arity and op not in LOGIC_OPS:
        raise MakeError(f"operator {op!r} takes {arity} operand(s), not {len(nodes)}")
    if ("items" in obj) != (op in ("in", "not_in")):
        raise MakeError(f"'items' belongs to IN nodes only (operator {op!r})")
    if op in ARITH_OPS:
        return Arith(op, *nodes)
    if op in COMPARE_OPS:
        return Compare(op, *nodes)
    if op in LOGIC_OPS:
        return Logic(op, tuple(nodes))
    if op in _UNARY:
        return _UNARY[op](nodes[0])
    if op in ("is_null", "is_not_null"):
        return IsNull(nodes[0], op == "is_not_null")
    if op in ("in", "not_in"):
        items = obj["items"]
        literals = [_from_json(item, level + 1) for item in items] if isinstance(items, list) else None
        if literals is None or not all(isinstance(item, Literal) for item in literals):
            raise MakeError("'items' must be a list of literal nodes")
        return In(nodes[0], tuple(literals), op == "not_in")
    if op in ("between", "not_between"):
        return Between(nodes[0], nodes[1], nodes[2], negated=op == "not_between")
    raise MakeError(f"unknown operator {op!r}")


def _literal_from_json(value: Any, type_name: Any) -> LiteralValue:
    if type_name == "int" and type(value) is int:
        return value
    if type_name == "float" and type(value) in (int, float):
        converted = float(value)
        if converted == value:          # an integer written without its ".0" only if exact
            return converted
    if type_name == "str" and type(value) is str:
        return value
    if type_name == "bool" and type(value) is bool:
        return value
    if type_name == "null" and value is None:
        return None
    raise MakeError(f"literal {value!r} is not of type {type_name!r}")
