"""make_spark_sum: the exact sum of a bounded Spark column, correctly rounded on the driver.

Spark's ``sum`` of doubles rounds at every addition, in an order that depends on the
partitioning; the single-machine :func:`opendp_duff.transformations.make_sum` releases
``math.fsum``, the exact sum rounded once.  To release the same number, each value is cut
into *limbs* on a fixed grid of powers of two, every limb is an integer below 2^52 that
Spark sums exactly as a 38-digit decimal, and the driver recombines the limb sums into the
exact rational sum and rounds it once (Python's int / int division is correctly rounded).
A first, cheap aggregation finds the finest grid step the data needs (so typical data needs
two or three limbs, not the 21 that reach the smallest subnormal).

Proof: ``proofs/spark/sum/make_spark_sum.tex``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..core import Transformation, then
from ..domains import VectorDomain
from ..metrics import Metric
from ..transformations.sum import make_sum
from . import _pyspark as ps
from . import collection
from ._parts import KID, VAL, release, shared
from .domain import SparkColumn, SparkColumnDomain
from .transformations import column_space

__all__ = ["make_spark_sum", "then_spark_sum", "limb_exponents", "grid_floor", "exact_sums"]

LIMB_BITS = 52   # a limb is an integer in [0, 2^52); n 2^52 < 10^38 for n < 2 10^22 rows


# [proof:limb_exponents]
def limb_exponents(M: float, low: int) -> list[int]:
    """Exponents k_1 > ... > k_L of the grid 2^k_i, spaced LIMB_BITS apart, with k_L = low
    and 2^(k_1 + LIMB_BITS) > M (so |x| <= M is below the top limb's range)."""
    t = math.frexp(M)[1]                         # M < 2^t
    count = max(1, math.ceil((t - low) / LIMB_BITS))
    return [low + (count - i) * LIMB_BITS for i in range(1, count + 1)]


def grid_floor(rows: Any) -> int:
    """One aggregation: an exponent ``low`` such that every value is a multiple of 2^low.

    With e the binade of the smallest non-zero |x| (2^e <= |x| < 2^(e+1)), every |x| >= it
    is a multiple of 2^max(e - 52, -1074), its unit in the last place or the subnormal one;
    Spark's log2 may be off near a power of two, so e is estimated as floor(log2) - 1 <= e.
    Only the number of limbs depends on it, never the sum.  -1074 when no value is non-zero."""
    F = ps.functions()
    smallest = F.min(F.when(F.col(VAL) != 0, F.abs(F.col(VAL))))
    row = collection.collect(rows.agg((F.floor(F.log2(smallest)) - 1).alias("e")))[0]
    collection.current().note(0, counts=1)
    return -1074 if row["e"] is None else max(int(row["e"]) - 52, -1074)


def exact_sums(rows: Any, n_keys: int, exponents: list[int]) -> list[float]:
    """One aggregation: per key, the exact sum of VAL (finite doubles, |x| < 2^(k_1 + LIMB_BITS)),
    rounded once to the nearest float; every |x| must be a multiple of 2^k_L.  For
    r_0 = |x| and each grid step g_i = 2^k_i,
    q_i = floor(r_{i-1} / g_i) and r_i = r_{i-1} - q_i g_i, all exact in doubles; then
    |x| = sum_i q_i g_i and the signed q_i are summed per key as decimals."""
    F = ps.functions()
    frame = rows.select(KID, (F.col(VAL) < 0).alias("neg"), F.abs(F.col(VAL)).alias("r"))
    names: list[str] = []
    for i, k in enumerate(exponents):
        g = F.lit(2.0 ** k)
        q = F.floor(F.col("r") / g)
        frame = frame.select(KID, "neg", *names, q.alias(f"q{i}"), (F.col("r") - q * g).alias("r"))
        names.append(f"q{i}")
    signed = [F.sum(F.when(F.col("neg"), -F.col(c)).otherwise(F.col(c)).cast("decimal(38,0)")).alias(c)
              for c in names]
    got = collection.collect(frame.groupBy(KID).agg(*signed))
    low = exponents[-1]
    out = [0.0] * n_keys
    for row in got:
        total = sum(int(row[c]) << (k - low) for c, k in zip(names, exponents, strict=True))
        out[row[KID]] = float(Fraction(total, 1 << -low))   # int / int: correctly rounded
        collection.current().note(row[KID], counts=len(names))
    return out
# [end:limb_exponents]


def make_spark_sum(input_domain: SparkColumnDomain, input_metric: Metric) -> Transformation:
    """Sum a bounded Spark column of known size exactly, and round once on the driver.

    The Spark form of :func:`opendp_duff.transformations.make_sum`: the same output (the
    exact sum correctly rounded once, which is what ``math.fsum`` returns), the same domains
    and the same stability map.  One aggregation; only integer limb sums reach the driver.

    Contract:
        * Input domain: ``SparkColumnDomain(atom_domain(T=float, bounds=(lo, hi)), size=n)``:
          the size must be known (declare it in the frame domain), as for ``make_sum``.
        * Input metric: ``symmetric_distance()``.
        * Output domain: ``atom_domain(T=float)``.  Output metric: ``absolute_distance(T=float)``.

    Args:
        input_domain: the column domain (see the contract).
        input_metric: ``symmetric_distance()``.

    Stability map:
        That of ``make_sum``: ``map(d_in) = floor(d_in / 2) (hi - lo) + ulp(n M)``, rounded up,
        with M = max(|lo|, |hi|); ``map(0) = 0``.

    Proof: ``proofs/spark/sum/make_spark_sum.tex``.

    References: [She97] (the exactly rounded sum); [CSVW22] (float sums whose sensitivity
    exceeds the idealised one).

    Example:
        >>> import opendp_duff as dp
        >>> from opendp_duff.spark import (spark_frame_domain, then_spark_select_column,
        ...                                then_spark_clamp, then_spark_sum)
        >>> space = spark_frame_domain({"x": dp.atom_domain(T=float)}, size=10), dp.symmetric_distance()
        >>> t = space >> then_spark_select_column("x") >> then_spark_clamp((0.0, 1.0)) >> then_spark_sum()
        >>> t.map(2) > 1.0
        True
    """
    # [proof:make_spark_sum]
    elem = column_space(input_domain, input_metric, bounded=True, T=float)
    local = make_sum(VectorDomain(elem, input_domain.size), input_metric)   # its checks, its map
    lo, hi = elem.bounds  # type: ignore[misc]
    M = max(abs(lo), abs(hi), 1.0)
    token = object()

    def sums(rows: Any, n_keys: int) -> list[float]:
        return exact_sums(rows, n_keys, limb_exponents(M, grid_floor(rows)))

    def function(column: SparkColumn) -> float:
        with release(column.frame):
            return float(shared(column, token, sums))

    return Transformation(input_domain, local.output_domain, input_metric, local.output_metric,
                          function, local.stability_map)
    # [end:make_spark_sum]


then_spark_sum = then(make_spark_sum)
