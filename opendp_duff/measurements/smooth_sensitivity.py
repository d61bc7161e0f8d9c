"""Smooth-sensitivity measurements: the median and the trimmed mean plus noise scaled to
their t-smooth sensitivity (Nissim, Raskhodnikova & Smith 2007; Bun & Steinke, file 004).

The release is ``T(x) + S^t_T(x) / s * Z`` with ``Z`` drawn from one of the noise laws of
file 004 §3 (or the polynomial tail of the Duff paper, file 000, Proposition 3).

**Floating point.**  The float returned is the nearest float (ties to even, saturated to the
finite range) to the *exact real* ``T(x) + S/s * Z``: ``Z`` is drawn exactly (closed-form
transforms of partially sampled uniforms, decided by interval refinement in
:mod:`opendp_duff.samplers.exact_noise`), ``T(x)`` is exact (the median is an input value; the
trimmed mean an exact rational), and the rounding is a fixed map that does not look at the data.
So the release is post-processing of the idealised mechanism, immune to the porosity (Mironov
2012) and add-then-round precision attacks (Haney et al. 2022) that a float
``fl(T + fl(scale * z))`` suffers, and every finite float is a possible release for every
dataset.  Running time is not protected (it depends on the draw and the data).  Threat model
and proof: the section "Floating point" of the proof documents.

One-step bounds (d_in = 1), from the theorem named:

* ``"lln"``: rho = eps^2/2 zCDP, eps = t/sigma + e^{3 sigma^2/2} s (Theorem 18);
* ``"uln"``: rho = eps^2/2 zCDP, eps = t/sigma + e^{3 sigma^2/2} sqrt(2/(pi sigma^2)) s,
  sigma >= sqrt 2 (Theorem 22);
* ``"arsinh_normal"``: rho = eps^2/2 zCDP,
  eps = sqrt(t (t/sigma^2 + 1/sigma + 2)) + s (2/(3 sigma) + sigma/2) (Theorem 25);
* ``"student_t"``: pure eps-DP, eps = t (d+1) + s (d+1)/(2 sqrt d) (Theorem 31);
* ``"polynomial_tail"``: pure eps-DP, eps = (gamma+1)(t + s), gamma > 1 (Duff Proposition 3,
  whose alpha = beta = eps/(2(gamma+1)) is s = t here);
* ``"laplace"``: (eps, delta)-DP, eps = s + (e^t - 1) log(1/delta) - t, 0 < delta < e^-2
  (Theorem 34).

Groups of k substitutions: rho k^2 (zCDP), eps k (pure), and for Laplace Theorem 34 at
t_k = k t, s_k = s (e^{kt} - 1)/(e^t - 1).  Every bound is evaluated at
t + ``smooth_sensitivity_rounding_slack(n)`` (the computed smooth sensitivity is exact only to
that factor) and rounded up.

For Student's T as zCDP chain :func:`opendp_duff.c.make_pureDP_to_zCDP` (eps^2/2, Theorem 31's
second bound).  Gaussian noise (truncated CDP, Lemma 33) is not offered: the library has no tCDP
measure.

**Choosing t.**  Bun & Steinke (file 004 §7) and the Duff paper (§6) pick t (and for Laplace
alpha/beta) by minimising the noise variance *on the data being released*.  That choice is a
function of the private data which no privacy theorem covers, so we never do it.
:func:`choose_smoothing` instead minimises the same objective on a *reference* dataset that
carries no private information: by default the evenly spaced quantiles of the uniform law on
the public bounds, at the public size n; or a synthetic / public sample the caller passes.
"""
import math
from fractions import Fraction

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from .. import distributions as _dist
from .. import smooth_sensitivity as _ss
from ..laws import location_scale_law
from ..combinators.measure_cast import make_fix_delta, make_zCDP_to_approxDP
from ..core import Measurement, make_chain_mt, then
from ..errors import MakeError, MakeTypeError
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..metrics import ChangeOneDistance, SymmetricDistance
from ..transformations.metric_convert import make_symmetric_to_change_one
from ..transformations._common import as_array, dataset_space
from . import _smooth_maps as sm
from ..samplers import check_entropy
from ..samplers.exact_noise import exact_mean, exact_rounded_release

