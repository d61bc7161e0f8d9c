"""make_filter and make_with_column on pandas (numpy and nullable dtypes), Polars eager and lazy,
and parts of a partition: every engine keeps exactly the rows, and derives exactly the values,
that the reference evaluator gives on random frames (hypothesis; NaN, -0.0, infinities, int64
extremes, empty frames), including NULL, overflow and division by zero; the stability map holds
under the symmetric, identifier and grouped distances on random neighbouring frames (the
distances computed by brute force); refusals come before data and never quote it.  Spark:
test_row_wise_spark.py."""
import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import opendp_duff as dp
from helpers import canonical_rows, grouped_distance, id_distance, multiset_distance
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.expressions import evaluate_row, parse
from opendp_duff.metrics import SymmetricDistance
from opendp_duff.metrics_id import GroupedSymmetricDistance, grouped_symmetric_distance, symmetric_id_distance
from opendp_duff.transformations.row_wise import frame_schema

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

COLUMNS = {"i": dp.atom_domain(T=int), "f": dp.atom_domain(T=float, nan=True), "g": dp.atom_domain(T=float),
           "s": dp.atom_domain(T=str)}
DOMAIN = dp.dataframe_domain(COLUMNS)
TYPES = {name: elem.T for name, elem in COLUMNS.items()}
SCHEMA = frame_schema(DOMAIN)
PREDICATES = ["i > 1", "f < 2.5", "f IS NULL", "NOT (f > 0.0)", "i + 9223372036854775807 > 0", "g / f > 1.0",
              "s IN ('a', 'é') OR i = 0", "i * i >= 4 AND g BETWEEN -1.0 AND 1e300", "i = f", "-i > 0",
              "ABS(i) < 3", "f / 0 IS NULL", "s >= 'b' AND NOT f IS NOT NULL", "1 = 1", "g = -0.0"]
DERIVED = ["f / i", "g * 2.0", "1.0 * i + 9223372036854775807", "g - f", "ABS(g)", "-g", "s", "i", "3", "'k'",
           "f / 0", "g * 0.0 + f", "-0.0"]
FLOATS = [0.0, -0.0, 1.0, -1.0, 2.5, 1e308, -1e308, math.inf, -math.inf, 5e-324]
INTS = [0, 1, -1, 2, 3, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 3037000500]
STRS = ["", "a", "b", "é", "😀"]


def _cells(T, nan):
    values = {int: st.sampled_from(INTS) | st.integers(-2 ** 63, 2 ** 63 - 1),
              float: st.sampled_from(FLOATS) | st.floats(allow_nan=False),
              str: st.sampled_from(STRS) | st.text(max_size=2)}[T]
    return values | st.just(math.nan) if nan else values


@st.composite
def frames(draw, max_rows=7):
    n = draw(st.integers(0, max_rows))
    return {name: draw(st.lists(_cells(elem.T, elem.nan), min_size=n, max_size=n)) for name, elem in COLUMNS.items()}


def on_engine(columns, engine):
    if engine == "pandas":
        return pd.DataFrame(columns)
    if engine == "pandas-nullable":     # Float64 and str dtypes, a NaN stored as a missing value
        return pd.DataFrame({"i": pd.Series(columns["i"], dtype="Int64"),
                             "f": pd.Series([None if v != v else v for v in columns["f"]], dtype="Float64"),
                             "g": pd.Series(columns["g"], dtype="Float64"), "s": pd.Series(columns["s"], dtype="str")})
    frame = pl.DataFrame(columns, schema={"i": pl.Int64, "f": pl.Float64, "g": pl.Float64, "s": pl.String})
    return frame.lazy() if engine == "polars-lazy" else frame


ENGINES = ["pandas", "pandas-nullable", "polars", "polars-lazy"]


def rows_of(frame, names):
    """The rows of a result frame (pandas or Polars) as lists of Python values, NaN and nulls as None."""
    if isinstance(frame, pl.DataFrame):
        data = {name: frame.get_column(name).to_list() for name in names}
    else:
        data = {name: frame[name].tolist() for name in names}
    n = len(data[names[0]])
    return [[None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v for v in
             (data[name][r] for name in names)] for r in range(n)]


def key(value):
    """Floats by their bits (the sign of zero counts), other values as they are."""
    return ("float", value.hex()) if isinstance(value, float) else value


def reference_rows(columns):
    n = len(columns["i"])
    return [{name: columns[name][r] for name in COLUMNS} for r in range(n)]


def as_row(row):
    return [None if isinstance(v, float) and v != v else v for v in (row[name] for name in COLUMNS)]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from(PREDICATES), st.sampled_from(ENGINES))
def test_filter_keeps_the_rows_where_the_reference_is_true(columns, text, engine):
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter(text)
    rows = reference_rows(columns)
    kept = [as_row(r) for r in rows if evaluate_row(parse(text), r, SCHEMA) is True]
    out = t(on_engine(columns, engine))
    assert [[key(v) for v in r] for r in rows_of(out, list(COLUMNS))] == [[key(v) for v in r] for r in kept]
    assert t.output_domain.member(out)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from(DERIVED), st.sampled_from(ENGINES))
