"""DataFrameDomain and PartitionDomain: members and non-members for pandas and Polars frames,
refusals that quote no data, the parameters of dataframe_domain, and ``import opendp_duff``
with neither library importable (in a subprocess)."""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMemberTypeError, NotAMemberValueError

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

COLUMNS = {"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float, bounds=(0.0, 10.0)),
           "age": dp.atom_domain(T=int)}
DOM = dp.dataframe_domain(COLUMNS)
SECRET = "secret-31415"
LIBS = ["pandas", "polars"]


def frame(lib, **cols):
    return pd.DataFrame(cols) if lib == "pandas" else pl.DataFrame(cols)


def good(lib, n=3):
    return frame(lib, region=["N", "S", "N"][:n], income=[1.0, 2.5, 10.0][:n], age=[30, 40, 50][:n])


def refusal_text(domain, x):
    with pytest.raises((NotAMemberTypeError, NotAMemberValueError)) as info:
        domain.admit(x)
    exc = info.value
    assert exc.__cause__ is None and exc.__context__ is None
    return str(exc), type(exc)


@pytest.mark.parametrize("lib", LIBS)
def test_a_frame_with_the_declared_columns_is_admitted_as_itself(lib):
    x = good(lib)
    assert DOM.member(x) and DOM.admit(x) is x
    extra = good(lib).with_columns(pl.lit(SECRET).alias("notes")) if lib == "polars" else good(lib).assign(notes=SECRET)
    assert DOM.member(extra)                                  # undeclared columns are allowed
    assert DOM.member(frame(lib, region=[], income=[], age=[]).cast({"income": pl.Float64, "age": pl.Int64})
                      if lib == "polars" else pd.DataFrame({"region": [], "income": [], "age": []}))


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("case,cols,error", [
    ("missing column", dict(region=["N"], income=[1.0]), NotAMemberTypeError),
    ("None in strings", dict(region=["N", None], income=[1.0, 2.0], age=[1, 2]), NotAMemberTypeError),
    ("number in strings", dict(region=[SECRET, 7], income=[1.0, 2.0], age=[1, 2]), NotAMemberTypeError),
    ("NaN", dict(region=["N", "S"], income=[1.0, math.nan], age=[1, 2]), NotAMemberValueError),
    ("missing float", dict(region=["N", "S"], income=[1.0, None], age=[1, 2]), NotAMemberValueError),
    ("out of bounds", dict(region=["N", "S"], income=[1.0, 31415.9], age=[1, 2]), NotAMemberValueError),
    ("floats as ints", dict(region=["N", "S"], income=[1.0, 2.0], age=[1.5, 31415.5]), NotAMemberTypeError),
    ("missing int", dict(region=["N", "S"], income=[1.0, 2.0], age=[1, None]), NotAMemberTypeError),
    ("strings as floats", dict(region=["N", "S"], income=[SECRET, "2"], age=[1, 2]), NotAMemberTypeError),
])
def test_non_members_are_refused_without_quoting_the_data(lib, case, cols, error):
    if lib == "polars" and case == "number in strings":
        pytest.skip("a Polars column holds one type")
    x = frame(lib, **cols) if lib == "pandas" else pl.DataFrame(cols, strict=False)
    text, kind = refusal_text(DOM, x)
    assert issubclass(kind, error), (case, text)
    assert not DOM.member(x)
    for leak in ("31415", "secret"):
        assert leak not in text


@pytest.mark.parametrize("x", [None, "N,S", [["N", 1.0, 30]], {"region": ["N"], "income": [1.0], "age": [1]},
                               np.zeros((2, 3))], ids=["None", "str", "list", "dict", "array"])
def test_things_that_are_not_frames_are_refused_by_type(x):
    text, kind = refusal_text(DOM, x)
    assert issubclass(kind, NotAMemberTypeError) and "pandas or Polars DataFrame" in text


def test_a_series_is_not_a_frame_and_a_lazy_frame_is_admitted_collected():
    assert not DOM.member(pd.Series([1.0]))
    lazy = good("polars").with_columns(pl.lit(SECRET).alias("notes")).lazy()
    admitted = DOM.admit(lazy)
    assert isinstance(admitted, pl.DataFrame) and admitted.columns == list(COLUMNS)   # declared columns only
    assert not DOM.member(good("polars").with_columns(pl.lit(math.nan).alias("income")).lazy())
    text, kind = refusal_text(DOM, pl.DataFrame({"income": [1.0]}).lazy())
    assert "'region'" in text and issubclass(kind, NotAMemberTypeError)


def test_pandas_duplicated_label_is_refused():
    x = pd.concat([good("pandas"), good("pandas")[["income"]]], axis=1)    # two "income" columns
    text, kind = refusal_text(DOM, x)
    assert "exactly one column named 'income'" in text and issubclass(kind, NotAMemberTypeError)


@pytest.mark.parametrize("lib", LIBS)
def test_size_counts_rows_and_is_shown_not_the_frame_length(lib):
    dom = dp.dataframe_domain(COLUMNS, size=2)
    assert dom.member(good(lib, n=2)) and not dom.member(good(lib, n=3))
    big = frame(lib, region=["N"] * 1234, income=[1.0] * 1234, age=[1] * 1234)
    text, kind = refusal_text(dom, big)
    assert "1234" not in text and "size 2" in text and issubclass(kind, NotAMemberValueError)


