"""make_impute_constant: NaN enters a pipeline only through it; function, domains, stability
(brute force on small multisets), the sign of zero, and its bad parameters."""
import itertools
import math
from collections import Counter

import numpy as np
import pytest

import opendp_duff as dp

NAN_SPACE = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()


def test_replaces_nan_and_keeps_everything_else():
    t = dp.t.make_impute_constant(*NAN_SPACE, constant=2.5)
    x = [1.0, math.nan, -math.inf, math.inf, 0.25, math.nan]
    assert t(x).tolist() == [1.0, 2.5, -math.inf, math.inf, 0.25, 2.5]
    assert t.output_domain == dp.vector_domain(dp.atom_domain(T=float))
    assert t.output_metric == t.input_metric and t.output_domain.member(t(x))
    assert [t.map(d) for d in range(4)] == [0, 1, 2, 3]


def test_does_not_modify_the_callers_array():
    x = np.array([math.nan, 1.0])
    dp.t.make_impute_constant(*NAN_SPACE, constant=0.0)(x)
    assert math.isnan(x[0])


def test_keeps_the_size_and_drops_sortedness():
    dom = dp.vector_domain(dp.atom_domain(T=float, nan=True), size=3, sorted=True)
    t = dp.t.make_impute_constant(dom, dp.change_one_distance(), constant=0.0)
    assert t.output_domain.size == 3 and not t.output_domain.sorted
    assert t.map(2) == 2


def test_stability_by_brute_force():
    """Every pair of multisets of size <= 3 over {nan, 0, 1, 2}: the imputed datasets are no
    further apart than the raw ones (symmetric distance as multisets)."""
    t = dp.t.make_impute_constant(*NAN_SPACE, constant=1.0)
    universe = ["nan", 0.0, 1.0, 2.0]

    def data(ms):
        return [math.nan if e == "nan" else e for e in ms]

    def sym(a, b):
        ca, cb = Counter(a), Counter(b)
        return sum(((ca - cb) + (cb - ca)).values())

    sets = [ms for n in range(4) for ms in itertools.combinations_with_replacement(universe, n)]
    for a, b in itertools.product(sets, repeat=2):
        d = sym(a, b)
        assert sym(t(data(a)).tolist(), t(data(b)).tolist()) <= t.map(d)


def test_the_sign_of_zero_never_survives():
    t = dp.t.make_impute_constant(*NAN_SPACE, constant=-0.0)
    out = t([-0.0, math.nan, 0.0])
    assert np.signbit(out).tolist() == [False, False, False]


def test_refuses_nan_data_on_the_default_domain_and_non_nan_domains():
    with pytest.raises(ValueError, match="admit NaN"):
        dp.t.make_impute_constant(dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance(), 0.0)
    with pytest.raises(ValueError, match="float"):
        dp.t.make_impute_constant(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance(), 0)


@pytest.mark.parametrize("constant", [math.nan, math.inf, -math.inf, True, "0", None, 10 ** 400])
def test_bad_constant(constant):
    with pytest.raises((TypeError, ValueError), match="constant"):
        dp.t.make_impute_constant(*NAN_SPACE, constant=constant)


def test_chains_into_clamp_and_a_release():
    meas = (NAN_SPACE >> dp.t.then_impute_constant(5.0) >> dp.t.then_clamp((0.0, 10.0))
            >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0))
    with dp.samplers.seeded_rng_for_tests(5):
        assert 0.0 <= meas([math.nan, 1.0, 20.0]) <= 10.0
