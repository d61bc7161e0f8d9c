"""Batched releases for the experiments: many draws from ONE set-up of a mechanism.

The experiments release 100 (or 1000) times per dataset.  Rebuilding the mechanism and
recomputing its data-dependent set-up for every draw would dominate the run, so:

* Duff: :func:`opendp_duff.measurements.duff.duff_quantile_sample` with ``size=R``, the
  sampler behind ``make_duff_median`` (its set-up, the step function, is built once).
* Smooth sensitivity: :func:`smooth_release_sample` with ``draws=R``, which computes the
  statistic and ``S^t(x)`` once and calls the release sampler of ``make_smooth_median`` /
  ``make_smooth_trimmed_mean`` R times (the same :class:`opendp_duff.smooth.noises.SmoothNoise`
  record and the same statistic code as the measurement, so the same law).  t, s and the shape
  come from the same public helpers as the measurement's (``dp.smooth.smooth_parameters``,
  :func:`opendp_duff.experiments._baselines.smooth_median_baseline_parameters`).

Each draw is a separate release: R draws cost R times the privacy of one.  All noise comes
from :mod:`opendp_duff.samplers` (through the functions above).  Not part of the privacy API.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .. import _validate as v
from ..errors import MakeError, MakeTypeError
from ..measurements.duff import duff_quantile_sample
from ..measurements.smooth_sensitivity import smooth_statistic
from ..samplers import check_entropy
from ..smooth.noises import lookup, resolve

__all__ = ["duff_median_releases", "noise_law", "smooth_median_releases", "lower_median",
           "smooth_release_sample"]


def lower_median(x_sorted: np.ndarray) -> float:
    """x_(ceil(n/2)): the median the library's mechanisms release."""
    return float(x_sorted[(x_sorted.size + 1) // 2 - 1])


def duff_median_releases(x_sorted: np.ndarray, bounds: tuple[float, float], epsilon: float,
                         size: int) -> Any:
    """``size`` releases of the Duff median at scale 2/epsilon (epsilon-DP, add/remove)."""
    return duff_quantile_sample(x_sorted, bounds, 0.5, 2.0 / epsilon, size=size)


def noise_law(params: dict[str, Any]) -> Any:
    """The standard noise distribution Z of a ``smooth_parameters`` dict."""
    record = lookup(params["noise"])
    return record.law(params[record.shape_name])


def smooth_release_sample(x_sorted: npt.ArrayLike, *, bounds: tuple[float, float], t: float, s: float,
                          noise: str, draws: int, statistic: str = "median", m: int = 0,
                          sigma: Optional[float] = None, d: Optional[float] = None,
                          gamma: Optional[float] = None, delta: Optional[float] = None) -> np.ndarray:
    """``draws`` independent releases of ``make_smooth_median`` (``statistic="median"``) or
    ``make_smooth_trimmed_mean`` (``statistic="trimmed_mean"``, with ``m``) on one dataset,
    with the statistic and S^t(x) computed once.

    Each value has exactly the law of one release of the measurement built with the same
    ``bounds``, ``t``, ``s``, ``noise`` and shape on ``x_sorted``: both call the same record's
    :meth:`~opendp_duff.smooth.noises.SmoothNoise.release` on the same statistic.  This is NOT a
    new mechanism: **k draws are k separate releases and cost k times the privacy of one**.

    Args:
        x_sorted: a non-empty 1-d array of finite numbers, sorted ascending, inside ``bounds``
            (a member of the measurement's input domain).
        bounds: the public (a, b), of finite width.
        t: the smoothing, t > 0.
        s: the scale divisor, s > 0.
        noise: a name of :data:`opendp_duff.smooth.noises.NOISES`.
        draws: the number of releases, an integer >= 1.
        statistic: ``"median"`` or ``"trimmed_mean"``.
        m: the trimming, 0 <= m < n/2.
        sigma: as ``make_smooth_median``.
        d: as ``make_smooth_median``.
        gamma: as ``make_smooth_median``.
        delta: as ``make_smooth_median``.

    Returns:
        A float64 array of ``draws`` releases.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.experiments._batch import smooth_release_sample
        >>> p = dp.smooth.smooth_parameters("student_t", size=11, epsilon=1.0, t=0.1)
        >>> smooth_release_sample([0.1 * i for i in range(11)], bounds=(0.0, 1.0), draws=5, **p).shape
        (5,)
    """
    bounds = v.bounds("bounds", bounds)
    if not math.isfinite(bounds[1] - bounds[0]):
        raise MakeError(f"bounds ({bounds!r}) must have finite width b - a")
    t = v.number("t", t, positive=True)
    s = v.number("s", s, positive=True)
    record, shape = resolve(noise, sigma=sigma, d=d, gamma=gamma, delta=delta)
    assert shape is not None
    record.law(shape)  # the measurement's checks on the shape, before any data is read
    draws = v.number("draws", draws, integer=True, positive=True)
    statistic = v.choice("statistic", statistic, ("median", "trimmed_mean"))
    m = v.number("m", m, integer=True, nonneg=True)
    try:
        arr = np.asarray(x_sorted, dtype=np.float64)
    except (TypeError, ValueError):
        raise MakeTypeError("x_sorted must be a 1-D array of numbers") from None
    if arr.ndim != 1 or arr.size < 1:
        raise MakeError(f"x_sorted must be a non-empty 1-D array (got shape {arr.shape})")
    if not (np.all(np.isfinite(arr)) and np.all(arr >= bounds[0]) and np.all(arr <= bounds[1])):
        raise MakeError("x_sorted must hold finite values inside bounds")  # no data in messages
    if not np.all(arr[1:] >= arr[:-1]):
        raise MakeError("x_sorted must be sorted ascending")
    n = int(arr.size)
    if statistic == "trimmed_mean" and not 2 * m < n:
        raise MakeError(f"m ({m!r}) must be less than n/2 (n = {n})")
    check_entropy()  # as Measurement.__call__: a broken random source fails before the data is read
    stat = smooth_statistic(statistic, n, m, bounds)
    center, smooth = stat.center(arr), stat.smooth(arr, t)
    return np.array([record.release(center, smooth, s, shape) for _ in range(draws)], dtype=np.float64)


_LAPLACE_DELTA_MAX = 0.1  # below e^-2 = 0.135...: deltas at or above it are not private parameters


def smooth_median_releases(x_sorted: np.ndarray, bounds: tuple[float, float], params: dict[str, Any],
                           size: int) -> np.ndarray:
    """``size`` releases of ``make_smooth_median(**params)`` on sorted data in ``bounds``:
    round(x_(ceil(n/2)) + S^t(x)/s * Z), through :func:`smooth_release_sample`.

    One exception, for [GM-Duff-short]'s deliberately NON-private row (Laplace noise at delta =
    0.9, ``_baselines.nrs_laplace``), which no constructor accepts: Laplace noise is standard, so
    delta enters only the privacy map, not the release's law; the draw is made with delta
    replaced by a valid value and the same t and s, i.e. exactly the law of that release."""
    params = dict(params)
    if params["noise"] == "laplace" and not 0 < params["delta"] < _LAPLACE_DELTA_MAX:
        params["delta"] = 1e-3  # law unchanged (see above); the row is labelled NOT private
    return smooth_release_sample(x_sorted, bounds=bounds, draws=size, **params)
