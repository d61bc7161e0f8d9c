"""Typing before data: ``check`` gives each expression's type and nullability from the schema
alone, and refuses unknown columns, NULL literals, arithmetic on strings or booleans, unlike
comparisons, ordered booleans, non-boolean logic, mixed IN lists and non-boolean filters, with a
message that quotes the expression and names the types.  The compilers refuse the same before
they touch a frame."""
import pytest

from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.expressions import (ExprType, check, check_predicate, compile_numpy, compile_pandas,
                                     compile_polars, compile_spark, parse)

F, FN, INT, IN_, S, SN, B, BN = (ExprType(float), ExprType(float, True), ExprType(int), ExprType(int, True),
                              ExprType(str), ExprType(str, True), ExprType(bool), ExprType(bool, True))
SCHEMA = {"f": F, "fn": FN, "i": INT, "in_": IN_, "s": S, "sn": SN, "b": B, "bn": BN, "odd name": INT}


@pytest.mark.parametrize("text, expected", [
    ("f", F), ("fn", FN), ("1", INT), ("1.5", F), ("'a'", S), ("TRUE", B), ('"odd name"', INT),
    ("i + i", IN_), ("i * 2", IN_), ("-i", IN_), ("ABS(i)", IN_),          # int64 overflow is NULL
    ("i / 2", F), ("i / i", FN), ("i + 1.5", F), ("f / 2", F), ("f / 2.0", F), ("f / 0.0", FN), ("f / i", FN),
    ("f + 1.0", F), ("f + i", F), ("f + f", FN), ("f - f", FN), ("f * 2.0", F), ("f * 0.0", FN), ("f * i", FN),
    ("f * f", FN), ("2.0 * 3.0", F), ("1e300 * 1e300 - 1e300 * 1e300", FN), ("f / f", FN), ("-f", F), ("ABS(f)", F),
    ("fn + 1.0", FN), ("-fn", FN), ("f = i", B), ("fn = i", BN), ("s < 'b'", B), ("sn < s", BN), ("b = bn", BN),
    ("b != TRUE", B), ("f IS NULL", B), ("sn IS NOT NULL", B), ("f IN (1.0, 2.5)", B), ("in_ IN (1, 2)", BN),
    ("i IN (1.5)", B), ("s NOT IN ('a')", B), ("f BETWEEN i AND 2", B), ("f BETWEEN fn AND 2", BN),
    ("b AND bn", BN), ("b OR NOT b", B), ("NOT bn", BN), ("(i + 1) IS NULL", B),
])
def test_types_and_nullability(text, expected):
    assert check(parse(text), SCHEMA) == expected


@pytest.mark.parametrize("text, words", [
    ("g > 1", "unknown column 'g'"),
    ("f = NULL", "NULL is not a value"),
    ("f + NULL", "NULL is not a value"),
    ("NULL IS NULL", "NULL is not a value"),
    ("s + 'a'", "arithmetic needs numbers, but `s` is str"),
    ("-b", "arithmetic needs numbers, but `b` is bool"),
    ("ABS(s)", "`s` is str"),
    ("s = 1", "cannot compare str with int in `s = 1`"),
    ("b = 1", "cannot compare bool with int"),
    ("b < TRUE", "bool values compare only with = and !="),
    ("i AND b", "AND needs bool operands, but `i` is int"),
    ("NOT f", "NOT needs bool operands, but `f` is float"),
    ("i IN (1, 2.0)", "mixes literal types (float, int)"),
    ("i IN ('a')", "cannot compare int with str"),
    ("s BETWEEN 'a' AND 1", "cannot compare str with int"),
    ("b BETWEEN FALSE AND TRUE", "bool values compare only with = and !="),
    ('"odd name" + s', "`s` is str"),
])
def test_type_errors_quote_the_expression_and_name_the_types(text, words):
    with pytest.raises(MakeError) as info:
        check(parse(text), SCHEMA)
    assert words in str(info.value)


def test_the_null_literal_is_refused_inside_an_in_list():
    with pytest.raises(MakeError, match="NULL in the IN list"):
        check(parse("f IN (NULL)"), {"f": F})


def test_unknown_column_lists_the_schema():
    with pytest.raises(MakeError, match="the schema's columns: 'a', 'b'"):
        check(parse("c"), {"b": F, "a": INT})


def test_a_filter_needs_a_predicate():
    assert check_predicate(parse("f > 1 OR bn"), SCHEMA) == BN
    with pytest.raises(MakeError, match="a filter needs a predicate .bool., but `f . 1` is float"):
        check_predicate(parse("f + 1"), SCHEMA)


@pytest.mark.parametrize("schema", [{"f": float}, {"f": ExprType(float)} .items(), {1: F}, None])
def test_the_schema_must_map_names_to_expr_types(schema):
    with pytest.raises(MakeTypeError):
        check(parse("f"), schema)


def test_expr_type_validates_its_fields():
    with pytest.raises(MakeTypeError):
        ExprType(complex)
    with pytest.raises(MakeTypeError):
        ExprType(float, nullable=1)
    with pytest.raises(MakeTypeError):
        check("f > 1", SCHEMA)


@pytest.mark.parametrize("compile_", [compile_numpy, compile_pandas, compile_polars, compile_spark])
def test_every_compiler_refuses_an_ill_typed_expression_before_any_data(compile_):
    with pytest.raises(MakeError, match="cannot compare str with int"):
        compile_(parse("s = 1"), SCHEMA)
    with pytest.raises(MakeError, match="unknown column"):
        compile_(parse("nope"), SCHEMA)


def test_polars_refuses_a_column_name_that_is_a_pattern():
    with pytest.raises(MakeError, match="pattern"):
        compile_polars(parse('"*" > 1'), {"*": INT})
    with pytest.raises(MakeError, match="pattern"):
        compile_polars(parse('"^a.*$" > 1'), {"^a.*$": INT})
