"""make_sum: the sum of bounded float records, with a sensitivity that covers rounding."""
from __future__ import annotations

import math
import operator
import sys
from typing import Callable

from .. import _validate as v
from .. import arithmetic as ar
from .._constants import MAX
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..errors import MakeError
from ..metrics import AbsoluteDistance, ChangeOneDistance, Metric
from ._common import dataset_space

MAX_SIZE = 2 ** 40   # the proof's accumulation bound (Lemma "No overflow") needs n < 2^40


# [proof:binary64_probe]
def binary64_probe(add: Callable[[float, float], float] = operator.add,
                   fsum: Callable[[list[float]], float] = math.fsum) -> bool:
    """Whether float addition (and ``math.fsum``) round as IEEE 754 binary64 round-to-nearest-even,
    with no double rounding through a wider format (x87 extended precision).

    Exact probes: 1 + 2^-53 is a tie and must give 1 (ties to even; upward rounding gives
    1 + 2^-52); 1 + (2^-53 + 2^-64) lies just above the tie and must give 1 + 2^-52, but
    rounding first to a 64-bit significand makes it the tie 1 + 2^-53, which then goes to 1
    (double rounding; truncation and downward rounding give 1 as well)."""
    one, tie, nudge = 1.0, 2.0 ** -53, 2.0 ** -64
    return (sys.float_info.mant_dig == 53 and sys.float_info.radix == 2
            and add(one, tie) == one
            and add(one, tie + nudge) == 1.0 + 2.0 ** -52
            and add(-one, -(tie + nudge)) == -1.0 - 2.0 ** -52
            and fsum([one, tie, nudge]) == 1.0 + 2.0 ** -52)
# [end:binary64_probe]


# [proof:BINARY64]
BINARY64 = binary64_probe()   # evaluated once, at import
# [end:BINARY64]


def make_sum(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """Sum n bounded floats, n public.

    The released value is the exact sum S, correctly rounded once to a float (what
    ``math.fsum(x)`` returns [She97]), so |fl(S) - S| <= ulp(n M)/2 with M = max(|lo|, |hi|),
    because |S| <= n M.  A naive float sum can move much further than its idealised sensitivity
    [CSVW22]; the exact sum leaves a single rounding per dataset.  The domain's engine computes
    S exactly as a rational (locally from the records' integer mantissas; on Spark from integer
    limbs summed as decimals, one aggregation), and the division of two integers rounds it once.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T=float, bounds=(lo, hi)), size=n)``, any
          engine; the size must be known (with an unknown size the rounding term has no
          bound), below 2^40, and n M < MAX / 2 so that the sum is far from overflowing.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()``.
        * Output domain: ``atom_domain(T=float)``.  Output metric: ``absolute_distance(T=float)``.
        * Platform: IEEE 754 binary64 round-to-nearest-even without double rounding (checked
          at import by an exact probe, :func:`binary64_probe`; the constructor refuses otherwise).

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).

    Stability map:
        For datasets of the same public size n with records in [lo, hi]:
        change-one distance ``map(d_in) = d_in (hi - lo) + ulp(n M)``; symmetric distance
        (same-size neighbours differ by floor(d_in / 2) substitutions)
        ``map(d_in) = floor(d_in/2) (hi - lo) + ulp(n M)``; ``map(0) = 0``.  Rounded up.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: an element type other than float, NaN, no bounds or bounds of infinite width, an
            unknown size, a size of 2^40 or more, size * max(|lo|, |hi|) not below MAX / 2;
            ``change_one_distance()`` on a domain of unknown size; a platform without IEEE 754 binary64
            round-to-nearest arithmetic.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/sum/make_sum.tex``.

    References: [She97] (the exact sum behind ``math.fsum``); [CSVW22] (float sums whose
    sensitivity exceeds the idealised one).

    Example:
        >>> import opendp_duff as dp
        >>> dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=3)
        >>> t = (dom, dp.symmetric_distance()) >> dp.t.then_sum()
        >>> t([0.25, 0.5, 1.0]), t.map(2) > 1.0
        (1.75, True)
    """
    # [proof:make_sum]
    elem = dataset_space(input_domain, input_metric, need_bounds=True, need_size=True, T=float,
                         any_engine=True)
    if not BINARY64:
        raise MakeError("make_sum needs IEEE 754 binary64 round-to-nearest arithmetic without double "
                        "rounding, and this platform failed the probe (binary64_probe)")
    assert elem.bounds is not None and input_domain.size is not None   # by dataset_space
    lo, hi = elem.bounds
    n = input_domain.size
    if not n < MAX_SIZE:
        raise MakeError(f"input_domain ({input_domain!r}): size must be below 2^40 for the "
                        "rounding bound of the sum")
    M = max(abs(lo), abs(hi))
    total = ar.mul_up(n, M)
    if not total < MAX / 2:
        raise MakeError(f"input_domain ({input_domain!r}): size * max(|lo|, |hi|) must be "
                        f"below {MAX / 2:g} so that the sum cannot overflow")
    rounding = math.ulp(total)
    width = v.finite_width("bounds", (lo, hi))      # sub_up(hi, lo), refused if infinite
    per_unit = isinstance(input_metric, ChangeOneDistance)

    def stability_map(d_in):
        if d_in == 0:
            return 0.0
        k = d_in if per_unit else d_in // 2
        return ar.add_up(ar.mul_up(k, width), rounding)

    engine = column_engine(input_domain)

    def function(x):
        exact = engine.exact_sum(x)                    # the exact rational sum S
        return exact.numerator / exact.denominator     # int / int: S correctly rounded, once

    return Transformation(input_domain, AtomDomain(float), input_metric, AbsoluteDistance(float),
                          function, stability_map)
    # [end:make_sum]


then_sum = then(make_sum)

__all__ = ["make_sum", "then_sum", "binary64_probe"]
