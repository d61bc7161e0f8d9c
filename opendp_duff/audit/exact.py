"""The exact audit: the privacy loss of a measurement between two given datasets, from the
exact laws of its releases (``meas.output_law``, :mod:`opendp_duff.laws`).

The laws are compared in both directions:

* pure DP (``max_divergence``): the largest log density (or mass) ratio;
* zCDP: the Renyi divergences D_alpha for a list of alphas, reported as max_alpha D_alpha/alpha
  (to compare with rho; zCDP asks D_alpha <= rho alpha for EVERY alpha > 1, so a finite list
  can only refute, never prove, a claim);
* (epsilon, delta): the hockey-stick divergence delta(eps) = int max(0, p - e^eps q).

Discrete and piecewise-constant laws are compared by finite sums over the merged pieces: exact
up to float rounding (tolerance 1e-9 absolute plus 1e-9 relative).  Location-scale laws are
first standardised (z -> (z - loc) / scale with the locations and scales read exactly, so the
result does not depend on their magnitude), then integrated numerically: composite Simpson's
rule in u on each side of every breakpoint b (the two locations; for delta(eps) the points where
p = e^eps q; for D_alpha the peak of p^alpha q^(1-alpha) when it lies far from both), with
z = b +- s e^u, out to where both densities (and the D_alpha integrand) are below e^-1000 (or
|z| ~ 1e300); the reported tolerance is the difference between that rule and the same rule on
every other node (an estimate, not a bound, of the error of the finer rule), plus 1e-9.  The
largest log ratio of two location-scale densities is the maximum over those nodes refined by a
bounded scalar optimisation.  Laws whose standardised locations differ by more than the largest
float are treated as disjoint (infinite loss).

Nothing here is differentially private: an audit reads the data.  Error messages never show data.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import attrs

from ..core import Measurement
from ..errors import MakeError
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ._pairs import Pair, pair_of

__all__ = ["exact_privacy_loss", "ExactAudit", "DEFAULT_ALPHAS"]

DEFAULT_ALPHAS = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0)
_EXACT_TOL = 1e-9


@attrs.frozen(eq=False)
class ExactAudit:
    """The exact privacy loss between two datasets (see :func:`exact_privacy_loss`).

    ``value`` is in the units of the measurement's map: epsilon (pure DP), rho
    (zCDP: max over ``alphas`` of D_alpha / alpha) or, for (epsilon, delta), the delta at the
    requested epsilon (None if none was requested).  ``tolerance`` bounds its numerical
    error.  ``max_log_ratio`` (pure DP only, else None) and ``renyi`` (alpha -> D_alpha, zCDP
    only, with ``renyi_error``) are maxima over both directions.  ``delta(eps)`` computes the
    hockey-stick divergence at any eps.  ``method``: "exact" (sums over atoms or pieces),
    "quadrature" or "singular" (one law has atoms the other lacks, or the laws are numerically
    disjoint: infinite loss).

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import exact_privacy_loss
    >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    >>> audit = exact_privacy_loss(g, 0.0, 1.0, alphas=[2.0])
    >>> round(audit.renyi[2.0], 6), audit.within(g.map(1.0)), audit.method   # D_2 = 2 * 1/2
    (1.0, True, 'quadrature')
    """

    measure: Any
    value: Any
    tolerance: float
    max_log_ratio: float | None
    renyi: dict[float, float]
    method: str
    renyi_error: dict[float, float] = attrs.field(repr=False)
    _pair: Pair = attrs.field(repr=False)

    def delta(self, epsilon: float) -> tuple[float, float]:
        """max over directions of int max(0, p - e^epsilon q), and its error estimate."""
        return self._pair.hockey_stick(float(epsilon))

    def within(self, d_out: Any) -> bool:
        """True if the loss does not exceed ``d_out`` (a map's output) up to ``tolerance``.

        For (epsilon, delta) pairs: delta(epsilon) <= delta + its tolerance.
        """
        if isinstance(self.measure, ApproximateDivergence):
            eps, delta = d_out
            got, err = self.delta(eps)
            return got <= delta + err + _EXACT_TOL
        if isinstance(self.measure, ZeroConcentratedDivergence):  # D_alpha <= rho alpha at each alpha
            return all(d <= d_out * a + self.renyi_error[a] + _EXACT_TOL * (1 + d) for a, d in self.renyi.items())
        return bool(self.value <= d_out + self.tolerance)


def _law_of(meas: Measurement, data: Any, name: str) -> object:
    if meas.output_law is None:
        raise MakeError("meas has no output_law: the exact audit needs a measurement whose "
                        "release law is known (post-processing and measure casts drop it)")
    try:
        return meas.output_law(data)
    except Exception as exc:  # noqa: BLE001 - the message must not echo data
        raise ValueError(f"the output law of {name} could not be computed "
                         f"({type(exc).__name__})") from None


def _relative(tol: float, value: float) -> float:
    return tol * (1 + abs(value) if math.isfinite(value) else 1)


def exact_privacy_loss(meas: Measurement, x: Any, x_prime: Any, *, alphas: Iterable[float] = DEFAULT_ALPHAS,
                       epsilon: float | None = None, resolution: float = 0.02) -> ExactAudit:
    """The exact privacy loss of ``meas`` between the datasets ``x`` and ``x_prime``.

    Uses ``meas.output_law`` (the exact law of the release, :mod:`opendp_duff.laws`).  Returns
    an :class:`ExactAudit` whose ``value`` compares with ``meas.map(d_in)`` for the distance
    d_in between x and x':

    * ``max_divergence``: max_o |log p_x(o) - log p_x'(o)| (densities or masses);
    * ``zero_concentrated_divergence``: max over ``alphas`` and both directions of D_alpha / alpha;
    * ``approximate_divergence``: delta(epsilon) = max over directions of
      int max(0, p - e^epsilon q) (pass ``epsilon``, or use ``audit.within(meas.map(d_in))``).

    Exact (float rounding only) for discrete and piecewise-constant laws; numerical
    quadrature with step ``resolution`` (in (0, 0.5], in u = log of the distance to a breakpoint) for
    location-scale laws, with the error estimate in ``tolerance`` (module docstring).
    ``alphas`` are numbers >= 1 (1 is the KL divergence).  Raises TypeError if ``meas`` is not
    a Measurement, MakeError if it has no ``output_law``, ValueError for a bad parameter or a
    law that cannot be computed (without quoting the data).

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import exact_privacy_loss
    >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    >>> m = space >> dp.t.then_clamp(bounds=(0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=2.0)
    >>> audit = exact_privacy_loss(m, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 9.0])
    >>> audit.within(m.map(1)), audit.value <= 1.0
    (True, True)
    """
    if not isinstance(meas, Measurement):
        raise TypeError(f"meas must be a Measurement, not {type(meas).__name__}")
    P, Q = _law_of(meas, x, "x"), _law_of(meas, x_prime, "x_prime")
    dw = float(resolution)
    if not 0 < dw <= 0.5:
        raise ValueError(f"resolution ({resolution!r}) must lie in (0, 0.5]")
    alphas = tuple(float(a) for a in alphas)
    if not alphas or any(not a >= 1 for a in alphas):
        raise ValueError(f"alphas ({alphas!r}) must be a non-empty list of numbers >= 1")
    pair = pair_of(P, Q, dw)
    measure = meas.output_measure
    renyi: dict[float, float] = {}
    errs: dict[float, float] = {}
    mlr: float | None = None
    value: float | None
    if isinstance(measure, MaxDivergence):
        mlr = pair.max_log_ratio()
        value, tol = mlr, _relative(_EXACT_TOL, mlr)
        if pair.method == "quadrature":
            tol = max(tol, _relative(1e-8, mlr))
    elif isinstance(measure, ZeroConcentratedDivergence):
        for a in alphas:
            renyi[a], errs[a] = pair.renyi(a)
        ratios = {a: renyi[a] / a for a in alphas}
        best = max(ratios, key=lambda a: ratios[a])
        value = ratios[best]
        tol = errs[best] / best + _EXACT_TOL * (1 + (value if math.isfinite(value) else 0))
    elif isinstance(measure, ApproximateDivergence):
        if epsilon is None:
            value, tol = None, 0.0
        else:
            d, err = pair.hockey_stick(float(epsilon))
            value, tol = d, err + _EXACT_TOL
    else:
        raise ValueError(f"unsupported output measure {measure!r}")
    return ExactAudit(measure, value, tol, mlr, renyi, pair.method, errs, pair)
