"""Grouping by keys discovered from the data: noisy thresholded counts, then a release per key.

``query.group_by("code")`` without keys, in an (epsilon, delta) context, runs as one measurement
in two stages on the same data:

1. the keys: ``select_column(by) >> count_by_key >> threshold_keys(scale, threshold)`` at the
   part ``key_share`` of the query's budget, its scale and threshold from
   ``threshold_keys_parameters`` ([KKMN09]; [DVGM22]: the keys of a GROUP BY are data);
2. the statistics: the partition by the keys released in stage 1 and the parallel composition
   of the calibrated per-group measurement, with the rest of the budget.

Stage 2 is chosen after stage 1's release (adaptive composition of two stages, [DR14] Thm 3.16
for (epsilon, delta)), so its loss must be bounded whatever keys stage 1 releases.  The
parallel composition's map at a partition distance (l0, l1, linf) depends on the number of
keys n only through n times the part's map at 0 and through min(l0, l1, n) (a person's rows
differ in at most l0 parts); with a part that costs nothing on an unchanged group (checked when
the plan is calibrated; true of every measurement of the library) it grows with n until n
reaches l0.  Stage 2 is therefore calibrated on a stand-in partition of placeholder keys, as
many as the l0 the privacy unit reaches, and its map bounds stage 2 for every key set.  The
whole map is the composition's map (``dp.c.make_composition``) of stage 1 and that stand-in,
so it is the exact sum of the two, rounded up.
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from .. import combinators as comb
from .. import measurements as meas
from ..combinators.composition import check_part
from ..core import Measurement, Transformation
from ..errors import MakeError
from ..measurements.threshold_keys import threshold_keys_parameters
from ..measures import ApproximateDivergence

__all__ = ["Discovery", "placeholders", "refuse_measure"]


def refuse_measure(measure: Any) -> None:
    """Discovering keys needs a delta: refused, before any data, in a context without one."""
    if not isinstance(measure, ApproximateDivergence):
        raise MakeError("group_by() without keys discovers the keys from the data, which releases a key held by "
                        "one person with a small probability (a delta): it needs an (epsilon, delta) context "
                        "(dp.loss_of(epsilon=..., delta=...)); give the public keys (keys=[...]) otherwise")


def placeholders(T: type, count: int) -> tuple[Any, ...]:
    """``count`` distinct values of type T standing in for keys not known yet."""
    if T is str:
        return tuple(f"\x00{i}" for i in range(count))
    return tuple(T(i) for i in range(count))


@attrs.frozen
class Discovery:
    """How a grouping discovers its keys.

    Attributes:
        counts: the data -> counts per key of the column ``by`` (``make_count_by_key``).
        partition: ``keys -> Transformation`` the partition of the data by those keys.
        share: the part of the query's budget that pays for the keys, in (0, 1).
    """

    counts: Transformation
    partition: Callable[[tuple[Any, ...]], Transformation] = attrs.field(eq=False)
    share: Any

    def parameters(self, d_in: Any, budget: Any) -> tuple[float, float]:
        """(scale, threshold) of the noisy counts within ``budget`` = (epsilon, delta)."""
        epsilon, delta = budget
        if not (epsilon > 0 and delta > 0):
            raise MakeError(f"discovering keys needs a positive epsilon and delta, not {budget!r}: give the query "
                            "a budget with both")
        return threshold_keys_parameters(self.counts.map(d_in), delta, epsilon=epsilon)

    def keys(self, d_in: Any, budget: Any) -> Measurement:
        """The thresholded noisy counts of the keys within ``budget`` = (epsilon, delta)."""
        scale, threshold = self.parameters(d_in, budget)
        counts = self.counts
        domain: Any = counts.output_domain
        built = counts >> meas.make_threshold_keys(domain, counts.output_metric, scale=scale, threshold=threshold)
        assert isinstance(built, Measurement)
        return built

    def measurement(self, keys: Measurement, stand_in: Measurement,
                    grouped: Callable[[Transformation], Measurement]) -> Measurement:
        """Stage 1 (``keys``) then stage 2 (``grouped(partition(released keys))``), releasing
        ``(keys, releases)``; its map is that of the composition of ``keys`` and ``stand_in``
        (stage 2 on placeholder keys, whose map bounds it for every key set)."""
        check_part(keys, "the discovery of keys")
        check_part(stand_in, "the grouped measurement")
        composed = comb.make_composition([keys, stand_in])
        partition = self.partition

        def function(data: Any) -> Any:
            found = tuple(keys(data))          # the released keys, in increasing order (public now)
            if not found:
                return (), ()
            return found, grouped(partition(found))(data)

        return Measurement(composed.input_domain, composed.input_metric, composed.output_measure, function,
                           composed.privacy_map)
