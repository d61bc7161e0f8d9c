"""make_truncate_per_id and make_truncate_per_group: parameters refused at construction, exact
integer maps, outputs that are members of the output domain, stability checked by brute force
on random neighbouring frames (pandas and Polars; persons added, removed or changed; rows
shuffled), unchanged persons keeping the same rows, -0.0/0.0 and NaN/null read as one value,
empty frames, int and str identifiers, and the charge of a grouped release after
make_partition_by and make_parallel_composition.  One statistical test (a different key keeps
different rows) has a false-failure rate below 4e-7 per attempt (about 2e-13 with its rerun);
the others are deterministic."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from helpers import canonical_rows, grouped_distance, id_distance, multiset_distance, rerun_once
from opendp_duff.errors import MakeError
from opendp_duff.metrics import PartitionBound
from opendp_duff.metrics_id import grouped_symmetric_distance, symmetric_id_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

KEY = bytes(range(16))
FLOATS = [0.0, -0.0, 1.5, math.nan, None, 2.0, -3.0]
STRINGS = ["a", "b", "é"]


def domain(id_type=int):
    return dp.dataframe_domain({"id": dp.atom_domain(T=id_type), "v": dp.atom_domain(T=float, nan=True),
                                "s": dp.atom_domain(T=str)})


TYPES = {"id": int, "v": float, "s": str}
SPACE = domain(), symmetric_id_distance("id")


def per_id(k, key=KEY, space=SPACE):
    return dp.t.make_truncate_per_id(*space, contributions=k, key=key)


def per_group(by, g, k, key=KEY, space=SPACE):
    return dp.t.make_truncate_per_group(*space, by=by, max_groups=g, contributions=k, key=key)


# --- construction and maps ------------------------------------------------------------------

@pytest.mark.parametrize("build, error, match", [
    (lambda: dp.t.make_truncate_per_id(domain(), dp.symmetric_distance(), 1, KEY), TypeError, "input_metric"),
    (lambda: dp.t.make_truncate_per_id(dp.vector_domain(dp.atom_domain()), SPACE[1], 1, KEY), TypeError,
     "input_domain"),
    (lambda: per_id(1, space=(domain(), symmetric_id_distance("user"))), MakeError, "identifier"),
    (lambda: per_id(1, space=(domain(float), SPACE[1])), MakeError, "int or str"),
    (lambda: per_id(0), MakeError, "contributions"),
    (lambda: per_id(-1), MakeError, "contributions"),
    (lambda: per_id(1.5), TypeError, "contributions"),
    (lambda: per_id(True), TypeError, "contributions"),
    (lambda: per_id(2 ** 53 + 1), MakeError, "contributions"),
    (lambda: per_id(1, key=bytes(8)), MakeError, "key"),
    (lambda: per_id(1, key="secret-key-16-ch"), TypeError, "key"),
    (lambda: per_group("region", 1, 1), MakeError, "by"),
    (lambda: per_group(["s", "s"], 1, 1), MakeError, "by"),
    (lambda: per_group([], 1, 1), MakeError, "by"),
    (lambda: per_group("s", 0, 1), MakeError, "max_groups"),
    (lambda: per_group("s", 1, 0), MakeError, "contributions"),
    (lambda: per_group("s", 1, 1, space=(domain(), dp.symmetric_distance())), TypeError, "input_metric"),
])
def test_bad_parameters_are_refused(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_maps_are_exact_integers():
    t, grouped = per_id(3), per_group(["s", "v"], 2, 5)
    for d in (0, 1, 2, 7, 2 ** 60):
        assert t.map(d) == 3 * d and type(t.map(d)) is int
        assert grouped.map(d) == PartitionBound(2 * d, 10 * d, 5 * d)
    assert t.check(1, 3) and not t.check(1, 2)
    assert grouped.check(1, (2, 10, 5)) and not grouped.check(1, (2, 9, 5))
    with pytest.raises(ValueError):
        t.map(-1)


def test_spaces():
    t, grouped = per_id(2), per_group("s", 1, 2)
    out = dp.dataframe_domain(domain().columns)
    assert t.output_domain == grouped.output_domain == out
    assert t.output_metric == dp.symmetric_distance()
    assert grouped.output_metric == grouped_symmetric_distance("s")
    assert per_id(2, space=(domain().with_(size=4), SPACE[1])).output_domain == out     # the size is not kept


def test_then_forms_chain():
    t = SPACE >> dp.t.then_truncate_per_id(contributions=2, key=KEY) >> dp.t.then_select_column("v")
    assert t.map(2) == 4
    g = SPACE >> dp.t.then_truncate_per_group("s", max_groups=2, contributions=1, key=7)
    assert g.map(1) == (2, 2, 1)


# --- the function ----------------------------------------------------------------------------

def random_person(rng, person, n):
    return [(person, FLOATS[rng.integers(len(FLOATS))], STRINGS[rng.integers(len(STRINGS))]) for _ in range(n)]


def random_frame_rows(rng, persons):
    """Rows of persons 0..persons-1, some with many rows."""
    rows = []
    for u in range(persons):
        rows += random_person(rng, u, int(rng.choice([1, 2, 3, 8, 20])))
    return rows


def neighbour(rng, rows, persons):
    """Remove some persons, add some, rewrite one; shuffle."""
    removed = set(rng.choice(persons, size=min(persons, int(rng.integers(0, 3))), replace=False).tolist())
    out = [r for r in rows if r[0] not in removed]
    for u in range(persons, persons + int(rng.integers(0, 3))):
        out += random_person(rng, u, int(rng.integers(1, 15)))
    if rng.random() < 0.5:
        u = int(rng.integers(persons))
        out = [r for r in out if r[0] != u] + random_person(rng, u, int(rng.integers(1, 6)))
    return [out[i] for i in rng.permutation(len(out))]


def as_frame(rows, library):
    columns = {"id": [r[0] for r in rows], "v": [r[1] for r in rows], "s": [r[2] for r in rows]}
    if library == "pandas":
        return pd.DataFrame({"id": np.array(columns["id"], dtype=np.int64),
                             "v": np.array([np.nan if v is None else v for v in columns["v"]], dtype=np.float64),
                             "s": columns["s"]})
    return pl.DataFrame(columns, schema={"id": pl.Int64, "v": pl.Float64, "s": pl.String})


def canonical(frame):
    columns = frame.to_dict(as_series=False) if isinstance(frame, pl.DataFrame) else frame.to_dict("list")
    return canonical_rows(columns, TYPES)


def by_person(rows):
    people = {}
    for r in rows:
        people.setdefault(r[0], []).append(r)
    return {u: sorted(rs) for u, rs in people.items()}


ID = sorted(TYPES).index("id")


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_stability_by_brute_force(library, k):
    rng = np.random.default_rng(10 + k)
    t = per_id(k)
    for _ in range(15):
        persons = int(rng.integers(1, 6))
        x = random_frame_rows(rng, persons)
        y = neighbour(rng, x, persons)
        cx, cy = canonical(as_frame(x, library)), canonical(as_frame(y, library))
        tx, ty = canonical(t(as_frame(x, library))), canonical(t(as_frame(y, library)))
        d = id_distance(cx, cy, ID)
        assert multiset_distance(tx, ty, False) <= t.map(d)
        px, py, kx, ky = by_person(cx), by_person(cy), by_person(tx), by_person(ty)
        for u in set(px) & set(py):
            if px[u] == py[u]:
                assert kx[u] == ky[u]                     # a person's kept rows depend on their rows only
        for u, kept in kx.items():
            assert len(kept) == min(k, len(px[u]))


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("by, g, k", [("s", 1, 1), ("s", 2, 3), (["v"], 2, 2), (["s", "v"], 3, 1)])
def test_grouped_stability_by_brute_force(library, by, g, k):
    rng = np.random.default_rng(20 + g + 3 * k)
    t = per_group(by, g, k)
    by_index = tuple(sorted(TYPES).index(b) for b in t.output_metric.by)
    for _ in range(15):
        persons = int(rng.integers(1, 6))
        x = random_frame_rows(rng, persons)
        y = neighbour(rng, x, persons)
        d = id_distance(canonical(as_frame(x, library)), canonical(as_frame(y, library)), ID)
        tx, ty = canonical(t(as_frame(x, library))), canonical(t(as_frame(y, library)))
        assert PartitionBound(*grouped_distance(tx, ty, by_index)) <= t.map(d)
        for kept in by_person(tx).values():
            groups = {tuple(r[i] for i in by_index) for r in kept}
            assert len(groups) <= g
            assert all(sum(1 for r in kept if tuple(r[i] for i in by_index) == v) <= k for v in groups)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_deterministic_given_the_key_and_blind_to_row_order(library):
    rng = np.random.default_rng(30)
    rows = random_frame_rows(rng, 6)
    for t in (per_id(2), per_group("s", 1, 2)):
        once = sorted(canonical(t(as_frame(rows, library))))
        for _ in range(3):
            shuffled = [rows[i] for i in rng.permutation(len(rows))]
            assert sorted(canonical(t(as_frame(shuffled, library)))) == once


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_zero_signs_and_missing_values_are_one_value(library):
    """A person's rows spelled with -0.0 or 0.0, NaN or null: the same rows are kept."""
    a = [(1, -0.0, "a"), (1, math.nan, "a"), (1, 2.0, "a"), (1, 0.0, "b"), (1, None, "b"), (2, 1.0, "a")]
    b = [(1, 0.0, "a"), (1, None, "a"), (1, 2.0, "a"), (1, -0.0, "b"), (1, math.nan, "b"), (2, 1.0, "a")]
    for t in (per_id(2), per_id(4), per_group("v", 2, 1), per_group(["s", "v"], 3, 1)):
        ta, tb = canonical(t(as_frame(a, library))), canonical(t(as_frame(b, library)))
        assert sorted(ta) == sorted(tb)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_empty_frames(library):
    for t in (per_id(1), per_group("s", 1, 1)):
        out = t(as_frame([], library))
        assert len(out) == 0 and list(out.columns) == ["id", "v", "s"] and t.output_domain.member(out)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_string_identifiers(library):
    space = domain(str), symmetric_id_distance("id")
    columns = {"id": ["ann", "ann", "ann", "bo", "", ""], "v": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
               "s": ["a", "b", "a", "a", "b", "b"]}
    frame = pd.DataFrame(columns) if library == "pandas" else pl.DataFrame(columns)
    out = per_id(2, space=space)(frame)
    assert sorted(out["id"].to_list()) == ["", "", "ann", "ann", "bo"]
    grouped = per_group("s", 1, 5, space=space)(frame)
    kept = {(u, s) for u, s in zip(grouped["id"].to_list(), grouped["s"].to_list(), strict=True)}
    assert len([u for u, _ in kept if u == "ann"]) == 1 and ("bo", "a") in kept and ("", "b") in kept


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_outputs_are_members_with_the_input_dtypes(library):
    rows = random_frame_rows(np.random.default_rng(31), 4)
    frame = as_frame(rows, library)
    for t in (per_id(2), per_group("s", 1, 1)):
        out = t(frame)
        assert type(out) is type(frame) and t.output_domain.member(out)
        assert [str(d) for d in out.dtypes] == [str(d) for d in frame.dtypes]


