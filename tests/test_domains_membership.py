"""Membership of atom and vector domains: what is a member, what is refused and why, and
that ``member`` never raises.  The chains that rely on it are in ``tests/test_core_call.py``."""
import math
import warnings

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMember, NotAMemberTypeError, NotAMemberValueError

FLOAT = dp.atom_domain(T=float)
INT = dp.atom_domain(T=int)
FLOATS = dp.vector_domain(FLOAT)
INTS = dp.vector_domain(INT)
B = 2 ** 53


class SeriesLike:
    """A minimal pandas-Series stand-in: 1-d, ``__len__`` and ``__array__``."""

    ndim = 1

    def __init__(self, values, dtype=None):
        self._values = np.asarray(values, dtype=dtype)

    def __len__(self):
        return len(self._values)

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)


# ---- atoms -----------------------------------------------------------------------------

@pytest.mark.parametrize("x", [1.5, -0.0, math.inf, -math.inf, np.float16(1.5), np.float32(0.1),
                               np.float64(2.0), 3, -B, B, np.int64(B), np.uint8(7)])
def test_float_atom_members(x):
    assert FLOAT.member(x)
    assert FLOAT.admit(x) == float(x) and type(FLOAT.admit(x)) is float


@pytest.mark.parametrize("x,error", [
    (True, NotAMemberTypeError), (np.bool_(False), NotAMemberTypeError), (None, NotAMemberTypeError),
    ("1.0", NotAMemberTypeError), (b"1", NotAMemberTypeError), (np.longdouble(1.0), NotAMemberTypeError),
    (np.array(1.0), NotAMemberTypeError), ([1.0], NotAMemberTypeError), (1 + 0j, NotAMemberTypeError),
    (B + 1, NotAMemberValueError), (-B - 1, NotAMemberValueError), (np.int64(B + 1), NotAMemberValueError),
    (10 ** 400, NotAMemberValueError), (math.nan, NotAMemberValueError), (np.float32("nan"), NotAMemberValueError),
])
def test_float_atom_non_members(x, error):
    assert FLOAT.member(x) is False
    with pytest.raises(error):
        FLOAT.admit(x)


def test_float_atom_nan_and_bounds():
    assert dp.atom_domain(T=float, nan=True).member(math.nan)
    bounded = dp.atom_domain(T=float, bounds=(0.0, 1.0))
    assert bounded.member(0.0) and bounded.member(1) and not bounded.member(1.5)
    assert not bounded.member(math.inf) and not bounded.member(math.nan)


@pytest.mark.parametrize("x", [0, -3, 2 ** 63 - 1, -(2 ** 63), np.int8(-1), np.uint64(2 ** 63 - 1)])
def test_int_atom_members(x):
    assert INT.member(x) and INT.admit(x) == int(x) and type(INT.admit(x)) is int


@pytest.mark.parametrize("x,error", [
    (1.5, NotAMemberTypeError), (1.0, NotAMemberTypeError), (np.float64(2.0), NotAMemberTypeError),
    (True, NotAMemberTypeError), (None, NotAMemberTypeError), ("1", NotAMemberTypeError),
    (2 ** 63, NotAMemberValueError), (np.uint64(2 ** 63), NotAMemberValueError), (10 ** 400, NotAMemberValueError),
])
def test_int_atom_non_members(x, error):
    assert INT.member(x) is False
    with pytest.raises(error):
        INT.admit(x)


# ---- vectors ---------------------------------------------------------------------------

@pytest.mark.parametrize("x", [
    [1.0, 2.5], (1.0, 2.5), np.array([1.0, 2.5]), np.array([1.0, 2.5], dtype=np.float32),
    np.array([1.0, 2.5], dtype=np.float16), [1, 2.5], [np.float32(1.0), 2.5, np.int64(3)],
    np.array([1, 2], dtype=np.int64), np.array([1, 2], dtype=np.uint64), np.array([1.0, 2], dtype=object),
    SeriesLike([1.0, 2.5]), [B, -B, 0.5], [math.inf, -math.inf], [], np.array([]), (),
])
def test_float_vector_members(x):
    assert FLOATS.member(x)
    arr = FLOATS.admit(x)
    assert arr.dtype == np.float64 and arr.ndim == 1
    assert [float(e) for e in np.asarray(x, dtype=object).reshape(-1)] == arr.tolist()


