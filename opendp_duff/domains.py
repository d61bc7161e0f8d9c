"""Domains: the sets of values a function accepts or returns.

Every domain speaks one protocol (:class:`~opendp_duff.membership.Admits`): ``check(x)``
returns the member in canonical form or a refusal, and never raises; ``member(x)`` (a bool)
and ``admit(x)`` (the member, or a :class:`~opendp_duff.errors.NotAMember` error that describes
the domain and the failed requirement but never the data) follow from it.
``Transformation.__call__`` and ``Measurement.__call__`` call ``admit`` before anything else.

A vector domain may name a data engine (``engine="spark"``): its members are then that engine's
columns (:mod:`opendp_duff.engines`), which the engine admits.  Without one (``engine=None``) its
members are local data: lists, numpy arrays, pandas and Polars Series.
"""
from __future__ import annotations

import builtins
from typing import Any

import attrs
import numpy as np

from . import _validate as v
from ._constants import EXACT_INT_BOUND
from .membership import Admits, check_atom, check_vector
from .engine_lookup import installed
from .errors import MakeError, MakeTypeError

__all__ = ["AtomDomain", "VectorDomain", "atom_domain", "vector_domain"]


# [proof:AtomDomain]
@attrs.frozen(repr=False)
class AtomDomain(Admits):
    """Single values of type ``T`` (float, int or str), optionally within closed ``bounds``.

    Build it with :func:`atom_domain`.  The fields are validated however the domain is built
    (directly, by :func:`atom_domain` or by ``attrs.evolve``), with the errors listed there:
    a domain that held NaN together with bounds, say, would admit values outside its bounds.

    Members:
        * ``T=float``: Python floats, numpy float16/32/64, and integers k (Python or numpy)
          with |k| <= 2^53, which are exactly float64 values.  Infinities are members when the
          domain is unbounded; NaN only with ``nan=True``.  Refused: bool, None, strings,
          numpy longdouble (extended precision is not float64), integers beyond 2^53.
        * ``T=int``: Python or numpy integers within int64, [-2^63, 2^63 - 1].  Refused: floats
          (1.5 and also 1.0), bool, None, strings.
        * ``T=str``: Python ``str`` and numpy ``str_`` (admitted as a Python str).  Refused:
          bytes, None, numbers, other subclasses of str.  No bounds, no NaN.
        * With ``bounds=(lo, hi)``: only values with lo <= x <= hi.
    """

    T: type
    bounds: tuple[Any, Any] | None = None
    nan: bool = False

    def __attrs_post_init__(self) -> None:
        T, bounds, nan = self.T, self.bounds, self.nan
        if T not in (float, int, str):
            raise MakeTypeError(f"T ({T!r}) must be float, int or str")
        if T is str and bounds is not None:
            raise MakeError(f"bounds ({bounds!r}) are not defined for T=str")
        if bounds is not None:
            object.__setattr__(self, "bounds", v.bounds("bounds", bounds, T))   # finite, lo <= hi, of type T
        if not isinstance(nan, (bool, np.bool_)):
            raise MakeTypeError(f"nan ({nan!r}) must be a bool")
        if nan and T is not float:
            raise MakeError("nan (True) is only meaningful for T=float")
        if nan and bounds is not None:
            raise MakeError("nan (True) cannot be combined with bounds: NaN is outside every interval")
        object.__setattr__(self, "nan", bool(nan))

    def __repr__(self) -> str:
        parts = [f"T={self.T.__name__}"]
        if self.bounds is not None:
            parts.append(f"bounds={self.bounds!r}")
        if self.nan:
            parts.append("nan=True")
        return f"AtomDomain({', '.join(parts)})"

    @property
    def is_bounded(self) -> bool:
        """Whether the domain has bounds."""
        return self.bounds is not None

    def check(self, x: object) -> Any:
        """``x`` as a Python float (``T=float``), int (``T=int``) or str (``T=str``), exactly,
        if it is a member (see the class docstring); else a refusal (a type refusal for the
        wrong kind of value; a value refusal for NaN, out of range or outside the bounds).
        Never raises."""
        value, refusal = check_atom(self, x)
        return value if refusal is None else refusal
# [end:AtomDomain]


# [proof:atom_domain]
def atom_domain(T: type = float, bounds: tuple[Any, Any] | list[Any] | None = None,
                nan: bool = False) -> AtomDomain:
    """The domain of single values of type ``T``.

    Args:
        T: ``float``, ``int`` or ``str``.
        bounds: ``(lo, hi)``, finite numbers of type T with lo <= hi, or None (unbounded);
            always None for ``T=str``.
        nan: whether NaN is a member (``T=float`` and no bounds only).

    Returns:
        An :class:`AtomDomain`; see its docstring for the members.

    Raises:
        MakeTypeError: T is not float, int or str; bounds is not a pair of numbers; nan is not
            a bool.
        MakeError: bounds are NaN, infinite or lo > hi; bounds with T=str; nan=True with T=int,
            T=str or with bounds.

    Example:
        >>> import opendp_duff as dp
        >>> dp.atom_domain(T=float, bounds=(0.0, 1.0)).member(0.5)
        True
        >>> dp.atom_domain(T=float).member("0.5"), dp.atom_domain(T=int).member(1.0)
        (False, False)
        >>> dp.atom_domain(T=str).member("N"), dp.atom_domain(T=str).member(b"N")
        (True, False)
    """
    return AtomDomain(T, bounds, nan)   # type: ignore[arg-type]  # the class validates (and converts) its fields
