"""The values a plan holds: public parameters, normalised so that a plan is hashable and equal
to its own JSON round trip.

A plan's arguments are numbers, strings, booleans, None, exact fractions, the element types
``float``, ``int``, ``str`` and ``bool``, and tuples of these.  Lists, ranges and 1-d numpy
arrays become tuples and numpy scalars Python numbers when a step is built, so that two plans
written with a list and with a tuple are the same plan.  JSON has no tuples, fractions,
types or non-finite numbers: those are written as tagged objects (``{"$float": "inf"}``,
``{"$fraction": "1/3"}``, ``{"$type": "float"}``) and every JSON array is read back as a tuple.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import MakeError, MakeTypeError

__all__ = ["normalise", "encode", "decode"]

_TYPES: dict[str, type] = {"float": float, "int": int, "str": str, "bool": bool}


def normalise(value: Any, name: str) -> Any:
    """``value`` as a plan holds it; MakeTypeError for anything that is not a public value."""
    if value is None or isinstance(value, (bool, int, float, str, Fraction)):
        return value
    if isinstance(value, np.generic):
        return normalise(value.item(), name)
    if isinstance(value, type) and value in _TYPES.values():
        return value
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return tuple(normalise(x, name) for x in value.tolist())
    if isinstance(value, (list, tuple, range)):
        return tuple(normalise(x, name) for x in value)
    raise MakeTypeError(f"{name} must be a public value a plan can hold (a number, a string, a boolean, None, "
                        f"a fraction, a type or a sequence of these), not {type(value).__name__}")


def encode(value: Any) -> Any:
    """A normalised value as JSON data."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, Fraction):
        return {"$fraction": str(value)}
    if isinstance(value, type):
        return {"$type": value.__name__}
    return [encode(x) for x in value]


def decode(data: Any) -> Any:
    """JSON data back to the normalised value (arrays become tuples)."""
    if isinstance(data, list):
        return tuple(decode(x) for x in data)
    if not isinstance(data, dict):
        return data
    if set(data) == {"$float"} and data["$float"] in ("inf", "-inf", "nan"):
        return float(data["$float"])
    if set(data) == {"$fraction"} and isinstance(data["$fraction"], str):
        return Fraction(data["$fraction"])
    if set(data) == {"$type"} and data["$type"] in _TYPES:
        return _TYPES[data["$type"]]
    raise MakeError(f"the plan holds an object that is not a value of a plan: {sorted(data)!r}")
