"""The expression language's syntax: trees print to canonical text that parses back to the same
tree, and to JSON that reads back to the same tree (random trees of every node kind, odd names,
every kind of literal); the parser's grammar, case-insensitive keywords, precedence, and its
errors with their positions; the tree constructors' and ``from_json``'s refusals."""
import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.expressions import (MAX_DEPTH, Abs, Arith, Between, Column, Compare, ExpressionSyntaxError, In,
                                     IsNull, Literal, Logic, Negate, Not, from_json, parse, to_json, to_text)

INT64 = st.integers(-2 ** 63, 2 ** 63 - 1)
NAMES = st.sampled_from(["x", "age", "abs", "ABS", "and", "Null", "a b", 'q"t', "c`d", "é", "_1", "1x", "x.y", "'"]) \
    | st.text(min_size=1, max_size=4)
VALUES = st.none() | st.booleans() | INT64 | st.sampled_from([0.0, -0.0, 1e300, 5e-324, 2.0 ** 63]) \
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4)
LITERALS = st.builds(Literal, VALUES)
LEAVES = st.builds(Column, NAMES) | LITERALS


def _extend(kids):
    return st.one_of(
        st.builds(Arith, st.sampled_from("+-*/"), kids, kids),
        st.builds(Negate, kids), st.builds(Abs, kids), st.builds(Not, kids),
        st.builds(Compare, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), kids, kids),
        st.builds(Logic, st.sampled_from(["AND", "OR"]), st.lists(kids, min_size=2, max_size=3).map(tuple)),
        st.builds(IsNull, kids, st.booleans()),
        st.builds(In, kids, st.lists(LITERALS, min_size=1, max_size=3).map(tuple), st.booleans()),
        st.builds(Between, kids, kids, kids, negated=st.booleans()))


