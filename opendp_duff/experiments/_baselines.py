"""The [GM-Duff] §6 median baselines: their parameters and their measurement.

Named ``_baselines`` because these exist to reproduce the papers' comparisons, not as library
mechanisms (the library's own path is ``make_smooth_median`` with ``dp.smooth.smooth_parameters``
and ``dp.smooth.choose_smoothing``).  The three baselines:

* SMOOTHSENS_eps: Cauchy noise (polynomial tail, gamma = 2) with t = eps/6 ([GM-Duff] Prop. 3);
* SMOOTHSENS_eps,delta: Laplace noise ([GM-Duff] Prop. 2 = [BS19] Thm 34), t on a public reference;
* LAPLACELN: LLN at the rho that [BS19] Lemma 9 turns into (eps, delta), t on a public reference.

:func:`smooth_median_baseline_parameters` gives their parameters as dicts for
``make_smooth_median(**params)`` / ``_batch.smooth_release_sample(x, bounds=..., draws=..., **params)``;
:func:`make_smooth_median_baseline` builds the measurement from the same function (one place).
``reference`` selects how t is chosen: ``None`` is the library's data-independent default
(``choose_smoothing`` on evenly spaced points of the bounds); passing the private data itself
reproduces the papers' tuning, which is NOT differentially private.  Not part of the privacy API.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy.typing as npt

from .. import _validate as v
from .. import arithmetic as ar
from ..combinators.measure_cast import make_fix_delta, make_zCDP_to_approxDP, zcdp_epsilon_lemma9
from ..core import Measurement, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..measurements.smooth_sensitivity import make_smooth_median, smooth_space
from ..metrics import Metric
from ..smooth.noises import resolve
from ..smooth.parameters import choose_smoothing, largest_float, smooth_parameters

__all__ = ["smoothsens_eps", "smoothsens_eps_delta", "laplaceln", "nrs_laplace", "lemma9_rho",
           "smooth_median_baseline_parameters", "make_smooth_median_baseline", "then_smooth_median_baseline"]

_BASELINES = {"smoothsens_eps": "SMOOTHSENS_eps", "smoothsens_eps_delta": "SMOOTHSENS_eps_delta",
              "laplaceln": "LAPLACELN"}


# [proof:lemma9_rho]
def lemma9_rho(epsilon: float, delta: float) -> float:
    """The largest float rho with rho + 2 sqrt(rho log(1/delta)) <= epsilon when rounded up
    (``zcdp_epsilon_lemma9``): the zCDP budget that [BS19] Lemma 9 turns into (epsilon, delta).
    The float guess (sqrt(L + eps) - sqrt(L))^2, L = log(1/delta), only starts the search."""
    L = -ar.log_down(delta)
    rho = largest_float(lambda r: zcdp_epsilon_lemma9(r, delta) <= epsilon,
                        (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2)
    if rho is None:
        raise MakeError(f"epsilon ({epsilon!r}) is too small to convert with delta={delta!r}")
    return rho
# [end:lemma9_rho]


def smooth_median_baseline_parameters(name: str, epsilon: float, delta: Optional[float] = None, *, size: int,
                                      bounds: tuple[float, float], t: Optional[float] = None,
                                      reference: Optional[npt.ArrayLike] = None) -> dict[str, Any]:
    """The parameters of baseline ``name`` at public size n = ``size`` and ``bounds``: a dict with
    ``t``, ``s``, ``noise`` and the shape (``gamma``, ``delta`` or ``sigma``), and for
    ``"LAPLACELN"`` also ``rho`` (the zCDP level, [BS19] Lemma 9).

    Example:
        >>> from opendp_duff.experiments._baselines import smooth_median_baseline_parameters
        >>> p = smooth_median_baseline_parameters("SMOOTHSENS_eps", 1.0, size=101, bounds=(0.0, 1.0))
        >>> p["noise"], p["gamma"], p["t"] == 1.0 / 6
        ('polynomial_tail', 2.0, True)
        >>> sorted(smooth_median_baseline_parameters("LAPLACELN", 1.0, 0.01, size=101, bounds=(0.0, 1.0)))
        ['noise', 'rho', 's', 'sigma', 't']
    """
    # [proof:baseline_parameters]
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
        delta = resolve("laplace", delta=delta)[1]
        if t is None:
            t = choose_smoothing("laplace", n, bounds, epsilon=epsilon, delta=delta, reference=reference)
        return smooth_parameters("laplace", size=n, epsilon=epsilon, delta=delta, t=t)
    delta = v.probability("delta", delta)
    rho = lemma9_rho(epsilon, delta)
    if t is None:
        t = choose_smoothing("lln", n, bounds, rho=rho, reference=reference)
    p = smooth_parameters("lln", size=n, rho=rho, t=t)
    p["rho"] = rho
    return p
    # [end:baseline_parameters]


def make_smooth_median_baseline(input_domain: VectorDomain, input_metric: Metric, name: str, epsilon: float,
                                delta: Optional[float] = None, *, t: Optional[float] = None,
                                reference: Optional[npt.ArrayLike] = None) -> Measurement:
    """One of the [GM-Duff] §6 median baselines, built from a budget.

    Releases what ``make_smooth_median`` releases with the baseline's parameters
    (:func:`smooth_median_baseline_parameters`).

    Contract:
        * Input domain: as ``make_smooth_median`` (sorted, bounded, known size n >= 1).
        * Input metric: as ``make_smooth_median``.
        * Output measure: ``max_divergence()`` (SMOOTHSENS_eps) or ``approximate_divergence()``.

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: the metric on the input (see the contract).
        name: ``"SMOOTHSENS_eps"``, ``"SMOOTHSENS_eps_delta"`` or ``"LAPLACELN"`` (any case).
        epsilon: the budget, > 0.
        delta: absent for SMOOTHSENS_eps; in (0, e^-2) for SMOOTHSENS_eps_delta; in (0, 1) for LAPLACELN.
        t: a public smoothing overriding the tuned one (the two tuned baselines only).
        reference: a public reference for ``choose_smoothing`` (never the private data).

    Privacy map:
        That of the measurement built: SMOOTHSENS_eps k eps' (eps' <= eps); SMOOTHSENS_eps_delta
        Theorem 34 at k (eps' <= eps at k = 1, delta); LAPLACELN the rho-zCDP map converted with
        ``make_zCDP_to_approxDP`` and ``make_fix_delta`` (eps' <= eps at k = 1, delta).

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``; ``epsilon``,
            ``delta`` or ``t`` is not a real number.
        MakeError: an unknown ``name``; the domain not sorted, unbounded, of unknown size or size 0,
            with bounds of infinite width, holding NaN or strings, or naming an engine; ``t`` not
            positive; ``epsilon`` not positive, ``delta`` not in (0, 1), or given or missing against
            what the baseline takes.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/experiments/_baselines/make_smooth_median_baseline.tex``.

    References: [GM-Duff] §6, Props. 2-3; [BS19] Thm 34, Lemma 9.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.experiments._baselines import then_smooth_median_baseline
        >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=101), dp.change_one_distance()
        >>> base = space >> dp.t.then_sort() >> then_smooth_median_baseline("SMOOTHSENS_eps", epsilon=1.0)
        >>> base.map(1) <= 1.0
        True
    """
    # [proof:make_smooth_median_baseline]
    if not isinstance(name, str) or name.lower() not in _BASELINES:
        raise MakeError(f"name ({name!r}) must be one of {sorted(_BASELINES.values())}")
    bounds, n = smooth_space(input_domain, input_metric)
    p = smooth_median_baseline_parameters(name, epsilon, delta, size=n, bounds=bounds, t=t, reference=reference)
    if "rho" not in p:
        return make_smooth_median(input_domain, input_metric, **p)
    del p["rho"]
    inner = make_smooth_median(input_domain, input_metric, **p)
    return make_fix_delta(make_zCDP_to_approxDP(inner), v.probability("delta", delta))
    # [end:make_smooth_median_baseline]


then_smooth_median_baseline = then(make_smooth_median_baseline)


# ---- the experiments' names for the baselines ---------------------------------------------

def smoothsens_eps(n: int, epsilon: float) -> dict[str, Any]:
    """SMOOTHSENS_eps: [GM-Duff] Prop. 3 with gamma = 2 (Cauchy), alpha = beta = eps/6.
    (No bounds enter its parameters; (0, 1) only satisfies the function's signature.)"""
    return smooth_median_baseline_parameters("SMOOTHSENS_eps", epsilon, size=n, bounds=(0.0, 1.0))


def smoothsens_eps_delta(n: int, bounds: tuple[float, float], epsilon: float, delta: float,
                         reference: Optional[npt.ArrayLike] = None) -> dict[str, Any]:
    """SMOOTHSENS_eps,delta: Laplace noise, t minimising S^t/s on ``reference``."""
    return smooth_median_baseline_parameters("SMOOTHSENS_eps_delta", epsilon, delta, size=n, bounds=bounds,
                                             reference=reference)


def laplaceln(n: int, bounds: tuple[float, float], epsilon: float, delta: float,
              reference: Optional[npt.ArrayLike] = None, rho: Optional[float] = None) -> dict[str, Any]:
    """LAPLACELN: LLN at rho (default: Lemma 9's rho for (eps, delta)), t and sigma tuned on
    ``reference``.  Returns make_smooth_median's keyword arguments (without ``rho``)."""
    if rho is None:
        p = smooth_median_baseline_parameters("LAPLACELN", epsilon, delta, size=n, bounds=bounds,
                                              reference=reference)
        del p["rho"]
        return p
    t = choose_smoothing("lln", n, bounds, rho=rho, reference=reference)  # a non-baseline rho
    return smooth_parameters("lln", size=n, rho=rho, t=t)


def nrs_laplace(epsilon: float, delta: float) -> dict[str, Any]:
    """[GM-Duff-short]'s Proposition 2 ([NRS07]): Laplace noise with alpha = eps/2 and
    beta = eps / (2 log(2/delta')), delta' = 2 delta / (e^{eps/2} + 1).  Returned as
    ``dict(t=beta, s=alpha, noise="laplace", delta=delta)``; it meets [BS19] Thm 34's condition
    for delta < e^-2 (a test checks the map), but the experiments also use it at the
    non-private delta = 0.9 of [GM-Duff-short]'s Table 1, outside any constructor."""
    delta_p = 2 * delta / (math.exp(epsilon / 2) + 1)
    return {"t": epsilon / (2 * math.log(2 / delta_p)), "s": epsilon / 2, "noise": "laplace", "delta": delta}