def test_with_column_derives_the_reference_values(columns, text, engine):
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_with_column("new", text)
    rows = reference_rows(columns)
    want = [as_row(r) + [evaluate_row(parse(text), r, SCHEMA)] for r in rows]
    out = t(on_engine(columns, engine))
    assert [[key(v) for v in r] for r in rows_of(out, [*COLUMNS, "new"])] == [[key(v) for v in r] for r in want]
    assert t.output_domain.member(out)


FIXED = {"i": [2, 9223372036854775807, -9223372036854775808, 0, 3], "f": [1.0, math.nan, -0.0, math.inf, 2.0],
         "g": [0.5, 1.0, 0.0, -math.inf, -0.0], "s": ["a", "é", "", "b", "a"]}


@pytest.mark.parametrize("engine", ENGINES)
def test_null_overflow_and_division_by_zero_on_a_fixed_frame(engine):
    keep = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter("i + 1 > 0 OR f / g > 1.0")
    # row 0: 3 > 0; row 1: overflow (NULL) OR NULL; row 2: -2^63+1 < 0 OR -0.0/0.0 (NULL); row 3: 1 > 0;
    # row 4: 4 > 0
    assert [r[0] for r in rows_of(keep(on_engine(FIXED, engine)), ["i"])] == [2, 0, 3]
    derive = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_with_column("q", "f / g")
    assert derive.output_domain.columns["q"] == dp.atom_domain(T=float, nan=True)
    q = [r[0] for r in rows_of(derive(on_engine(FIXED, engine)), ["q"])]
    assert [key(v) for v in q] == [key(2.0), None, None, None, None]   # NaN operand, zero divisors, inf / -inf


# stability: random neighbours, distances by brute force -----------------------------------------

ID_COLUMNS = {"id": dp.atom_domain(T=int), "grp": dp.atom_domain(T=str), "v": dp.atom_domain(T=float, nan=True)}
ID_DOMAIN = dp.dataframe_domain(ID_COLUMNS)
ID_TYPES = {name: elem.T for name, elem in ID_COLUMNS.items()}
ID_ROW = st.tuples(st.integers(0, 4), st.sampled_from(["A", "B", "C"]),
                   st.sampled_from([0.0, -0.0, 1.5, -2.0, 4.0, math.nan]))


def frame_of(rows):
    return pd.DataFrame({"id": [r[0] for r in rows], "grp": [r[1] for r in rows], "v": [r[2] for r in rows]},
                        columns=list(ID_COLUMNS))


def canonical(frame, names):
    columns = {name: frame[name].tolist() for name in names}
    return canonical_rows(columns, {name: ID_TYPES.get(name, float) for name in names})


def distance(metric, x, y, names):
    index = sorted(names).index
    if isinstance(metric, SymmetricDistance):
        return multiset_distance(x, y, False)
    if hasattr(metric, "identifier"):
        return id_distance(x, y, index("id"))
    return grouped_distance(x, y, [index("grp")])


METRICS = [dp.symmetric_distance(), symmetric_id_distance("id"), grouped_symmetric_distance("grp")]


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ID_ROW, max_size=8), st.lists(ID_ROW, max_size=8), st.sampled_from(METRICS),
       st.sampled_from([("filter", "v > 0.0 OR grp = 'A'"), ("filter", "v IS NULL"),
                        ("with", "v * 0.0"), ("with", "v + id")]))
def test_the_output_distance_is_within_the_map(x, y, metric, step):
    kind, text = step
    maker = dp.t.then_filter(text) if kind == "filter" else dp.t.then_with_column("w", text)
    t = (ID_DOMAIN, metric) >> maker
    names = list(ID_COLUMNS) + ([] if kind == "filter" else ["w"])
    d_in = distance(metric, canonical(frame_of(x), list(ID_COLUMNS)), canonical(frame_of(y), list(ID_COLUMNS)),
                    list(ID_COLUMNS))
    d_out = distance(metric, canonical(t(frame_of(x)), names), canonical(t(frame_of(y)), names), names)
    bound = t.map(d_in)
    assert all(a <= b for a, b in zip(d_out, bound, strict=True)) if isinstance(bound, tuple) else d_out <= bound
    assert t.check(d_in, d_in)


@pytest.mark.parametrize("metric", METRICS)
def test_the_map_is_the_identity(metric):
    for maker in (dp.t.then_filter("v > 0.0"), dp.t.then_with_column("w", "v / 2")):
        t = (ID_DOMAIN, metric) >> maker
        d = (2, 5, 3) if isinstance(metric, GroupedSymmetricDistance) else 3
        assert t.map(d) == d and t.output_metric == metric
        zero = (0, 0, 0) if isinstance(d, tuple) else 0
        assert t.map(zero) == zero


# domains ---------------------------------------------------------------------------------------

