"""Grouping by keys discovered from the data: noisy thresholded counts, then a release per key.

``query.group_by("code")`` (or ``group_by(["carrier", "origin"])``) without keys, in an
(epsilon, delta) context or a (rho, delta) one, runs as one measurement in two stages on the
same data:

1. the keys: ``count_by_key(by) >> threshold_keys(scale, threshold, noise)`` at the part
   ``key_share`` of the query's budget, its scale and threshold from
   ``threshold_keys_parameters`` ([KKMN09]; [DVGM22]: the keys of a GROUP BY are data):
   Laplace noise for (epsilon, delta), Gaussian noise for (rho, delta) ([BS16] Prop. 1.6 for
   the counts; the threshold makes a key held on one side only pass with probability at most
   delta, the Gaussian partition selection of [GGKSSY20]);
2. the statistics: the partition by the keys released in stage 1 and the parallel composition
   of the calibrated per-group measurement, with the rest of the budget.

Stage 2 is chosen after stage 1's release (adaptive composition of two stages: [DR14] Thm 3.16
for (epsilon, delta); for (rho, delta), the filter argument of
``proofs/combinators/sequential/make_sequential_composition.tex``), so its loss must be bounded
whatever keys stage 1 releases.  The
parallel composition's map at a partition distance (l0, l1, linf) depends on the number of
keys n only through n times the part's map at 0 and through min(l0, l1, n) (a person's rows
differ in at most l0 parts); with a part that costs nothing on an unchanged group (checked when
the plan is calibrated; true of every measurement of the library) it grows with n until n
reaches l0.  Stage 2 is therefore calibrated on a stand-in partition of placeholder keys, as
many as the l0 the privacy unit reaches, and its map bounds stage 2 for every key set.  The
whole map is the composition's map (``dp.c.make_composition``) of stage 1 and that stand-in,
so it is the exact sum of the two, rounded up.  Proof: ``proofs/plans/discovery.tex``.
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from .. import measurements as meas
from ..combinators.composition import check_part
from ..core import Measurement, Transformation, check_fit, derived
from ..errors import MakeError
from ..measurements.threshold_keys import threshold_keys_parameters
from ..measures import ApproximateDivergence, ApproximateZeroConcentratedDivergence, ZeroConcentratedDivergence

__all__ = ["Discovery", "placeholders", "refuse_measure"]


_WHY = ("group_by() without keys discovers the keys from the data, which releases a key held by one person with a "
        "small probability (a delta)")


# [proof:refuse_measure]
def refuse_measure(measure: Any) -> None:
    """Discovering keys needs a delta: refused, before any data, in a context without one."""
    if isinstance(measure, ZeroConcentratedDivergence):
        raise MakeError(f"{_WHY}: a rho-only budget has no delta; give one, dp.loss_of(rho=..., delta=...), or "
                        "give the public keys (keys=[...])")
    if not isinstance(measure, (ApproximateDivergence, ApproximateZeroConcentratedDivergence)):
        raise MakeError(f"{_WHY}: it needs an (epsilon, delta) context (dp.loss_of(epsilon=..., delta=...)) or a "
                        "(rho, delta) one (dp.loss_of(rho=..., delta=...)); give the public keys (keys=[...]) "
                        "otherwise")
# [end:refuse_measure]


# [proof:placeholders]
def placeholders(types: tuple[type, ...], count: int) -> tuple[Any, ...]:
    """``count`` distinct keys standing in for keys not known yet: values of the one type, or
    tuples with a value of each type (the i-th key repeats i in every component)."""
    def values(T: type) -> list[Any]:
        return [f"\x00{i}" for i in range(count)] if T is str else [T(i) for i in range(count)]
    columns = [values(T) for T in types]
    return tuple(columns[0]) if len(types) == 1 else tuple(zip(*columns, strict=True))
# [end:placeholders]


@attrs.frozen
class Discovery:
    """How a grouping discovers its keys.

    Attributes:
        counts: the data -> counts per key of the column ``by``, or of the tuple of the columns
            ``by`` (``make_count_by_key``).
        partition: ``keys -> Transformation`` the partition of the data by those keys.
        share: the part of the query's budget that pays for the keys, in (0, 1).
        measure: the context's measure: ``approximate_divergence()`` (Laplace noise) or
            ``approximate_zero_concentrated_divergence()`` (Gaussian noise).
    """

    counts: Transformation
    partition: Callable[[tuple[Any, ...]], Transformation] = attrs.field(eq=False)
    share: Any
    measure: Any = ApproximateDivergence()

    @property
    def noise(self) -> str:
        """The noise of the counts: Gaussian in a (rho, delta) context, Laplace otherwise."""
        return "gaussian" if isinstance(self.measure, ApproximateZeroConcentratedDivergence) else "laplace"

    # [proof:Discovery.parameters]
    def parameters(self, d_in: Any, budget: Any) -> tuple[float, float]:
        """(scale, threshold) of the noisy counts within ``budget`` = (epsilon, delta) or (rho, delta)."""
        first, delta = budget
        if not (first > 0 and delta > 0):
            name = "rho" if self.noise == "gaussian" else "epsilon"
            raise MakeError(f"discovering keys needs a positive {name} and delta, not {budget!r}: give the query "
                            "a budget with both")
        if self.noise == "gaussian":
            return threshold_keys_parameters(self.counts.map(d_in), delta, rho=first)
        return threshold_keys_parameters(self.counts.map(d_in), delta, epsilon=first)

    def keys(self, d_in: Any, budget: Any) -> Measurement:
        """The thresholded noisy counts of the keys within ``budget``."""
        scale, threshold = self.parameters(d_in, budget)
        counts = self.counts
        domain: Any = counts.output_domain
        built = counts >> meas.make_threshold_keys(domain, counts.output_metric, scale=scale, threshold=threshold,
                                                   noise=self.noise)
        assert isinstance(built, Measurement)
        return built
    # [end:Discovery.parameters]

    # [proof:Discovery.measurement]
    def measurement(self, keys: Measurement, stand_in: Measurement,
                    grouped: Callable[[Transformation], Measurement]) -> Measurement:
        """Stage 1 (``keys``) then stage 2 (``grouped(partition(released keys))``), releasing
        ``(keys, releases)``; its map is the measure's composition (the componentwise sum,
        rounded up) of the maps of ``keys`` and ``stand_in`` (stage 2 on placeholder keys, whose
        map bounds it for every key set), both in the context's measure."""
        check_part(keys, "the discovery of keys")
        check_part(stand_in, "the grouped measurement")
        check_fit(keys.input_domain, keys.input_metric, stand_in.input_domain, stand_in.input_metric,
                  "the two stages must take the same data", "the two stages must use the same metric")
        measure = keys.output_measure
        if type(stand_in.output_measure) is not type(measure) or type(measure) is not type(self.measure):
            raise MakeError(f"the two stages must be in the context's measure {self.measure!r}, not "
                            f"{measure!r} and {stand_in.output_measure!r}")
        partition, first, second = self.partition, keys.privacy_map, stand_in.privacy_map

        def function(data: Any) -> Any:
            found = tuple(keys(data))          # the released keys, in increasing order (public now)
            if not found:
                return (), ()
            return found, grouped(partition(found))(data)

        def privacy_map(d_in: Any) -> Any:
            return measure.compose([first(d_in), second(d_in)])

        return derived(Measurement(keys.input_domain, keys.input_metric, measure, function, privacy_map),
                       keys, stand_in)
    # [end:Discovery.measurement]