__all__ = [
    "make_smooth_median", "then_smooth_median", "make_smooth_trimmed_mean", "then_smooth_trimmed_mean",
    "make_smooth_median_baseline", "then_smooth_median_baseline",
    "smooth_parameters", "choose_smoothing", "smooth_variance_lower_bound",
    "smooth_release_sample", "smooth_median_baseline_parameters",
]

_SHAPE_NAME = {"lln": "sigma", "uln": "sigma", "arsinh_normal": "sigma", "student_t": "d",
               "polynomial_tail": "gamma", "laplace": "delta"}
_SHAPE_DEFAULT = {"uln": sm.ULN_SIGMA, "arsinh_normal": sm.ARSINH_SIGMA, "student_t": 3.0,
                  "polynomial_tail": 2.0}
_E_MINUS_2 = math.exp(-2)


# ---- validation ------------------------------------------------------------------

def _noise_shape(noise, sigma, d, gamma, delta):
    """Check ``noise`` and its one shape parameter; return the validated shape value."""
    noise = v.choice("noise", noise, sm.NOISES)
    given = {"sigma": sigma, "d": d, "gamma": gamma, "delta": delta}
    want = _SHAPE_NAME[noise]
    for name, value in given.items():
        if name != want and value is not None:
            raise MakeError(f"{name} ({value!r}) does not apply to noise {noise!r} (it takes {want})")
    value = given[want]
    if value is None:
        if noise in _SHAPE_DEFAULT:
            value = _SHAPE_DEFAULT[noise]
        else:
            hint = "see smooth_parameters()" if noise == "lln" else "it must lie in (0, e^-2)"
            raise MakeError(f"{want} is required for noise {noise!r}: {hint}")
    if noise in ("lln", "arsinh_normal"):
        return v.number("sigma", value, positive=True)
    if noise == "uln":
        value = v.number("sigma", value, positive=True)
        if sm.Q(value) ** 2 < 2:  # exact: sigma^2 >= 2
            raise MakeError(f"sigma ({value!r}) must be at least sqrt(2) for noise 'uln' (Theorem 22)")
        return value
    if noise == "student_t":
        value = v.number("d", value, positive=True)
        if value < 1:
            raise MakeError(f"d ({value!r}) must be at least 1")
        return value
    if noise == "polynomial_tail":
        value = v.number("gamma", value)
        if not value > 1:
            raise MakeError(f"gamma ({value!r}) must be greater than 1")
        return value
    value = v.number("delta", value)
    if not 0 < value < sm.ar.exp_down(-2):  # exp_down(-2) <= e^-2, so this implies delta < e^-2
        raise MakeError(f"delta ({value!r}) must lie in (0, e^-2) = (0, {_E_MINUS_2:.6g}) for noise 'laplace'")
    return value


def _measure(noise):
    if noise in sm.ZCDP_NOISES:
        return ZeroConcentratedDivergence()
    if noise in sm.PURE_NOISES:
        return MaxDivergence()
    return ApproximateDivergence()


def _sampler(noise, shape):
    """A zero-argument function drawing one standard noise value from opendp_duff.distributions."""
    dist = _dist
    law = {"lln": lambda: dist.LaplaceLogNormal(shape), "uln": lambda: dist.UniformLogNormal(shape),
           "arsinh_normal": lambda: dist.ArsinhNormal(shape), "student_t": lambda: dist.StudentT(shape),
           "polynomial_tail": lambda: dist.PolynomialTail(shape),
           "laplace": lambda: dist.Laplace(1.0)}[noise]()

    def draw():
        return float(np.asarray(law.sample(1), dtype=np.float64).reshape(-1)[0])
    draw.law = law  # the standard noise law, for the release's output_law (opendp_duff.audit)
    return draw


def _space(input_domain, input_metric):
    """Bounded, sorted vectors of known size n >= 1; change-one or (fixed size) symmetric distance."""
    elem = dataset_space(input_domain, input_metric, need_bounds=True, need_size=True, need_sorted=True)
    if input_domain.size < 1:
        raise MakeError(f"input_domain ({input_domain!r}) must have size at least 1")
    if not math.isfinite(float(elem.bounds[1]) - float(elem.bounds[0])):
        raise MakeError(f"input_domain ({input_domain!r}) must have bounds of finite width b - a")
    return (float(elem.bounds[0]), float(elem.bounds[1])), input_domain.size


