"""make_parallel_composition: every key released in order (empty parts included), the map
against a brute force over the splits of a person's rows among the parts, in exact rational
arithmetic (linear, convex, concave, non-monotone and partly infinite inner maps, the three
measures), the safe bound beyond the exact programme, the terms for parts at distance 0,
mismatched pieces, and the audit: the exact privacy loss of a grouped Duff mode and a grouped
Duff median between neighbouring frames, computed from the exact laws of the parts, within
the map."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import arithmetic as ar
from opendp_duff.audit._pairs import ProductPair, pair_of
from opendp_duff.core import Measurement
from opendp_duff.measures import MaxDivergence

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

SYM = dp.symmetric_distance()
COLUMNS = {"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)}
DOM = dp.dataframe_domain(COLUMNS)
KEYS = ["N", "S", "W"]
PARTS = (DOM, SYM) >> dp.t.then_partition_by("region", keys=KEYS)
PART_SPACE = PARTS.output_domain.part_domain, SYM


def counting(map_zero=0.0, privacy_map=None):
    """A measurement whose release is the number of rows (no noise: only its shape is used)
    and whose map is d/2 + map_zero (or ``privacy_map``), for testing the bookkeeping of the
    composition."""
    return Measurement(PART_SPACE[0], SYM, MaxDivergence(), lambda part: len(part),
                       privacy_map or (lambda d: 0.5 * d + (map_zero if d == 0 else 0.0)))


def brute_force(inner_map, d_in, n_parts, component=None):
    """The supremum over splits, by enumeration in exact rationals: h(k) = min(p(k..q)); at most
    m = min(l0, l1, K) parts at distances k_i in [1, q] with sum k_i <= l1 cost h(k_i), the
    other parts h(0); for a component of (eps, delta) pairs h = p (no minimum across distances,
    which would mix two guarantees)."""
    l0, l1, linf = d_in
    q, m = min(linf, l1), min(l0, l1, n_parts)
    p = [inner_map(k) if component is None else inner_map(k)[component] for k in range(q + 1)]
    h = [min(p[k:]) for k in range(q + 1)] if component is None else p   # pairs: one k per part
    if math.inf in h[:1] or (m and q and math.inf in h):
        return math.inf
    best = Fraction(0)

    def splits(parts_left, rows_left, total):
        nonlocal best
        best = max(best, total)
        if parts_left:
            for k in range(1, min(q, rows_left) + 1):
                splits(parts_left - 1, rows_left - k, total + Fraction(h[k]) - Fraction(h[0]))
    if q:
        splits(m, l1, Fraction(0))
    return ar.up(n_parts * Fraction(h[0]) + best)


DISTANCES = [(1, 1, 1), (2, 5, 3), (5, 2, 9), (9, 9, 9), (0, 4, 4), (3, 3, 0), (1, 0, 1), (4, 7, 2), (2, 8, 8)]
MAPS = {
    "linear": lambda d: d / 3.0,
    "convex": lambda d: d * d / 7.0,
    "concave": lambda d: math.sqrt(d) / 3.0,
    "zero plus": lambda d: 0.25 + d / 2.0,
    "dips": lambda d: [0.1, 3.0, 1.0, 5.0, 2.0, 9.0][min(d, 5)] * (1 + d // 6),
    "inf beyond 3": lambda d: d / 2.0 if d <= 3 else math.inf,
}


@pytest.mark.usefixtures("honest_but_curious")      # counting() is user-built
@pytest.mark.parametrize("name", sorted(MAPS))
@pytest.mark.parametrize("d", DISTANCES)
def test_map_is_the_exact_supremum_over_splits(name, d):
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, counting(privacy_map=MAPS[name]))
    assert pc.map(d) == brute_force(MAPS[name], d, len(KEYS))


@pytest.mark.usefixtures("honest_but_curious")      # counting() is user-built
def test_pairs_take_one_distance_per_part_for_both_components():
    """(eps, delta) guarantees at two distances do not combine componentwise: a part at distance 1
    is (1, 0.1)-close, not (1, 0.05)-close because it is also (2, 0.05)-close at distance 2."""
    table = [(0.0, 0.0), (1.0, 0.1), (2.0, 0.05), (2.5, 0.2)]
    inner = Measurement(PART_SPACE[0], SYM, dp.approximate_divergence(), lambda part: len(part),
                        lambda d: table[min(d, 3)])
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, inner)
    assert pc.map((2, 3, 2)) == (3.0, ar.up(Fraction(0.1) + Fraction(0.1)))   # parts {1, 2}; parts {1, 1}
    for d in DISTANCES:
        eps, delta = pc.map(d)
        assert eps == brute_force(inner.map, d, len(KEYS), component=0)
        assert delta == min(1.0, brute_force(inner.map, d, len(KEYS), component=1))


def test_a_person_with_k_rows_costs_a_linear_map_once():
    inner = laplace_count(2.0)                           # map(k) = k / 2
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, inner)
    for k in range(1, 9):
        assert pc.map((k, k, k)) == inner.map(k) == k / 2.0   # not min(k, 3) * k / 2


@pytest.mark.parametrize("scale", [0.3, 1.0, 7.0, 1e-300])
@pytest.mark.parametrize("d", DISTANCES)
def test_pure_map_against_brute_force(scale, d):
    inner = laplace_count(scale)
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, inner)
    got = pc.map(d)
    assert got == brute_force(inner.map, d, len(KEYS))
    l0, l1, linf = d                                     # a linear map: every row that can differ counts once
    rows = min(l1, min(l0, l1, len(KEYS)) * min(linf, l1))
    assert got == math.inf or Fraction(got) >= rows / Fraction(scale)


def test_large_distances_use_the_safe_bound():
    inner = laplace_count(1.0)
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, inner)
    d = (400, 400, 400)                                  # beyond the exact programme
    m, q = min(400, len(KEYS)), 400
    assert pc.map(d) == ar.up(m * Fraction(inner.map(q))) >= brute_force(inner.map, (1, 400, 400), len(KEYS))


@pytest.mark.usefixtures("honest_but_curious")      # counting() is user-built
@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_every_key_is_released_in_order(lib):
    make = pd.DataFrame if lib == "pandas" else pl.DataFrame
    grouped = PARTS >> dp.c.then_parallel_composition(counting())
    x = make({"region": ["S", "S", "E", "N"], "income": [1.0, 2.0, 3.0, 4.0]})
    assert grouped(x) == (1, 2, 0)                       # W is absent: released anyway
    assert grouped(make({"region": ["E"], "income": [1.0]})) == (0, 0, 0)


def laplace_count(scale):
    return PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_count() >> dp.m.then_laplace(scale=scale)


def test_zcdp_and_approx_maps():
    gauss = PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_count() >> dp.m.then_gaussian(scale=3.0)
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, gauss)
    assert pc.output_measure == dp.zero_concentrated_divergence()
    assert pc.map((2, 2, 1)) == ar.up(2 * Fraction(gauss.map(1)))
    for d in DISTANCES:                                  # rho(k) = k^2 / (2 sigma^2): rows together cost most
        assert pc.map(d) == brute_force(gauss.map, d, len(KEYS))
    assert pc.map((3, 3, 3)) == gauss.map(3) > 3 * gauss.map(1)
    approx = dp.c.make_pureDP_to_approxDP(laplace_count(2.0))
    pa = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, approx)
    assert pa.map((3, 3, 3)) == (approx.map(3)[0], 0.0)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), delta=0.4)
    pf = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, fixed)
    for d in DISTANCES:                                  # each component is its own supremum, delta capped at 1
        eps, delta = pf.map(d)
        assert eps == brute_force(fixed.map, d, len(KEYS), component=0)
        assert delta == min(1.0, brute_force(fixed.map, d, len(KEYS), component=1))
    assert pf.map((3, 3, 1))[1] == 1.0                   # three parts at delta 0.4


def test_one_row_per_person_costs_one_release():
    median = (PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort()
              >> dp.m.then_duff_median(scale=2.0))
    grouped = PARTS >> dp.c.then_parallel_composition(median)
    assert grouped.map(1) == median.map(1) and grouped.map(0) == 0


@pytest.mark.usefixtures("honest_but_curious")
def test_parts_at_distance_zero_add_map_of_zero_when_it_is_not_zero():
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, counting(map_zero=0.25))
    assert pc.map((1, 1, 1)) == 0.5 + 2 * 0.25          # one part at distance 1, two at 0
    assert pc.map((0, 0, 0)) == 3 * 0.25
    assert pc.map((7, 7, 7)) == 3.5 + 2 * 0.25           # the seven rows in one part cost most


def test_mismatched_pieces_are_refused():
    other = dp.dataframe_domain({"income": dp.atom_domain(T=float)})
    wrong_domain = (other, SYM) >> dp.t.then_select_column("income") >> dp.t.then_count() >> dp.m.then_laplace(1.0)
    with pytest.raises(dp.DomainMismatch):
        dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, wrong_domain)
    with pytest.raises(dp.MetricMismatch):
        dp.c.make_parallel_composition(PARTS.output_domain, dp.partition_distance(dp.change_one_distance()),
                                       laplace_count(1.0))
    profile = dp.c.make_zCDP_to_approxDP(PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_count()
                                         >> dp.m.then_gaussian(scale=1.0))
    with pytest.raises(ValueError, match="output_measure"):
        dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, profile)
    with pytest.raises(TypeError, match="measurement"):
        dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, lambda x: x)
    with pytest.raises(TypeError, match="input_domain"):
        dp.c.make_parallel_composition(DOM, PARTS.output_metric, laplace_count(1.0))
    with pytest.raises(TypeError, match="input_metric"):
        dp.c.make_parallel_composition(PARTS.output_domain, SYM, laplace_count(1.0))


# ---------------------------------------------------------------- the audit, by hand

def exact_grouped_loss(inner, parts_x, parts_y):
    """The exact max-divergence between the releases on two partitions: the parts' releases
    are independent, so the log-likelihood ratio of the tuple is the sum of the parts' ratios,
    and its supremum, in each direction, the sum of the parts' suprema (ProductPair)."""
    pieces = []
    for a, b in zip(parts_x, parts_y, strict=True):
        pair = pair_of(inner.output_law(a), inner.output_law(b), 0.02)
        assert isinstance(pair, ProductPair)
        pieces += pair.parts
    return ProductPair(pieces, "exact").max_log_ratio()


