"""Validation of public parameters.

Every message names the parameter and shows its value.  Only *public*
parameters pass through here (never private data), so showing the value is safe.
"""
import math
import numbers
from decimal import Decimal
from fractions import Fraction

import numpy as np

from .errors import MakeError, MakeTypeError


def _is_bool(x):
    return isinstance(x, (bool, np.bool_))


def number(name, value, *, integer=False, nonneg=False, positive=False,
           finite=True, allow_inf=False):
    """Return ``value`` as a Python float (or int) after checking it.

    ``allow_inf`` permits +inf (but never NaN or -inf) where a parameter such
    as a scale may legitimately be infinite.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise MakeTypeError(f"{name} ({value!r}) must be a real number, not {type(value).__name__}")
    if integer:
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif float(value).is_integer():
            value = int(value)
        else:
            raise MakeTypeError(f"{name} ({value!r}) must be an integer")
    else:
        value = float(value)
    if isinstance(value, float) and math.isnan(value):
        raise MakeError(f"{name} ({value!r}) must not be NaN")
    if isinstance(value, float) and math.isinf(value):
        if not (allow_inf and value > 0):
            raise MakeError(f"{name} ({value!r}) must be finite")
    if positive and not value > 0:
        raise MakeError(f"{name} ({value!r}) must be positive")
    if nonneg and not value >= 0:
        raise MakeError(f"{name} ({value!r}) must be non-negative")
    return value


def bounds(name, value, T=float):
    """Check a ``(lo, hi)`` pair of finite numbers with lo <= hi."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise MakeTypeError(f"{name} ({value!r}) must be a pair (lo, hi)")
    lo = number(f"{name}[0]", value[0], integer=T is int)
    hi = number(f"{name}[1]", value[1], integer=T is int)
    if lo > hi:
        raise MakeError(f"{name} ({value!r}) must have lo <= hi")
    return (T(lo), T(hi))


def probability(name, value, *, lo_open=True, hi_open=True):
    """Check a number strictly (or not) inside (0, 1)."""
    value = number(name, value)
    ok_lo = value > 0 if lo_open else value >= 0
    ok_hi = value < 1 if hi_open else value <= 1
    if not (ok_lo and ok_hi):
        raise MakeError(f"{name} ({value!r}) must lie in {'(' if lo_open else '['}0, 1{')' if hi_open else ']'}")
    return value


def choice(name, value, options):
    if not isinstance(value, str) or value not in options:
        raise MakeError(f"{name} ({value!r}) must be one of {sorted(options)}")
    return value


def instance(name, value, cls, what=None):
    if not isinstance(value, cls):
        raise MakeTypeError(f"{name} ({value!r}) must be {what or cls.__name__}")
    return value


def alpha(name, value):
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
