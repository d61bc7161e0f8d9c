"""Membership of atom and vector domains: the checks behind ``member`` and ``admit``.

Each check returns ``(value, None)`` for a member, where ``value`` is the member in its
canonical form (a Python float or int for an atom; a fresh-or-shared 1-d ``float64`` or
``int64`` array for a vector, equal element by element to the input), or ``(None, refusal)``
for a non-member.  A :class:`Refusal` names the error class and the requirement that failed;
it never holds the data.  No check raises: every call into code that reads the data (numpy
conversion of foreign objects) is guarded, and the refusal is built after the guard, so no
exception that saw the data is chained to the error.

The rules (``docs`` of :func:`opendp_duff.domains.atom_domain` and ``vector_domain``):

* a float domain takes Python floats, numpy float16/32/64, and integers (Python or numpy) k
  with |k| <= 2^53, which convert to float64 exactly; it refuses bool, None, strings, numpy
  longdouble, integers beyond 2^53, and NaN unless the domain admits it;
* an int domain takes Python or numpy integers within int64 and refuses floats (also 1.0),
  bool, None and strings;
* a str domain takes Python ``str`` and numpy ``str_`` (not bytes, not None, not other
  subclasses of str);
* a vector is a list, a tuple, a 1-d numpy array, a 1-d array-like with ``__array__``
  (a pandas Series) or a Polars Series; object arrays are checked element by element.  A
  vector of strings is admitted as a numpy array of dtype object holding Python ``str``.
  A broadcast view (an array with a zero stride) is refused in O(1): it can be far longer
  than the memory behind it, and every function on it would copy it whole.

Every domain speaks one protocol, :class:`Admits`: ``check(x)`` returns the admitted value or a
:class:`Refusal` and never raises; ``member`` and ``admit`` are defined from it once.
"""
from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._constants import EXACT_INT_BOUND, INT64_MAX, INT64_MIN
from .errors import NotAMember, NotAMemberTypeError, NotAMemberValueError

if TYPE_CHECKING:
    from .domains import AtomDomain, VectorDomain

__all__ = ["Refusal", "Admits", "check_atom", "check_vector"]

# [proof:element_types]
_FLOAT_TYPES = (float, np.float16, np.float32, np.float64)   # exact types: no bool, no longdouble
_STR_TYPES = (str, np.str_)    # exact types: no bytes, no other subclass of str
_FLOAT_CHARS = "efd"           # the dtype characters of float16, float32, float64
_NOT_CONTAINERS = (str, bytes, bytearray, dict, set, frozenset)


def _is_int_type(t: type) -> bool:
    """Python int (not bool, not a subclass) or a numpy integer type (np.bool_ is not one)."""
    return t is int or issubclass(t, np.integer)
# [end:element_types]


# [proof:Refusal]
class Refusal(NamedTuple):
    """Why a value is not a member: an error class and a requirement (never the data)."""

    error: type[NotAMember]
    requirement: str

    def exception(self, domain: object) -> NotAMember:
        return self.error(domain, self.requirement)

    def within(self, prefix: str) -> Refusal:
        """The same refusal with a public prefix (a declared column's name, a part's position)."""
        return Refusal(self.error, f"{prefix}: {self.requirement}")
# [end:Refusal]


# [proof:Admits]
class Admits:
    """The domain protocol: ``check(x)`` returns the admitted value (the member in canonical
    form) or a :class:`Refusal`, and never raises; ``member`` and ``admit`` follow from it."""

    __slots__ = ()

    def check(self, x: object) -> Any:
        """The admitted value of ``x``, or a :class:`Refusal` (never raises)."""
        raise NotImplementedError

    def member(self, x: object) -> bool:
        """Whether ``x`` is a member.  Never raises."""
        return not isinstance(self.check(x), Refusal)

    def admit(self, x: object) -> Any:
        """``x`` admitted (in canonical form) if it is a member.

        Raises:
            NotAMemberTypeError, NotAMemberValueError: ``x`` is not a member; the message names
                the domain and the requirement, never the data.
        """
        value = self.check(x)
        if isinstance(value, Refusal):
            raise value.exception(self)
        return value
# [end:Admits]


def _type(requirement: str) -> tuple[None, Refusal]:
    return None, Refusal(NotAMemberTypeError, requirement)


def _value(requirement: str) -> tuple[None, Refusal]:
    return None, Refusal(NotAMemberValueError, requirement)


def _kind_name(t: type) -> str:
    """A public description of an element's type (its name; never its value)."""
    if t is np.longdouble:
        return "numpy longdouble (extended precision is not float64)"
    return t.__name__


def _elements_requirement(T: type) -> str:
    if T is str:
        return "elements must be strings (Python str or numpy str_); bytes, None and numbers are refused"
    if T is float:
        return ("elements must be floats (Python float or numpy float16/32/64) or integers k with "
                "|k| <= 2^53; bool, None, strings and numpy longdouble are refused")
    return "elements must be integers within int64 (Python or numpy); floats, bool, None and strings are refused"


# ---- atoms ------------------------------------------------------------------------------

