"""How a context reads each kind of data: the seam between the context and a data engine.

A :class:`Backend` says which data it accepts, infers the data's domain from its schema (never
from its values), and gives the constructors of the steps that depend on the engine: selecting
a column, grouping, sorting, running a measurement on every group, and building a grouped
result in the data's own library.  It may also replace any named mechanism (``mechanisms``).
Two backends are built in: 1-D data and data frames, both over the data engines of
:mod:`opendp_duff.engines` (numpy, pandas, Polars, Spark), whose constructors dispatch on the
domain.  Another backend registers with :func:`register_backend`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from .. import transformations as trans
from ..combinators.parallel import then_parallel_composition
from ..core import Measurement, PartialConstructor
from ..domains import VectorDomain
from ..engines import Engine, engine_for
from ..errors import MakeError, MakeTypeError
from ..frames import DataFrameDomain
from ._mechanisms import BUILDERS

__all__ = ["Backend", "ArrayBackend", "FrameBackend", "register_backend", "backend_for"]


def _engine(data: object) -> Engine | None:
    try:
        return engine_for(data)
    except MakeTypeError:
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
        engine = _engine(data)
        return engine is not None and not engine.is_frame(data)

    def domain_of(self, data: object) -> Any:
        return engine_for(data).schema(data)

    def check_domain(self, domain: Any) -> None:
        if not isinstance(domain, VectorDomain):
            raise MakeTypeError(f"domain ({domain!r}) must be a vector_domain for 1-D data")


class FrameBackend(Backend):
    """Data frames of any engine (pandas, Polars, Spark; no library is imported here)."""

    name = "frame"
    groups = True

    def accepts(self, data: object) -> bool:
        engine = _engine(data)
        return engine is not None and engine.is_frame(data)

    def domain_of(self, data: object) -> Any:
        return engine_for(data).schema(data)

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
        return engine_for(data).result_frame(data, columns)


_BACKENDS: list[Backend] = [FrameBackend(), ArrayBackend()]


def register_backend(backend: Backend) -> None:
    """Make ``backend`` the first one asked whether it accepts the data of a new context."""
    if not isinstance(backend, Backend):
        raise MakeTypeError(f"backend ({backend!r}) must be a Backend")
    _BACKENDS.insert(0, backend)


def backend_for(data: object) -> Backend:
    """The backend that accepts ``data``."""
    for backend in _BACKENDS:
        if backend.accepts(data):
            return backend
    engine_for(data)   # raises MakeTypeError, naming what is supported
    raise MakeTypeError(f"data of type {type(data).__name__} is not supported")