def _statistic_parts(statistic, n, m, bounds):
    """``(stat, exact_stat, smooth)`` for the median (m ignored) or the m-trimmed mean of sorted
    arrays of size n in ``bounds``: ``stat`` the float statistic (for output_law), ``exact_stat``
    the statistic as the release reads it (a float or an exact ratio), ``smooth(arr, t)`` S^t."""
    if statistic == "median":
        mid = (n + 1) // 2 - 1  # 0-based index of x_(ceil(n/2))

        def stat(arr):
            return float(arr[mid])

        def smooth(arr, t_):
            return _ss.smooth_sensitivity_median(arr, t_, bounds)

        return stat, stat, smooth

    def exact_stat(arr):  # the exact rational trimmed mean (N, D), used by the release
        return exact_mean(arr[m:n - m])

    def stat(arr):        # its nearest float (int / int is correctly rounded), for output_law
        num, den = exact_stat(arr)
        return num / den

    def smooth(arr, t_):
        return _ss.smooth_sensitivity_trimmed_mean(arr, m, t_, bounds)

    return stat, exact_stat, smooth


def _release_draws(center, smooth_value, s, noise, law_shape, size):
    """THE release sampler of the smooth-sensitivity measurements: round(center + smooth_value/s * Z)
    for the exact real Z (one float if ``size`` is None, else an array of ``size`` independent
    releases).  The measurements' functions call it with size=None, :func:`smooth_release_sample`
    with a size: one implementation, two entry points."""
    scale = (float(smooth_value), s)
    if size is None:
        return exact_rounded_release(center, scale, noise, law_shape)
    return np.array([exact_rounded_release(center, scale, noise, law_shape) for _ in range(size)],
                    dtype=np.float64)


def _law_shape(noise, shape):
    return None if noise == "laplace" else shape  # Laplace noise is standard; its shape is delta


def _build(input_domain, input_metric, stat, smooth, t, s, noise, shape, exact_stat=None):
    """The shared measurement: release round(stat(x) + smooth(x, t)/s * Z), Z exact and real,
    round the nearest float (saturated); ``exact_stat`` (default ``stat``) gives the statistic
    as a float or an exact ratio for the release (see exact_rounded_release)."""
    # The computed smooth sensitivity is exact up to a factor e^slack, hence (t + slack)-smooth:
    # the map uses that smoothing (a relative change below 1e-8).
    t_map = ar.add_up(t, _ss.smooth_sensitivity_rounding_slack(input_domain.size))
    map_k = sm.group_map(noise, t_map, s, shape)
    draw = _sampler(noise, shape)

    center = stat if exact_stat is None else exact_stat
    law_shape = _law_shape(noise, shape)

    def function(x):
        # the nearest float to the exact real f(x) + (g(x) / s) Z: never NaN or inf, and
        # post-processing of the idealised release (proof, section "Floating point")
        arr = as_array(x)
        return _release_draws(center(arr), smooth(arr, t), s, noise, law_shape, None)

    def output_law(x):  # the exact law of the release (opendp_duff.laws)
        # centre and scale as the release reads them, exactly: a float quotient S/s could
        # overflow or underflow, and the nearest float to the trimmed mean is not its centre
        arr = as_array(x)
        c = center(arr)
        loc = Fraction(c[0]) / Fraction(c[1]) if isinstance(c, tuple) else c
        return location_scale_law(loc, Fraction(float(smooth(arr, t))) / Fraction(s), draw.law)

    if isinstance(input_metric, SymmetricDistance):
        # Same-size datasets at symmetric distance d differ by floor(d/2) substitutions:
        # go through the (proven) identity transformation that says so.
        convert = make_symmetric_to_change_one(input_domain, input_metric)
        inner = Measurement(input_domain, ChangeOneDistance(), _measure(noise), function, map_k,
                            output_law=output_law)
        return make_chain_mt(inner, convert)
    return Measurement(input_domain, input_metric, _measure(noise), function, map_k, output_law=output_law)


def _common_params(t, s, noise, sigma, d, gamma, delta):
    t = v.number("t", t, positive=True)
    s = v.number("s", s, positive=True)
    return t, s, _noise_shape(noise, sigma, d, gamma, delta)


