"""Measurements: randomised functions with privacy maps (re-exported as ``dp.m``)."""
from .gaussian import (make_gaussian, then_gaussian)
from .laplace import (make_laplace, then_laplace)
from .duff import (make_duff_median, then_duff_median, make_duff_quantile, then_duff_quantile)
from .duff_mean import (make_duff_mean, then_duff_mean)
from .smooth_sensitivity import (make_smooth_median, then_smooth_median, make_smooth_trimmed_mean,
    then_smooth_trimmed_mean)
from .noisy_max import (make_report_noisy_max_gumbel, then_report_noisy_max_gumbel)
from .duff_mode import (make_duff_mode, then_duff_mode)
from .threshold_keys import (make_threshold_keys, then_threshold_keys)

__all__ = [
    "make_gaussian", "then_gaussian", "make_laplace", "then_laplace", "make_duff_median",
    "then_duff_median", "make_duff_quantile", "then_duff_quantile",
    "make_duff_mean", "then_duff_mean", "make_smooth_median",
    "then_smooth_median", "make_smooth_trimmed_mean", "then_smooth_trimmed_mean",
    "make_report_noisy_max_gumbel",
    "then_report_noisy_max_gumbel", "make_duff_mode", "then_duff_mode",
    "make_threshold_keys", "then_threshold_keys",
]
