"""make_parallel_composition: one measurement on every part of a partition."""
from __future__ import annotations

from typing import Any

from .. import _validate as v
from .. import arithmetic as ar
from ..core import Measurement, _derived, _fit, then
from ..errors import MakeError
from ..frames.domain import PartitionDomain
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..metrics import PartitionDistance
from .composition import check_part

__all__ = ["make_parallel_composition", "then_parallel_composition"]


def make_parallel_composition(input_domain: PartitionDomain, input_metric: PartitionDistance,
                              measurement: Measurement) -> Measurement:
    """Run ``measurement`` on every part of a partition and release the tuple of the results.

    Every key gets a release, in the order of the keys, including a key whose part is empty
    (absent from the data): which keys are released never depends on the data.

    Contract:
        * Input domain: ``PartitionDomain(part_domain, keys)`` with
          ``part_domain == measurement.input_domain``.
        * Input metric: ``partition_distance(inner)`` with ``inner == measurement.input_metric``.
        * Output measure: that of ``measurement``: ``max_divergence()``,
          ``zero_concentrated_divergence()`` or ``approximate_divergence()``.

    Args:
        input_domain: the domain of the partitions (see the contract).
        input_metric: the partition distance (see the contract).
        measurement: the measurement run on each part, with fresh randomness each time; not
            interactive (MakeError), and built by the library unless the feature
            "honest-but-curious" is on (:func:`~opendp_duff.combinators.composition.check_part`).
            The result is certified iff it is.

    Privacy map:
        For ``d_in = (l0, l1, linf)``: at most ``m = min(l0, l1, len(keys))`` parts differ (each
        at inner distance >= 1), each by at most ``p = min(linf, l1)``; the parts' releases are
        independent.  Pure DP and zCDP: ``m * map(p)``; (eps, delta): ``(m eps, min(1, m delta))``
        for ``(eps, delta) = map(p)``, each product rounded up.  A part at inner distance 0 may
        still be reordered; it adds ``map(0)``, which is 0 for every measurement of the library
        (else ``(len(keys) - m) * map(0)`` is added).  ``map((0, 0, 0)) = 0``; an infinite
        ``map(p)`` gives ``inf``.  With one row per person (``d_in = (1, 1, 1)``) a grouped
        release costs what one release costs.

    Proof: ``proofs/combinators/parallel/make_parallel_composition.tex``.

    References: [McS09] (parallel composition); [DR14] Thm. 3.16 and [BS16] (composition of
    the independent releases of the differing parts).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
        >>> parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("region", keys=["N", "S"])
        >>> median = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column(
        ...     "income") >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0)
        >>> grouped = parts >> dp.c.then_parallel_composition(median)
        >>> grouped.map(1), len(grouped(pd.DataFrame({"region": ["N", "N"], "income": [1.0, 2.0]})))
        (2.0, 2)
    """
    # [proof:make_parallel_composition]
    v.instance("input_domain", input_domain, PartitionDomain, "a PartitionDomain")
    v.instance("input_metric", input_metric, PartitionDistance, "a PartitionDistance")
    v.instance("measurement", measurement, Measurement, "a Measurement")
    check_part(measurement, "the measurement")
    _fit(input_domain.part_domain, input_metric.inner, measurement.input_domain, measurement.input_metric,
         "the measurement must take the parts of the partition",
         "the measurement must use the partition's inner metric")
    measure = measurement.output_measure
    if not isinstance(measure, (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence)):
        raise MakeError(f"measurement's output_measure ({measure!r}) does not compose here; "
                        "convert it first (for example with make_fix_delta)")
    f, inner_map, n_parts = measurement._function, measurement.privacy_map, len(input_domain.keys)

    def function(parts: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(f(part) for part in parts)      # every key, empty parts included

    def privacy_map(d_in: Any) -> Any:
        l0, l1, linf = d_in
        zero = inner_map(0)                          # a part at inner distance 0 (reordered rows)
        m = min(l0, l1, n_parts)                     # parts at inner distance >= 1
        total = _times(m, inner_map(min(linf, l1))) if m else _times(0, zero)
        if zero != _times(0, zero):                  # never for the library's measurements
            total = _plus(total, _times(n_parts - m, zero))
        return total

    return _derived(Measurement(input_domain, input_metric, measure, function, privacy_map), measurement)
    # [end:make_parallel_composition]


then_parallel_composition = then(make_parallel_composition)


# [proof:parallel_arithmetic]
def _times(m: int, d: Any) -> Any:
    """m * d rounded up (componentwise for an (eps, delta) pair, delta capped at 1); 0 for m = 0."""
    if isinstance(d, tuple):
        return (_times(m, d[0]), min(1.0, _times(m, d[1])))
    return 0.0 if m == 0 else ar.mul_up(m, d)


def _plus(a: Any, b: Any) -> Any:
    """a + b rounded up (componentwise for pairs, delta capped at 1)."""
    if isinstance(a, tuple):
        return (ar.add_up(a[0], b[0]), min(1.0, ar.add_up(a[1], b[1])))
    return ar.add_up(a, b)
# [end:parallel_arithmetic]
