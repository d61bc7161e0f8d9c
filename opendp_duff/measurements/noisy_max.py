"""make_report_noisy_max_gumbel: the exponential mechanism over a vector of scores."""
import math

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..audit import discrete_law
from ..core import Measurement, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..measures import MaxDivergence, ZeroConcentratedDivergence
from ..metrics import InfDifferenceDistance, LInfDistance
from ..samplers.gumbel_race import exact_gumbel_race

__all__ = ["make_report_noisy_max_gumbel", "then_report_noisy_max_gumbel"]


def make_report_noisy_max_gumbel(input_domain, input_metric, scale, optimize="max",
                                 output_measure=None):
    """Release the index of a large (``optimize="max"``) or small (``"min"``) score.

    ``scale`` is the *temperature* tau: index i is released with probability

        P(i) = exp(s_i / tau) / sum_j exp(s_j / tau)

    (scores negated first when ``optimize="min"``), sampled as
    argmax_i (s_i / tau + G_i) with G_i i.i.d. standard Gumbel, exactly: the
    race is settled by lazily refined random bits whenever floats cannot decide
    (``opendp_duff.samplers.exact``, proof in ``proofs/samplers/exact.tex``;
    Gumbel-max trick; Duff paper, file 000, Proposition 5; OpenDP proof, file 002,
    Theorem 2.1).  A larger scale is more private.  The OpenDP seed code
    multiplies scores by its "temperature" while its privacy relation reads
    ``d_out * temperature >= d_in``; the two agree only if scores are divided,
    which is the one meaning used here.

    Scores are floats, or ints bounded within [-2^53, 2^53] (so that they convert
    to floats exactly; ``make_count_by_candidates`` produces such counts).
    Neighbouring score vectors have the same length and are within d_in under
    ``input_metric``:

    * ``inf_difference_distance()``: max_i (s_i - s'_i) - min_i (s_i - s'_i) <= d_in;
    * ``linf_distance(monotonic=True)``: max_i |s_i - s'_i| <= d_in with all
      differences of one sign, which implies the line above;
    * ``linf_distance()``: max_i |s_i - s'_i| <= d_in, so the inf-difference is
      at most 2 d_in.

    Privacy maps (rounded up; map(0) = 0; scale 0 gives inf, scale inf gives 0),
    with c = 2 for the plain L-inf distance and c = 1 otherwise:

    * ``max_divergence()`` (default): eta(d_in) = c d_in / scale;
    * ``zero_concentrated_divergence()``: eta(d_in)^2 / 8, because the
      mechanism is eta-bounded-range (Durfee & Rogers 2019) and an
      eta-bounded-range mechanism is eta^2/8-zCDP (Cesar & Rogers 2021).

    Edge cases, all without error or NaN: +inf scores (where the domain has
    them) win uniformly among themselves; -inf scores never win unless every
    score is -inf, and then the index is uniform; scale 0 releases an argmax
    with ties broken uniformly; scale inf releases a uniform index among the
    +inf scores if any, else among the finite ones.  Scores are shifted by
    their maximum before division, so magnitudes up to the float limits and
    scales down to the smallest subnormal are safe.  A vector domain of fixed
    size must have size >= 1; when the size is not fixed the empty vector is a
    member and releases ``None`` (vectors of different lengths are never
    neighbours, so a fixed answer leaks nothing).

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
    _score_space(input_domain, input_metric)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    sign = -1.0 if v.choice("optimize", optimize, {"max", "min"}) == "min" else 1.0
    measure = _measure(output_measure)
    factor = 2 if isinstance(input_metric, LInfDistance) and not input_metric.monotonic else 1
    zcdp = isinstance(measure, ZeroConcentratedDivergence)

    def privacy_map(d_in):
        return _privacy_value(d_in, factor, scale, zcdp)

    def function(x):
        scores = _as_scores(x)
        if scores.size == 0:
            return None
        return _exact_argmax(sign * scores, scale)

    def output_law(x):  # the exact law of the release (opendp_duff.audit)
        scores = _as_scores(x)
        if scores.size == 0:
            return discrete_law((None,), [0.0])
        return discrete_law(range(scores.size), score_log_weights(sign * scores, scale))

    return Measurement(input_domain, input_metric, measure, function, privacy_map,
                       output_law=output_law)


then_report_noisy_max_gumbel = then(make_report_noisy_max_gumbel)


def _exact_argmax(scores, scale):
    """Index i with probability exactly exp(s_i/scale) / sum_j exp(s_j/scale).

    :func:`~opendp_duff.samplers.exact.exact_gumbel_race` reads the scores and the
    scale as exact rationals; its first step is the float Gumbel race (same bytes),
    refined with more bits only when floats cannot decide.  The edge cases (+inf
    scores, scale 0 or inf, every score -inf) have log-weights in {0, -inf}, which
    are exact as floats.  ``scores`` has no NaN and at least one entry.
    """
    if 0 < scale < math.inf and np.isfinite(scores).any() and not np.isposinf(scores).any():
        return exact_gumbel_race(scores, denom=scale)
    return exact_gumbel_race(score_log_weights(scores, scale))


def score_log_weights(scores, scale):
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
    with np.errstate(over="ignore"):
        # scores - top is in [-inf, 0]: -inf stays -inf, an overflow becomes -inf
        # (its exact weight is below exp(-MAX/scale), which is 0 in floats anyway),
        # and division by a positive finite scale cannot give NaN.
        return (scores - top) / scale


def _score_space(input_domain, input_metric):
    v.instance("input_domain", input_domain, VectorDomain, "a VectorDomain of scores")
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


def _measure(output_measure):
    if output_measure is None:
        return MaxDivergence()
    if not isinstance(output_measure, (MaxDivergence, ZeroConcentratedDivergence)):
        raise MakeError(f"output_measure ({output_measure!r}) must be max_divergence() "
                        "or zero_concentrated_divergence()")
    return output_measure


def _privacy_value(d_in, factor, scale, zcdp):
    """eta = factor * d_in / scale, or eta^2 / 8 for zCDP, rounded up."""
    if d_in == 0:
        return 0.0
    if scale == 0 or math.isinf(d_in):
        return ar.INF
    if math.isinf(scale):
        return 0.0
    eta = ar.Q(factor) * ar.Q(d_in) / ar.Q(scale)   # exact rational
    return ar.up(eta * eta / 8 if zcdp else eta)


def _as_scores(x):
    """The scores as a float64 array; integers too large for a float become +-inf.

    NaN is outside the input domain; should one arrive anyway it is read as -inf (it never
    wins), so that even a non-member cannot make the release fail or depend on NaN ordering.
    """
    try:
        with np.errstate(over="ignore"):
            s = np.asarray(x, dtype=np.float64).reshape(-1)
    except (OverflowError, TypeError, ValueError):
        s = np.array([_float_or_inf(e) for e in x], dtype=np.float64)
    return np.where(np.isnan(s), -np.inf, s)


def _float_or_inf(e):
    try:
        return float(e)
    except OverflowError:
        return math.inf if e > 0 else -math.inf
