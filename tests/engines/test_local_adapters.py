"""The pandas and Polars engines' reads (opendp_duff.engines._pandas, _polars): each operation the
proofs assume of the libraries ((L1) and (L2) in proofs/engines/local.tex), checked on examples,
awkward ones included: duplicated labels, missing values, empty frames, keys absent from the data,
-0.0, strings that differ only in a trailing NUL or a combining accent, and Polars Enum and
Categorical key columns with keys outside their categories."""
import numpy as np
import pytest

from opendp_duff.engines import engine_for
from opendp_duff.errors import MakeTypeError

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

LIBS = ["pandas", "polars"]


def frame(lib, cols):
    return pd.DataFrame(cols) if lib == "pandas" else pl.DataFrame(cols)


def test_engines_recognise_their_data_by_type():
    assert engine_for(pd.DataFrame({"x": [1]})).name == "pandas"
    assert engine_for(pl.DataFrame({"x": [1]})).name == "polars"
    assert engine_for(pl.DataFrame({"x": [1]}).lazy()).name == "polars"
    assert engine_for(pd.Series([1])).name == "pandas" and engine_for(pl.Series([1])).name == "polars"
    assert engine_for([1]).name == "numpy" and engine_for(np.zeros(2)).name == "numpy"
    for frame_ in (pd.DataFrame({"x": [1]}), pl.DataFrame({"x": [1]}), pl.DataFrame({"x": [1]}).lazy()):
        assert engine_for(frame_).is_frame(frame_)
    for column in (pd.Series([1]), pl.Series([1]), np.zeros(2), [1.0]):
        assert not engine_for(column).is_frame(column)
    for other in (None, {"x": [1]}, np.zeros((2, 2)), "text"):
        with pytest.raises(MakeTypeError):
            engine_for(other)


@pytest.mark.parametrize("lib", LIBS)
def test_columns_rows_and_reading(lib):
    df = frame(lib, {"s": ["a", "b", "c"], "f": [1.5, -0.0, 3.0], "i": [1, 2, 3]})
    b = engine_for(df)
    assert b.columns(df) == ["s", "f", "i"] and b.n_rows(df) == 3
    assert b.has_column(df, "f") and not b.has_column(df, "g")
    s = b.read_column(df, "s")
    assert s.dtype == object and [type(e) for e in s] == [str, str, str] and s.tolist() == ["a", "b", "c"]
    f = b.read_column(df, "f")
    assert f.dtype == np.float64 and f.tolist() == [1.5, 0.0, 3.0] and np.signbit(f[1])
    assert b.read_column(df, "i").dtype == np.int64


@pytest.mark.parametrize("lib", LIBS)
def test_missing_values_read_as_nan_or_none(lib):
    df = frame(lib, {"s": ["a", None], "f": [1.0, None]})
    b = engine_for(df)
    assert np.isnan(b.read_column(df, "f")[1])
    assert b.read_column(df, "s")[1] is None or (isinstance(b.read_column(df, "s")[1], float))


def test_pandas_duplicated_labels_are_not_a_column():
    df = pd.DataFrame([[1, 2, 3]], columns=["a", "a", "b"])
    b = engine_for(df)
    assert not b.has_column(df, "a") and b.has_column(df, "b")


@pytest.mark.parametrize("lib", LIBS)
def test_take_columns_keeps_rows_values_and_dtypes(lib):
    df = frame(lib, {"s": ["a", "b", "c", "d"], "f": [1.0, 2.0, 3.0, 4.0], "i": [10, 20, 30, 40]})
    b = engine_for(df)
    sel = b.take_columns(df, ["i", "s"])
    assert b.columns(sel) == ["i", "s"] and b.n_rows(sel) == 4
    assert b.read_column(sel, "s").tolist() == ["a", "b", "c", "d"] and b.read_column(sel, "i").dtype == np.int64


@pytest.mark.parametrize("lib", LIBS)
def test_string_codes_compare_strings_exactly(lib):
    values = ["N", "S", "N\x00", "e\u0301", "\u00e9", "E", "", "N"]
    keys = ["N", "\u00e9", "", "W"]
    df = frame(lib, {"k": values})
    got = engine_for(df).string_codes(df, "k", keys).tolist()
    want = [keys.index(v) if v in keys else len(keys) for v in values]
    assert got == want                 # "N\x00" is not "N"; a combining accent is not the precomposed letter


@pytest.mark.parametrize("dtype", ["enum", "categorical"])
def test_polars_enum_and_categorical_keys_outside_the_categories_code_as_no_key(dtype):
    kind = pl.Enum(["a", "b"]) if dtype == "enum" else pl.Categorical
    df = pl.DataFrame({"k": pl.Series(["a", "b", "a"], dtype=kind)})
    assert engine_for(df).string_codes(df, "k", ["a", "zz"]).tolist() == [0, 2, 0]   # never raises


@pytest.mark.parametrize("lib", LIBS)
def test_only_strings_is_a_sound_shortcut(lib):
    df = frame(lib, {"s": ["a", "b"], "t": ["a", None], "f": [1.0, 2.0]})
    b = engine_for(df)
    if lib == "pandas":
        assert not b.only_strings(df, "s")              # pandas: values are checked one by one
    else:
        assert b.only_strings(df, "s") and not b.only_strings(df, "t") and not b.only_strings(df, "f")
        assert [type(e) for e in b.read_column(df, "s")] == [str, str]


@pytest.mark.parametrize("lib", LIBS)
def test_result_frame_builds_a_frame_of_the_same_library(lib):
    like = frame(lib, {"x": [1.0]})
    out = engine_for(like).result_frame(like, {"region": ["N", "S"], "median": [1.5, 2.5]})
    b = engine_for(out)
    assert b.name == lib and b.columns(out) == ["region", "median"]
    assert b.read_column(out, "region").tolist() == ["N", "S"] and b.read_column(out, "median").tolist() == [1.5, 2.5]


@pytest.mark.parametrize("lib", LIBS)
def test_snapshots_do_not_follow_the_callers_object(lib):
    df = frame(lib, {"v": [1.0, 2.0]})
    copy = engine_for(df).snapshot(df)
    if lib == "pandas":
        df.loc[0, "v"] = 9.0
    else:
        df[0, "v"] = 9.0
    assert engine_for(copy).read_column(copy, "v").tolist() == [1.0, 2.0]
    lazy = pl.DataFrame({"v": [1.0]}).lazy()
    assert isinstance(engine_for(lazy).snapshot(lazy), pl.DataFrame)
