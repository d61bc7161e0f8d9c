"""Float estimates of log, log1p and exp: NOT bounds.

Plain float approximations (about 1e-15 relative) for searches whose outcome is then bounded
rigorously with :mod:`opendp_duff.arithmetic` (for example the Renyi order alpha of the zCDP to
(eps, delta) conversion).  They use only IEEE 754 basic operations, ``frexp`` and ``ldexp``, so they
give the same result on every platform and do not depend on the platform's libm.
"""
from __future__ import annotations

import math

from ._constants import INF

__all__ = ["exp_estimate", "log_estimate", "log1p_estimate"]

_LN2_HI = 6.93147180369123816490e-01   # ln 2 split in two: LN2_HI has 32 significant bits, so
_LN2_LO = 1.90821492927058770002e-10   # k * LN2_HI is exact for |k| < 2^20
_SQRT_HALF = 0.7071067811865476


# [proof:log1p_estimate]
def log1p_estimate(u: float) -> float:
    """An estimate of log(1 + u) for u > -1 (not a bound)."""
    if not -0.3 <= u <= 0.5:
        return log_estimate(1.0 + u)
    s = u / (2.0 + u)                       # log(1 + u) = 2 atanh(s), |s| <= 0.2
    s2 = s * s
    acc = 0.0
    for k in range(25, 1, -2):              # atanh(s) = s (1 + s^2/3 + s^4/5 + ...)
        acc = (acc + 1.0 / k) * s2
    return 2.0 * s * (1.0 + acc)
# [end:log1p_estimate]


# [proof:log_estimate]
def log_estimate(x: float) -> float:
    """An estimate of log x for x >= 0 (not a bound)."""
    if not x > 0:
        if x == 0:
            return -INF
        raise ValueError(f"log_estimate: argument ({x!r}) must be >= 0")
    if x == INF:
        return INF
    m, e = math.frexp(x)                    # x = m 2^e exactly, 1/2 <= m < 1
    if m < _SQRT_HALF:
        m, e = 2.0 * m, e - 1
    return (e * _LN2_HI + log1p_estimate(m - 1.0)) + e * _LN2_LO   # m - 1 is exact
# [end:log_estimate]


# [proof:exp_estimate]
def exp_estimate(x: float) -> float:
    """An estimate of e^x (not a bound)."""
    if math.isnan(x):
        raise ValueError("exp_estimate: argument must not be NaN")
    if x > 709.8:
        return INF
    if x < -745.2:
        return 0.0
    k = round(x / (_LN2_HI + _LN2_LO))
    r = (x - k * _LN2_HI) - k * _LN2_LO      # |r| <= 0.35
    acc = 1.0
    for n in range(15, 0, -1):              # e^r = 1 + r (1 + r/2 (1 + r/3 (...)))
        acc = 1.0 + acc * r / n
    try:
        return math.ldexp(acc, k)
    except OverflowError:
        return INF
# [end:exp_estimate]