# ---- public constructors --------------------------------------------------------

def make_smooth_median(input_domain, input_metric, t, s, noise, *, sigma=None, d=None, gamma=None,
                       delta=None):
    """Release the (lower) median plus noise scaled to its t-smooth sensitivity: x_(ceil(n/2)) + S^t(x)/s * Z,
    computed exactly and rounded to the nearest float (module docstring, "Floating point").

    ``input_domain``: sorted vectors of known size n >= 1 with bounds [a, b] (chain ``make_clamp``
    and ``make_sort``).  ``input_metric``: ``change_one_distance()`` (substitution, Bun & Steinke),
    or ``symmetric_distance()``, which on a fixed size n counts two per substitution: d_in is
    mapped to floor(d_in / 2) substitutions.  S^t is
    :func:`opendp_duff.smooth_sensitivity_median` (NRS07 §3.1; file 004 Prop 40 with m = (n-1)/2).

    ``noise`` and its shape: ``"lln"`` (``sigma`` > 0, required), ``"uln"`` (``sigma`` >= sqrt 2,
    default sqrt 2), ``"arsinh_normal"`` (``sigma`` > 0, default 2/sqrt 3), ``"student_t"``
    (``d`` >= 1, default 3), ``"polynomial_tail"`` (``gamma`` > 1, default 2 = Cauchy),
    ``"laplace"`` (``delta`` in (0, e^-2), required).  t > 0 is the smoothing, s > 0 the scale.

    Privacy map for k = d_in substitutions, with eps the one-step bound in the module table:
    zCDP noises ``rho(k) = k^2 eps^2 / 2`` (file 004 Thms 18/22/25 and group privacy, Lemma 11);
    pure noises ``k * eps`` (Thm 31; Duff Prop 3); Laplace ``(eps_k, delta)`` with eps_k Theorem
    34's bound at t_k = k t, s_k = s (e^{kt} - 1)/(e^t - 1).  All rounded up; map(0) = 0.
    The maps use t + slack (``smooth_sensitivity_rounding_slack(n)``, below 1e-9), because
    the computed smooth sensitivity is exact only up to a factor e^slack.
    Use :func:`smooth_parameters` to get s (and sigma) from a budget, and choose t without
    looking at the data (:func:`choose_smoothing`).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=11), dp.change_one_distance()
    >>> m = space >> dp.t.then_sort() >> dp.m.then_smooth_median(t=0.1, s=0.2, noise="student_t", d=3)
    >>> round(m.map(1), 9)  # 0.1 * 4 + 0.2 * 4 / (2 sqrt 3), rounded up
    0.630940108
    >>> m.map(2) == 2 * m.map(1)
    True
    """
    bounds, n = _space(input_domain, input_metric)
    t, s, shape = _common_params(t, s, noise, sigma, d, gamma, delta)
    stat, _, smooth = _statistic_parts("median", n, 0, bounds)
    return _build(input_domain, input_metric, stat, smooth, t, s, noise, shape)


def make_smooth_trimmed_mean(input_domain, input_metric, m, t, s, noise, *, sigma=None, d=None,
                             gamma=None, delta=None):
    """Release the m-trimmed mean plus noise scaled to its t-smooth sensitivity (file 004 §5):
    (x_(m+1) + ... + x_(n-m)) / (n - 2m) + S^t(x)/s * Z, with the mean an exact rational and the
    sum computed exactly, then rounded to the nearest float (module docstring, "Floating point").

    ``m`` is an integer with 0 <= m < n/2.  Domain, metric, ``noise`` and shape parameters, and
    the privacy map are exactly those of :func:`make_smooth_median`; S^t is
    :func:`opendp_duff.smooth_sensitivity_trimmed_mean` (file 004, Proposition 40).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=101), dp.change_one_distance()
    >>> meas = space >> dp.t.then_sort() >> dp.m.then_smooth_trimmed_mean(
    ...     m=10, **dp.m.smooth_parameters("lln", size=101, epsilon=1.0, t=0.05))
    >>> meas.map(1) <= 0.5  # rho = epsilon^2 / 2
    True
    """
    bounds, n = _space(input_domain, input_metric)
    m = v.number("m", m, integer=True, nonneg=True)
    if not 2 * m < n:
        raise MakeError(f"m ({m!r}) must be less than n/2 (n = {n})")
    t, s, shape = _common_params(t, s, noise, sigma, d, gamma, delta)
    stat, exact_stat, smooth = _statistic_parts("trimmed_mean", n, m, bounds)
    return _build(input_domain, input_metric, stat, smooth, t, s, noise, shape, exact_stat)


