"""make_parallel_composition: every key released in order (empty parts included), the map
against exact rational arithmetic for the three measures, the terms for parts at distance 0,
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


def counting(map_zero=0.0):
    """A measurement whose release is the number of rows (no noise: only its shape is used)
    and whose map is d/2 + map_zero, for testing the bookkeeping of the composition."""
    return Measurement(PART_SPACE[0], SYM, MaxDivergence(), lambda part: len(part),
                       lambda d: 0.5 * d + (map_zero if d == 0 else 0.0))


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


@pytest.mark.parametrize("scale", [0.3, 1.0, 7.0, 1e-300])
@pytest.mark.parametrize("d", [(1, 1, 1), (2, 5, 3), (5, 2, 9), (9, 9, 9), (0, 4, 4), (3, 3, 0), (1, 0, 1)])
def test_pure_map_is_m_times_the_part_map_rounded_up(scale, d):
    inner = laplace_count(scale)
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, inner)
    l0, l1, linf = d
    m, q = min(l0, l1, len(KEYS)), min(linf, l1)
    got = pc.map(d)
    exact = m * Fraction(inner.map(q)) if m else Fraction(0)
    assert got == ar.up(exact)                            # the exact product, rounded up once
    assert got == math.inf or Fraction(got) >= m * Fraction(q) / Fraction(scale)


def test_zcdp_and_approx_maps():
    gauss = PART_SPACE >> dp.t.then_select_column("income") >> dp.t.then_count() >> dp.m.then_gaussian(scale=3.0)
    pc = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, gauss)
    assert pc.output_measure == dp.zero_concentrated_divergence()
    assert pc.map((2, 2, 1)) == ar.up(2 * Fraction(gauss.map(1)))
    approx = dp.c.make_pureDP_to_approxDP(laplace_count(2.0))
    pa = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, approx)
    assert pa.map((3, 3, 3)) == (ar.up(3 * Fraction(approx.map(3)[0])), 0.0)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), delta=0.4)
    pf = dp.c.make_parallel_composition(PARTS.output_domain, PARTS.output_metric, fixed)
    eps, delta = pf.map((3, 3, 1))
    assert delta == 1.0 and eps == ar.up(3 * Fraction(fixed.map(1)[0]))      # 3 * 0.4 capped at 1


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
    assert pc.map((7, 7, 7)) == 3 * 3.5                  # at most three parts differ


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
