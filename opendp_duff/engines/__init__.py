"""Data engines: one adapter per kind of data, below the constructors.

An engine adapts one kind of data (numpy arrays, pandas, Polars eager and lazy frames, Spark):
it recognises the data, reads its schema as a domain, admits it, snapshots it, reads its
columns, splits it by public keys, builds result frames, and computes what the samplers read
(counts, exact sums, candidate counts, rank windows).  :class:`Engine` states the protocol.
A constructor (``dp.t.make_clamp``, ``dp.m.make_duff_median``, ...) picks the engine named by
its input domain (``vector_domain(..., engine="spark")``, ``dataframe_domain(..., engine=...)``;
no engine: local data), so there is one constructor per concept for every engine.

The engines register here, in :data:`ENGINES`, and nowhere else.  No engine module imports its
library: data is recognised through ``sys.modules`` (an object of a library's class implies the
library was imported), so ``import opendp_duff`` needs none of pandas, Polars or pyspark.

The rank-window seam between an engine and the Duff samplers is public here:
:class:`RankSource`, :class:`RankWindow`, :class:`Tail` (and the local sources
:class:`SortedRecords`, :class:`SelectedRecords`).
"""
from __future__ import annotations

from typing import Any

from ..membership import Refusal
from ..engine_lookup import EngineLookup, install
from ..errors import MakeError, MakeTypeError, NotAMemberTypeError
from ._base import Engine, Predict
from ._frames import LocalPart
from ._pandas import PandasEngine
from ._polars import PolarsEngine
from .local import LocalColumns, NumpyEngine, as_array
from .rank_window import RankSource, RankWindow, SortedRecords, Tail
from .selection import SelectedRecords
from .spark import SparkEngine

__all__ = ["Engine", "Predict", "ENGINES", "LOCAL", "engine_for", "engine_named", "column_engine",
           "frame_engine_names", "column_engine_names", "check_frame", "snapshot", "LocalColumns",
           "LocalPart", "RankSource", "RankWindow", "Tail", "SortedRecords", "SelectedRecords", "as_array"]

# [proof:engine_registry]
LOCAL: LocalColumns = NumpyEngine()
"""The local column implementation: a column of any local engine is a numpy array."""

ENGINES: tuple[Engine, ...] = (PandasEngine(), PolarsEngine(), SparkEngine(), LOCAL)
"""The registered engines, in the order :func:`engine_for` asks them."""


def engine_for(data: object) -> Engine:
    """The engine that recognises ``data`` (by its type).

    Raises:
        MakeTypeError: no engine reads this kind of data.
    """
    for engine in ENGINES:
        if engine.recognises(data):
            return engine
    raise MakeTypeError(f"data of type {type(data).__name__} is not supported: a pandas or Polars DataFrame "
                        "(or LazyFrame), a Spark DataFrame, a 1-D numpy array, a pandas or Polars Series, "
                        "or a list with domain=")


def engine_named(name: str) -> Engine:
    """The registered engine called ``name``.

    Raises:
        MakeError: no engine has that name.
    """
    for engine in ENGINES:
        if engine.name == name:
            return engine
    raise MakeError(f"engine ({name!r}) must be one of {[e.name for e in ENGINES]}")


def column_engine(domain: Any) -> Engine:
    """The engine whose column operations run on members of a vector domain: the one it
    names, or the local columns (numpy arrays) when it names none."""
    return LOCAL if domain.engine is None else engine_named(domain.engine)


def frame_engine_names() -> list[str]:
    """The engines with data frames (what ``dataframe_domain(engine=...)`` accepts)."""
    return [e.name for e in ENGINES if e.name != LOCAL.name]


def column_engine_names() -> list[str]:
    """The engines whose columns are not local arrays (what ``vector_domain(engine=...)`` accepts)."""
    return [e.name for e in ENGINES if e.column_engine is not None]


def check_frame(domain: Any, x: object) -> Any:
    """The admitted frame of a frame domain, or a refusal (never raises): the engine the domain
    names decides, or, for a domain without one, the local engine that recognises ``x``."""
    try:
        if domain.engine is not None:
            engine = engine_named(domain.engine)
            if not engine.recognises(x):
                return Refusal(NotAMemberTypeError, f"data must be a {engine.name} frame, not {type(x).__name__}")
            return engine.check_frame(domain, x)
        for engine in ENGINES:
            if engine.local and engine is not LOCAL and engine.recognises(x):
                return engine.check_frame(domain, x)
    except Exception:  # noqa: BLE001 - an object whose type check raised (a property of its own)
        return Refusal(NotAMemberTypeError, "the data could not be read as a data frame")
    return Refusal(NotAMemberTypeError, "data must be a pandas or Polars DataFrame (or a Polars LazyFrame), "
                                        f"not {type(x).__name__}")
# [end:engine_registry]


# [proof:engine_snapshot]
def snapshot(data: object) -> Any:
    """A copy of an admitted member that later changes to the caller's object cannot reach: the
    engine's snapshot (numpy copy, pandas deep copy, Polars clone, a LazyFrame collected; a Spark
    frame kept as it is), part by part for a tuple or list of parts; anything else (a number)
    is kept."""
    if isinstance(data, tuple) and type(data) is tuple:
        return tuple(snapshot(part) for part in data)
    if isinstance(data, list) and type(data) is list:
        return [snapshot(part) for part in data]
    for engine in ENGINES:
        if engine.recognises(data):
            return engine.snapshot(data)
    return data
# [end:engine_snapshot]


# the domains look the engines up through opendp_duff.engine_lookup (they are below the engines)
install(EngineLookup(LOCAL, engine_named, column_engine_names, frame_engine_names, check_frame))
