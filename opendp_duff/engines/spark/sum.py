"""The exact sum of a Spark column of finite doubles, as a rational, per key.

Spark's ``sum`` of doubles rounds at every addition, in an order that depends on the
partitioning; ``make_sum`` releases the exact sum rounded once.  To compute the exact sum,
each value is cut into *limbs* on a fixed grid of powers of two, every limb is an integer
below 2^52 that Spark sums exactly as a 38-digit decimal, and the driver recombines the limb
sums into the exact rational sum.  A first, cheap aggregation finds the finest grid step the
data needs (so typical data needs two or three limbs, not the 21 that reach the smallest
subnormal).

Proof: ``proofs/engines/spark/exact_sum.tex``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from . import _pyspark as ps
from . import collection
from .parts import KID, VAL

__all__ = ["limb_exponents", "grid_floor", "exact_sums", "LIMB_BITS"]

LIMB_BITS = 52   # a limb is an integer in [0, 2^52); n 2^52 < 10^38 for n < 2 10^22 rows


# [proof:limb_exponents]
def limb_exponents(M: float, low: int) -> list[int]:
    """Exponents k_1 > ... > k_L of the grid 2^k_i, spaced LIMB_BITS apart, with k_L = low
    and 2^(k_1 + LIMB_BITS) > M (so |x| <= M is below the top limb's range)."""
    t = math.frexp(M)[1]                         # M < 2^t
    count = max(1, math.ceil((t - low) / LIMB_BITS))
    return [low + (count - i) * LIMB_BITS for i in range(1, count + 1)]


def grid_floor(rows: Any) -> tuple[int, float]:
    """One aggregation: ``(low, M)``, an exponent such that every value is a multiple of 2^low,
    and M = max |x| (0.0 for no rows).

    With e the binade of the smallest non-zero |x| (2^e <= |x| < 2^(e+1)), every |x| >= it
    is a multiple of 2^max(e - 52, -1074), its unit in the last place or the subnormal one;
    Spark's log2 may be off near a power of two, so e is estimated as floor(log2) - 1 <= e.
    When no value is non-zero every value is 0, a multiple of 2^0.  Only the number of limbs
    depends on (low, M), never the sum."""
    F = ps.functions()
    smallest = F.min(F.when(F.col(VAL) != 0, F.abs(F.col(VAL))))
    row = collection.collect(rows.agg((F.floor(F.log2(smallest)) - 1).alias("e"),
                                      F.max(F.abs(F.col(VAL))).alias("m")))[0]
    collection.current().note(0, counts=2)
    low = 0 if row["e"] is None else max(int(row["e"]) - 52, -1074)
    return low, 0.0 if row["m"] is None else float(row["m"])


def exact_sums(rows: Any, n_keys: int, exponents: list[int]) -> list[Fraction]:
    """One aggregation: per key, the exact sum of VAL (finite doubles, |x| < 2^(k_1 + LIMB_BITS)),
    as a Fraction; every |x| must be a multiple of 2^k_L.  For
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
    out = [Fraction(0)] * n_keys
    for row in got:
        total = sum(int(row[c]) << (k - low) for c, k in zip(names, exponents, strict=True))
        out[row[KID]] = Fraction(total << low) if low >= 0 else Fraction(total, 1 << -low)
        collection.current().note(row[KID], counts=len(names))
    return out
# [end:limb_exponents]
