"""The compiler shared by every engine: a checked tree, lowered onto an engine's primitives.

An engine supplies :class:`Primitives` over its own column values (a numpy pair of data and
null mask, a ``polars.Expr``, a ``pyspark.sql.Column``); :func:`lower` builds the expression's
value from them.  What is the same on every engine lives here, once: constants (subtrees that
name no column) computed by the reference evaluator and given to the engine as literals, the
exact comparison of an int with a float, the conversion of int operands of float arithmetic,
``IN`` and ``BETWEEN`` as comparisons, and ``AND``/``OR`` of many operands as a balanced tree.
What each engine does its own way (overflow, NaN, division by zero, three-valued logic) is behind
the primitives, whose contracts follow.  No primitive may raise or warn on any input,
whatever the values under a NULL.

A float value may carry NaN where the semantics has NULL until it is *settled*: arithmetic
treats the two alike (both absorb every operation), and an engine whose NaN-to-NULL step
repeats its operand (Polars) takes it only where a value is consumed: by a comparison, by
``IS NULL``, and at the end.  Every primitive but ``settle`` uses each operand once, and the
lowering repeats an operand only in a predicate (whose value is a bool, never an operand of arithmetic), so the
compiled expression's size is linear in the tree's.
"""
from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from .check import ExprType
from .nodes import Abs, Arith, Between, Column, Compare, Expr, In, IsNull, Literal, Logic, Negate, Not, children
from .reference import compare_values, evaluate_typed

__all__ = ["Primitives", "lower", "lower_settled", "TWO_63"]

V = TypeVar("V")
TWO_63 = 2.0 ** 63            # the least float above every int64


# [proof:Primitives]
class Primitives(Protocol, Generic[V]):
    """An engine's operations on column values (NULL-aware; none raises or warns)."""

    def column(self, name: str, t: ExprType) -> V:
        """The column's values of type ``t.T`` (float: binary64, NaN standing for NULL)."""

    def settle(self, a: V, T: type) -> V:
        """``a`` with every NaN made NULL (for T float; other types are already settled)."""

    def literal(self, value: int | float | str | bool | None, T: type) -> V:
        """A constant of type ``T`` (a float never NaN); NULL of type ``T`` when value is None."""

    def compare(self, op: str, a: V, b: V, T: type) -> V:
        """``a op b`` for two settled values of the same type ``T`` (floats as binary64, so
        -0.0 = 0.0; strings by code points); NULL if either is NULL."""

    def logic(self, op: str, a: V, b: V) -> V:
        """``a AND b`` or ``a OR b`` in three-valued logic."""

    def not_(self, a: V) -> V:
        """``NOT a`` (NULL stays NULL)."""

    def is_null(self, a: V) -> V:
        """TRUE where the settled ``a`` is NULL, else FALSE; never NULL."""

    def null_where(self, cond: V, a: V) -> V:
        """``a``, with NULL where ``cond`` (a bool never NULL) is TRUE."""

    def to_float(self, a: V) -> V:
        """An int64 converted to the nearest float64 (ties to even)."""

    def float_to_int(self, a: V) -> V:
        """A float that is an integer in [-2^63, 2^63) as that int64; any int64 for any other
        float or NULL."""

    def int_arith(self, op: str, a: V, b: V) -> V:
        """``a op b`` for op in ``+ - *`` on int64: the exact result, NULL outside int64."""

    def float_arith(self, op: str, a: V, b: V) -> V:
        """``a op b`` in binary64 (round to nearest), NULL (or NaN) if either is; NULL or NaN
        for a NaN result and, for ``/``, for a zero divisor."""

    def negate(self, a: V, T: type) -> V:
        """``-a``: an int's exact negation, NULL at -2^63; a float's sign bit flipped."""

    def abs(self, a: V, T: type) -> V:
        """``|a|``: an int's, NULL at -2^63; a float's sign bit cleared."""
# [end:Primitives]


def lower_settled(e: Expr, types: dict[Expr, ExprType], p: Primitives[V]) -> V:
    """The settled value of ``e``: what a compiler returns."""
    return p.settle(lower(e, types, p), types[e].T)


