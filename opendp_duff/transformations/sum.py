"""make_sum: the sum of bounded float records, with a sensitivity that covers rounding."""
import math

from .. import arithmetic as ar
from ..core import Transformation, then
from ..domains import AtomDomain
from ..errors import MakeError
from ..metrics import AbsoluteDistance, ChangeOneDistance
from ._common import as_array, dataset_space


def make_sum(input_domain, input_metric):
    """Sum n bounded floats, n public.

    The released value is ``math.fsum(x)``: the exact sum S, correctly rounded
    once to a float (Shewchuk's algorithm), so |fl(S) - S| <= ulp(n M)/2 with
    M = max(|lo|, |hi|), because |S| <= n M.  Casacuberta, Shoemate, Vadhan &
    Wagaman (2022) show that the naive float sum can move much further than
    its idealised sensitivity; computing the exact sum avoids their attacks
    and leaves a single rounding per dataset.

    Stability, for datasets of the same public size n with records in [lo, hi]:

    * change-one distance: ``map(d_in) = d_in (hi - lo) + ulp(n M)``;
    * symmetric distance: same-size neighbours differ by floor(d_in / 2)
      substitutions, so ``map(d_in) = floor(d_in/2) (hi - lo) + ulp(n M)``;

    and ``map(0) = 0``.  All arithmetic rounds up.  The construction requires
    n M < MAX_FLOAT / 2, so no partial sum overflows.

    The size must be known: with an unknown size the rounding term has no
    bound (it grows with |S|).

    >>> import opendp_duff as dp
    >>> dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=3)
    >>> t = (dom, dp.symmetric_distance()) >> dp.t.then_sum()
    >>> t([0.25, 0.5, 1.0]), t.map(2) > 1.0
    (1.75, True)
    """
    elem = dataset_space(input_domain, input_metric, need_bounds=True, need_size=True, T=float)
    lo, hi = elem.bounds
    n = input_domain.size
    M = max(abs(lo), abs(hi))
    total = ar.mul_up(n, M)
    if not total < ar.MAX / 2:
        raise MakeError(f"input_domain ({input_domain!r}): size * max(|lo|, |hi|) must be "
                        f"below {ar.MAX / 2:g} so that the sum cannot overflow")
    rounding = math.ulp(total)
    width = ar.sub_up(hi, lo)
    per_unit = isinstance(input_metric, ChangeOneDistance)

    def stability_map(d_in):
        if d_in == 0:
            return 0.0
        k = d_in if per_unit else d_in // 2
        return ar.add_up(ar.mul_up(k, width), rounding)

    def function(x):
        return math.fsum(as_array(x).tolist())

    return Transformation(input_domain, AtomDomain(float), input_metric, AbsoluteDistance(float),
                          function, stability_map)


then_sum = then(make_sum)

__all__ = ["make_sum", "then_sum"]
