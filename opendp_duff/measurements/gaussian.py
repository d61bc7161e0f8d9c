"""make_gaussian: the Gaussian mechanism (global sensitivity) under zCDP."""
from __future__ import annotations

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import location_scale_law
from ..core import Measurement, then
from ..distributions import Gaussian
from ..domains import AtomDomain, VectorDomain
from ..measures import ZeroConcentratedDivergence
from ..metrics import AbsoluteDistance, L2Distance, Metric
from ..samplers import standard_normal
from ..samplers.exact_noise import GAUSSIAN
from ._common import exact_release, float_space


def make_gaussian(input_domain: AtomDomain | VectorDomain, input_metric: Metric,
                  scale: float) -> Measurement:
    """Add Gaussian noise to a number or to each coordinate of a vector.

    Releases each coordinate as the nearest float to the exact real ``x_i + scale * Z_i``,
    with ``Z_i`` i.i.d. standard normal.

    Contract:
        * Input domain: ``atom_domain(T)`` or ``vector_domain(atom_domain(T))``, with T float,
          or T int bounded within [-2^53, 2^53] (so that converting to float is exact); no NaN.
        * Input metric: ``absolute_distance(T)`` for an atom, ``l2_distance(T)`` for a vector.
        * Output measure: ``zero_concentrated_divergence()`` (rho-zCDP).

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: the metric on the input (see the contract).
        scale: the standard deviation of the noise, a number >= 0 or ``inf``.

    Privacy map:
        ``map(d_in) = (d_in / scale)^2 / 2``, rounded up; ``map(0) = 0``; scale 0 gives
        ``inf``; scale ``inf`` gives 0 (the release is +-MAX with a random sign and does not
        read x).

    Floating point: the release is the exact real sum rounded once to the nearest float, so
    the set of possible releases does not depend on x [Mir12]; never NaN; saturates at +-MAX.

    Raises:
        MakeTypeError: ``input_domain`` is neither an AtomDomain nor a VectorDomain, or ``scale`` is
            not a real number.
        MakeError: a domain admitting NaN, naming an engine, or of int values not bounded within [-2^53,
            2^53]; ``input_metric`` not ``absolute_distance(T)`` (atom) or ``l2_distance(T)`` (vector),
            which also refuses elements that are neither float nor int; ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/gaussian/make_gaussian.tex``.

    References: [BS16] Proposition 1.6 (the Gaussian mechanism is zCDP); [Mir12] (why the
    rounding must be exact).

    Example:
        >>> import opendp_duff as dp
        >>> m = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> m.map(1.0)
        0.125
        >>> space = (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=10),
        ...          dp.change_one_distance())
        >>> (space >> dp.t.then_sum() >> dp.m.then_gaussian(scale=2.0)).map(1) > 0.125
        True
    """
    # [proof:make_gaussian]
    is_vector = float_space(input_domain, input_metric, AbsoluteDistance, L2Distance)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)

    def function(x):
        return exact_release(x, scale, GAUSSIAN, is_vector, standard_normal)

    def privacy_map(d_in):
        if d_in == 0:
            return 0.0
        ratio = ar.div_up(d_in, scale)
        return ar.INF if ratio == ar.INF else ar.up(ar.Q(ratio) ** 2 / 2)

    return Measurement(input_domain, input_metric, ZeroConcentratedDivergence(), function, privacy_map,
                       output_law=_law(is_vector, scale))
    # [end:make_gaussian]


def _law(is_vector, scale):
    """x -> the exact law of the release, x + scale * Gaussian(1) (for opendp_duff.audit)."""
    def law(x):
        loc = np.asarray(x, dtype=np.float64).reshape(-1) if is_vector else float(x)
        return location_scale_law(loc, scale, Gaussian(1.0))
    return law


then_gaussian = then(make_gaussian)

__all__ = ["make_gaussian", "then_gaussian"]
