"""atom_domain(T=str) and vectors of strings: which values are members, the canonical form
admit returns (an object array of Python str), refusals that quote no data, and the
parameters strings refuse (bounds, nan, sorted)."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMemberTypeError

STR = dp.atom_domain(T=str)
VEC = dp.vector_domain(STR)
SECRET = "secret-31415"


class Sub(str):
    """A subclass of str, whose equality could be anything: not a member."""


def test_atoms():
    assert STR.member("") and STR.member(SECRET) and STR.member(np.str_("N"))
    assert type(STR.admit(np.str_("N"))) is str and STR.admit("N\x00") == "N\x00"
    for x in (b"N", None, 1, 1.5, True, Sub("N"), np.array("N"), ["N"]):
        assert not STR.member(x), x
    with pytest.raises(NotAMemberTypeError) as info:
        STR.admit(31415)
    assert "31415" not in str(info.value) and "int" in str(info.value)
    assert repr(STR) == "AtomDomain(T=str)"


STRING_DTYPE = getattr(getattr(np, "dtypes", None), "StringDType", None)   # numpy >= 2


@pytest.mark.parametrize("make", [
    lambda: ["N", "S"], lambda: ("N", "S"), lambda: np.array(["N", "S"]), lambda: np.array(["N", "S"], dtype=object),
    lambda: [np.str_("N"), "S"],
    pytest.param(lambda: np.array(["N", "S"], dtype=STRING_DTYPE()),
                 marks=pytest.mark.skipif(STRING_DTYPE is None, reason="numpy < 2")),
], ids=["list", "tuple", "U array", "object array", "numpy str_", "StringDType"])
def test_vectors_of_strings_are_admitted_as_object_arrays_of_str(make):
    a = VEC.admit(make())
    assert isinstance(a, np.ndarray) and a.dtype == object and a.ndim == 1
    assert [type(e) for e in a] == [str, str] and a.tolist() == ["N", "S"]


def test_object_array_of_str_is_not_copied_and_nul_survives():
    x = np.array(["N\x00", "S"], dtype=object)
    assert VEC.admit(x) is x and VEC.admit(x)[0] == "N\x00"
    assert VEC.admit(["N\x00"])[0] == "N\x00"          # a list keeps the exact string


def test_empty_vectors():
    for x in ([], (), np.array([], dtype=object), np.array([], dtype=np.float64)):
        a = VEC.admit(x)
        assert a.size == 0 and a.dtype == object


@pytest.mark.parametrize("x", [["N", None], ["N", b"S"], ["N", 3], np.array([1.0, 2.0]), np.array([1, 2]),
                               np.array([True]), [Sub("N")], "NS", ["N", ["S"]], {"N": 1}],
                         ids=["None", "bytes", "int", "floats", "ints", "bool", "subclass", "str", "nested", "dict"])
def test_non_members(x):
    assert not VEC.member(x)
    with pytest.raises(NotAMemberTypeError):
        VEC.admit(x)


def test_refusal_names_types_not_values():
    with pytest.raises(NotAMemberTypeError) as info:
        VEC.admit([SECRET, 31415])
    assert "31415" not in str(info.value) and "secret" not in str(info.value) and "type int" in str(info.value)


def test_size_of_string_vectors():
    dom = dp.vector_domain(STR, size=2)
    assert dom.member(["a", "b"]) and not dom.member(["a"] * 1234)
    with pytest.raises(ValueError) as info:
        dom.admit(["a"] * 1234)
    assert "1234" not in str(info.value)


def test_pandas_and_polars_series_of_strings():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    assert VEC.admit(pd.Series(["N", "S"])).tolist() == ["N", "S"]
    assert VEC.admit(pl.Series(["N", "S"])).tolist() == ["N", "S"]
    assert not VEC.member(pd.Series(["N", None])) and not VEC.member(pl.Series(["N", None]))
    assert not VEC.member(pd.Series(["N", "S"], dtype="string").astype(object).where([True, False]))
    floats = dp.vector_domain(dp.atom_domain(T=float))
    assert floats.admit(pl.Series([1.0, 2.0])).tolist() == [1.0, 2.0] and not floats.member(pl.Series([1.0, None]))


def test_parameters_strings_refuse():
    with pytest.raises(ValueError, match="bounds"):
        dp.atom_domain(T=str, bounds=("a", "z"))
    with pytest.raises(ValueError, match="nan"):
        dp.atom_domain(T=str, nan=True)
    with pytest.raises(ValueError, match="sorted"):
        dp.vector_domain(STR, sorted=True)
    with pytest.raises(TypeError, match="T"):
        dp.atom_domain(T=bytes)


def test_numeric_constructors_refuse_strings():
    space = VEC, dp.symmetric_distance()
    for then in (dp.t.then_clamp(bounds=(0.0, 1.0)), dp.t.then_sort(), dp.t.then_impute_constant(0.0),
                 dp.m.then_duff_median(scale=1.0), dp.m.then_laplace(scale=1.0)):
        with pytest.raises((TypeError, ValueError)):
            space >> then
    assert (space >> dp.t.then_count())(["a", "b"]) == 2


def test_numpy_strings_with_a_missing_value_are_refused():
    """StringDType(na_object=...) can hold a missing value, which is not a string."""
    for na in (None, np.nan, "__NA__"):
        dtype = np.dtypes.StringDType(na_object=na)
        with_missing = np.array(["a", na, SECRET], dtype=dtype)
        if na == "__NA__":           # a string sentinel is itself a string: a member
            assert VEC.admit(with_missing).tolist() == ["a", "__NA__", SECRET]
            continue
        with pytest.raises(NotAMemberTypeError) as info:
            VEC.admit(with_missing)
        assert SECRET not in str(info.value)
        assert VEC.admit(np.array(["a", SECRET], dtype=dtype)).tolist() == ["a", SECRET]
    plain = np.array(["a", SECRET], dtype=np.dtypes.StringDType())
    assert VEC.admit(plain).tolist() == ["a", SECRET]