def neighbours(rows, rng, universe, d):
    other = list(rows)
    for _ in range(d):
        if other and rng.random() < 0.5:
            del other[int(rng.integers(len(other)))]
        else:
            other.append(universe[int(rng.integers(len(universe)))])
    return other


def to_frame(rows):
    return pd.DataFrame({"region": [r[0] for r in rows], "income": [float(r[1]) for r in rows]})


@pytest.mark.parametrize("statistic", ["mode", "median"])
def test_exact_loss_of_grouped_releases_is_within_the_map(statistic):
    rng = np.random.default_rng({"mode": 11, "median": 12}[statistic])
    if statistic == "mode":
        dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=str)})
        universe = [(r, v) for r in ("N", "S", "W", "E") for v in ("a", "b", "c")]
        inner = ((dp.dataframe_domain(dom.columns), SYM) >> dp.t.then_select_column("income")
                 >> dp.m.then_duff_mode(candidates=["a", "b"], scale=0.7))
        make = lambda rows: pd.DataFrame({"region": [r[0] for r in rows], "income": [r[1] for r in rows]})  # noqa: E731
    else:
        dom = DOM
        universe = [(r, v) for r in ("N", "S", "W", "E") for v in (0.5, 2.0, 3.0, 9.5)]
        inner = (PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 10.0))
                 >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.5))
        make = to_frame
    parts = (dom, SYM) >> dp.t.then_partition_by("region", keys=KEYS)
    grouped = parts >> dp.c.then_parallel_composition(inner)
    worst = 0.0                     # the largest loss / map over pairs at distance 1
    for trial in range(60):
        d = 1 + trial % 2
        rows = [universe[i] for i in rng.integers(0, len(universe), int(rng.integers(0, 7)))]
        other = neighbours(rows, rng, universe, d)
        dist = len(rows) + len(other) - 2 * sum(min(rows.count(u), other.count(u)) for u in set(rows) | set(other))
        loss = exact_grouped_loss(inner, parts(make(rows)), parts(make(other)))
        assert loss <= grouped.map(dist) * (1 + 1e-9) + 1e-12
        if dist == 1:
            worst = max(worst, loss / grouped.map(1))
    assert worst > 0.5              # the map is not vacuous: a neighbour nearly attains it
