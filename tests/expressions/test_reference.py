"""The reference semantics (``evaluate_row``), checked against independent statements of it: SQL's
three-valued truth tables, exact rational arithmetic (``Fraction``) for int64 overflow and for
comparisons of ints with floats, IEEE facts for -0.0, infinities and NaN, code-point order for
strings, and NULL for a zero divisor."""
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from opendp_duff.expressions import ExprType, evaluate_row, parse

SCHEMA = {"p": ExprType(bool, True), "q": ExprType(bool, True), "i": ExprType(int, True), "j": ExprType(int, True),
          "f": ExprType(float, True), "g": ExprType(float, True), "s": ExprType(str, True), "t": ExprType(str, True)}
T, F, N = True, False, None
INT64 = st.integers(-2 ** 63, 2 ** 63 - 1)
FLOATS = st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 2.0 ** 53, 2.0 ** 63, -2.0 ** 63, 2.0 ** 63 - 1024])


def ev(text, **row):
    full = {name: None for name in SCHEMA}
    full.update(row)
    return evaluate_row(parse(text), full, SCHEMA)


def same(a, b):
    """Equal values of the same type, a float's sign of zero included."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b


# SQL's three-valued logic (Kleene), written out
AND = {(T, T): T, (T, F): F, (T, N): N, (F, T): F, (F, F): F, (F, N): F, (N, T): N, (N, F): F, (N, N): N}
OR = {(T, T): T, (T, F): T, (T, N): T, (F, T): T, (F, F): F, (F, N): N, (N, T): T, (N, F): N, (N, N): N}


@pytest.mark.parametrize("p, q", list(AND))
def test_three_valued_logic(p, q):
    assert ev("p AND q", p=p, q=q) is AND[p, q]
    assert ev("p OR q", p=p, q=q) is OR[p, q]
    assert ev("NOT p", p=p) is {T: F, F: T, N: N}[p]
    assert ev("p IS NULL", p=p) is (p is None) and ev("p IS NOT NULL", p=p) is (p is not None)
    assert ev("p = q", p=p, q=q) is (None if N in (p, q) else p == q)


def test_nan_is_null():
    nan = float("nan")
    assert ev("f IS NULL", f=nan) is True and ev("f = f", f=nan) is None and ev("f + 1.0", f=nan) is None
    assert ev("f IN (1.0)", f=nan) is None and ev("f NOT IN (1.0)", f=nan) is None


@pytest.mark.parametrize("text, row, expected", [
    ("i + j", {"i": 2 ** 63 - 1, "j": 1}, None), ("i + j", {"i": 2 ** 63 - 2, "j": 1}, 2 ** 63 - 1),
    ("i - j", {"i": -2 ** 63, "j": 1}, None), ("i - j", {"i": -1, "j": 2 ** 63 - 1}, -2 ** 63),
    ("i * j", {"i": 3037000499, "j": 3037000499}, 3037000499 ** 2), ("i * j", {"i": 3037000500, "j": 3037000500}, None),
    ("i * j", {"i": -2 ** 63, "j": 1}, -2 ** 63), ("i * j", {"i": -2 ** 63, "j": -1}, None),
    ("i * j", {"i": 2 ** 62, "j": -2}, -2 ** 63), ("i * j", {"i": 2 ** 62, "j": 2}, None),
    ("-i", {"i": -2 ** 63}, None), ("-i", {"i": 2 ** 63 - 1}, -2 ** 63 + 1), ("ABS(i)", {"i": -2 ** 63}, None),
    ("i / j", {"i": 2 ** 53 + 1, "j": 1}, 2.0 ** 53),       # the int is rounded to a float first
    ("i / j", {"i": 7, "j": 2}, 3.5), ("i / j", {"i": 1, "j": 0}, None), ("i + 0.5", {"i": 2 ** 53 + 1}, 2.0 ** 53),
    ("f / g", {"f": 1.0, "g": 0.0}, None), ("f / g", {"f": 1.0, "g": -0.0}, None),
    ("f / g", {"f": 0.0, "g": 0.0}, None),
    ("f / g", {"f": math.inf, "g": math.inf}, None), ("f / g", {"f": -1.0, "g": math.inf}, -0.0),
    ("f - g", {"f": math.inf, "g": math.inf}, None), ("f + g", {"f": math.inf, "g": math.inf}, math.inf),
    ("f * g", {"f": math.inf, "g": 0.0}, None), ("f * g", {"f": 1e300, "g": 1e300}, math.inf),
    ("f * g", {"f": 0.0, "g": -1.0}, -0.0), ("f + g", {"f": -0.0, "g": 0.0}, 0.0),
    ("f + g", {"f": -0.0, "g": -0.0}, -0.0), ("-f", {"f": 0.0}, -0.0), ("-f", {"f": -0.0}, 0.0),
    ("ABS(f)", {"f": -0.0}, 0.0), ("ABS(f)", {"f": -math.inf}, math.inf),
    ("f = 0.0", {"f": -0.0}, True), ("f < 0.0", {"f": -0.0}, False), ("f < g", {"f": -math.inf, "g": 0.0}, True),
])
def test_arithmetic(text, row, expected):
    assert same(ev(text, **row), expected) if expected is not None else ev(text, **row) is None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(INT64, INT64)
def test_int_arithmetic_is_exact_or_null(a, b):
    for op, exact in (("+", a + b), ("-", a - b), ("*", a * b)):
        inside = -2 ** 63 <= exact < 2 ** 63
        assert ev(f"i {op} j", i=a, j=b) == (exact if inside else None)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(INT64 | st.sampled_from([2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 2 ** 62 + 1]), FLOATS)
def test_an_int_compares_with_a_float_exactly(k, x):
    if math.isinf(x):
        less, equal = x > 0, False
    else:
        less, equal = Fraction(k) < Fraction(x), Fraction(k) == Fraction(x)
    assert ev("i < f", i=k, f=x) is less and ev("i = f", i=k, f=x) is equal
    assert ev("f > i", i=k, f=x) is less and ev("i >= f", i=k, f=x) is (not less)
    assert ev("f IN (1.0, 2.0)", f=x) is (x in (1.0, 2.0))


@pytest.mark.parametrize("a, b", [("Z", "a"), ("z", "é"), ("\uffff", "😀"), ("", "a"), ("a", "a\x00"), ("ab", "b")])
def test_strings_compare_by_code_points(a, b):
    assert [ord(c) for c in a] < [ord(c) for c in b]        # the statement, independently of str's order
    assert ev("s < t", s=a, t=b) is True and ev("s >= t", s=a, t=b) is False and ev("s = t", s=a, t=a) is True


def test_in_and_between_with_null():
    assert ev("i IN (1, 2)", i=None) is None and ev("i NOT IN (1, 2)", i=None) is None
    assert ev("i IN (1, 2)", i=2) is True and ev("i NOT IN (1, 2)", i=3) is True
    assert ev("i BETWEEN j AND 5", i=7, j=None) is False           # 7 <= 5 is FALSE, whatever j is
    assert ev("i BETWEEN j AND 5", i=3, j=None) is None
    assert ev("i NOT BETWEEN j AND 5", i=7, j=None) is True
    assert ev("i BETWEEN 5 AND 1", i=3) is False                  # an empty range, as in SQL


def test_the_value_depends_on_the_named_columns_of_the_row_only():
    row = {"i": 3, "f": 2.5}
    assert evaluate_row(parse("i * 2 + f"), row, SCHEMA) == 8.5
    assert evaluate_row(parse("i * 2 + f"), {**row, "other": object(), "s": "x"}, SCHEMA) == 8.5
