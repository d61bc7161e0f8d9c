"""make_laplace: the Laplace mechanism (global sensitivity)."""
import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..audit import location_scale_law
from ..core import Measurement, then
from ..distributions import Laplace
from ..measures import MaxDivergence
from ..metrics import AbsoluteDistance, L1Distance
from ..samplers import standard_laplace
from ._common import exact_release, float_space


def make_laplace(input_domain, input_metric, scale):
    """Add Laplace(scale) noise, density exp(-|z|/scale) / (2 scale), to a float or a vector.

    Privacy (pure DP, ``max_divergence``): inputs within d_in under the
    absolute (or L1) distance give ``map(d_in) = d_in / scale``, rounded up;
    ``map(0) = 0``, scale 0 gives inf, scale inf gives 0.  Dwork, McSherry,
    Nissim & Smith (2006); see also file 001 of the papers.

    Floating point: each coordinate is released as the nearest float to the exact
    real x + scale Z (Z drawn exactly from lazily refined random bits), so the set of
    possible releases does not depend on x (Mironov 2012).  Never NaN; saturates at
    +-MAX.  scale = inf releases +-MAX, independent of x.

    >>> import opendp_duff as dp
    >>> m = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> m.map(1.0)
    0.5
    >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=10), dp.symmetric_distance()
    >>> (space >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0)).map(2) > 0.5
    True
    """
    is_vector = float_space(input_domain, input_metric, AbsoluteDistance, L1Distance)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)

    def function(x):
        return exact_release(x, scale, "laplace", is_vector, standard_laplace)

    return Measurement(input_domain, input_metric, MaxDivergence(), function,
                       lambda d_in: ar.div_up(d_in, scale), output_law=_law(is_vector, scale))


def _law(is_vector, scale):
    """x -> the exact law of the release, x + scale * Laplace(1) (for opendp_duff.audit)."""
    def law(x):
        loc = np.asarray(x, dtype=np.float64).reshape(-1) if is_vector else float(x)
        return location_scale_law(loc, scale, Laplace(1.0))
    return law


then_laplace = then(make_laplace)

__all__ = ["make_laplace", "then_laplace"]
