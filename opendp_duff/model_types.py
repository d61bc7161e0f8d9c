"""The protocol of an input domain and the type parameters of the model's classes.

:class:`~opendp_duff.core.Transformation` and :class:`~opendp_duff.core.Measurement` are generic
in these (for the type checker only; see :mod:`opendp_duff.core`); they live apart from the
classes so that the core module stays the classes and their chaining.
"""
from __future__ import annotations

from typing import Any, ParamSpec, Protocol, TypeVar

from .measures import Measure
from .metrics import Metric

__all__ = ["Domain"]


class Domain(Protocol):
    """What ``__call__`` needs of an input domain (``AtomDomain`` and ``VectorDomain`` are)."""

    def member(self, x: object) -> bool: ...

    # [proof:Domain.admit]
    def admit(self, x: object) -> Any: ...
    # [end:Domain.admit]


# The type parameters (see opendp_duff.core's docstring).  DI, DO: domains; MI, MO: metrics; MM: a
# measure; TO, TO2: the type of a release; the primed ones are those of the second of a chain.
DI = TypeVar("DI", bound=Domain)
DO = TypeVar("DO", bound=Domain)
DO2 = TypeVar("DO2", bound=Domain)
MI = TypeVar("MI", bound=Metric)
MO = TypeVar("MO", bound=Metric)
MO2 = TypeVar("MO2", bound=Metric)
MM = TypeVar("MM", bound=Measure)
TO = TypeVar("TO")
TO2 = TypeVar("TO2")
R = TypeVar("R")            # what a partial constructor builds
P = ParamSpec("P")          # the parameters of make_x after (input_domain, input_metric)
