"""The sampler's window predicted where the data is: Spark evaluates ``sampler_ranks`` itself.

A Duff quantile release predicts, from a key's number of records n, the window of ranks its
sampler will ask for (:class:`~opendp_duff.duff_utility.SamplerRanks`): with P/Q = alpha,

    r = ceil(P (n + 1) / Q) - 1,   k = quantile_window(n, scale),
    first = max(r - k, 1),         last = min(r + k + 1, n).

When Q <= 4 (medians, quartiles, terciles), ``quantile_rational(alpha, n)`` is alpha itself for
every n >= 1 (its denominator is at most 2n + 2), so r is integer arithmetic on n, which Spark
computes exactly on longs; k is ``quantile_window``'s arithmetic in doubles, with Spark's
logarithm for Python's.  So a key's window can be computed in the same pass that counts its
records (:func:`opendp_duff.engines.spark.ranks.predicted_pass`), and the release needs no
sizes pass.

Only a prediction: the pass returns the ranks it used, the driver compares them with
``predict(n)`` and computes any key whose prediction differed (the two logarithms may differ in
their last bit, which moves k when the product lands within a rounding of an integer) by a
window pass of its own, so this module changes the number of passes, never a window.
Proof: ``proofs/engines/spark/rank_windows.tex`` ("Predicted windows").
"""
from __future__ import annotations

from typing import Any, TypeGuard

from ...duff_utility import WINDOW_TAIL, SamplerRanks
from . import _brackets
from . import _pyspark as ps

__all__ = ["MAX_SCALE", "predictable", "predicted_ranks_sql"]

MAX_SCALE = 2.0 ** 40


# [proof:predictable]
def predictable(predict: Any) -> TypeGuard[SamplerRanks]:
    """Whether Spark can evaluate ``predict``: a SamplerRanks whose alpha has a denominator of at
    most 4, at a scale of at most 2^40 (where the logarithms' last bits move k by one at most)."""
    return (isinstance(predict, SamplerRanks) and 0 < predict.alpha < 1 and predict.alpha.denominator <= 4
            and 0 <= predict.scale <= MAX_SCALE)
# [end:predictable]


# [proof:predicted_ranks_sql]
def predicted_ranks_sql(query: str, predict: SamplerRanks) -> str:
    """SQL of the rows of ``query`` (rows with their key's total ``tot`` >= 1) with the columns
    ``first``, ``last`` and ``m`` (= ``near_values(first, last)``) of the window ``predict(tot)`` as
    Spark computes it (and k, r): r on longs, ceil(P t / Q) as P (t div Q) + ceil(P (t mod Q) / Q),
    t = tot + 1, so no product exceeds t; k as ``quantile_window`` computes it, in doubles.  k and r
    are made in a projection of their own, so the optimiser does not copy k's expression into first
    and last.  The SQL holds only integers and exactly written doubles (:func:`._pyspark.sql_number`)."""
    scale, tail = ps.sql_number(predict.scale), ps.sql_number(WINDOW_TAIL)
    if predict.scale == 0:
        k = "least(tot + 1, 2)"
    else:
        grown = f"ceil({scale} * (ln(CAST(tot + 2 AS DOUBLE)) + {tail})) + 2"
        k = f"CASE WHEN {scale} > tot + 2 THEN tot + 1 ELSE least(tot + 1, greatest(1, {grown})) END"
    P, Q = predict.alpha.numerator, predict.alpha.denominator
    r = f"{P} * ((tot + 1) div {Q}) + ({P} * ((tot + 1) % {Q}) + {Q - 1}) div {Q} - 1"
    query = f"SELECT *, CAST({k} AS BIGINT) AS k, CAST({r} AS BIGINT) AS r FROM ({query}) AS counted"
    query = f"SELECT *, greatest(r - k, 1) AS first, least(r + k + 1, tot) AS last FROM ({query}) AS kr"
    return f"SELECT *, {_brackets.near_values_sql()} AS m FROM ({query}) AS fl"
# [end:predicted_ranks_sql]
