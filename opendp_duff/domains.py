"""Domains: the sets of values a function accepts or returns."""
import math
import numbers

import attrs
import numpy as np

from . import _validate as v
from .errors import MakeError, MakeTypeError

__all__ = ["AtomDomain", "VectorDomain", "atom_domain", "vector_domain"]


INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


@attrs.frozen(repr=False)
class AtomDomain:
    """Single values of type ``T`` (float or int), optionally within closed ``bounds``.

    Integers are 64-bit: T=int holds the integers in [-2^63, 2^63 - 1].

    A float domain without bounds holds every float except NaN (unless
    ``nan=True``); infinities are members.
    """

    T: type
    bounds: tuple | None = None
    nan: bool = False

    def __repr__(self):
        parts = [f"T={self.T.__name__}"]
        if self.bounds is not None:
            parts.append(f"bounds={self.bounds!r}")
        if self.nan:
            parts.append("nan=True")
        return f"AtomDomain({', '.join(parts)})"

    @property
    def is_bounded(self):
        return self.bounds is not None

    def member(self, x):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
            return False
        if self.T is int:
            if not isinstance(x, numbers.Integral) or not INT64_MIN <= x <= INT64_MAX:
                return False
        elif math.isnan(x):
            return self.nan
        if self.bounds is not None:
            return self.bounds[0] <= x <= self.bounds[1]
        return True

    def members(self, arr):
        """Vectorised :meth:`member` on a numpy array (used by vector domains)."""
        if self.T is int:
            if arr.dtype.kind not in "iu":
                return False
            if arr.dtype.kind == "u" and arr.size and arr.max() > INT64_MAX:
                return False
        elif arr.dtype.kind not in "fiu":
            return False
        if self.T is float and not self.nan and arr.dtype.kind == "f" and np.isnan(arr).any():
            return False
        if self.bounds is not None and arr.size:
            lo, hi = self.bounds
            return bool(np.all(arr >= lo) and np.all(arr <= hi))
        return True


def atom_domain(T=float, bounds=None, nan=False):
    """The domain of single values of type ``T``.

    >>> import opendp_duff as dp
    >>> dp.atom_domain(T=float, bounds=(0.0, 1.0)).member(0.5)
    True
    """
    if T not in (float, int):
        raise MakeTypeError(f"T ({T!r}) must be float or int")
    if bounds is not None:
        bounds = v.bounds("bounds", bounds, T)
    if not isinstance(nan, (bool, np.bool_)):
        raise MakeTypeError(f"nan ({nan!r}) must be a bool")
    if nan and T is int:
        raise MakeError("nan (True) is only meaningful for T=float")
    if nan and bounds is not None:
        raise MakeError("nan (True) cannot be combined with bounds: NaN is outside every interval")
    return AtomDomain(T, bounds, bool(nan))


@attrs.frozen(repr=False)
class VectorDomain:
    """Vectors whose elements lie in ``element_domain``.

    ``size`` is a public, known length (or None).  ``sorted=True`` means the
    vector is in non-decreasing order; it is the output domain of ``make_sort``.
    """

    element_domain: AtomDomain
    size: int | None = None
    sorted: bool = False

    def __repr__(self):
        parts = [repr(self.element_domain)]
        if self.size is not None:
            parts.append(f"size={self.size}")
        if self.sorted:
            parts.append("sorted=True")
        return f"VectorDomain({', '.join(parts)})"

    def member(self, x):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
            return False
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError):
            return False
        if arr.ndim != 1:
            return False
        if arr.size == 0:  # no element to check, whatever dtype numpy guessed for []
            return self.size is None or self.size == 0
        if arr.dtype.kind == "O" and not all(self.element_domain.member(e) for e in x):
            return False
        if arr.dtype.kind != "O" and not self.element_domain.members(arr):
            return False
        if self.size is not None and arr.size != self.size:
            return False
        if self.sorted and arr.size > 1 and not np.all(arr[1:] >= arr[:-1]):
            return False
        return True

    def with_(self, **changes):
        return attrs.evolve(self, **changes)


def vector_domain(element_domain, size=None, sorted=False):
    """The domain of vectors of ``element_domain`` values.

    >>> import opendp_duff as dp
    >>> dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True)
    >>> dom.member([0.1, 0.5]), dom.member([0.5, 0.1])
    (True, False)
    """
    v.instance("element_domain", element_domain, AtomDomain, "an AtomDomain")
    if size is not None:
        size = v.number("size", size, integer=True, nonneg=True)
    if not isinstance(sorted, (bool, np.bool_)):
        raise MakeTypeError(f"sorted ({sorted!r}) must be a bool")
    return VectorDomain(element_domain, size, bool(sorted))
