"""Parameters of the Duff paper's median baselines (file 000, §6), as dicts for
``make_smooth_median(**params)`` / ``smooth_release_sample(x, bounds=..., size=..., **params)``.

The three baselines come from the library's public
:func:`opendp_duff.measurements.smooth_sensitivity.smooth_median_baseline_parameters`, the
same function :func:`make_smooth_median_baseline` builds its measurement from (one place):
SMOOTHSENS_eps is Cauchy noise with t = eps/6; SMOOTHSENS_eps,delta is Laplace noise (file 004
Theorem 34); LAPLACELN is LLN at the rho that file 004's Lemma 9 turns into (eps, delta).
``tests/test_experiments.py`` checks that a measurement built from these parameters has the
baseline's privacy map.

``reference`` selects how t is chosen: ``None`` is the library's data-independent default
(:func:`choose_smoothing` on evenly spaced points of the bounds); passing the private data
itself reproduces the papers' tuning, which is NOT differentially private.
"""
import math

from ..measurements.smooth_sensitivity import (choose_smoothing, smooth_median_baseline_parameters,
                                               smooth_parameters)

__all__ = ["smoothsens_eps", "smoothsens_eps_delta", "laplaceln", "nrs_laplace"]


def smoothsens_eps(n, epsilon):
    """SMOOTHSENS_eps: Duff Proposition 3 with gamma = 2 (Cauchy), alpha = beta = eps/6.
    (No bounds enter its parameters; (0, 1) only satisfies the function's signature.)"""
    return smooth_median_baseline_parameters("SMOOTHSENS_eps", epsilon, size=n, bounds=(0.0, 1.0))


def smoothsens_eps_delta(n, bounds, epsilon, delta, reference=None):
    """SMOOTHSENS_eps,delta: Laplace noise, t minimising S^t/s on ``reference``."""
    return smooth_median_baseline_parameters("SMOOTHSENS_eps_delta", epsilon, delta, size=n, bounds=bounds,
                                             reference=reference)


def laplaceln(n, bounds, epsilon, delta, reference=None, rho=None):
    """LAPLACELN: LLN at rho (default: Lemma 9's rho for (eps, delta)), t and sigma tuned on
    ``reference``.  Returns make_smooth_median's keyword arguments (without ``rho``)."""
    if rho is None:
        p = smooth_median_baseline_parameters("LAPLACELN", epsilon, delta, size=n, bounds=bounds,
                                              reference=reference)
        del p["rho"]
        return p
    t = choose_smoothing("lln", n, bounds, rho=rho, reference=reference)  # a non-baseline rho
    return smooth_parameters("lln", size=n, rho=rho, t=t)


def nrs_laplace(epsilon, delta):
    """The short paper's Proposition 2 (file 003; NRS07): Laplace noise with alpha = eps/2 and
    beta = eps / (2 log(2/delta')), delta' = 2 delta / (e^{eps/2} + 1).  Returned as
    ``dict(t=beta, s=alpha, noise="laplace", delta=delta)``; it meets file 004 Theorem 34's
    condition for delta < e^-2 (the test checks the map), but the experiments also use it at
    the non-private delta = 0.9 of file 003's Table 1, outside any constructor."""
    delta_p = 2 * delta / (math.exp(epsilon / 2) + 1)
    return {"t": epsilon / (2 * math.log(2 / delta_p)), "s": epsilon / 2, "noise": "laplace", "delta": delta}
