"""make_clamp, make_sort, make_count, make_sum."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


def sized(n, lo=0.0, hi=1.0):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi)), size=n)


def test_clamp_sort_count_functions_and_maps():
    space = FLOATS, dp.symmetric_distance()
    t = space >> dp.t.then_clamp(bounds=(-1.0, 1.0)) >> dp.t.then_sort()
    assert t([3.0, -5.0, 0.25]).tolist() == [-1.0, 0.25, 1.0]
    assert t.output_domain.sorted and t.output_domain.element_domain.bounds == (-1.0, 1.0)
    assert t.map(4) == 4
    count = space >> dp.t.then_count()
    assert count([]) == 0 and count.map(3) == 3


def test_clamp_accepts_lists_tuples_and_arrays():
    t = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    for data in ([0.5, 2.0], (0.5, 2.0), np.array([0.5, 2.0], dtype=np.float32)):
        assert t(data).tolist() == [0.5, 1.0]
    assert t(np.array([-3, 2], dtype=np.int64)).tolist() == [0.0, 1.0]


def test_clamp_preserves_sortedness():
    sorted_space = dp.t.make_sort(FLOATS, dp.symmetric_distance())
    t = sorted_space >> dp.t.then_clamp(bounds=(0.0, 1.0))
    assert t.output_domain.sorted


def test_count_under_change_one_is_constant():
    t = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=float), size=4), dp.change_one_distance())
    assert t.map(3) == 0


def test_change_one_needs_known_size():
    with pytest.raises(ValueError, match="input_metric"):
        dp.t.make_sort(FLOATS, dp.change_one_distance())


@pytest.mark.parametrize("bounds", [(1.0, 0.0), (math.nan, 1.0), (0.0, math.inf), "ab"])
def test_clamp_bad_bounds(bounds):
    with pytest.raises((TypeError, ValueError), match="bounds"):
        dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=bounds)


def test_transformations_refuse_non_dataset_spaces():
    with pytest.raises(TypeError, match="input_metric"):
        dp.t.make_sort(FLOATS, dp.absolute_distance())
    with pytest.raises(TypeError, match="input_domain"):
        dp.t.make_count(dp.atom_domain(), dp.symmetric_distance())
    with pytest.raises(ValueError, match="NaN"):
        dp.t.make_sort(dp.vector_domain(dp.atom_domain(nan=True)), dp.symmetric_distance())


def test_sum_map_exact_values():
    n, lo, hi = 10, -2.0, 3.0
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    rounding = math.ulp(30.0)
    assert t.map(0) == 0.0
    assert Fraction(t.map(1)) >= Fraction(5) + Fraction(rounding)
    assert Fraction(t.map(1)) <= (Fraction(5) + Fraction(rounding)) * (1 + Fraction(1, 2 ** 51))
    sym = dp.t.make_sum(sized(n, lo, hi), dp.symmetric_distance())
    assert sym.map(1) == rounding  # odd symmetric distance between same-size datasets: floor(1/2) = 0 changes
    assert sym.map(2) == t.map(1)


def test_sum_needs_bounds_and_size_and_no_overflow():
    with pytest.raises(ValueError, match="bounded"):
        dp.t.make_sum(dp.vector_domain(dp.atom_domain(), size=3), dp.symmetric_distance())
    with pytest.raises(ValueError, match="known size"):
        dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance())
    with pytest.raises(ValueError, match="overflow"):
        dp.t.make_sum(sized(10, -1e308, 1e308), dp.symmetric_distance())


def test_sum_sensitivity_holds_on_rounding_adversarial_neighbours():
    # Casacuberta et al. 2022 style: many tiny values next to a large one make a naive
    # float sum move further than its idealised sensitivity.
    n, lo, hi = 1000, 0.0, 1e16
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    x = np.full(n, 1.0)
    x[0] = 1e16
    x2 = x.copy()
    x2[1] = 0.0  # one substitution
    assert abs(t(x) - t(x2)) <= t.map(1)
    assert t(x) == 1e16 + 999.0  # fsum is the correctly rounded exact sum


def test_sum_random_neighbours_within_map():
    rng = np.random.default_rng(7)  # test data only
    n, lo, hi = 200, -1e5, 1e5
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    for _ in range(200):
        x = rng.uniform(lo, hi, n) * 10.0 ** rng.integers(-10, 0, n)
        x2 = x.copy()
        x2[rng.integers(n)] = rng.choice([lo, hi])
        assert abs(Fraction(t(x)) - Fraction(t(x2))) <= Fraction(t.map(1))


def test_clamp_refuses_nan_domains_and_nan_data():
    # NaN enters only through make_impute_constant: clamp refuses a NaN domain at construction
    nan_space = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
    with pytest.raises(ValueError, match="make_impute_constant"):
        nan_space >> dp.t.then_clamp(bounds=(-1.0, 1.0))
    t = nan_space >> dp.t.then_impute_constant(-1.0) >> dp.t.then_clamp(bounds=(-1.0, 1.0))
    assert t([math.nan, 0.5, math.inf, -math.inf]).tolist() == [-1.0, 0.5, 1.0, -1.0]
    assert not t.output_domain.element_domain.nan
    # NaN is not a member of the default domain: refused before clamp runs
    plain = dp.t.make_clamp(FLOATS, dp.symmetric_distance(), bounds=(0.0, 1.0))
    with pytest.raises(dp.errors.NotAMemberValueError, match="NaN"):
        plain([math.nan])
