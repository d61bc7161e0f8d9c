"""Spark measurements: the Duff quantile, median and mode, sampled on the driver.

Spark computes what the single-machine sampler reads (a rank window, candidate counts); the
sampler itself is the single-machine one, so each release has exactly the single-machine
law, and each privacy map is the single-machine constructor's map (taken from it).

Proofs: ``proofs/spark/measurements/<constructor>.tex``.
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .. import _validate as v
from ..core import Measurement, make_chain_mt, then
from ..domains import VectorDomain
from ..measurements.duff import _sample, make_duff_quantile
from ..measurements.noisy_max import make_report_noisy_max_gumbel
from ..measurements._rank_window import RankWindow
from ..metrics import Metric
from ..transformations.count_by_candidates import validate_candidates
from ._parts import release, shared
from .domain import SparkColumn, SparkColumnDomain
from .ranks import KeyRanks, spark_rank_sources
from .transformations import column_space, make_spark_count_by_candidates

__all__ = ["make_spark_duff_quantile", "then_spark_duff_quantile", "make_spark_duff_median",
           "then_spark_duff_median", "make_spark_duff_mode", "then_spark_duff_mode"]


class _ColumnRanks:
    """The rank source of one Spark column (or of one part of a grouped release), computed
    on first use: reading ``n`` runs the shared passes (:mod:`opendp_duff.spark.ranks`)."""

    def __init__(self, column: SparkColumn, token: object, alpha: Fraction, scale: float,
                 bounds: tuple[float, float]) -> None:
        self._args = column, token, alpha, scale, bounds
        self._source: KeyRanks | None = None

    def _get(self) -> KeyRanks:
        if self._source is None:
            column, token, alpha, scale, (lo, hi) = self._args
            self._source = shared(column, token, lambda rows, k: spark_rank_sources(rows, k, alpha, scale, lo, hi))
        return self._source

    @property
    def n(self) -> int:
        return self._get().n

    def window(self, first: int, last: int) -> RankWindow:
        return self._get().window(first, last)


def make_spark_duff_quantile(input_domain: SparkColumnDomain, input_metric: Metric, alpha: Fraction | float,
                             scale: float) -> Measurement:
    """Release a point near the alpha-quantile of a Spark column: the Duff exponential mechanism.

    The Spark form of :func:`opendp_duff.measurements.make_duff_quantile`: the same release
    law, the same privacy map.  Spark computes the rank window the sampler reads (n, an
    exact histogram bracketing the window, the window's values with their ties: usually
    three aggregations; a tail by one more pass only if the sampler opens it;
    :mod:`opendp_duff.spark.ranks`), and the single-machine sampler draws on the driver.
    Per release the driver receives at most the window's distinct values, and counts
    (:mod:`opendp_duff.spark.collection`).

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T=float, bounds=(a, b)))``, a <= b
          finite (chain ``make_spark_clamp``).
        * Input metric: ``symmetric_distance()``.
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: the column domain (see the contract).
        input_metric: ``symmetric_distance()``.
        alpha: the quantile level in (0, 1), read as in ``make_duff_quantile``.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 2 / epsilon`` gives epsilon-DP.

    Privacy map:
        That of ``make_duff_quantile`` on ``vector_domain(atom_domain(T=float, bounds=(a, b)))``:
        ``map(d_in) = 2 d_in / scale``, rounded up; ``map(0) = 0``; scale 0 gives ``inf``;
        scale ``inf`` gives 0.

    Proof: ``proofs/spark/measurements/make_spark_duff_quantile.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1, §5.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import (spark_frame_domain, then_spark_select_column,
        ...                                then_spark_clamp, then_spark_duff_quantile)
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()
        >>> m = (space >> then_spark_select_column("x") >> then_spark_clamp((0.0, 10.0))
        ...      >> then_spark_duff_quantile(alpha=0.9, scale=2.0))
        >>> m.map(1)
        1.0
    """
    # [proof:make_spark_duff_quantile]
    elem = column_space(input_domain, input_metric, bounded=True, T=float)
    local = make_duff_quantile(VectorDomain(elem), input_metric, alpha, scale)  # checks; the map
    return _quantile(input_domain, input_metric, local, v.alpha("alpha", alpha), scale)
    # [end:make_spark_duff_quantile]


def make_spark_duff_median(input_domain: SparkColumnDomain, input_metric: Metric, scale: float) -> Measurement:
    """Release a point near the median of a Spark column: :func:`make_spark_duff_quantile`
    with alpha = 1/2 (the lower median, as in ``make_duff_median``).

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T=float, bounds=(a, b)))``.
        * Input metric: ``symmetric_distance()``.
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: the column domain (see the contract).
        input_metric: ``symmetric_distance()``.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 2 / epsilon`` gives epsilon-DP.

    Privacy map:
        That of ``make_duff_median``: ``map(d_in) = 2 d_in / scale``, rounded up.

    Proof: ``proofs/spark/measurements/make_spark_duff_median.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1 (Medians), §5.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import (spark_frame_domain, then_spark_select_column,
        ...                                then_spark_clamp, then_spark_duff_median)
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()
        >>> m = (space >> then_spark_select_column("x") >> then_spark_clamp((0.0, 10.0))
        ...      >> then_spark_duff_median(scale=2.0))
        >>> m.map(1)
        1.0
    """
    # [proof:make_spark_duff_median]
    return make_spark_duff_quantile(input_domain, input_metric, Fraction(1, 2), scale)
    # [end:make_spark_duff_median]


# [proof:spark_quantile_release]
def _quantile(input_domain: SparkColumnDomain, input_metric: Metric, local: Measurement,
              alpha: Fraction, scale: float) -> Measurement:
    """The Spark measurement: the rank source of the column, the single-machine sampler."""
    lo, hi = input_domain.element_domain.bounds  # type: ignore[misc]
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    token = object()

    def function(column: SparkColumn) -> float:
        with release(column.frame):
            return float(_sample(_ColumnRanks(column, token, alpha, scale, (lo, hi)), lo, hi, alpha, scale))

    return Measurement(input_domain, input_metric, local.output_measure, function, local.privacy_map)
# [end:spark_quantile_release]


def make_spark_duff_mode(input_domain: SparkColumnDomain, input_metric: Metric, candidates: Sequence[Any],
                         scale: float) -> Measurement:
    """Release a public candidate near the mode of a Spark column: the Duff exponential mechanism.

    The Spark form of :func:`opendp_duff.measurements.make_duff_mode`, built the same way:
    the counts per candidate (:func:`make_spark_count_by_candidates`, one aggregation) chained
    with ``make_report_noisy_max_gumbel`` (the exact race, on the driver), then the index's
    candidate.  The same release law and the same privacy map.

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T))`` without NaN.
        * Input metric: ``symmetric_distance()``.
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: the column domain.
        input_metric: ``symmetric_distance()``.
        candidates: public, non-empty, distinct values of type T.
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 1 / epsilon`` gives epsilon-DP.

    Privacy map:
        ``map(d_in) = d_in / scale``, rounded up (as ``make_duff_mode``).

    Proof: ``proofs/spark/measurements/make_spark_duff_mode.tex``.

    References: [GM-Duff] Definition 8, §4.1 (Modes); [OpenDP-Gumbel] Theorem 2.1, §3.1.

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import spark_frame_domain, then_spark_select_column, then_spark_duff_mode
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=int)}), dp.symmetric_distance()
        >>> (space >> then_spark_select_column("x") >> then_spark_duff_mode([1, 2, 3], scale=0.5)).map(1)
        2.0
    """
    # [proof:make_spark_duff_mode]
    elem = column_space(input_domain, input_metric)
    counts = make_spark_count_by_candidates(input_domain, input_metric, candidates)
    report = make_report_noisy_max_gumbel(counts.output_domain, counts.output_metric, scale)  # type: ignore[arg-type]
    cands = validate_candidates(candidates, elem.T)
    chain = make_chain_mt(report, counts)

    def function(column: SparkColumn) -> Any:
        with release(column.frame):
            return cands[chain._function(column)]

    return Measurement(input_domain, input_metric, chain.output_measure, function, chain.privacy_map)
    # [end:make_spark_duff_mode]


then_spark_duff_quantile = then(make_spark_duff_quantile)
then_spark_duff_median = then(make_spark_duff_median)
then_spark_duff_mode = then(make_spark_duff_mode)