# [proof:check_atom]
def check_atom(domain: AtomDomain, x: object) -> tuple[Any, Refusal | None]:
    """``(canonical x, None)`` if x is a member of ``domain``, else ``(None, refusal)``."""
    t = type(x)
    if domain.T is str:
        if t not in _STR_TYPES:
            return _type(f"a value must be a string (Python str or numpy str_), not {_kind_name(t)}")
        return str(x), None
    if domain.T is float:
        if t in _FLOAT_TYPES:
            value: float | int = float(x)  # type: ignore[arg-type]  # exact: at most 64 bits
        elif _is_int_type(t):
            k = int(x)  # type: ignore[call-overload]
            if not -EXACT_INT_BOUND <= k <= EXACT_INT_BOUND:
                return _value("an integer in a float domain must satisfy |k| <= 2^53 (exactly a float64)")
            value = float(k)
        else:
            return _type(f"a value must be a float or an integer k with |k| <= 2^53, not {_kind_name(t)}")
        if math.isnan(value):
            return (value, None) if domain.nan else _value(_NAN)
    else:
        if not _is_int_type(t):
            return _type(f"a value must be an integer within int64, not {_kind_name(t)}")
        value = int(x)  # type: ignore[call-overload]
        if not INT64_MIN <= value <= INT64_MAX:
            return _value("a value must be an integer within int64")
    if domain.bounds is not None and not domain.bounds[0] <= value <= domain.bounds[1]:
        return _value(f"a value must lie within the bounds {list(domain.bounds)!r}")
    return value, None
# [end:check_atom]


_NAN = "NaN is not a member (impute it first: make_impute_constant on a domain with nan=True)"


# ---- vectors ----------------------------------------------------------------------------

# [proof:check_vector]
def check_vector(domain: VectorDomain, x: object) -> tuple[np.ndarray | None, Refusal | None]:
    """``(canonical array, None)`` if x is a member of ``domain``, else ``(None, refusal)``."""
    try:
        arr, refusal = _as_array(domain.element_domain.T, x)
    except Exception:  # noqa: BLE001 - foreign code (__iter__, __array__, properties) raised
        arr, refusal = None, _UNREADABLE
    if refusal is not None:
        return None, refusal
    assert arr is not None
    refusal = _check_values(domain, arr)
    return (None, refusal) if refusal is not None else (arr, None)


_UNREADABLE = Refusal(NotAMemberTypeError, "the data could not be read as a sequence of values")


def _as_array(T: type, x: object) -> tuple[np.ndarray | None, Refusal | None]:
    """The data as a 1-d float64 (T=float) or int64 array, exactly, or a type/value refusal."""
    if isinstance(x, np.ndarray):
        if isinstance(x, np.ma.MaskedArray):
            return _type("masked arrays are refused: impute or drop the masked entries first")
        return _from_ndarray(T, x)
    if isinstance(x, (list, tuple)):
        return _from_items(T, x if type(x) in (list, tuple) else list(x))
    polars = sys.modules.get("polars")    # never imported here: a Series implies it is loaded
    if polars is not None and isinstance(x, polars.Series):
        arr = x.to_numpy()                                 # guarded by check_vector
        if not isinstance(arr, np.ndarray):
            return _type("the Polars Series could not be read as a 1-d numpy array")
        return _from_ndarray(T, arr)
    if (not isinstance(x, _NOT_CONTAINERS) and hasattr(x, "__array__") and hasattr(x, "__len__")
            and getattr(x, "ndim", None) == 1):           # a pandas Series, duck-typed
        arr = np.asarray(x)                                # guarded by check_vector
        if not isinstance(arr, np.ndarray):
            return _type("the array-like data could not be read as a 1-d numpy array")
        return _from_ndarray(T, arr)
    return _type("data must be a list, tuple, 1-d numpy array, pandas Series or Polars Series, "
                 f"not {type(x).__name__}")


def _from_ndarray(T: type, a: np.ndarray) -> tuple[np.ndarray | None, Refusal | None]:
    if a.ndim != 1:
        return _type("data must be one-dimensional, not a scalar (0-d array)" if a.ndim == 0
                     else f"data must be one-dimensional, not {a.ndim}-dimensional")
    if a.size > 1 and a.strides[0] == 0:     # one element repeated: O(1), whatever the length
        return _type("a broadcast view (an array with a zero stride) is refused: pass a copy (np.array(x))")
    kind = a.dtype.kind
    if a.size == 0:                          # no element to check, whatever dtype numpy guessed
        return np.zeros(0, dtype=_EMPTY_DTYPES[T]), None
    if T is str:
        if kind == "U" or (kind == "T" and not hasattr(a.dtype, "na_object")):
            return a.astype(object), None    # numpy strings without a missing value: each a Python str
        if kind == "T":                      # StringDType(na_object=...): a missing value is not a str
            obj = a.astype(object)
            return _from_items(T, obj.tolist(), obj)
        if kind == "O":
            return _from_items(T, a.tolist(), a)
        return _type(_elements_requirement(T) + f"; the array holds {_DTYPE_KINDS.get(kind, 'other values')}")
    if kind == "O":
        return _from_items(T, a.tolist())   # object arrays: element by element, unconverted
    if kind == "f" and a.dtype.char in _FLOAT_CHARS:
        if T is int:
            return _type("elements must be integers within int64, not floats")
        return a.astype(np.float64, copy=False), None
    if kind in "iu":
        return _from_int_array(T, a)
    if kind == "f":
        return _type(f"elements must not be {_kind_name(a.dtype.type)}")
    return _type(_elements_requirement(T) + f"; the array holds {_DTYPE_KINDS.get(kind, 'other values')}")


