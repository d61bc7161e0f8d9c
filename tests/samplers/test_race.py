"""The step-function sampler of opendp_duff.samplers.race against its exact law.

Chi-square tests at level 1e-3 under ``rerun_once``: false-failure rate about 1e-6 each.
"""
import math

import numpy as np
import pytest
from scipy import stats

from helpers import rerun_once
from opendp_duff.samplers import race as R
from opendp_duff.samplers import seeded_rng_for_tests


def chi2_ok(counts, probs):
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    keep = probs * counts.sum() >= 5  # pool sparse cells
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(probs[keep], probs[~keep].sum()) * counts.sum()
    if exp[-1] == 0:
        assert obs[-1] == 0
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp).pvalue > 1e-3


@pytest.mark.slow
@rerun_once(seed=404)
def test_sample_step_function_with_far_block(monkeypatch):
    monkeypatch.setattr(R, "_NEAR", 1.0)  # tiny near set: the far block wins often
    left = np.array([0.0, 1.0, 3.0, 3.0, 6.0, 10.0])
    right = np.array([1.0, 3.0, 3.0, 6.0, 10.0, 20.0])
    levels = np.array([0.0, -1.0, 5.0, -2.0, -3.0, -4.0])  # the zero-width piece must never win
    scale = 1.5
    x = R.sample_step_function(left, right, levels, scale, size=6000)
    idx = np.searchsorted(right, x, side="left")
    counts = np.bincount(idx, minlength=6)
    assert counts[2] == 0
    probs = (right - left) * np.exp(levels / scale)
    assert chi2_ok(counts, probs / probs.sum())


def test_sample_step_function_edge_cases():
    with seeded_rng_for_tests(2):
        # all zero-width: the left end of a top-level piece
        assert R.sample_step_function([1.0, 2.0], [1.0, 2.0], [-3, -1], 1.0) == 2.0
        # underflow: only the top piece survives
        out = R.sample_step_function([0.0, 1.0], [1.0, 2.0], [0, -1e9], 1e-300, size=50)
        assert np.all((out >= 0) & (out <= 1))
        # overflowing widths never give inf or NaN
        out = R.sample_step_function([-1.7e308], [1.7e308], [0], 1.0, size=50)
        assert np.all(np.isfinite(out))
        # scale 0 and inf
        assert 0 <= R.sample_step_function([0.0, 1.0], [1.0, 2.0], [0, -1], 0.0) <= 1
        assert 0 <= R.sample_step_function([0.0, 1.0], [1.0, 2.0], [0, -1], math.inf) <= 2
    assert np.isfinite(R.log_widths(-1.7e308, 1.7e308))
    assert R.log_widths(1.0, 1.0) == -np.inf


def test_sample_step_function_bad_input():
    with pytest.raises(ValueError, match="lengths"):
        R.sample_step_function([0.0], [1.0, 2.0], [0], 1.0)
    with pytest.raises(ValueError, match="at least one"):
        R.sample_step_function([], [], [], 1.0)
    with pytest.raises(ValueError, match="left <= right"):
        R.sample_step_function([1.0], [0.0], [0], 1.0)
    with pytest.raises(ValueError, match="scale"):
        R.sample_step_function([0.0], [1.0], [0], -1.0)
    with pytest.raises(ValueError, match="levels"):
        R.sample_step_function([0.0], [1.0], [np.nan], 1.0)