# [proof:lower]
def lower(e: Expr, types: dict[Expr, ExprType], p: Primitives[V]) -> V:
    """The value of ``e`` built from the primitives ``p`` (``types`` from ``annotate``); a float
    may still carry NaN for NULL (see the module docstring)."""
    if not isinstance(e, Literal) and not _names_a_column(e):
        # a constant: its value on every row is the reference's, computed once (engines fold
        # constants with their own kernels, which need not be the IEEE operations)
        return p.literal(evaluate_typed(e, {}, types), types[e].T)
    if isinstance(e, Column):
        return p.column(e.name, types[e])
    if isinstance(e, Literal):
        return p.literal(e.value, type(e.value))
    if isinstance(e, Logic):
        return _balanced(e.op, [lower(arg, types, p) for arg in e.args], p)
    if isinstance(e, Not):
        return p.not_(lower(e.operand, types, p))
    if isinstance(e, IsNull):
        null = p.is_null(lower_settled(e.operand, types, p))
        return p.not_(null) if e.negated else null
    if isinstance(e, Compare):
        return _compare(e.op, _operand(e.left, types, p), _operand(e.right, types, p), types, p)
    if isinstance(e, In):
        x = _operand(e.operand, types, p)
        found = _balanced("OR", [_compare("=", x, _operand(item, types, p), types, p) for item in e.items], p)
        return p.not_(found) if e.negated else found
    if isinstance(e, Between):
        x, lo, hi = (_operand(part, types, p) for part in (e.operand, e.low, e.high))
        inside = p.logic("AND", _compare(">=", x, lo, types, p), _compare("<=", x, hi, types, p))
        return p.not_(inside) if e.negated else inside
    if isinstance(e, (Negate, Abs)):
        a, T = lower(e.operand, types, p), types[e].T
        return p.negate(a, T) if isinstance(e, Negate) else p.abs(a, T)
    assert isinstance(e, Arith)
    a, b = lower(e.left, types, p), lower(e.right, types, p)
    if types[e].T is int:
        return p.int_arith(e.op, a, b)
    a = p.to_float(a) if types[e.left].T is int else a
    b = p.to_float(b) if types[e.right].T is int else b
    return p.float_arith(e.op, a, b)


def _names_a_column(e: Expr) -> bool:
    return isinstance(e, Column) or any(_names_a_column(child) for child in children(e))


def _balanced(op: str, values: list[V], p: Primitives[V]) -> V:
    """``v1 op v2 op ... op vk`` as a tree of depth log2(k) (both operators are associative)."""
    while len(values) > 1:
        pairs = [p.logic(op, values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)]
        values = pairs + values[len(values) - len(values) % 2:]
    return values[0]


def _operand(e: Expr, types: dict[Expr, ExprType], p: Primitives[V]) -> tuple[Expr, V, type]:
    return e, lower_settled(e, types, p), types[e].T


def _compare(op: str, left: tuple[Expr, V, type], right: tuple[Expr, V, type], types: dict[Expr, ExprType],
             p: Primitives[V]) -> V:
    (left_node, a, Ta), (right_node, b, Tb) = left, right
    if not _names_a_column(left_node) and not _names_a_column(right_node):
        # a comparison of two constants (in IN or BETWEEN) is a constant, folded as above
        constant = compare_values(op, evaluate_typed(left_node, {}, types), evaluate_typed(right_node, {}, types))
        return p.literal(constant, bool)
    if Ta is int and Tb is float:
        return _int_vs_float(op, a, b, p)
    if Ta is float and Tb is int:
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        return _int_vs_float(flipped, b, a, p)
    return p.compare(op, a, b, Ta)


def _int_vs_float(op: str, k: V, f: V, p: Primitives[V]) -> V:
    """``k op f`` for an int64 k and a float f, exactly.  Rounding k to the nearest float kf is
    monotone, so kf < f implies k < f and kf > f implies k > f.  When kf = f, f is an integer
    with |f| <= 2^63: f = 2^63 exceeds every int64, and otherwise f is exactly an int64, which
    is compared with k as integers."""
    kf = p.to_float(k)
    below, above, tie = p.compare("<", kf, f, float), p.compare(">", kf, f, float), p.compare("=", kf, f, float)
    top = p.compare(">=", f, p.literal(TWO_63, float), float)
    fi = p.float_to_int(f)
    k_lt = p.logic("OR", top, p.compare("<", k, fi, int))
    k_gt = p.logic("AND", p.not_(top), p.compare(">", k, fi, int))
    lt = p.logic("OR", below, p.logic("AND", tie, k_lt))
    gt = p.logic("OR", above, p.logic("AND", tie, k_gt))
    result = {"<": lt, ">": gt, "<=": p.not_(gt), ">=": p.not_(lt),
              "=": p.logic("AND", p.not_(lt), p.not_(gt)), "!=": p.logic("OR", lt, gt)}[op]
    # The formulas above are exact for non-NULL k and f; NULL in, NULL out, stated once here.
    either_null = p.logic("OR", p.is_null(k), p.is_null(f))
    return p.null_where(either_null, result)
# [end:lower]