@pytest.mark.slow
@rerun_once(40)
def test_a_different_key_keeps_different_rows():
    """One person, 20 distinct rows, k = 2, 400 fresh keys: under a random-looking keyed hash each
    row is kept with probability 1/10, so each count is Binomial(400, 0.1) (mean 40); all 20
    counts lie in [5, 75] except with probability below 20 * 1.9e-8 < 4e-7."""
    frame = pd.DataFrame({"id": [7] * 20, "v": np.arange(20, dtype=np.float64), "s": ["a"] * 20})
    counts = np.zeros(20, dtype=int)
    for _ in range(400):
        kept = per_id(2, key=dp.t.draw_truncation_key())(frame)["v"].to_numpy().astype(int)
        counts[kept] += 1
    assert counts.sum() == 800
    assert counts.min() >= 5 and counts.max() <= 75


# --- grouped releases ----------------------------------------------------------------------------

def test_partition_then_parallel_composition_charges_g_parts_of_k_rows():
    dom = dp.dataframe_domain({"user": dp.atom_domain(T=int), "airline": dp.atom_domain(T=str),
                               "delay": dp.atom_domain(T=float)})
    truncated = (dom, symmetric_id_distance("user")) >> dp.t.then_truncate_per_group(
        "airline", max_groups=2, contributions=3, key=KEY)
    parts = truncated >> dp.t.then_partition_by("airline", keys=["A", "B", "C", "D"])
    assert parts.map(1) == PartitionBound(2, 6, 3)
    median = ((parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("delay")
              >> dp.t.then_clamp((0.0, 100.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0))
    grouped = parts >> dp.c.then_parallel_composition(median)
    assert grouped.map(1) == 2 * median.map(3)
    frame = pd.DataFrame({"user": [1] * 12 + [2], "airline": list("AAAABBBBCCCC") + ["D"],
                          "delay": [5.0] * 13})
    releases = grouped(frame)
    assert len(releases) == 4


def test_partition_by_carries_the_grouped_triple():
    t = dp.t.make_partition_by(domain(), grouped_symmetric_distance("s"), "s", keys=["a", "b"])
    assert t.output_metric == dp.partition_distance(dp.symmetric_distance())
    assert t.map((1, 2, 3)) == PartitionBound(1, 2, 3) and t.map((0, 0, 0)) == (0, 0, 0)
    with pytest.raises(ValueError):
        t.map(1)                                     # the grouped metric's distances are triples


def test_partition_by_refuses_a_grouped_metric_of_other_columns():
    for by in (["s", "v"], "v"):
        t = per_group(by, 1, 1)
        with pytest.raises(MakeError, match="must count the groups of by"):
            t >> dp.t.then_partition_by("s", keys=["a"])
