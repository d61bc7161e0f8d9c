"""make_report_noisy_max_gumbel: the exponential mechanism over a vector of scores.

Gumbel-max sampling ([OpenDP-Gumbel] Theorem 2.1; [GM-Duff] Proposition 5), decided exactly
by :func:`opendp_duff.samplers.gumbel_race.exact_gumbel_race`.  The score metrics
(``inf_difference_distance``, ``linf_distance``) and their conventions for infinite scores
and vectors of different lengths are in :mod:`opendp_duff.metrics`.

Proof: ``proofs/measurements/noisy_max/make_report_noisy_max_gumbel.tex``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import discrete_law, relative_log_weights
from ..core import Measurement, then
from ..domains import AtomDomain, VectorDomain
from ..errors import MakeError
from ..measures import MaxDivergence, ZeroConcentratedDivergence
from ..metrics import InfDifferenceDistance, LInfDistance, Metric
from ..samplers.gumbel_race import exact_race_with_ties

__all__ = ["make_report_noisy_max_gumbel", "then_report_noisy_max_gumbel"]


def make_report_noisy_max_gumbel(
        input_domain: VectorDomain, input_metric: Metric, scale: float, optimize: str = "max",
        output_measure: MaxDivergence | ZeroConcentratedDivergence | None = None) -> Measurement:
    """Release the index of a large (``optimize="max"``) or small (``"min"``) score.

    Index i is released with probability exactly

        P(i) = exp(s_i / scale) / sum_j exp(s_j / scale)

    (scores negated first when ``optimize="min"``), sampled as argmax_i (s_i / scale + G_i)
    with G_i i.i.d. standard Gumbel, decided exactly by lazily refined random bits
    (``opendp_duff.samplers.gumbel_race``).  ``scale`` is the *temperature*: scores are divided by
    it and a larger scale is more private.  ([OpenDP-Gumbel] §3 lists code that multiplies
    scores by its temperature while its privacy relation reads ``d_out * temperature >=
    d_in``; only division agrees with that relation and with its equation (2), and division
    is what we implement.)

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))`` of scores: T float without NaN
          (+-inf allowed unless bounded), or T int bounded within [-2^53, 2^53] (so that the
          scores convert to floats exactly); a fixed size, if any, is at least 1.
        * Input metric: ``inf_difference_distance()``, ``linf_distance(monotonic=True)`` or
          ``linf_distance()``; neighbouring score vectors have the same length (see
          :class:`~opendp_duff.metrics.InfDifferenceDistance` for infinite entries).
        * Output measure: ``max_divergence()`` (default) or ``zero_concentrated_divergence()``.

    Args:
        input_domain: the domain of the score vectors (see the contract).
        input_metric: the metric on score vectors (see the contract).
        scale: the temperature, a number >= 0 or ``inf``.
        optimize: ``"max"`` or ``"min"``.
        output_measure: ``None`` (meaning ``max_divergence()``), ``max_divergence()`` or
            ``zero_concentrated_divergence()``.

    Privacy map:
        With c = 2 for ``linf_distance()`` and c = 1 for the other two metrics,
        eta(d_in) = c d_in / scale; ``max_divergence()``: map(d_in) = eta, and
        ``zero_concentrated_divergence()``: map(d_in) = eta^2 / 8 (the mechanism is
        eta-bounded-range [DR19], and eta-bounded range implies eta^2/8-zCDP [CR21]), each
        computed exactly and rounded up once.
        ``map(0) = 0``; scale 0 or d_in = inf gives ``inf``; scale ``inf`` gives 0.

    Edge cases, all without error or NaN: +inf scores win uniformly among themselves;
    -inf scores never win unless every score is -inf, and then the index is uniform;
    scale 0 releases an argmax with ties broken uniformly; scale inf releases a uniform
    index among the +inf scores if any, else among the finite ones.  When the size is not
    fixed the empty vector is a member and releases ``None`` (vectors of different lengths
    are never neighbours).  The running time is not protected.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``scale`` is not a real number.
        MakeError: a domain admitting NaN, naming an engine, of size 0, or of int scores not bounded
            within [-2^53, 2^53]; ``input_metric`` neither ``inf_difference_distance()`` nor
            ``linf_distance(...)``; ``scale`` negative or NaN; ``optimize`` neither "max" nor "min";
            ``output_measure`` neither ``max_divergence()`` nor ``zero_concentrated_divergence()``.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/noisy_max/make_report_noisy_max_gumbel.tex``.

    References: [OpenDP-Gumbel] Theorem 2.1, §3.1, §4.2; [GM-Duff] Proposition 5; [Gum54];
    [MT07].

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance()
        >>> m = space >> dp.m.then_report_noisy_max_gumbel(scale=2.0)
        >>> m.map(1.0), m([0.0, 10.0, 3.0]) in (0, 1, 2)
        (0.5, True)
        >>> zc = dp.m.make_report_noisy_max_gumbel(*space, scale=2.0,
        ...                                        output_measure=dp.zero_concentrated_divergence())
        >>> zc.map(1.0)
        0.03125
    """
    # [proof:make_report_noisy_max_gumbel]
    _score_space(input_domain, input_metric)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    sign = -1.0 if v.choice("optimize", optimize, {"max", "min"}) == "min" else 1.0
    measure = _measure(output_measure)
    factor = 2 if isinstance(input_metric, LInfDistance) and not input_metric.monotonic else 1
    zcdp = isinstance(measure, ZeroConcentratedDivergence)

    def privacy_map(d_in: float) -> float:
        return _privacy_value(d_in, factor, scale, zcdp)

    def function(x: Any) -> int | None:
        scores = _as_scores(x)
        if scores.size == 0:
            return None
        return _exact_argmax(scores if sign > 0 else -scores, scale)
    # [end:make_report_noisy_max_gumbel]

    # [proof:make_report_noisy_max_gumbel.output_law]
    def output_law(x):  # the exact law of the release (opendp_duff.audit)
        scores = _as_scores(x)
        if scores.size == 0:
            return discrete_law((None,), [0.0])
        return discrete_law(range(scores.size), score_log_weights(sign * scores, scale))
    # [end:make_report_noisy_max_gumbel.output_law]

    return Measurement(input_domain, input_metric, measure, function, privacy_map,
                       output_law=output_law)


then_report_noisy_max_gumbel = then(make_report_noisy_max_gumbel)


# [proof:noisy_max_release]
def _exact_argmax(scores: np.ndarray, scale: float) -> int:
    """Index i with probability exactly exp(s_i/scale) / sum_j exp(s_j/scale).

    :func:`~opendp_duff.samplers.gumbel_race.exact_race_with_ties` reads the scores and the
    scale as exact rationals (equal scores, e.g. the many zero counts of a mode over a million
    candidates, race as one block whose member is then uniform); its first step is the float
    Gumbel race, refined with more bits only when floats cannot decide.  The edge cases (+inf
    scores, scale 0 or inf, every score -inf) have log-weights in {0, -inf}, which
    are exact as floats.  ``scores`` has no NaN and at least one entry.
    """
    if 0 < scale < math.inf and np.isfinite(scores).any() and not np.isposinf(scores).any():
        return exact_race_with_ties(scores, denom=scale)
    return exact_race_with_ties(score_log_weights(scores, scale))


def score_log_weights(scores: np.ndarray, scale: float) -> np.ndarray:
    """Log-weights w with softmax(w) = the release distribution, each w_i in [-inf, 0].

    ``scores`` is a non-empty float array without NaN (already negated for "min").
    """
    pos = np.isposinf(scores)
    if pos.any():                         # +inf scores share all the mass
        return np.where(pos, 0.0, -np.inf)
    finite = np.isfinite(scores)
    if not finite.any():                  # every score is -inf: uniform
        return np.zeros(scores.shape)
    top = scores[finite].max()
    if scale == 0:                        # deterministic argmax, uniform among ties
        return np.where(scores == top, 0.0, -np.inf)
    if math.isinf(scale):                 # uniform over the finite scores
        return np.where(finite, 0.0, -np.inf)
    # (s_i - top) / scale in [-inf, 0], formed without overflow: a gap beyond the largest
    # float is halved first, so scores [1e308, -1e308] at scale 1e308 weigh [0, -2]
    return relative_log_weights(scores, top, scale)
# [end:noisy_max_release]


# [proof:noisy_max_space]
def _score_space(input_domain: Any, input_metric: Any) -> AtomDomain:
    v.instance("input_domain", input_domain, VectorDomain, "a VectorDomain of scores")
    if input_domain.engine is not None:
        raise MakeError(f"input_domain ({input_domain!r}) must hold local scores (a numpy array), "
                        "not a column of an engine: count it first")
    elem = input_domain.element_domain
    if elem.nan:
        raise MakeError(f"input_domain ({input_domain!r}) must not admit NaN")
    if elem.T is int and (elem.bounds is None or max(map(abs, elem.bounds)) > 2 ** 53):
        # beyond 2^53 the conversion to float could stretch score differences, which the map ignores
        raise MakeError(f"input_domain ({input_domain!r}): integer scores must be bounded "
                        "within [-2^53, 2^53] so that they convert to floats exactly")
    if input_domain.size == 0:
        raise MakeError(f"input_domain ({input_domain!r}) must have at least one score")
    if not isinstance(input_metric, (InfDifferenceDistance, LInfDistance)):
        raise MakeError(f"input_metric ({input_metric!r}) must be inf_difference_distance() "
                        "or linf_distance(monotonic=...)")
    return elem


def _measure(output_measure: Any) -> MaxDivergence | ZeroConcentratedDivergence:
    if output_measure is None:
        return MaxDivergence()
    if not isinstance(output_measure, (MaxDivergence, ZeroConcentratedDivergence)):
        raise MakeError(f"output_measure ({output_measure!r}) must be max_divergence() "
                        "or zero_concentrated_divergence()")
    return output_measure
# [end:noisy_max_space]


# [proof:noisy_max_map]
def _privacy_value(d_in: float, factor: int, scale: float, zcdp: bool) -> float:
    """eta = factor * d_in / scale, or eta^2 / 8 for zCDP, rounded up."""
    if d_in == 0:
        return 0.0
    if scale == 0 or math.isinf(d_in):
        return ar.INF
    if math.isinf(scale):
        return 0.0
    eta = ar.Q(factor) * ar.Q(d_in) / ar.Q(scale)   # exact rational
    return ar.up(eta * eta / 8 if zcdp else eta)
# [end:noisy_max_map]


# [proof:noisy_max_scores]
def _as_scores(x: Any) -> np.ndarray:
    """The scores as a float64 array; integers too large for a float become +-inf.

    NaN is outside the input domain; should one arrive anyway it is read as -inf (it never
    wins), so that even a non-member cannot make the release fail or depend on NaN ordering.
    """
    try:
        with np.errstate(over="ignore"):
            s = np.asarray(x, dtype=np.float64).reshape(-1)
    except (OverflowError, TypeError, ValueError):
        s = np.array([_float_or_inf(e) for e in x], dtype=np.float64)
    nan = np.isnan(s)
    return np.where(nan, -np.inf, s) if nan.any() else s


def _float_or_inf(e: Any) -> float:
    try:
        return float(e)
    except OverflowError:
        return math.inf if e > 0 else -math.inf
# [end:noisy_max_scores]
