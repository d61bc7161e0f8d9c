"""Smooth sensitivity (``dp.smooth``): the S^t computations, the registry of noise laws, the
privacy maps and parameter tuning.  The measurements themselves are ``dp.m.make_smooth_median``
and ``dp.m.make_smooth_trimmed_mean``.

* :mod:`.sensitivity` -- the t-smooth sensitivity of the median, quantiles and trimmed means;
* :mod:`.noises` -- one :class:`~.noises.SmoothNoise` record per noise law (the registry);
* :mod:`.maps` -- the one-step privacy bounds and group maps, rounded up;
* :mod:`.parameters` -- ``smooth_parameters``, ``choose_smoothing``, ``smooth_variance_lower_bound``.
"""
from .noises import NOISES, SmoothNoise
from .parameters import choose_smoothing, smooth_parameters, smooth_variance_lower_bound
from .sensitivity import (smooth_sensitivity_median, smooth_sensitivity_quantile,
                          smooth_sensitivity_rounding_slack, smooth_sensitivity_trimmed_mean)

__all__ = [
    "NOISES", "SmoothNoise", "choose_smoothing", "smooth_parameters", "smooth_variance_lower_bound",
    "smooth_sensitivity_median", "smooth_sensitivity_quantile", "smooth_sensitivity_rounding_slack",
    "smooth_sensitivity_trimmed_mean",
]