then_smooth_median = then(make_smooth_median)
then_smooth_trimmed_mean = then(make_smooth_trimmed_mean)


def smooth_release_sample(x_sorted, *, bounds, t, s, noise, size, statistic="median", m=0, sigma=None,
                          d=None, gamma=None, delta=None):
    """``size`` independent releases of :func:`make_smooth_median` (``statistic="median"``) or
    :func:`make_smooth_trimmed_mean` (``statistic="trimmed_mean"``, with ``m``) on one dataset,
    with the statistic and S^t(x) computed once.

    Each value has exactly the law of one release of the measurement built with the same
    ``bounds``, ``t``, ``s``, ``noise`` and shape on ``x_sorted``: both call the same internal
    sampler (round(T(x) + S^t(x)/s * Z) with Z exact, module docstring "Floating point").  This is
    NOT a new mechanism: **k draws are k separate releases and cost k times the privacy of one**
    (k-fold composition; the privacy map of the measurement is for ONE release).  It exists for
    experiments that need many releases of the same data.

    ``x_sorted``: a non-empty 1-D array of finite numbers, sorted ascending, inside ``bounds`` (a
    member of the measurement's input domain; chain ``make_clamp`` and ``make_sort`` or do the
    same yourself).  Parameters are validated as the constructors do; ``size`` >= 1 is an integer.

    >>> import opendp_duff as dp
    >>> p = dp.m.smooth_parameters("student_t", size=11, epsilon=1.0, t=0.1)
    >>> r = dp.m.smooth_release_sample([0.1 * i for i in range(11)], bounds=(0.0, 1.0), size=5, **p)
    >>> r.shape
    (5,)
    >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=11), dp.change_one_distance()
    >>> round((space >> dp.t.then_sort() >> dp.m.then_smooth_median(**p)).map(1), 6)  # per release
    1.0
    """
    bounds = v.bounds("bounds", bounds)
    if not math.isfinite(bounds[1] - bounds[0]):
        raise MakeError(f"bounds ({bounds!r}) must have finite width b - a")
    t, s, shape = _common_params(t, s, noise, sigma, d, gamma, delta)
    size = v.number("size", size, integer=True, positive=True)
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
    _, exact_stat, smooth = _statistic_parts(statistic, n, m, bounds)
    return _release_draws(exact_stat(arr), smooth(arr, t), s, noise, _law_shape(noise, shape), size)


# ---- parameters -------------------------------------------------------------------

def _target_epsilon(noise, epsilon, rho, delta):
    """The one-step eps to aim at: epsilon itself, or for zCDP noises sqrt(2 rho)."""
    if delta is not None and noise != "laplace":
        raise MakeError(f"delta ({delta!r}) only applies to noise 'laplace'")
    if noise in sm.ZCDP_NOISES:
        if (epsilon is None) == (rho is None):
            raise MakeError(f"give exactly one of epsilon ({epsilon!r}) and rho ({rho!r}) for noise {noise!r}")
        if rho is not None:
            return sm.zcdp_epsilon_from_rho(v.number("rho", rho, positive=True))
        return v.number("epsilon", epsilon, positive=True)
    if rho is not None:
        raise MakeError(f"rho ({rho!r}) only applies to the zCDP noises {sm.ZCDP_NOISES}")
    if epsilon is None:
        raise MakeError(f"epsilon is required for noise {noise!r}")
    return v.number("epsilon", epsilon, positive=True)


