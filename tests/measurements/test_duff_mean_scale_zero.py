"""make_duff_mean at scale 0: accepted, with the meaning it has for the median, the quantile
and the noisy max (the limit of the law as scale -> 0: uniform on the top level's
positive-width pieces, by width), and map(d_in) = inf for d_in > 0, 0 for d_in = 0.

The KS test runs at level 1e-3 under ``rerun_once``: false-failure rate about 1e-6.
"""
import math

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.duff_mean_utility import duff_mean_step_function
from opendp_duff.measurements.duff_mean import make_duff_mean
from opendp_duff.samplers import seeded_rng_for_tests


def space(bounds, T=float):
    return dp.vector_domain(dp.atom_domain(T=T, bounds=bounds), sorted=True), dp.symmetric_distance()


def test_scale_zero_is_accepted_and_its_map_is_inf():
    for bounds, T in [((0.0, 1.0), float), ((0, 10), int), ((2.0, 2.0), float)]:
        meas = make_duff_mean(*space(bounds, T), scale=0.0)
        assert meas.map(0) == 0
        for d_in in (1, 2, 10 ** 6):
            assert meas.map(d_in) == math.inf
    chained = (dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()) \
        >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_duff_mean(scale=0)
    assert chained.map(1) == math.inf and 0.0 <= chained([0.2, 0.4, 3.0]) <= 1.0


def _top_pieces(data, bounds):
    left, right, levels = duff_mean_step_function(np.array(data, dtype=float), bounds)
    live = right > left
    top = levels[live].max()
    keep = live & (levels == top)
    return left[keep], right[keep]


@pytest.mark.parametrize("data,bounds", [([1.0, 3.0], (0.0, 4.0)), ([0.0] * 5, (0.0, 1.0)),
                                         ([], (-2.0, 2.0)), ([0.1, 0.9, 0.9, 0.95], (0.0, 1.0)),
                                         ([0.0, 5e-324], (0.0, 5e-324))])
def test_releases_lie_in_the_top_level_pieces(data, bounds):
    left, right = _top_pieces(data, bounds)
    meas = make_duff_mean(*space(bounds), scale=0.0)
    with seeded_rng_for_tests(21):
        for _ in range(200):
            out = meas(np.array(data, dtype=float))
            assert np.any((left <= out) & (out <= right)), (data, out)


@pytest.mark.slow
@rerun_once(seed=4401)
def test_scale_zero_law_is_uniform_on_the_top_piece_by_width():
    # [1, 3] on [0, 4]: the top level set is L_1 = [4/3, 8/3] (one piece); uniform on it
    left, right = _top_pieces([1.0, 3.0], (0.0, 4.0))
    assert left.size == 1 and math.isclose(left[0], 4 / 3) and math.isclose(right[0], 8 / 3)
    meas = make_duff_mean(*space((0.0, 4.0)), scale=0.0)
    draws = [meas(np.array([1.0, 3.0])) for _ in range(2000)]
    assert stats.kstest(draws, stats.uniform(left[0], right[0] - left[0]).cdf).pvalue > 1e-3
