"""make_parallel_composition: one measurement on every part of a partition."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .. import _validate as v
from .. import arithmetic as ar
from ..core import Measurement, derived, check_fit, then
from ..engines import LOCAL, engine_named
from ..errors import MakeError
from ..frames.domain import PartitionDomain
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence
from ..metrics import PartitionDistance
from .composition import check_part

__all__ = ["make_parallel_composition", "then_parallel_composition", "split_supremum"]

EXACT_ROWS = 256        # the exact supremum evaluates the inner map at distances 0..min(linf, l1) <= this
EXACT_WORK = 1 << 16    # ... and runs at most this many steps of its dynamic programme


def make_parallel_composition(input_domain: PartitionDomain, input_metric: PartitionDistance,
                              measurement: Measurement) -> Measurement:
    """Run ``measurement`` on every part of a partition and release the tuple of the results.

    Every key gets a release, in the order of the keys, including a key whose part is empty
    (absent from the data): which keys are released never depends on the data.  The parts'
    engine runs them (a Spark split computes every part's statistics in shared passes).

    Contract:
        * Input domain: ``PartitionDomain(part_domain, keys)`` with
          ``part_domain == measurement.input_domain``, any engine.
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
        For ``d_in = (l0, l1, linf)``, write p for the inner map, ``q = min(linf, l1)`` and ``K``
        for the number of keys.  At most ``m = min(l0, l1, K)`` parts differ, part i at an inner
        distance ``k_i`` in [1, q] with ``sum k_i <= l1``; the releases are independent, so the
        loss is at most ``K h(0) + sup (h(k_1) - h(0)) + ... + (h(k_j) - h(0))`` over every such
        split (j <= m) -- the supremum over how a person's rows can fall into the parts -- with
        ``h(k) = min(p(k), ..., p(q))`` for pure DP and zCDP (a part within k is within every
        k' >= k) and, for (eps, delta), ``h = p`` with each component bounded so (delta capped
        at 1).  It is computed exactly, in rational arithmetic, by a dynamic programme over the
        integer splits when ``q <= 256`` and the programme is small (at most 2^16 steps), and
        rounded up once; otherwise by the safe bound ``K p(0) + m max(0, p(q) - p(0))``, rounded
        up.  ``p(0) = 0`` for every measurement of the library; ``map((0, 0, 0)) = K h(0)``; an
        infinite ``h(k)`` reachable by a split gives ``inf``.  With a linear inner map
        (``p(k) = c k``) a person with k rows costs ``c k``, not ``min(k, K) c k``; with one row
        per person (``d_in = (1, 1, 1)``) a grouped release costs what one release costs.

    Raises:
        MakeTypeError: ``input_domain`` is not a PartitionDomain, ``input_metric`` not a
            PartitionDistance, or ``measurement`` not a Measurement.
        MakeError: ``measurement`` interactive, or its measure does not compose here.
        FeatureNotEnabled: a measurement the library did not build, without "honest-but-curious".
        DomainMismatch, MetricMismatch: ``measurement`` does not take the parts of the partition under
            its inner metric.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/parallel/make_parallel_composition.tex``.

    References: [McS09] (parallel composition); [DR14] Thm. 3.16 and [BS16] (composition of
    the independent releases of the differing parts).

    Example:
        >>> import opendp_duff as dp
        >>> import pandas as pd
        >>> dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
        >>> parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("region", keys=["N", "S"])
        >>> median = (parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column(
        ...     "income") >> dp.t.then_clamp((0.0, 10.0)) >> dp.m.then_duff_median(scale=1.0)
        >>> grouped = parts >> dp.c.then_parallel_composition(median)
        >>> grouped.map(1), grouped.map(3), len(grouped(pd.DataFrame({"region": ["N", "N"], "income": [1.0, 2.0]})))
        (2.0, 6.0, 2)
    """
    # [proof:make_parallel_composition]
    v.instance("input_domain", input_domain, PartitionDomain, "a PartitionDomain")
    v.instance("input_metric", input_metric, PartitionDistance, "a PartitionDistance")
    v.instance("measurement", measurement, Measurement, "a Measurement")
    check_part(measurement, "the measurement")
    check_fit(input_domain.part_domain, input_metric.inner, measurement.input_domain, measurement.input_metric,
         "the measurement must take the parts of the partition",
         "the measurement must use the partition's inner metric")
    measure = measurement.output_measure
    if not isinstance(measure, (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence)):
        raise MakeError(f"measurement's output_measure ({measure!r}) does not compose here; "
                        "convert it first (for example with make_fix_delta)")
    f, inner_map, n_parts = measurement._function, measurement.privacy_map, len(input_domain.keys)
    engine = LOCAL if input_domain.part_domain.engine is None else engine_named(input_domain.part_domain.engine)
    pair = isinstance(measure, ApproximateDivergence)

    def function(parts: tuple[Any, ...]) -> tuple[Any, ...]:
        return engine.map_parts(f, parts)            # every key, in order, empty parts included

    def privacy_map(d_in: Any) -> Any:
        l0, l1, linf = d_in
        q = min(linf, l1)
        p = [inner_map(k) for k in range(q + 1)] if q <= EXACT_ROWS else [inner_map(0), inner_map(q)]
        m = min(l0, l1, n_parts)
        if not pair:
            return _bound(_suffix_min(p), m, l1, n_parts, q)
        eps = _bound([d[0] for d in p], m, l1, n_parts, q)       # one distance k per part for both
        delta = _bound([d[1] for d in p], m, l1, n_parts, q)     # components: no minimum across k
        return (eps, min(1.0, delta))

    return derived(Measurement(input_domain, input_metric, measure, function, privacy_map), measurement)
    # [end:make_parallel_composition]


then_parallel_composition = then(make_parallel_composition)


# [proof:parallel_supremum]
def _suffix_min(p: list[float]) -> list[float]:
    """h(k) = min(p(k), ..., p(last)): non-decreasing, and a bound wherever p(k) is."""
    h = list(p)
    for k in range(len(h) - 2, -1, -1):
        h[k] = min(h[k], h[k + 1])
    return h


def _bound(h: list[float], m: int, l1: int, n_parts: int, q: int) -> float:
    """The loss bound of the docstring for one additive component, rounded up: ``h`` holds
    h(0..q) (or only h(0) and h(q), when q is too large for the exact programme)."""
    if math.isinf(h[0]):                             # every part (there is one per key, >= 1) costs inf
        return math.inf
    base = Fraction(0) if h[0] == 0 else Fraction(n_parts) * Fraction(h[0])
    if m == 0 or q == 0:
        return ar.up(base)
    if any(math.isinf(x) for x in h[1:]):            # one part holding k <= q <= l1 rows (a split
        return math.inf                              # the supremum ranges over) reaches it
    gains = [Fraction(x) - Fraction(h[0]) for x in h]
    exact = len(h) == q + 1 and (l1 * q if m >= l1 else m * l1 * q) <= EXACT_WORK
    top = split_supremum(gains, m, l1) if exact else m * max(Fraction(0), gains[-1])
    return ar.up(base + top)


def split_supremum(gains: list[Fraction], m: int, l1: int) -> Fraction:
    """max over j <= m parts and distances k_1..k_j in [1, q] with sum k_i <= l1 of
    sum_i gains[k_i] (0 for j = 0), where q = len(gains) - 1.

    Exact: the gains are dyadic rationals, scaled to integers by their common denominator.
    best[j][s] is the largest sum with at most j parts and at most s rows in all; a part
    holds >= 1 row, so with m >= l1 the number of parts never binds and one row of the table
    suffices (an unbounded knapsack over s)."""
    q = len(gains) - 1
    den = max(g.denominator for g in gains)
    g = [int(x * den) for x in gains]                # exact: every denominator divides den
    rounds = 1 if m >= l1 else m
    best = [0] * (l1 + 1)
    for _ in range(rounds):
        prev = best if m >= l1 else list(best)       # unbounded: reuse this round's entries
        new = [0] * (l1 + 1)
        for s in range(1, l1 + 1):
            top = new[s - 1] if s else 0
            for k in range(1, min(q, s) + 1):
                here = (new if m >= l1 else prev)[s - k] + g[k]
                if here > top:
                    top = here
            new[s] = max(top, prev[s])
        best = new
    return Fraction(best[l1], den)
# [end:parallel_supremum]
