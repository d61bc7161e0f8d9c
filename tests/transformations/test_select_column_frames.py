"""make_select_column and make_select_columns on pandas and Polars frames: the column as an
admitted vector, chains into the vector mechanisms, stability by brute force on small frames,
the change-one metric, and bad parameters."""
from itertools import combinations_with_replacement

import numpy as np
import pytest

import opendp_duff as dp

from helpers import multiset_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

COLUMNS = {"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float), "age": dp.atom_domain(T=int)}
DOM = dp.dataframe_domain(COLUMNS)
SYM = dp.symmetric_distance()
LIBS = ["pandas", "polars"]


def frame(lib, rows):
    cols = {"region": [r[0] for r in rows], "income": [float(r[1]) for r in rows], "age": [int(r[2]) for r in rows]}
    if lib == "polars":
        return pl.DataFrame(cols, schema={"region": pl.String, "income": pl.Float64, "age": pl.Int64})
    return pd.DataFrame(cols).astype({"income": np.float64, "age": np.int64})


@pytest.mark.parametrize("lib", LIBS)
def test_selected_columns_are_admitted_vectors(lib):
    x = frame(lib, [("N", 1.5, 30), ("S", -0.0, 40)])
    for key, dtype, values in (("region", object, ["N", "S"]), ("income", np.float64, [1.5, 0.0]),
                               ("age", np.int64, [30, 40])):
        t = dp.t.make_select_column(DOM, SYM, key)
        out = t(x)
        assert out.dtype == dtype and out.tolist() == values
        assert t.output_domain == dp.vector_domain(COLUMNS[key]) and t.output_metric == SYM and t.map(3) == 3
        assert t.output_domain.member(out)


@pytest.mark.parametrize("lib", LIBS)
def test_chains_into_the_vector_mechanisms(lib):
    x = frame(lib, [("N", 1.0, 30), ("S", 2.0, 40), ("N", 9.0, 50)])
    space = DOM, SYM
    mode = space >> dp.t.then_select_column("region") >> dp.m.then_duff_mode(candidates=["N", "S"], scale=1e-9)
    assert mode(x) == "N" and mode.map(1) == 1e9
    median = (space >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort()
              >> dp.m.then_duff_median(scale=1.0))
    assert 0.0 <= median(x) <= 10.0
    count = space >> dp.t.then_select_column("age") >> dp.t.then_count()
    assert count(x) == 3


@pytest.mark.slow
@pytest.mark.parametrize("lib", LIBS)
def test_stability_by_brute_force(lib):
    universe = [("N", 1.0, 1), ("S", 1.0, 1), ("N", 2.0, 1)]
    t = dp.t.make_select_column(DOM, SYM, "region")
    frames = [list(rows) for n in range(4) for rows in combinations_with_replacement(universe, n)]
    for a in frames:
        for b in frames:
            d = multiset_distance(a, b, change_one=False)
            got = multiset_distance(t(frame(lib, a)).tolist(), t(frame(lib, b)).tolist(), change_one=False)
            assert got <= t.map(d)


def test_change_one_needs_a_size_and_keeps_it():
    with pytest.raises(ValueError, match="known size"):
        dp.t.make_select_column(DOM, dp.change_one_distance(), "income")
    sized = dp.dataframe_domain(COLUMNS, size=2)
    t = dp.t.make_select_column(sized, dp.change_one_distance(), "income")
    assert t.output_domain.size == 2 and t.map(1) == 1
    assert t(frame("pandas", [("N", 1.0, 1), ("S", 2.0, 2)])).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("key", ["missing", 1, None, ["income"]])
def test_key_must_be_a_declared_column(key):
    with pytest.raises(ValueError, match="key"):
        dp.t.make_select_column(DOM, SYM, key)


def test_input_space_is_checked():
    with pytest.raises(TypeError, match="input_domain"):
        dp.t.make_select_column(dp.vector_domain(dp.atom_domain()), SYM, "income")
    with pytest.raises(TypeError, match="input_metric"):
        dp.t.make_select_column(DOM, dp.absolute_distance(), "income")


@pytest.mark.parametrize("lib", LIBS)
def test_select_columns_keeps_rows_and_narrows_the_domain(lib):
    x = frame(lib, [("N", 1.0, 30), ("S", 2.0, 40)])
    t = dp.t.make_select_columns(DOM, SYM, ["income", "region"])
    out = t(x)
    assert list(out.columns) == ["income", "region"] and t.map(2) == 2
    assert t.output_domain == dp.dataframe_domain({"income": COLUMNS["income"], "region": COLUMNS["region"]})
    assert t.output_domain.member(out)
    assert (t >> dp.t.then_select_column("income"))(x).tolist() == [1.0, 2.0]
    sized = dp.dataframe_domain(COLUMNS, size=2)
    assert dp.t.make_select_columns(sized, dp.change_one_distance(), ["age"]).output_domain.size == 2


@pytest.mark.parametrize("keys", [[], ["income", "income"], ["nope"], "income", [1]])
def test_select_columns_bad_keys(keys):
    with pytest.raises(ValueError, match="keys"):
        dp.t.make_select_columns(DOM, SYM, keys)
