"""Batched releases for the experiments: many draws from ONE set-up of a mechanism.

The experiments release 100 (or 1000) times per dataset.  Rebuilding the mechanism and
recomputing its data-dependent set-up for every draw would dominate the run, so:

* Duff: :func:`opendp_duff.measurements.duff.duff_quantile_sample` with ``size=R``, the
  sampler behind ``make_duff_median`` (its set-up, the step function, is built once).
* Smooth sensitivity: :func:`opendp_duff.measurements.smooth_sensitivity.smooth_release_sample`
  with ``size=R``, which computes the median and ``S^t(x)`` once and calls the release sampler
  of ``make_smooth_median`` R times (exact noise, rounded to the nearest float: the same law and
  code as the measurement).  t, s and the shape come from the same public helpers as the
  measurement's (``smooth_parameters``, ``smooth_median_baseline_parameters``).

Each draw is a separate release: R draws cost R times the privacy of one.  All noise comes
from :mod:`opendp_duff.samplers` (through the two functions above).
"""

from .. import distributions as D
from ..measurements.duff import duff_quantile_sample
from ..measurements.smooth_sensitivity import smooth_release_sample

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


def smooth_median_releases(x_sorted, bounds, params, size):
    """``size`` releases of ``make_smooth_median(**params)`` on sorted data in ``bounds``:
    round(x_(ceil(n/2)) + S^t(x)/s * Z), through the public batched path.

    One exception, for file 003's deliberately NON-private row (Laplace noise at delta = 0.9,
    ``_baselines.nrs_laplace``), which no constructor accepts: Laplace noise is standard, so
    delta enters only the privacy map, not the release's law; the draw is made with delta
    replaced by a valid value and the same t and s, i.e. exactly the law of that release."""
    params = dict(params)
    if params["noise"] == "laplace" and not 0 < params["delta"] < _LAPLACE_DELTA_MAX:
        params["delta"] = 1e-3  # law unchanged (see above); the row is labelled NOT private
    return smooth_release_sample(x_sorted, bounds=bounds, size=size, **params)


_LAPLACE_DELTA_MAX = 0.1  # below e^-2 = 0.135...: deltas at or above it are not private parameters
