"""How a context reads each kind of data: the seam between the context and a data engine.

A :class:`Backend` says which data it accepts, infers the data's domain from its schema (never
from its values), and gives the constructors of the steps that depend on the engine: selecting
a column, grouping, sorting, running a measurement on every group, and building a grouped
result in the data's own library.  It may also replace any named mechanism (``mechanisms``).
Two backends are built in: 1-D arrays, and pandas or Polars data frames (imported lazily).
Another engine registers its own with :func:`register_backend`; a module named in
``LAZY_BACKENDS`` is imported the first time data from its library is seen.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from .. import transformations as trans
from ..combinators.parallel import then_parallel_composition
from ..core import Measurement, PartialConstructor
from ..domains import VectorDomain, atom_domain, vector_domain
from ..errors import MakeError, MakeTypeError
from ..frames import DataFrameDomain, dataframe_domain
from ..frames._backends import backend_of
from ._mechanisms import BUILDERS

__all__ = ["Backend", "ArrayBackend", "FrameBackend", "register_backend", "backend_for", "LAZY_BACKENDS"]

# library (top-level module name of the data's type) -> module that registers its backend
LAZY_BACKENDS: dict[str, str] = {"pyspark": "opendp_duff.spark"}


def library_of(data: object) -> str:
    """The top-level module of the data's type (``"pandas"``, ``"polars"``, ``"numpy"``...)."""
    return (type(data).__module__ or "").split(".")[0]


def dtype_T(dtype: Any) -> Optional[type]:
    """float, int or str for a numpy, pandas or Polars dtype; None for any other type (booleans,
    dates...).  Only the dtype is read: object columns are taken to hold strings, as in pandas."""
    if callable(getattr(dtype, "is_float", None)) and callable(getattr(dtype, "is_integer", None)):  # Polars
        if dtype.is_float():
            return float
        if dtype.is_integer():
            return int
        return str if str(dtype).split("(")[0] in ("String", "Utf8", "Categorical", "Enum") else None
    categories = getattr(dtype, "categories", None)
    if categories is not None:                                     # a pandas categorical
        return dtype_T(categories.dtype)
    return {"f": float, "i": int, "u": int, "U": str, "O": str}.get(getattr(dtype, "kind", None) or "")


def element_domain(T: type) -> Any:
    """``atom_domain(T)`` (no bounds, no NaN), or None when this build has no such domain."""
    try:
        return atom_domain(T=T)
    except (TypeError, ValueError):
        return None


class Backend:
    """The engine-dependent steps of a query.  Subclasses override what differs.

    What the context expects of each method (all of them public steps: none reads the data):

    * ``accepts(data)``: whether this backend reads ``data`` (by its type, never its values).
    * ``domain_of(data)``: the data's domain from its schema; ``check_domain(domain)`` refuses
      an explicit ``domain=`` of the wrong kind.
    * ``column(name)``, ``clamp(bounds)``, ``sort()``: partial constructors of transformations.
    * ``partition(by, keys)``: a partial constructor whose transformation's output domain has
      ``part_domain`` and ``keys`` and whose output metric has ``inner`` (the metric of a part);
      ``parallel(measurement)``: the partial constructor running ``measurement`` on every part.
    * ``result_frame(data, columns)``: a grouped release as a frame of the data's library
      (``data`` is only used for its library).
    * ``mechanisms``: kind -> builder ``(space, info, *args, **kwargs) -> (space, Mechanism)``
      for the named methods of :class:`~opendp_duff.context.Query` (``"median"``, ``"quantile"``,
      ``"mean"``, ``"mode"``, ``"count"``, ``"sum"``, ``"smooth_median"``, ``"trimmed_mean"``);
      the defaults are in :mod:`opendp_duff.context._mechanisms`.
    """

    name = "backend"
    mechanisms: Mapping[str, Callable[..., Any]] = BUILDERS
    groups = False   # whether .group_by() is available

    def accepts(self, data: object) -> bool:
        raise NotImplementedError

    def domain_of(self, data: object) -> Any:
        """The domain of ``data``, from its schema only."""
        raise NotImplementedError

    def check_domain(self, domain: Any) -> None:
        """Refuse an explicit ``domain=`` of the wrong kind for this data."""

    def column(self, name: str) -> PartialConstructor:
        raise MakeError("this data is a single column: build the query without .column()")

    def partition(self, by: str, keys: Sequence[Any]) -> PartialConstructor:
        raise MakeError(".group_by() needs a data frame")

    def parallel(self, measurement: Measurement) -> PartialConstructor:
        raise MakeError(".group_by() needs a data frame")

    def clamp(self, bounds: tuple[Any, Any]) -> PartialConstructor:
        return trans.then_clamp(bounds=bounds)

    def sort(self) -> PartialConstructor:
        return trans.then_sort()

    def result_frame(self, data: object, columns: dict[str, list[Any]]) -> Any:
        """A data frame of the data's library with these columns (a grouped release)."""
        raise MakeError(".group_by() needs a data frame")