def smooth_parameters(noise, *, size, t, epsilon=None, rho=None, delta=None, sigma=None, d=None, gamma=None):
    """Keyword arguments ``dict(t=, s=, noise=, <shape>=)`` for make_smooth_* meeting a budget at d_in = 1.

    ``size`` is the public dataset size n: the maps use t + smooth_sensitivity_rounding_slack(n).

    Budget: ``epsilon`` (pure noises; Laplace with ``delta``), or for the zCDP noises ``epsilon``
    meaning rho = epsilon^2/2, or ``rho`` directly.  s is the largest value whose rounded-up map
    meets the budget.  Shapes minimise the variance as in file 004 §7: LLN solves the cubic
    5 (eps/t) sigma^3 - 5 sigma^2 - 1 = 0 (§3.1.1), ULN sigma = sqrt 2, arsinh-normal
    sigma = 2/sqrt 3, Student's T d = 3, polynomial tail gamma = 2; pass a shape to override.
    ``t`` must not depend on the private data: pass your own, or one from :func:`choose_smoothing`.

    >>> import opendp_duff as dp
    >>> p = dp.m.smooth_parameters("student_t", size=1001, epsilon=1.0, t=0.05)
    >>> p["d"], round(p["s"], 6)
    (3.0, 0.69282)
    """
    noise = v.choice("noise", noise, sm.NOISES)
    n = v.number("size", size, integer=True, positive=True)
    t = v.number("t", t, positive=True)
    t_map = ar.add_up(t, _ss.smooth_sensitivity_rounding_slack(n))  # as in _build
    eps = _target_epsilon(noise, epsilon, rho, delta)
    if noise == "laplace":
        shape = _noise_shape(noise, None, None, None, delta)
    elif any(x is not None for x in (sigma, d, gamma)):
        shape = _noise_shape(noise, sigma, d, gamma, None)
    else:
        shape = sm.best_shape(noise, eps, t)
    if noise == "lln" and not eps * shape > t_map:
        raise MakeError(f"t ({t!r}) is too large for epsilon ({eps!r}) with sigma ({shape!r})")
    s = sm.fit_scale(noise, eps, t_map, shape)
    return {"t": t, "s": s, "noise": noise, _SHAPE_NAME[noise]: shape}


def _reference(n, bounds, reference):
    a, b = bounds
    if reference is None:
        return a + (b - a) * (np.arange(1, n + 1) / (n + 1))
    ref = np.asarray(reference, dtype=np.float64).reshape(-1)
    if ref.size == 0 or not np.all(np.isfinite(ref)):
        raise MakeError("reference must be a non-empty array of finite numbers")
    ref = np.clip(np.sort(ref), a, b)
    if ref.size == n:
        return ref
    return np.quantile(ref, np.arange(1, n + 1) / (n + 1))


def _shape_variance(noise, shape):
    """Var(Z) where it depends on t (LLN only: 2 e^{2 sigma^2}); 1 for fixed shapes."""
    return 2 * math.exp(2 * shape ** 2) if noise == "lln" else 1.0