TREES = st.recursive(LEAVES, _extend, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(TREES)
@pytest.mark.slow
def test_text_and_json_round_trip_on_random_trees(tree):
    text = to_text(tree)
    again = parse(text)
    assert again == tree and hash(again) == hash(tree)
    assert to_text(again) == text
    assert from_json(json.loads(json.dumps(to_json(tree)))) == tree


@pytest.mark.parametrize("text", [
    "age >= 18 AND income / 12 > 1000.0 OR region IN ('north', 'east')",
    "NOT (a OR b) AND c", "(a OR b) OR c", "a - (b - c)", "a - b - c", "a * (b + c) / -d", "--x", "-(5)", "- 5",
    "x NOT BETWEEN -1 AND 2 + y", "\"weird name\" IS NOT NULL", "`back``quoted` <> 'it''s'", "ABS(-x) * abs",
    "x IN (1.5, -0.0, 1e-300)", "TRUE = (a < b)", "(x + 1) IS NULL", ".5 + 2. + 1E+3",
])
def test_parse_print_parse_is_the_identity(text):
    tree = parse(text)
    assert parse(to_text(tree)) == tree
    assert to_text(parse(to_text(tree))) == to_text(tree)


def test_canonical_text_examples():
    assert to_text(parse("x<>1 and not y or z")) == "x != 1 AND NOT y OR z"
    assert to_text(parse("a AND (b AND c)")) == "a AND b AND c"          # flattened: AND is associative
    assert to_text(parse("-x * y - -2")) == "-x * y - -2"
    assert to_text(parse("-(x * y)")) == "-(x * y)"
    assert to_text(parse('"and" + "a b" + select')) == '"and" + "a b" + select'
    assert to_text(parse("1e20 + 2.")) == "1e+20 + 2.0"


def test_keywords_are_case_insensitive_and_names_are_not():
    lower = parse("x is not null and y between 1 and 2 or not z in (true, false, null)")
    upper = parse("X IS NOT NULL AND Y BETWEEN 1 AND 2 OR NOT Z IN (TRUE, FALSE, NULL)")
    assert to_text(lower).upper() == to_text(upper)
    assert lower != upper                            # the names x and X differ
    assert parse("abs(x)") == parse("ABS(x)") == Abs(Column("x"))
    assert parse("abs") == Column("abs") and parse('"abs"') == Column("abs")


def test_precedence():
    assert parse("a OR b AND c") == Logic("OR", (Column("a"), Logic("AND", (Column("b"), Column("c")))))
    assert parse("NOT a = b") == Not(Compare("=", Column("a"), Column("b")))
    assert parse("a + b * c") == Arith("+", Column("a"), Arith("*", Column("b"), Column("c")))
    assert parse("-a * b") == Arith("*", Negate(Column("a")), Column("b"))
    assert parse("x BETWEEN 1 AND 2 AND y") == Logic("AND", (Between(Column("x"), Literal(1), Literal(2)),
                                                             Column("y")))
    assert parse("-5") == Literal(-5) and parse("-(5)") == Negate(Literal(5))
    assert parse("-9223372036854775808") == Literal(-2 ** 63)


def test_literals_compare_by_type_and_bits():
    assert Literal(0.0) != Literal(-0.0) and Literal(1) != Literal(1.0) and Literal(1) != Literal(True)
    assert parse("-0.0") == Literal(-0.0) and parse("0.0") == Literal(0.0)
    assert len({Literal(0.0), Literal(-0.0), Literal(0), Literal(False)}) == 4


@pytest.mark.parametrize("text, position, words", [
    ("", 0, "empty expression"),
    ("x = ", 4, "expected a value"),
    ("a < b < c", 6, "do not chain"),
    ("x == 1", 2, "compares with ="),
    ("9223372036854775808", 0, "outside int64"),
    ("1e400", 0, "beyond the float64 range"),
    ("'open", 0, "unterminated"),
    ('"" = 1', 0, "must not be empty"),
    ("x.y", 1, "unexpected character '.'"),
    ("12abc", 2, "expected an operator"),
    ("x NOT NULL", 6, "expected IN or BETWEEN"),
    ("x IN ()", 6, "expected a literal"),
    ("x IN (y)", 6, "expected a literal"),
    ("x BETWEEN 1 OR 2", 12, "AND between the bounds"),
    ("(x + 1", 6, "expected )"),
    ("x + 1)", 5, "unexpected symbol ')'"),
    ("a\n  AND $", 8, "unexpected character '$'"),
    ("x IS 3", 5, "NULL after IS"),
])
def test_syntax_errors_give_the_position(text, position, words):
    with pytest.raises(ExpressionSyntaxError, match=re.escape(words)) as info:
        parse(text)
    assert info.value.position == position
    assert isinstance(info.value, MakeError)
    assert f"at position {position}" in str(info.value)


def test_the_error_shows_the_line_and_a_caret():
    with pytest.raises(ExpressionSyntaxError) as info:
        parse("a = 1 AND\nb = = 2")
    assert str(info.value).endswith("\n    b = = 2\n        ^")


def test_nesting_is_bounded():
    deep_parens = "(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1)
    with pytest.raises(ExpressionSyntaxError, match="nested more than"):
        parse(deep_parens)
    with pytest.raises(ExpressionSyntaxError, match="nested more than"):
        parse(" + ".join(["x"] * (MAX_DEPTH + 1)))
    assert parse("(" * 10 + "x" + ")" * 10) == Column("x")
    tree = Column("x")
    for _ in range(MAX_DEPTH - 1):
        tree = Negate(tree)
    with pytest.raises(MakeError, match="nested more than"):
        Negate(tree)
    with pytest.raises(MakeError, match="nested more than"):
        from_json(json.loads('{"op": "neg", "args": [' * (MAX_DEPTH + 1) + '{"column": "x"}' + "]}" * (MAX_DEPTH + 1)))


def test_parse_refuses_a_non_string():
    with pytest.raises(MakeTypeError):
        parse(b"x = 1")


@pytest.mark.parametrize("make", [
    lambda: Column(""), lambda: Literal(float("nan")), lambda: Literal(float("inf")), lambda: Literal(2 ** 63),
    lambda: Arith("%", Column("a"), Column("b")), lambda: Compare("==", Column("a"), Column("b")),
    lambda: Logic("AND", (Column("a"),)), lambda: Logic("XOR", (Column("a"), Column("b"))),
    lambda: In(Column("a"), ()), lambda: In(Column("a"), (Column("b"),)), lambda: Negate("x"),
    lambda: Literal(b"x"), lambda: IsNull(Column("a"), negated=1),
])
def test_constructors_refuse_malformed_nodes(make):
    with pytest.raises((MakeError, MakeTypeError)):
        make()


@pytest.mark.parametrize("obj", [
    [], {"column": ""}, {"column": 3}, {"literal": 1, "type": "str"}, {"literal": True, "type": "int"},
    {"literal": 1.5, "type": "int"}, {"literal": 2 ** 53 + 1, "type": "float"},
    {"literal": float("nan"), "type": "float"}, {"literal": 10 ** 400, "type": "float"},
    {"literal": 2 ** 63, "type": "int"}, {"op": "+", "args": [{"column": "x"}]},
    {"op": "%", "args": [{"column": "x"}, {"column": "y"}]}, {"op": "neg", "args": [{"column": "x"}], "items": []},
    {"op": "in", "args": [{"column": "x"}], "items": [{"column": "y"}]}, {"op": "in", "args": [{"column": "x"}]},
    {"op": "AND", "args": [{"column": "x"}]}, {"column": "x", "extra": 1}, {"op": "not", "args": "x"},
])
def test_from_json_refuses_what_to_json_never_writes(obj):
    with pytest.raises(MakeError):
        from_json(obj)


def test_json_keeps_int_float_and_the_sign_of_zero_apart():
    tree = parse("x IN (3, 4) OR y = 3.0 OR z = -0.0")
    text = json.dumps(to_json(tree))
    assert '"type": "int"' in text and '"type": "float"' in text and "-0.0" in text
    assert from_json(json.loads(text)) == tree
    assert from_json({"literal": 3, "type": "float"}) == Literal(3.0)      # an exact integer may omit ".0"