def test_output_domains():
    sized = dp.dataframe_domain(COLUMNS, size=5)
    f = (sized, dp.symmetric_distance()) >> dp.t.then_filter("i > 0")
    assert f.output_domain == dp.dataframe_domain(COLUMNS)          # same columns, size unknown
    w = (sized, dp.symmetric_distance()) >> dp.t.then_with_column("k", "i")
    assert w.output_domain == dp.dataframe_domain({**COLUMNS, "k": dp.atom_domain(T=int)}, size=5)
    w = (sized, dp.symmetric_distance()) >> dp.t.then_with_column("k", "g * 2.0")
    assert w.output_domain.columns["k"] == dp.atom_domain(T=float)   # never NULL: a literal is finite
    w = (sized, dp.symmetric_distance()) >> dp.t.then_with_column("k", "g * g")
    assert w.output_domain.columns["k"] == dp.atom_domain(T=float, nan=True)   # inf * 0 may be NaN
    w = (dp.dataframe_domain(COLUMNS, engine="polars"), dp.symmetric_distance()) >> dp.t.then_with_column("k", "s")
    assert w.output_domain == dp.dataframe_domain({**COLUMNS, "k": dp.atom_domain(T=str)}, engine="polars")


def test_undeclared_columns_are_dropped_and_never_read():
    frame = pd.DataFrame({**{k: v[:2] for k, v in FIXED.items()}, "secret": [object(), None]})
    out = ((DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter("i > 0"))(frame)
    assert list(out.columns) == list(COLUMNS)
    out = ((DOMAIN, dp.symmetric_distance()) >> dp.t.then_with_column("secret", "i"))(frame)
    assert out["secret"].tolist() == [2, 9223372036854775807]       # an undeclared name may be used


def test_parts_of_a_partition_are_filtered_and_extended():
    parts = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_partition_by("s", keys=["a", "b", "z"])
    part_domain = parts.output_domain.part_domain
    for engine in ("pandas", "polars"):
        pieces = parts(on_engine(FIXED, engine))
        f = (part_domain, dp.symmetric_distance()) >> dp.t.then_filter("i >= 2")
        w = (part_domain, dp.symmetric_distance()) >> dp.t.then_with_column("h", "g + 1")
        assert [rows_of(f(p), ["i"]) for p in pieces] == [[[2], [3]], [], []]
        derived = [[key(r[0]) for r in rows_of(w(p), ["h"])] for p in pieces]
        assert derived == [[key(1.5), key(1.0)], [key(-math.inf)], []]


# refusals --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("z > 1", ["unknown column 'z'"]), ("s > 1", ["cannot compare str with int", "s > 1"]),
    ("i +", ["position"]), ("i", ["predicate", "int"]), ("NULL = i", ["NULL"]),
])
def test_filter_refuses_before_data(text, words):
    with pytest.raises(MakeError) as info:
        dp.t.make_filter(DOMAIN, dp.symmetric_distance(), text)
    assert all(w in str(info.value) for w in words)


@pytest.mark.parametrize("name, text, words", [
    ("i", "g", ["'i'", "declared column"]), ("k", "i + 1", ["may be NULL", "int"]), ("k", "i > 0", ["predicate"]),
    ("k", "q * 2", ["unknown column 'q'"]), ("", "g", ["non-empty"]),
])
def test_with_column_refuses_before_data(name, text, words):
    with pytest.raises(MakeError) as info:
        dp.t.make_with_column(DOMAIN, dp.symmetric_distance(), name, text)
    assert all(w in str(info.value) for w in words)


def test_spaces_are_refused():
    with pytest.raises(MakeTypeError):
        dp.t.make_filter(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance(), "i > 0")
    with pytest.raises(MakeTypeError):
        dp.t.make_filter(DOMAIN, dp.change_one_distance(), "i > 0")
    with pytest.raises(MakeError, match="'id'"):
        dp.t.make_filter(DOMAIN, symmetric_id_distance("id"), "i > 0")
    with pytest.raises(MakeError, match="'grp'"):
        dp.t.make_with_column(DOMAIN, grouped_symmetric_distance("grp"), "k", "g")
    with pytest.raises(MakeError, match="at least one column"):
        dp.t.make_filter(dp.dataframe_domain({}), dp.symmetric_distance(), "1 = 1")
    with pytest.raises(MakeTypeError, match="expression"):
        dp.t.make_filter(DOMAIN, dp.symmetric_distance(), 3)
    with pytest.raises(MakeTypeError, match="name"):
        dp.t.make_with_column(DOMAIN, dp.symmetric_distance(), 3, "g")
    star = dp.dataframe_domain({"*": dp.atom_domain(T=int)})
    with pytest.raises(MakeError, match="pattern"):
        dp.t.make_filter(star, dp.symmetric_distance(), '"*" > 0')
    assert dp.t.make_filter(star.with_(engine="pandas"), dp.symmetric_distance(), '"*" > 0').map(1) == 1


def test_non_members_are_refused_without_quoting_them():
    t = (DOMAIN, dp.symmetric_distance()) >> dp.t.then_filter("i > 0")
    with pytest.raises(Exception) as info:
        t(pd.DataFrame({"i": [918273], "f": [1.0], "g": [math.nan], "s": ["private-value"]}))
    assert "private-value" not in str(info.value) and "918273" not in str(info.value)
