"""The engine layer: the registry (one place, by type, no import of a library), the domains that
name an engine, the one domain protocol (check never raises; member and admit from it), public
Metric and Measure bases, snapshots, broadcast views refused in O(1), the local split (parts are
views of arrays of their own; keys past 2^16 by the two-pass radix; Polars Enum and Categorical
keys; a part split again), and constructors that do not run through an engine refusing its
domains at construction."""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.membership import Refusal
from opendp_duff.engines import (ENGINES, LOCAL, LocalPart, column_engine, column_engine_names, engine_for,
                                 engine_named, frame_engine_names, snapshot)

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

SYM = dp.symmetric_distance()
COLUMNS = {"k": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}


def test_the_registry_names_each_engine_once():
    names = [e.name for e in ENGINES]
    assert sorted(names) == ["numpy", "pandas", "polars", "spark"] and len(set(names)) == len(names)
    assert engine_named("spark").name == "spark" and LOCAL.name == "numpy"
    assert column_engine_names() == ["spark"] and sorted(frame_engine_names()) == ["pandas", "polars", "spark"]
    with pytest.raises(dp.MakeError, match="engine"):
        engine_named("dask")
    assert column_engine(dp.vector_domain(dp.atom_domain(T=float))) is LOCAL


@pytest.mark.slow    # a new interpreter
def test_importing_the_package_imports_no_frame_library():
    code = textwrap.dedent("""
        import sys
        import opendp_duff, opendp_duff.engines
        print(sorted(m for m in ("pandas", "polars", "pyspark") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_domains_name_engines_that_exist():
    assert dp.vector_domain(dp.atom_domain(T=float), engine="spark").engine == "spark"
    assert "engine='spark'" in repr(dp.dataframe_domain(COLUMNS, engine="spark"))
    for bad in ("pandas", "numpy", "dask"):                  # local columns are numpy arrays: engine=None
        with pytest.raises(dp.MakeError, match="engine"):
            dp.vector_domain(dp.atom_domain(T=float), engine=bad)
    for bad in ("numpy", "dask"):
        with pytest.raises(dp.MakeError, match="engine"):
            dp.dataframe_domain(COLUMNS, engine=bad)
    assert dp.dataframe_domain(COLUMNS, engine="spark").column_domain("x") == dp.vector_domain(
        dp.atom_domain(T=float), engine="spark")


def test_a_frame_domain_naming_a_library_admits_that_library_only():
    frame = {"k": ["a", "b"], "x": [1.0, 2.0]}
    pandas_only = dp.dataframe_domain(COLUMNS, engine="pandas")
    assert pandas_only.member(pd.DataFrame(frame)) and not pandas_only.member(pl.DataFrame(frame))
    assert dp.dataframe_domain(COLUMNS, engine="polars").member(pl.DataFrame(frame).lazy())
    assert dp.dataframe_domain(COLUMNS).member(pd.DataFrame(frame)) and dp.dataframe_domain(COLUMNS).member(
        pl.DataFrame(frame))


class Hostile:
    """An object whose every attribute access raises, quoting a secret."""

    def __getattribute__(self, name):
        raise RuntimeError("secret-2718")


@pytest.mark.parametrize("domain", [
    dp.atom_domain(T=float), dp.vector_domain(dp.atom_domain(T=float)), dp.dataframe_domain(COLUMNS),
    dp.dataframe_domain(COLUMNS, engine="spark"), dp.vector_domain(dp.atom_domain(T=float), engine="spark"),
])
@pytest.mark.parametrize("make_x", [Hostile, lambda: None, lambda: "text", lambda: {"x": [1.0]},
                                    lambda: [math.nan], object],
                         ids=["hostile", "none", "text", "dict", "nan", "object"])
def test_check_never_raises_and_member_and_admit_follow_from_it(domain, make_x):
    x = make_x()
    value = domain.check(x)
    assert domain.member(x) == (not isinstance(value, Refusal))
    if isinstance(value, Refusal):
        assert "secret" not in value.requirement
        with pytest.raises(dp.NotAMember) as info:
            domain.admit(x)
        assert "secret" not in str(info.value) and info.value.__cause__ is None


def test_metric_and_measure_are_public_bases():
    assert all(isinstance(m, dp.Metric) for m in (SYM, dp.change_one_distance(), dp.partition_distance(SYM)))
    assert all(isinstance(m, dp.Measure) for m in (dp.max_divergence(), dp.zero_concentrated_divergence(),
                                                   dp.approximate_divergence(), dp.smoothed_max_divergence()))


def test_a_broadcast_view_is_refused_at_once_whatever_its_length():
    view = np.broadcast_to(np.float64(1.0), (2 ** 40,))       # 8 TiB of records backed by 8 bytes
    refusal = dp.vector_domain(dp.atom_domain(T=float)).check(view)
    assert isinstance(refusal, Refusal) and "broadcast" in refusal.requirement
    assert dp.vector_domain(dp.atom_domain(T=float)).member(np.broadcast_to(np.float64(1.0), (1,)))
    assert dp.vector_domain(dp.atom_domain(T=int)).member(np.arange(6)[::2])   # a positive stride is fine


def test_snapshots_do_not_follow_the_callers_objects():
    arr = np.array([1.0, 2.0])
    copy = snapshot(arr)
    arr[0] = math.nan
    assert copy.tolist() == [1.0, 2.0]
    frames = (pd.DataFrame({"x": [1.0]}), pl.DataFrame({"x": [1.0]}))
    copies = snapshot(frames)
    frames[0].loc[0, "x"] = 9.0
    frames[1][0, "x"] = 9.0
    assert copies[0]["x"].tolist() == [1.0] and copies[1]["x"].to_list() == [1.0] and type(copies) is tuple
    assert isinstance(snapshot(pl.DataFrame({"x": [1.0]}).lazy()), pl.DataFrame)
    assert snapshot(0.5) == 0.5 and snapshot([1, 2]) == [1, 2]


def _split(df, keys, columns=COLUMNS, by="k"):
    t = (dp.dataframe_domain(columns), SYM) >> dp.t.then_partition_by(by, keys=keys)
    return t, t(df)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_parts_are_views_of_arrays_of_their_own(lib):
    make = pd.DataFrame if lib == "pandas" else pl.DataFrame
    df = make({"k": ["a", "b", "a", "c"], "x": [1.0, 2.0, 3.0, 4.0], "secret": ["s1", "s2", "s3", "s4"]})
    _, parts = _split(df, ["a", "b", "z"])
    assert [len(p) for p in parts] == [2, 1, 0] and [p.column("x").tolist() for p in parts] == [[1.0, 3.0], [2.0], []]
    assert all(isinstance(p, LocalPart) for p in parts) and "1.0" not in repr(parts[0])
    assert engine_for(parts[0]).name == lib
    frame = parts[0].frame()
    assert engine_for(frame).name == lib and list(frame.columns) == ["k", "x"]   # declared columns only
    if lib == "pandas":
        df.loc[0, "x"] = math.nan
    else:
        df[0, "x"] = math.nan
    assert parts[0].column("x").tolist() == [1.0, 3.0] and list(parts[0]["x"]) == [1.0, 3.0]


def test_a_part_can_be_split_again():
    df = pd.DataFrame({"k": ["a", "b", "a", "a"], "j": [1, 1, 2, 1], "x": [1.0, 2.0, 3.0, 4.0]})
    columns = {"k": dp.atom_domain(T=str), "j": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)}
    t, parts = _split(df, ["a", "b"], columns)
    inner = (t.output_domain.part_domain, SYM) >> dp.t.then_partition_by("j", keys=[1, 2])
    assert [p.column("x").tolist() for p in inner(parts[0])] == [[1.0, 4.0], [3.0]]
    strings = (t.output_domain.part_domain, SYM) >> dp.t.then_partition_by("k", keys=["a", "q"])
    assert [p.column("x").tolist() for p in strings(parts[0])] == [[1.0, 3.0, 4.0], []]


@pytest.mark.parametrize("kind", ["enum", "categorical"])
def test_polars_enum_and_categorical_keys_outside_the_categories_get_empty_parts(kind):
    dtype = pl.Enum(["a", "b"]) if kind == "enum" else pl.Categorical
    df = pl.DataFrame({"k": pl.Series(["a", "b", "a"], dtype=dtype), "x": [1.0, 2.0, 3.0]})
    t, parts = _split(df, ["a", "zz", "b"])
    assert [p.column("x").tolist() for p in parts] == [[1.0, 3.0], [], [2.0]]
    grouped = t >> dp.c.then_parallel_composition(
        (t.output_domain.part_domain, SYM) >> dp.t.then_select_column("x") >> dp.t.then_count()
        >> dp.m.then_laplace(0.0))
    assert grouped(df) == (2.0, 0.0, 1.0)                 # never raises inside the release


@pytest.mark.slow    # 70,000 keys validated
def test_many_keys_use_the_two_pass_radix_and_match_a_direct_grouping():
    rng = np.random.default_rng(3)
    k = 70_000
    g = rng.integers(0, k + 50, 20_000)                    # some rows match no key
    x = np.arange(g.size, dtype=np.float64)
    _, parts = _split(pd.DataFrame({"g": g, "x": x}), list(range(k)),
                      {"g": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)}, by="g")
    for j in [0, 1, 65_535, 65_536, 69_999, *rng.integers(0, k, 30).tolist()]:
        assert parts[j].column("x").tolist() == x[g == j].tolist()
    assert sum(len(p) for p in parts) == int((g < k).sum())


def test_a_partition_of_parts_is_admitted_part_by_part():
    t, parts = _split(pd.DataFrame({"k": ["a", "b"], "x": [1.0, 2.0]}), ["a", "b"])
    domain = t.output_domain
    assert domain.check(parts) == parts and domain.member(list(parts))
    assert isinstance(domain.check(parts[:1]), Refusal)
    bounded = dp.PartitionDomain(dp.dataframe_domain({"x": dp.atom_domain(T=float, bounds=(0.0, 1.5))}), ["a", "b"])
    refusal = bounded.check(parts)
    assert isinstance(refusal, Refusal) and refusal.requirement.startswith("part 1")


def test_constructors_that_do_not_run_through_an_engine_refuse_its_domains():
    spark_column = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), engine="spark"), SYM
    with pytest.raises(dp.MakeError, match="spark"):
        dp.t.make_count_by_key(*spark_column)
    with pytest.raises(dp.MakeError, match="engine"):
        dp.m.make_laplace(spark_column[0], dp.l1_distance(T=float), scale=1.0)
    counts = spark_column >> dp.t.then_count_by_candidates([0.0, 1.0])   # counted by Spark: local scores
    assert counts.output_domain.engine is None
    assert (counts >> dp.m.then_report_noisy_max_gumbel(scale=1.0)).map(1) == 1.0