# [end:atom_domain]


# [proof:VectorDomain]
@attrs.frozen(repr=False)
class VectorDomain(Admits):
    """Vectors (datasets) whose elements are members of ``element_domain``.

    Build it with :func:`vector_domain`.  The fields are validated however the domain is
    built, with the errors listed there.

    Members: a list, a tuple, a 1-d numpy array, a 1-d array-like with ``__array__`` (a
    pandas Series) or a Polars Series, each element a member of ``element_domain``; object
    arrays are checked element by element (a null of a Polars Series reads as NaN in a float
    column and as None, never a member, in a string column).  Refused: scalars, 0-d and 2-d
    arrays, strings and bytes, dicts, sets, generators, masked arrays.  A member has at most
    2^53 records.  ``size`` is a public, known length (or None: any length, including 0).
    ``sorted=True`` means non-decreasing order; it is the output domain of ``make_sort``
    (numbers only).  A broadcast numpy view (a zero stride) is refused.

    With ``engine`` (the name of a registered data engine whose columns are not local arrays,
    ``"spark"``), the members are that engine's columns whose elements are members of
    ``element_domain`` (``size`` of them if given), admitted by the engine
    (:mod:`opendp_duff.engines`); ``sorted=True`` then means the column is marked sorted (a
    Spark column has no row order of its own: every listing of it the engine makes is sorted).
    """

    element_domain: AtomDomain
    size: int | None = None
    sorted: bool = False
    engine: str | None = None

    def __attrs_post_init__(self) -> None:
        element_domain, size, sorted = self.element_domain, self.size, self.sorted
        v.instance("element_domain", element_domain, AtomDomain, "an AtomDomain")
        if size is not None:
            size = v.number("size", size, integer=True, nonneg=True)
            if size > EXACT_INT_BOUND:
                raise MakeError(f"size ({size!r}) must be at most 2^53: no dataset has more records")
            object.__setattr__(self, "size", size)
        if not isinstance(sorted, (bool, np.bool_)):
            raise MakeTypeError(f"sorted ({sorted!r}) must be a bool")
        if sorted and element_domain.T is str:
            raise MakeError("sorted (True) is only defined for numbers, not for T=str")
        object.__setattr__(self, "sorted", bool(sorted))
        if self.engine is not None:
            column_engine_names = installed().column_engine_names   # the engines are built on the domains
            if self.engine not in column_engine_names():
                raise MakeError(f"engine ({self.engine!r}) must be None (local data: the local engines share "
                                f"numpy columns) or one of {builtins.sorted(column_engine_names())}")

    def __repr__(self) -> str:
        parts = [repr(self.element_domain)]
        if self.size is not None:
            parts.append(f"size={self.size}")
        if self.sorted:
            parts.append("sorted=True")
        if self.engine is not None:
            parts.append(f"engine={self.engine!r}")
        return f"VectorDomain({', '.join(parts)})"

    def check(self, x: object) -> Any:
        """``x`` as a 1-d float64 (``T=float``), int64 (``T=int``) or object array of Python
        ``str`` (``T=str``), equal to it element by element, if it is a member; else a refusal
        (a type refusal when ``x`` or an element is the wrong kind of thing; a value refusal
        for NaN, out of range or outside the bounds, a length other than ``size``, unsorted
        data).  The array may be ``x`` itself (a float64 or int64 array, or an object array of
        Python str, is not copied): callers must not modify it.  With an engine, the engine
        decides (its column itself).  Never raises."""
        if self.engine is not None:
            # the engines are built on the domains: looked up at call time
            return installed().engine_named(self.engine).check_column(self, x)
        arr, refusal = check_vector(self, x)
        return arr if refusal is None else refusal

    def with_(self, **changes: Any) -> VectorDomain:
        """A copy with some fields changed (used by constructors to describe their output)."""
        return attrs.evolve(self, **changes)
# [end:VectorDomain]


# [proof:vector_domain]
def vector_domain(element_domain: AtomDomain, size: int | None = None, sorted: bool = False,
                  engine: str | None = None) -> VectorDomain:
    """The domain of vectors of ``element_domain`` values.

    Args:
        element_domain: an :class:`AtomDomain`.
        size: the public number of records, an integer in [0, 2^53], or None (unknown).
        sorted: whether members are in non-decreasing order (not for strings).
        engine: None (local data: lists, numpy arrays, pandas and Polars Series; a column of a
            local frame is a numpy array, so the local engines share this domain), or the name
            of a registered engine with columns of its own (``"spark"``).

    Returns:
        A :class:`VectorDomain`; see its docstring for the members.

    Raises:
        MakeTypeError: element_domain is not an AtomDomain; size is not an integer; sorted is
            not a bool.
        MakeError: size is negative or above 2^53; sorted=True with strings; engine is not
            None nor the name of an engine with columns of its own.

    Example:
        >>> import opendp_duff as dp
        >>> dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), sorted=True)
        >>> dom.member([0.1, 0.5]), dom.member([0.5, 0.1]), dom.member(0.5)
        (True, False, False)
    """
    return VectorDomain(element_domain, size, sorted, engine)   # the class validates its fields
# [end:vector_domain]
