"""Batched releases for the experiments: many draws from ONE set-up of a mechanism.

The experiments release 100 (or 1000) times per dataset.  Rebuilding the mechanism and
recomputing its data-dependent set-up for every draw would dominate the run, so:

* Duff: :func:`opendp_duff.measurements.duff.duff_quantile_sample` with ``size=R``, the
  sampler behind ``make_duff_median`` (its set-up, the step function, is built once).
* Smooth sensitivity: the release of ``make_smooth_median`` is
  ``x_(ceil(n/2)) + S^t(x)/s * Z``; we compute ``S^t(x)`` once with the public
  :func:`opendp_duff.smooth_sensitivity_median` and draw R values of Z from the
  distribution class the measurement uses (:mod:`opendp_duff.distributions`).  t, s and the
  shape come from the same public helpers as the measurement's (``smooth_parameters``).

Each draw is a separate release: R draws cost R times the privacy of one.  All noise comes
from :mod:`opendp_duff.samplers` (through the two functions above).
"""
import numpy as np

from .. import distributions as D
from ..measurements.duff import duff_quantile_sample
from ..smooth_sensitivity import smooth_sensitivity_median

__all__ = ["duff_median_releases", "noise_law", "smooth_median_releases", "lower_median"]


def lower_median(x_sorted):
    """x_(ceil(n/2)): the median the library's mechanisms release."""
    return float(x_sorted[(x_sorted.size + 1) // 2 - 1])


def duff_median_releases(x_sorted, bounds, epsilon, size):
    """``size`` releases of the Duff median at scale 2/epsilon (epsilon-DP, add/remove)."""
    return duff_quantile_sample(x_sorted, bounds, 0.5, 2.0 / epsilon, size=size)


def noise_law(params):
    """The standard noise distribution Z of a ``smooth_parameters`` dict."""
    noise = params["noise"]
    if noise == "laplace":
        return D.Laplace(1.0)
    if noise == "polynomial_tail":
        return D.PolynomialTail(params["gamma"])
    if noise == "student_t":
        return D.StudentT(params["d"])
    cls = {"lln": D.LaplaceLogNormal, "uln": D.UniformLogNormal, "arsinh_normal": D.ArsinhNormal}[noise]
    return cls(params["sigma"])


def smooth_median_releases(x_sorted, bounds, params, size, smooth=None):
    """``size`` releases of ``make_smooth_median(**params)`` on sorted data in ``bounds``:
    x_(ceil(n/2)) + S^t(x)/s * Z.  ``smooth`` may pass a precomputed S^t(x)."""
    if smooth is None:
        smooth = smooth_sensitivity_median(x_sorted, params["t"], bounds)
    z = np.asarray(noise_law(params).sample(size), dtype=np.float64)
    return lower_median(x_sorted) + (float(smooth) / params["s"]) * z