def choose_smoothing(noise, size, bounds, *, epsilon=None, rho=None, delta=None, statistic="median", m=0,
                     reference=None, grid=None):
    """A smoothing t chosen WITHOUT the private data: the t minimising the noise variance
    (S^t(ref)/s(t))^2 Var(Z) on a reference dataset of the same public size and bounds.

    ``reference=None`` uses the evenly spaced quantiles a + (b - a) i/(n + 1) (a uniform spread
    over the public bounds); pass a synthetic or public sample to tune for the data you expect
    (it is clipped to the bounds and re-quantiled to ``size`` points).  ``grid`` is the list of
    candidate t (default: 48 log-spaced values from 1e-4 eps up to the largest feasible t).
    The papers tune t on the private data itself (file 004 §7; Duff paper §6); that makes t a
    function of the data outside any privacy proof, so we don't.

    **When the default is poor.**  The default reference is only a good stand-in when the data
    spread over much of [a, b].  With loose bounds around concentrated data (say bounds
    [-50, 1050] for data near N(0, 1)) the evenly spaced points have gaps ~ (b - a)/n, far wider
    than the data's, so the t that suits them can give the real data a much larger noise
    S^t/s (about 8 times larger in the example below).  Then pass ``reference=``: a PUBLIC
    sample (or synthetic data from a public model) that resembles the data.  Never pass the
    private data itself: that is the papers' non-private tuning.

    >>> import numpy as np
    >>> import opendp_duff as dp
    >>> t = dp.m.choose_smoothing("lln", 101, (0.0, 1.0), epsilon=1.0)
    >>> 0 < t < 1
    True
    >>> n, bounds, budget = 201, (-50.0, 1050.0), dict(epsilon=1.0, delta=1e-3)  # loose bounds
    >>> public = np.random.default_rng(0).standard_normal(n)   # public data resembling the private
    >>> t_default = dp.m.choose_smoothing("laplace", n, bounds, **budget)
    >>> t_public = dp.m.choose_smoothing("laplace", n, bounds, reference=public, **budget)
    >>> x = np.sort(np.random.default_rng(7).standard_normal(n))   # stands in for private N(0, 1) data
    >>> def noise_scale(t):  # S^t(x) / s: the scale of the noise the release would add
    ...     p = dp.m.smooth_parameters("laplace", size=n, t=t, **budget)
    ...     return dp.smooth_sensitivity_median(x, t, bounds) / p["s"]
    >>> bool(noise_scale(t_public) < noise_scale(t_default) / 5)
    True
    """
    noise = v.choice("noise", noise, sm.NOISES)
    n = v.number("size", size, integer=True, positive=True)
    bounds = v.bounds("bounds", bounds)
    statistic = v.choice("statistic", statistic, ("median", "trimmed_mean"))
    m = v.number("m", m, integer=True, nonneg=True)
    if statistic == "trimmed_mean" and not 2 * m < n:
        raise MakeError(f"m ({m!r}) must be less than n/2 (n = {n})")
    eps = _target_epsilon(noise, epsilon, rho, delta)
    if noise == "laplace":
        _noise_shape(noise, None, None, None, delta)
    ref = _reference(n, bounds, reference)

    def feasible_scale(t):
        shape = delta if noise == "laplace" else sm.best_shape(noise, eps, t)
        if noise == "lln" and not eps * shape > t:
            return shape, 0.0
        return shape, sm._float_scale(noise, eps, t, shape)

    if grid is None:
        hi = eps
        while feasible_scale(hi)[1] <= 0 and hi > 1e-12:
            hi /= 1.25
        grid = np.geomspace(max(hi * 1e-4, 1e-12), hi, 48)
    best_t, best_val = None, math.inf
    for t in grid:
        t = float(t)
        shape, s = feasible_scale(t)
        if not (t > 0 and s > 0):
            continue
        if statistic == "median":
            S = _ss.smooth_sensitivity_median(ref, t, bounds)
        else:
            S = _ss.smooth_sensitivity_trimmed_mean(ref, m, t, bounds)
        val = (float(S) / s) ** 2 * _shape_variance(noise, shape)
        if val < best_val:
            best_t, best_val = t, val
    if best_t is None:
        raise MakeError(f"no t in the grid is feasible for the budget epsilon={eps!r}")
    return best_t


def smooth_variance_lower_bound(epsilon, t):
    """File 004, Proposition 36: L(eps, t) with Var(S/s Z) >= S^2 L(eps, t) for ANY noise Z
    that gives eps^2/2-zCDP when scaled to t-smooth sensitivity (max over k, l). For plots.

    >>> import opendp_duff as dp
    >>> dp.m.smooth_variance_lower_bound(1.0, 0.1) > 0
    True
    """
    return sm.variance_lower_bound(v.number("epsilon", epsilon, positive=True), v.number("t", t, positive=True))


# ---- the Duff paper's baselines (file 000, §6) -------------------------------------

_BASELINES = {"smoothsens_eps": "SMOOTHSENS_eps", "smoothsens_eps_delta": "SMOOTHSENS_eps_delta",
              "laplaceln": "LAPLACELN"}


