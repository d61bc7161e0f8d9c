"""make_gaussian: the Gaussian mechanism (global sensitivity) under zCDP."""
import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import location_scale_law
from ..core import Measurement, then
from ..distributions import Gaussian
from ..measures import ZeroConcentratedDivergence
from ..metrics import AbsoluteDistance, L2Distance
from ..samplers import standard_normal
from ..samplers.exact_noise import GAUSSIAN
from ._common import exact_release, float_space


def make_gaussian(input_domain, input_metric, scale):
    """Add N(0, scale^2) noise to a float or a vector.

    Privacy (``zero_concentrated_divergence``): inputs within d_in under the
    absolute (or L2) distance give ``map(d_in) = (d_in / scale)^2 / 2``,
    rounded up; ``map(0) = 0``, scale 0 gives inf, scale inf gives 0.
    Bun & Steinke (2016), Proposition 1.6; file 004 §2.

    Floating point: each coordinate is released as the nearest float to the exact
    real x + scale Z (Z drawn exactly from lazily refined random bits), so the set of
    possible releases does not depend on x.  Never NaN; saturates at +-MAX.

    >>> import opendp_duff as dp
    >>> m = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> m.map(1.0)
    0.125
    """
    is_vector = float_space(input_domain, input_metric, AbsoluteDistance, L2Distance)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)

    def privacy_map(d_in):
        if d_in == 0:
            return 0.0
        ratio = ar.div_up(d_in, scale)
        return ar.INF if ratio == ar.INF else ar.up(ar.Q(ratio) ** 2 / 2)

    def function(x):
        return exact_release(x, scale, GAUSSIAN, is_vector, standard_normal)

    return Measurement(input_domain, input_metric, ZeroConcentratedDivergence(), function, privacy_map,
                       output_law=_law(is_vector, scale))


def _law(is_vector, scale):
    """x -> the exact law of the release, x + scale * Gaussian(1) (for opendp_duff.audit)."""
    def law(x):
        loc = np.asarray(x, dtype=np.float64).reshape(-1) if is_vector else float(x)
        return location_scale_law(loc, scale, Gaussian(1.0))
    return law


then_gaussian = then(make_gaussian)

__all__ = ["make_gaussian", "then_gaussian"]
