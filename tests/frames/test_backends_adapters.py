"""The private pandas and Polars adapters (opendp_duff.frames._backends): each operation the
proofs assume of the libraries ((L1) and (L2) in proofs/frames/admission.tex), checked on
examples, awkward ones included: duplicated labels, missing values, empty frames, keys absent
from the data, -0.0 and strings that differ only in a trailing NUL or a combining accent."""
import numpy as np
import pytest

from opendp_duff.frames._backends import backend_of

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

LIBS = ["pandas", "polars"]


def frame(lib, cols):
    return pd.DataFrame(cols) if lib == "pandas" else pl.DataFrame(cols)


def test_backend_of_recognises_frames_only():
    assert backend_of(pd.DataFrame({"x": [1]})).name == "pandas"
    assert backend_of(pl.DataFrame({"x": [1]})).name == "polars"
    for other in (None, [1], {"x": [1]}, pd.Series([1]), pl.Series([1]), pl.DataFrame({"x": [1]}).lazy(),
                  np.zeros((2, 2))):
        assert backend_of(other) is None


@pytest.mark.parametrize("lib", LIBS)
def test_columns_rows_and_reading(lib):
    df = frame(lib, {"s": ["a", "b", "c"], "f": [1.5, -0.0, 3.0], "i": [1, 2, 3]})
    b = backend_of(df)
    assert b.columns(df) == ["s", "f", "i"] and b.n_rows(df) == 3
    assert b.has_column(df, "f") and not b.has_column(df, "g")
    s = b.column(df, "s")
    assert s.dtype == object and [type(e) for e in s] == [str, str, str] and s.tolist() == ["a", "b", "c"]
    f = b.column(df, "f")
    assert f.dtype == np.float64 and f.tolist() == [1.5, 0.0, 3.0] and np.signbit(f[1])
    assert b.column(df, "i").dtype == np.int64


@pytest.mark.parametrize("lib", LIBS)
def test_missing_values_read_as_nan_or_none(lib):
    df = frame(lib, {"s": ["a", None], "f": [1.0, None]})
    b = backend_of(df)
    assert np.isnan(b.column(df, "f")[1])
    assert b.column(df, "s")[1] is None or (isinstance(b.column(df, "s")[1], float))


def test_pandas_duplicated_labels_are_not_a_column():
    df = pd.DataFrame([[1, 2, 3]], columns=["a", "a", "b"])
    b = backend_of(df)
    assert not b.has_column(df, "a") and b.has_column(df, "b")


@pytest.mark.parametrize("lib", LIBS)
def test_select_take_slice_keep_rows_values_and_dtypes(lib):
    df = frame(lib, {"s": ["a", "b", "c", "d"], "f": [1.0, 2.0, 3.0, 4.0], "i": [10, 20, 30, 40]})
    b = backend_of(df)
    sel = b.select(df, ["i", "s"])
    assert b.columns(sel) == ["i", "s"] and b.n_rows(sel) == 4
    taken = b.take(sel, np.array([3, 0, 0]))
    assert b.column(taken, "s").tolist() == ["d", "a", "a"] and b.column(taken, "i").tolist() == [40, 10, 10]
    assert b.column(taken, "i").dtype == np.int64 and b.column(taken, "s").dtype == object
    part = b.slice(taken, 1, 3)
    assert b.column(part, "i").tolist() == [10, 10]
    empty = b.slice(taken, 2, 2)
    assert b.n_rows(empty) == 0 and b.columns(empty) == ["i", "s"] and b.column(empty, "i").size == 0
    none = b.take(sel, np.array([], dtype=np.intp))
    assert b.n_rows(none) == 0 and b.columns(none) == ["i", "s"]


@pytest.mark.parametrize("lib", LIBS)
def test_string_codes_compare_strings_exactly(lib):
    values = ["N", "S", "N\x00", "e\u0301", "\u00e9", "E", "", "N"]
    keys = ["N", "\u00e9", "", "W"]
    df = frame(lib, {"k": values})
    got = backend_of(df).string_codes(df, "k", keys).tolist()
    want = [keys.index(v) if v in keys else len(keys) for v in values]
    assert got == want                 # "N\x00" is not "N"; a combining accent is not the precomposed letter


@pytest.mark.parametrize("lib", LIBS)
def test_only_strings_is_a_sound_shortcut(lib):
    df = frame(lib, {"s": ["a", "b"], "t": ["a", None], "f": [1.0, 2.0]})
    b = backend_of(df)
    if lib == "pandas":
        assert not b.only_strings(df, "s")              # pandas: values are checked one by one
    else:
        assert b.only_strings(df, "s") and not b.only_strings(df, "t") and not b.only_strings(df, "f")
        assert [type(e) for e in b.column(df, "s")] == [str, str]


@pytest.mark.parametrize("lib", LIBS)
def test_frame_from_builds_a_frame_of_the_same_library(lib):
    like = frame(lib, {"x": [1.0]})
    out = backend_of(like).frame_from({"region": np.array(["N", "S"], dtype=object), "median": np.array([1.5, 2.5])},
                                      like=like)
    b = backend_of(out)
    assert b.name == lib and b.columns(out) == ["region", "median"]
    assert b.column(out, "region").tolist() == ["N", "S"] and b.column(out, "median").tolist() == [1.5, 2.5]