@pytest.mark.parametrize("x,error", [
    (5.0, NotAMemberTypeError), (None, NotAMemberTypeError), ("1.0", NotAMemberTypeError),
    (b"12", NotAMemberTypeError), ({1.0: 2.0}, NotAMemberTypeError), ({1.0}, NotAMemberTypeError),
    ((e for e in [1.0]), NotAMemberTypeError), (range(3), NotAMemberTypeError),
    (np.array(1.0), NotAMemberTypeError), (np.ones((2, 2)), NotAMemberTypeError), ([[1.0, 2.0]], NotAMemberTypeError),
    (np.ma.masked_array([1.0, 2.0], mask=[0, 1]), NotAMemberTypeError),
    (["1.0", "2.0"], NotAMemberTypeError), ([1.0, None], NotAMemberTypeError), ([True, 1.0], NotAMemberTypeError),
    (np.array([True, False]), NotAMemberTypeError), (np.array(["a"]), NotAMemberTypeError),
    ([np.longdouble(1.0)], NotAMemberTypeError), (np.array([1.0], dtype=np.longdouble), NotAMemberTypeError),
    (np.array([1 + 0j]), NotAMemberTypeError), (np.array([1.0, None], dtype=object), NotAMemberTypeError),
    (SeriesLike(["a", "b"]), NotAMemberTypeError),
    ([B + 1, 1.0], NotAMemberValueError), ([1.0, -B - 1], NotAMemberValueError), ([10 ** 400], NotAMemberValueError),
    (np.array([B + 1], dtype=np.int64), NotAMemberValueError),
    (np.array([2 ** 64 - 1], dtype=np.uint64), NotAMemberValueError),
    ([1.0, math.nan], NotAMemberValueError), (np.array([np.nan], dtype=np.float32), NotAMemberValueError),
    (SeriesLike([1.0, np.nan]), NotAMemberValueError),
])
def test_float_vector_non_members(x, error):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert FLOATS.member(x) is False
        with pytest.raises(error):
            FLOATS.admit(x)


@pytest.mark.parametrize("x", [[1, 2], (np.int8(1), 2 ** 63 - 1), np.array([3], dtype=np.uint64),
                               [np.uint64(5), -3], np.array([1, -(2 ** 63)]), [], np.array([])])
def test_int_vector_members(x):
    arr = INTS.admit(x)
    assert INTS.member(x) and arr.dtype == np.int64
    assert arr.tolist() == [int(e) for e in x]


@pytest.mark.parametrize("x,error", [
    ([1, 1.5], NotAMemberTypeError), ([1.0], NotAMemberTypeError), (np.array([1.0]), NotAMemberTypeError),
    ([1, None], NotAMemberTypeError), ([True], NotAMemberTypeError), (["1"], NotAMemberTypeError),
    ([2 ** 63], NotAMemberValueError), ([10 ** 400, 1], NotAMemberValueError),
    (np.array([2 ** 64 - 1], dtype=np.uint64), NotAMemberValueError), ([np.uint64(2 ** 63), -1], NotAMemberValueError),
])
def test_int_vector_non_members(x, error):
    assert INTS.member(x) is False
    with pytest.raises(error):
        INTS.admit(x)


def test_size_sorted_bounds_and_nan():
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=3, sorted=True)
    assert dom.member([0.0, 0.5, 1.0]) and dom.member(np.array([0, 0, 1]))
    for x in ([0.0, 0.5], [0.0, 0.5, 1.0, 1.0], [], [0.5, 0.0, 1.0], [0.0, 0.5, 1.5], [-0.5, 0.5, 1.0]):
        assert not dom.member(x)
        with pytest.raises(NotAMemberValueError):
            dom.admit(x)
    nan_ok = dp.vector_domain(dp.atom_domain(T=float, nan=True))
    assert nan_ok.member([1.0, math.nan]) and math.isnan(nan_ok.admit([math.nan])[0])
    assert dp.vector_domain(FLOAT, size=0).member([]) and not dp.vector_domain(FLOAT, size=1).member([])


def test_errors_name_the_domain_and_the_requirement_but_not_the_data():
    secret = 31415926.5358979
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=4)
    cases = [[secret] * 4, [secret] * 7, ["secret-123"] * 4, np.full((2, 2), secret), [secret, math.nan, 0.0, 0.0]]
    for x in cases:
        with pytest.raises(NotAMember) as info:
            dom.admit(x)
        exc = info.value
        text = " ".join([str(exc), repr(exc), repr(exc.args)])
        assert repr(dom) in str(exc)
        assert "31415926" not in text and "secret" not in text and "7" not in text
        assert exc.__cause__ is None and exc.__context__ is None


def test_member_never_raises_on_hostile_objects():
    class Explodes:
        ndim = 1

        def __len__(self):
            raise RuntimeError("secret-123")

        def __array__(self, *args, **kwargs):
            raise RuntimeError("secret-123")

    class BadIter(list):
        def __iter__(self):
            raise RuntimeError("secret-123")

    for x in (Explodes(), BadIter([1.0]), object(), [object()], [10 ** 5000]):
        assert FLOATS.member(x) is False
        with pytest.raises(NotAMember) as info:
            FLOATS.admit(x)
        assert "secret" not in str(info.value) and info.value.__context__ is None
    assert FLOAT.member(10 ** 400) is False and INT.member(10 ** 5000) is False


def test_admit_does_not_copy_a_float64_array_and_makes_lists_exact():
    x = np.array([1.0, 2.0])
    assert FLOATS.admit(x) is x
    assert FLOATS.admit([B, 1]).tolist() == [float(B), 1.0]
