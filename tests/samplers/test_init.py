"""opendp_duff.samplers: the secure default source and the named test source, the uniform grid, the
Laplace, Gaussian, Gumbel and exponential samplers, Gumbel-max, and the entropy check.

KS / chi-square tests are seeded (``rerun_once``), at level 1e-3: false-failure rate about 1e-6 each.
"""
import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from opendp_duff import samplers
from opendp_duff.samplers import seeded_rng_for_tests

from helpers import rerun_once

# KS / chi-square tests at level 1e-3, rerun once: false-failure rate about 1e-6 per test.
ALPHA = 1e-3


def test_uniform_grid_is_open_symmetric_and_exact():
    with seeded_rng_for_tests(0):
        u = samplers.uniform_open(100_000)
    assert np.all((u > 0) & (u < 1))
    k = (u * 2.0 ** 53 - 1) / 2
    assert np.all(k == np.floor(k))            # on the grid (2k+1) 2^-53
    assert np.all((1.0 - u) * 2.0 ** 53 % 2 == 1)  # 1 - u is on the grid too


def test_default_source_is_secure_and_test_source_is_named_so():
    assert isinstance(samplers.current_rng(), samplers.SecureRandom)
    with seeded_rng_for_tests(1):
        assert "tests only" in samplers.current_rng().name
    assert isinstance(samplers.current_rng(), samplers.SecureRandom)


def test_seeded_source_is_reproducible():
    with seeded_rng_for_tests(5):
        a = samplers.standard_laplace(10)
    with seeded_rng_for_tests(5):
        b = samplers.standard_laplace(10)
    assert np.array_equal(a, b)


@rerun_once(seed=11)
def test_laplace_sampler_ks():
    z = samplers.standard_laplace(20_000)
    assert stats.kstest(z, stats.laplace.cdf).pvalue > ALPHA


@rerun_once(seed=12)
def test_gaussian_sampler_ks():
    z = samplers.standard_normal(20_000)
    assert stats.kstest(z, stats.norm.cdf).pvalue > ALPHA


@rerun_once(seed=13)
def test_gumbel_sampler_ks():
    assert stats.kstest(samplers.standard_gumbel(20_000), stats.gumbel_r.cdf).pvalue > ALPHA


@pytest.mark.slow
@rerun_once(seed=16)
def test_gumbel_argmax_matches_softmax():
    w = np.array([0.0, 1.0, -1.0, 2.0, -np.inf])
    p = np.exp(w - np.logaddexp.reduce(w))
    counts = np.bincount([samplers.gumbel_argmax(w) for _ in range(20_000)], minlength=5)
    assert counts[4] == 0
    assert stats.chisquare(counts[:4], 20_000 * p[:4]).pvalue > ALPHA


def test_gumbel_argmax_infinite_weights():
    with seeded_rng_for_tests(17):
        winners = {samplers.gumbel_argmax([np.inf, 0.0, np.inf]) for _ in range(200)}
    assert winners == {0, 2}


class _FailingSource:
    name = "failing"

    def random_bytes(self, n):
        raise samplers.EntropyError("no entropy")


def test_entropy_failure_raises_before_any_data_is_read():
    """Only the membership check (which draws no randomness) reads the data before the
    entropy check; the function never runs."""
    read = []

    class Data(list):
        def __array__(self, *args, **kwargs):
            read.append(True)
            return np.array(list(self), dtype=float)

        def __iter__(self):
            read.append(True)
            return super().__iter__()

    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    meas = space >> dp.t.then_clamp(bounds=(0.0, 1.0)) >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    meas.input_domain.admit(Data([0.5, 0.25]))
    reads_by_membership_check = len(read)
    read.clear()
    with samplers.byte_source_for_tests(_FailingSource()):
        with pytest.raises(samplers.EntropyError):
            meas(Data([0.5, 0.25]))
    assert len(read) == reads_by_membership_check