_DTYPE_KINDS = {"b": "bool", "c": "complex numbers", "U": "strings", "T": "strings", "S": "bytes",
                "V": "raw records", "M": "datetimes", "m": "timedeltas", "f": "floats", "i": "integers",
                "u": "integers"}
_EMPTY_DTYPES = {float: np.float64, int: np.int64, str: object}


def _from_int_array(T: type, a: np.ndarray) -> tuple[np.ndarray | None, Refusal | None]:
    if T is float:
        if a.size and a.dtype.itemsize > 4:   # int64/uint64 may exceed 2^53; int32 and below cannot
            if not (int(a.min()) >= -EXACT_INT_BOUND and int(a.max()) <= EXACT_INT_BOUND):
                return _value("integers in a float domain must satisfy |k| <= 2^53 (exactly a float64)")
        return a.astype(np.float64), None
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) > INT64_MAX:
        return _value("elements must be integers within int64")
    return a.astype(np.int64, copy=False), None


def _from_items(T: type, items: list | tuple,
                source: np.ndarray | None = None) -> tuple[np.ndarray | None, Refusal | None]:
    """A list or tuple (or the elements of an object array ``source``): types first, then
    exact ranges."""
    types = set(map(type, items))
    if T is str:
        return _from_str_items(types, items, source)
    floats = {t for t in types if t in _FLOAT_TYPES}
    ints = {t for t in types if _is_int_type(t)}
    others = types - floats - ints
    if others:
        worst = sorted(_kind_name(t) for t in others)[0]
        return _type(_elements_requirement(T) + f"; found an element of type {worst}")
    if T is int and floats:
        return _type("elements must be integers within int64, not floats")
    if ints:
        lo, hi = _int_range(items if not floats else [e for e in items if type(e) in ints], ints)
        limit = (-EXACT_INT_BOUND, EXACT_INT_BOUND) if T is float else (INT64_MIN, INT64_MAX)
        if not (limit[0] <= lo and hi <= limit[1]):
            return _value("integers in a float domain must satisfy |k| <= 2^53 (exactly a float64)"
                          if T is float else "elements must be integers within int64")
    return np.asarray(items, dtype=np.float64 if T is float else np.int64).reshape(-1), None


def _from_str_items(types: set[type], items: list | tuple,
                    source: np.ndarray | None) -> tuple[np.ndarray | None, Refusal | None]:
    """Strings: every element of type str or numpy str_; an object array of Python str."""
    others = types - set(_STR_TYPES)
    if others:
        worst = sorted(_kind_name(t) for t in others)[0]
        return _type(_elements_requirement(str) + f"; found an element of type {worst}")
    if source is not None and types <= {str}:
        return source, None                  # already an object array of Python str
    out = np.empty(len(items), dtype=object)
    out[:] = [str(e) for e in items] if np.str_ in types else items
    return out, None


def _int_range(values: list | tuple, types: set[type]) -> tuple[int, int]:
    """(min, max) of integers, exactly: Python ints compare exactly; numpy ints are made
    Python ints first (mixed numpy/Python comparisons may go through float64)."""
    if not values:
        return 0, 0
    if types == {int}:
        return min(values), max(values)
    as_int = list(map(int, values))
    return min(as_int), max(as_int)


def _check_values(domain: VectorDomain, a: np.ndarray) -> Refusal | None:
    """NaN, bounds, size and order of a canonical array."""
    if a.size > EXACT_INT_BOUND:            # a zero-stride view can be that long without memory
        return Refusal(NotAMemberValueError, "a dataset has at most 2^53 records")
    if domain.size is not None and a.size != domain.size:
        return Refusal(NotAMemberValueError, f"the domain has size {domain.size}: the data must have "
                                             "exactly that many records")
    elem = domain.element_domain
    if a.size == 0 or elem.T is str:        # strings: no NaN, no bounds, no order
        return None
    lo_hi = (a.min(), a.max())          # NaN propagates into both
    if elem.T is float and math.isnan(lo_hi[0]):
        if not elem.nan:
            return Refusal(NotAMemberValueError, _NAN)
    elif elem.bounds is not None and not (elem.bounds[0] <= lo_hi[0] and lo_hi[1] <= elem.bounds[1]):
        return Refusal(NotAMemberValueError, f"elements must lie within the bounds {list(elem.bounds)!r}")
    if domain.sorted and a.size > 1:
        with np.errstate(invalid="ignore"):
            ordered = bool(np.all(a[1:] >= a[:-1]))
        if not ordered:
            return Refusal(NotAMemberValueError, "the data must be sorted in non-decreasing order "
                                                 "(chain make_sort first)")
    return None
# [end:check_vector]