def test_pandas_missing_values_of_every_kind_are_refused_in_strings():
    for values in (["N", pd.NA], ["N", math.nan]):
        x = pd.DataFrame({"region": pd.Series(values, dtype="string" if values[1] is pd.NA else object),
                          "income": [1.0, 2.0], "age": [1, 2]})
        assert not DOM.member(x)
    cat = pd.DataFrame({"region": pd.Series(["N", "S"], dtype="category"), "income": [1.0, 2.0], "age": [1, 2]})
    assert DOM.member(cat)                      # categories of strings read as strings


def test_polars_string_column_without_nulls_is_admitted_from_its_dtype_alone():
    x = good("polars")
    assert x.get_column("region").dtype == pl.String and DOM.member(x)
    categorical = x.with_columns(pl.col("region").cast(pl.Categorical))
    assert DOM.member(categorical)              # read value by value: strings
    assert not DOM.member(x.with_columns(pl.Series("region", ["N", None, "S"])))


def test_nan_columns_admit_nan_and_missing_numbers():
    dom = dp.dataframe_domain({"income": dp.atom_domain(T=float, nan=True)})
    assert dom.member(pd.DataFrame({"income": [1.0, None]})) and dom.member(pl.DataFrame({"income": [1.0, None]}))


def test_dataframe_domain_parameters():
    with pytest.raises(TypeError, match="columns"):
        dp.dataframe_domain([("region", dp.atom_domain(T=str))])
    with pytest.raises(TypeError, match="name 1"):
        dp.dataframe_domain({1: dp.atom_domain(T=str)})
    with pytest.raises(TypeError, match="columns\\['x'\\]"):
        dp.dataframe_domain({"x": float})
    with pytest.raises((TypeError, ValueError), match="size"):
        dp.dataframe_domain(COLUMNS, size=-1)
    with pytest.raises(ValueError, match="size"):
        dp.dataframe_domain(COLUMNS, size=2 ** 53 + 1)


def test_domains_compare_by_columns_not_their_order_and_hash():
    a = dp.dataframe_domain({"x": dp.atom_domain(T=float), "y": dp.atom_domain(T=str)})
    b = dp.dataframe_domain({"y": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    c = dp.dataframe_domain({"x": dp.atom_domain(T=float), "y": dp.atom_domain(T=str)}, size=3)
    assert a == b and hash(a) == hash(b) and a != c
    assert a.columns["y"] == dp.atom_domain(T=str) and list(a.columns) == ["x", "y"]
    assert repr(c) == "DataFrameDomain(columns={'x': AtomDomain(T=float), 'y': AtomDomain(T=str)}, size=3)"
    with pytest.raises(TypeError):
        a.columns["z"] = dp.atom_domain()          # read-only


@pytest.mark.parametrize("lib", LIBS)
def test_partition_domain_members(lib):
    part = dp.dataframe_domain({"income": dp.atom_domain(T=float)})
    dom = dp.PartitionDomain(part, keys=["N", "S"])
    ok = frame(lib, income=[1.0]), frame(lib, income=[2.0, 3.0])
    assert dom.member(ok) and dom.member(list(ok)) and dom.admit(list(ok)) == ok
    assert not dom.member(ok[:1])                                   # one frame per key
    text, kind = refusal_text(dom, (ok[0], frame(lib, income=[31415.0, math.nan])))
    assert text.count("part 1") == 1 and "31415" not in text and issubclass(kind, NotAMemberValueError)
    assert not dom.member(iter(ok)) and not dom.member(ok[0])
    with pytest.raises(ValueError, match="distinct"):
        dp.PartitionDomain(part, keys=["N", "N"])
    with pytest.raises(ValueError, match="empty"):
        dp.PartitionDomain(part, keys=[])
    with pytest.raises(TypeError, match="part_domain"):
        dp.PartitionDomain(dp.vector_domain(dp.atom_domain()), keys=["N"])


def test_import_works_with_neither_pandas_nor_polars_importable(tmp_path):
    code = textwrap.dedent("""
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pandas", "polars"):
                    raise ImportError("blocked: " + name)
                return None

        sys.meta_path.insert(0, Block())
        import opendp_duff as dp
        assert "pandas" not in sys.modules and "polars" not in sys.modules
        dom = dp.dataframe_domain({"x": dp.atom_domain(T=float)})
        assert not dom.member([1.0]) and not dom.member({"x": [1.0]})
        space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        counts = space >> dp.t.then_count_by_candidates(["a", "b"])
        assert counts(["a", "a", "c"]).tolist() == [2, 0]
        try:
            import pandas  # noqa: F401
        except ImportError:
            pass
        else:
            raise AssertionError("pandas was importable")
        assert "pandas" not in sys.modules and "polars" not in sys.modules
        print("ok")
    """)
    root = str(__import__("pathlib").Path(dp.__file__).resolve().parents[1])
    res = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


def test_import_does_not_load_pandas_or_polars_when_they_are_installed():
    code = ("import sys, opendp_duff as dp\n"
            "dp.dataframe_domain({'x': dp.atom_domain()}).member([1.0])\n"
            "print(sorted(m for m in ('pandas', 'polars') if m in sys.modules))")
    root = str(__import__("pathlib").Path(dp.__file__).resolve().parents[1])
    res = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "[]", res.stderr[-2000:]
