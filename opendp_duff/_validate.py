"""Validation of public parameters.

Every message names the parameter and shows its value.  Only *public*
parameters pass through here (never private data), so showing the value is safe.
Data is checked by its domain instead (:mod:`opendp_duff.domains`).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from . import arithmetic as ar
from ._constants import EXACT_INT_BOUND
from .errors import MakeError, MakeTypeError


def _is_bool(x: object) -> bool:
    return isinstance(x, (bool, np.bool_))


def _shown(value: object) -> str:
    """repr of a public parameter, shortened (a huge integer has thousands of digits, and
    Python refuses to print one beyond 4300)."""
    try:
        text = repr(value)
    except ValueError:
        return f"an integer too large to print ({type(value).__name__})"
    return text if len(text) <= 40 else text[:20] + "..." + text[-8:]


# [proof:number]
def number(name: str, value: Any, *, integer: bool = False, nonneg: bool = False,
           positive: bool = False, finite: bool = True, allow_inf: bool = False) -> Any:
    """Return ``value`` as a Python float (or int) after checking it.

    ``allow_inf`` permits +inf (but never NaN or -inf) where a parameter such
    as a scale may legitimately be infinite.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise MakeTypeError(f"{name} ({_shown(value)}) must be a real number, not {type(value).__name__}")
    if integer:
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif float(value).is_integer():
            value = int(float(value))
        else:
            raise MakeTypeError(f"{name} ({_shown(value)}) must be an integer")
    else:
        try:
            value = float(value)
        except OverflowError:   # an integer beyond the float range, e.g. 10**400
            raise MakeError(f"{name} ({_shown(value)}) is too large for a float") from None
    if isinstance(value, float) and math.isnan(value):
        raise MakeError(f"{name} ({_shown(value)}) must not be NaN")
    if isinstance(value, float) and math.isinf(value):
        if not (allow_inf and value > 0):
            raise MakeError(f"{name} ({_shown(value)}) must be finite")
    if positive and not value > 0:
        raise MakeError(f"{name} ({_shown(value)}) must be positive")
    if nonneg and not value >= 0:
        raise MakeError(f"{name} ({_shown(value)}) must be non-negative")
    return value
# [end:number]


# [proof:bounds]
def bounds(name: str, value: Any, T: type = float) -> tuple[Any, Any]:
    """Check a ``(lo, hi)`` pair of finite numbers with lo <= hi."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise MakeTypeError(f"{name} ({value!r}) must be a pair (lo, hi)")
    lo = number(f"{name}[0]", value[0], integer=T is int)
    hi = number(f"{name}[1]", value[1], integer=T is int)
    if lo > hi:
        raise MakeError(f"{name} ({value!r}) must have lo <= hi")
    return (T(lo), T(hi))
# [end:bounds]


# [proof:probability]
def probability(name: str, value: Any, *, lo_open: bool = True, hi_open: bool = True) -> float:
    """Check a number strictly (or not) inside (0, 1)."""
    value = number(name, value)
    ok_lo = value > 0 if lo_open else value >= 0
    ok_hi = value < 1 if hi_open else value <= 1
    if not (ok_lo and ok_hi):
        raise MakeError(f"{name} ({value!r}) must lie in {'(' if lo_open else '['}0, 1{')' if hi_open else ']'}")
    return value
# [end:probability]


# [proof:choice]
def choice(name: str, value: Any, options: Iterable[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise MakeError(f"{name} ({value!r}) must be one of {sorted(options)}")
    return value
# [end:choice]


# [proof:instance]
def instance(name: str, value: Any, cls: type | tuple[type, ...], what: str | None = None) -> Any:
    if not isinstance(value, cls):
        raise MakeTypeError(f"{name} ({value!r}) must be {what or getattr(cls, '__name__', cls)}")
    return value
# [end:instance]


# [proof:alpha]
def alpha(name: str, value: Any) -> Fraction:
    """A quantile level in the open interval (0, 1), as an exact :class:`fractions.Fraction`.

    The one parser for quantile levels.  An int or Fraction is exact; a float, numpy float or
    Decimal is read as the shortest decimal that prints as it *in its own precision*, the number
    the user typed: ``0.1`` and ``np.float32(0.1)`` are both 1/10, not the binary fraction just
    above it.  Booleans, NaN, infinities and values outside (0, 1) are refused.
    """
    if _is_bool(value) or not isinstance(value, (numbers.Real, Decimal)):
        raise MakeTypeError(f"{name} ({value!r}) must be a real number, not {type(value).__name__}")
    if isinstance(value, numbers.Rational):
        exact = Fraction(int(value.numerator), int(value.denominator))
    else:
        text = str(value) if isinstance(value, (np.floating, Decimal)) else repr(float(value))
        try:
            exact = Fraction(text)
        except ValueError:   # nan, inf
            raise MakeError(f"{name} ({value!r}) must be finite") from None
    if not 0 < exact < 1:
        raise MakeError(f"{name} ({value!r}) must lie in (0, 1)")
    return exact
# [end:alpha]


def trim_count(name: str, value: Any, n: int) -> int:
    """A number of records trimmed from each end of n sorted records: an integer m with
    0 <= m and 2m < n, so that at least one record remains."""
    m = number(name, value, integer=True, nonneg=True)
    if not 2 * m < n:
        raise MakeError(f"{name} ({m!r}) must be less than n/2 (n = {n})")
    return int(m)


# [proof:finite_width]
def finite_width(name: str, bounds: tuple[Any, Any]) -> float:
    """The width hi - lo of validated bounds, rounded up; refused when it is not finite
    (for example (-1e308, 1e308)), since every map that scales by the width would be inf."""
    lo, hi = bounds
    width = ar.sub_up(float(hi), float(lo))
    if not math.isfinite(width):
        raise MakeError(f"{name} ({bounds!r}) must have a finite width hi - lo")
    return width
# [end:finite_width]


# [proof:exact_int_bounds]
def exact_int_bounds(name: str, shown: object, T: type, bounds: tuple[Any, Any] | None) -> None:
    """For T=int, require bounds within [-2^53, 2^53]: then every member converts to a float
    exactly, so a map proven on real numbers is not stretched by the conversion
    (float(2^53 + 1) = 2^53).  Float domains pass: their members are floats already."""
    if T is int and (bounds is None or max(abs(bounds[0]), abs(bounds[1])) > EXACT_INT_BOUND):
        raise MakeError(f"{name} ({shown!r}): integer elements must be bounded within [-2^53, 2^53] "
                        "so that they convert to floats exactly")
# [end:exact_int_bounds]