class ArrayBackend(Backend):
    """1-D data: numpy arrays, pandas and Polars Series; lists and tuples with ``domain=``."""

    name = "array"

    def accepts(self, data: object) -> bool:
        if isinstance(data, np.ndarray):
            return data.ndim == 1
        if isinstance(data, (list, tuple)):
            return True
        return library_of(data) in ("pandas", "polars") and type(data).__name__ == "Series"

    def domain_of(self, data: object) -> Any:
        if isinstance(data, (list, tuple)):
            raise MakeTypeError("a list or tuple has no schema to read its type from: pass "
                                "domain=dp.vector_domain(dp.atom_domain(T=float)) (or T=int, T=str), "
                                "or a numpy array")
        T = dtype_T(getattr(data, "dtype", None))
        elem = element_domain(T) if T is not None else None
        if elem is None:
            raise MakeTypeError(f"the data's dtype ({getattr(data, 'dtype', None)!s}) is not supported: "
                                "float, integer or string data only")
        return vector_domain(elem)

    def check_domain(self, domain: Any) -> None:
        if not isinstance(domain, VectorDomain):
            raise MakeTypeError(f"domain ({domain!r}) must be a vector_domain for 1-D data")


class FrameBackend(Backend):
    """pandas and Polars DataFrames (through :mod:`opendp_duff.frames`; neither library is
    imported here)."""

    name = "frame"
    groups = True

    def accepts(self, data: object) -> bool:
        return library_of(data) in ("pandas", "polars") and type(data).__name__ == "DataFrame"

    def domain_of(self, data: object) -> Any:
        schema = data.dtypes if library_of(data) == "pandas" else data.schema  # type: ignore[attr-defined]
        columns = {}
        for name, dtype in schema.items():
            T = dtype_T(dtype)
            elem = element_domain(T) if T is not None and isinstance(name, str) else None
            if elem is not None:
                columns[name] = elem
        return dataframe_domain(columns)

    def check_domain(self, domain: Any) -> None:
        if not isinstance(domain, DataFrameDomain):
            raise MakeTypeError(f"domain ({domain!r}) must be a dp.dataframe_domain for a data frame")

    def column(self, name: str) -> PartialConstructor:
        return trans.then_select_column(name)

    def partition(self, by: str, keys: Sequence[Any]) -> PartialConstructor:
        return trans.then_partition_by(by, keys)

    def parallel(self, measurement: Measurement) -> PartialConstructor:
        return then_parallel_composition(measurement)

    def result_frame(self, data: object, columns: dict[str, list[Any]]) -> Any:
        backend = backend_of(data)
        assert backend is not None   # accepts() admitted a pandas or Polars frame
        return backend.frame_from(columns, like=data)


_BACKENDS: list[Backend] = [FrameBackend(), ArrayBackend()]


def register_backend(backend: Backend) -> None:
    """Make ``backend`` the first one asked whether it accepts the data of a new context."""
    if not isinstance(backend, Backend):
        raise MakeTypeError(f"backend ({backend!r}) must be a Backend")
    _BACKENDS.insert(0, backend)


def backend_for(data: object) -> Backend:
    """The backend that accepts ``data``."""
    module = LAZY_BACKENDS.get(library_of(data))
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MakeError(f"this build cannot read {library_of(data)} data ({module} is missing)") from None
    for backend in _BACKENDS:
        if backend.accepts(data):
            return backend
    raise MakeTypeError(f"data of type {type(data).__name__} is not supported: a pandas or Polars DataFrame, "
                        "a 1-D numpy array, a pandas or Polars Series, or a list with domain=")