def smooth_median_baseline_parameters(name, epsilon, delta=None, *, size, bounds, t=None, reference=None):
    """The parameters :func:`make_smooth_median_baseline` uses for baseline ``name`` at public size n =
    ``size`` and ``bounds``: a dict with ``t``, ``s``, ``noise`` and the shape (``gamma``, ``delta`` or
    ``sigma``), and for ``"LAPLACELN"`` also ``rho`` (the zCDP level, file 004 Lemma 9).

    Everything but ``rho`` is keyword arguments for :func:`make_smooth_median` /
    :func:`smooth_release_sample`; LAPLACELN's measurement is that one converted from rho-zCDP to
    (eps, delta) (see :func:`make_smooth_median_baseline`).  t is chosen on ``reference`` (default:
    evenly spaced points on the bounds, see :func:`choose_smoothing`), never on the private data.

    >>> import opendp_duff as dp
    >>> p = dp.m.smooth_median_baseline_parameters("SMOOTHSENS_eps", 1.0, size=101, bounds=(0.0, 1.0))
    >>> p["noise"], p["gamma"], p["t"] == 1.0 / 6
    ('polynomial_tail', 2.0, True)
    >>> sorted(dp.m.smooth_median_baseline_parameters("LAPLACELN", 1.0, 0.01, size=101, bounds=(0.0, 1.0)))
    ['noise', 'rho', 's', 'sigma', 't']
    """
    if not isinstance(name, str) or name.lower() not in _BASELINES:
        raise MakeError(f"name ({name!r}) must be one of {sorted(_BASELINES.values())}")
    key = name.lower()
    n = v.number("size", size, integer=True, positive=True)
    bounds = v.bounds("bounds", bounds)
    if not math.isfinite(bounds[1] - bounds[0]):
        raise MakeError(f"bounds ({bounds!r}) must have finite width b - a")
    epsilon = v.number("epsilon", epsilon, positive=True)
    if key == "smoothsens_eps":
        if delta is not None or t is not None:
            raise MakeError("SMOOTHSENS_eps takes neither delta nor t (it uses alpha = beta = eps/6)")
        return smooth_parameters("polynomial_tail", size=n, epsilon=epsilon, t=epsilon / 6, gamma=2.0)
    if delta is None:
        raise MakeError(f"delta is required for baseline {_BASELINES[key]}")
    if key == "smoothsens_eps_delta":
        delta = _noise_shape("laplace", None, None, None, delta)
        if t is None:
            t = choose_smoothing("laplace", n, bounds, epsilon=epsilon, delta=delta, reference=reference)
        return smooth_parameters("laplace", size=n, epsilon=epsilon, delta=delta, t=t)
    delta = v.probability("delta", delta)
    rho = sm.lemma9_rho(epsilon, delta)
    if t is None:
        t = choose_smoothing("lln", n, bounds, rho=rho, reference=reference)
    p = smooth_parameters("lln", size=n, rho=rho, t=t)
    p["rho"] = rho
    return p


def make_smooth_median_baseline(input_domain, input_metric, name, epsilon, delta=None, *, t=None,
                                reference=None):
    """One of the Duff paper's median baselines (file 000, §6), built from a budget.

    * ``"SMOOTHSENS_eps"``: Cauchy noise (polynomial tail, gamma = 2) with t = eps/6 and s the
      largest value meeting eps (Proposition 3: alpha = beta = eps/6); pure eps-DP.
    * ``"SMOOTHSENS_eps_delta"``: Laplace noise (Proposition 2 = file 004 Theorem 34), delta in
      (0, e^-2); s = alpha is the largest value meeting eps, t = beta minimises S_t/alpha on a
      public reference (:func:`choose_smoothing`), not on the data; map (eps, delta).
    * ``"LAPLACELN"``: LLN at rho with rho + 2 sqrt(rho log(1/delta)) = eps (file 004 Lemma 9),
      sigma from the cubic, t from :func:`choose_smoothing`; converted with
      ``make_zCDP_to_approxDP`` and ``make_fix_delta``, so map(d_in) = (eps' <= eps, delta).

    Names are case-insensitive.  ``t`` overrides the smoothing for the two tuned baselines.
    The parameters are those of :func:`smooth_median_baseline_parameters` (one place).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=101), dp.change_one_distance()
    >>> base = space >> dp.t.then_sort() >> dp.m.then_smooth_median_baseline("SMOOTHSENS_eps", epsilon=1.0)
    >>> base.map(1) <= 1.0
    True
    """
    if not isinstance(name, str) or name.lower() not in _BASELINES:
        raise MakeError(f"name ({name!r}) must be one of {sorted(_BASELINES.values())}")
    bounds, n = _space(input_domain, input_metric)
    p = smooth_median_baseline_parameters(name, epsilon, delta, size=n, bounds=bounds, t=t, reference=reference)
    if "rho" not in p:
        return make_smooth_median(input_domain, input_metric, **p)
    del p["rho"]
    inner = make_smooth_median(input_domain, input_metric, **p)
    return make_fix_delta(make_zCDP_to_approxDP(inner), v.probability("delta", delta))


then_smooth_median_baseline = then(make_smooth_median_baseline)
