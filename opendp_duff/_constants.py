"""Numeric constants shared by the whole package (one definition each)."""
from __future__ import annotations

import math
import sys

INF = math.inf
MAX: float = sys.float_info.max          # the largest finite float64
INT64_MIN: int = -(2 ** 63)
INT64_MAX: int = 2 ** 63 - 1
EXACT_INT_BOUND: int = 2 ** 53           # every integer k with |k| <= 2^53 is exactly a float64

__all__ = ["INF", "MAX", "INT64_MIN", "INT64_MAX", "EXACT_INT_BOUND"]
