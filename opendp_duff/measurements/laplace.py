"""make_laplace: the Laplace mechanism (global sensitivity)."""
from __future__ import annotations

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import location_scale_law
from ..core import Measurement, then
from ..domains import AtomDomain, VectorDomain
from ..distributions import Laplace
from ..measures import MaxDivergence
from ..metrics import AbsoluteDistance, L1Distance, Metric
from ..samplers import standard_laplace
from ..samplers.exact_noise import LAPLACE
from ._common import exact_release, float_space


def make_laplace(input_domain: AtomDomain | VectorDomain, input_metric: Metric,
                 scale: float) -> Measurement:
    """Add Laplace noise to a number or to each coordinate of a vector.

    Releases each coordinate as the nearest float to the exact real ``x_i + scale * Z_i``,
    with ``Z_i`` i.i.d. of density ``exp(-|z|) / 2``.

    Contract:
        * Input domain: ``atom_domain(T)`` or ``vector_domain(atom_domain(T))``, with T float,
          or T int bounded within [-2^53, 2^53] (so that converting to float is exact); no NaN.
        * Input metric: ``absolute_distance(T)`` for an atom, ``l1_distance(T)`` for a vector.
        * Output measure: ``max_divergence()`` (pure differential privacy).

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: the metric on the input (see the contract).
        scale: the noise scale, a number >= 0 or ``inf``.

    Privacy map:
        ``map(d_in) = d_in / scale``, rounded up; ``map(0) = 0``; scale 0 gives ``inf``;
        scale ``inf`` gives 0 (the release is +-MAX with a random sign and does not read x).

    Floating point: the release is the exact real sum rounded once to the nearest float, so
    the set of possible releases does not depend on x [Mir12]; never NaN; saturates at +-MAX.

    Raises:
        MakeTypeError: ``input_domain`` is neither an AtomDomain nor a VectorDomain, or ``scale`` is
            not a real number.
        MakeError: a domain admitting NaN, naming an engine, or of int values not bounded within [-2^53,
            2^53]; ``input_metric`` not ``absolute_distance(T)`` (atom) or ``l1_distance(T)`` (vector),
            which also refuses elements that are neither float nor int; ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/laplace/make_laplace.tex``.

    References: [DMNS06] (the Laplace mechanism); [Mir12] (why the rounding must be exact).

    Example:
        >>> import opendp_duff as dp
        >>> m = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> m.map(1.0)
        0.5
        >>> space = (dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=10),
        ...          dp.symmetric_distance())
        >>> (space >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0)).map(2) > 0.5
        True
    """
    # [proof:make_laplace]
    is_vector = float_space(input_domain, input_metric, AbsoluteDistance, L1Distance)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)

    def function(x):
        return exact_release(x, scale, LAPLACE, is_vector, standard_laplace)

    def privacy_map(d_in):
        return ar.div_up(d_in, scale)

    return Measurement(input_domain, input_metric, MaxDivergence(), function, privacy_map,
                       output_law=_law(is_vector, scale))
    # [end:make_laplace]


def _law(is_vector, scale):
    """x -> the exact law of the release, x + scale * Laplace(1) (for opendp_duff.audit)."""
    def law(x):
        loc = np.asarray(x, dtype=np.float64).reshape(-1) if is_vector else float(x)
        return location_scale_law(loc, scale, Laplace(1.0))
    return law


then_laplace = then(make_laplace)

__all__ = ["make_laplace", "then_laplace"]
