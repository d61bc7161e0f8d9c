"""How the domains reach the engines without importing them.

The engines are built on the domains: :mod:`opendp_duff.engines` imports
:mod:`opendp_duff.domains` and :mod:`opendp_duff.frames` (an engine reads a schema as domains).
Yet a domain that names an engine lets that engine admit its members.  So the engines install
their registry here, one floor below both, when :mod:`opendp_duff.engines` is imported
(``import opendp_duff`` imports it), and the domains ask :func:`installed` at call time: nothing
in the domains imports the engines, and the import graph has no cycle
(``tests/system/test_import_contract.py``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

__all__ = ["DomainEngine", "EngineLookup", "install", "installed"]


class DomainEngine(Protocol):
    """What a domain asks of the engine it names (:class:`opendp_duff.engines.Engine` has it)."""

    @property
    def column_engine(self) -> str | None: ...

    def check_column(self, domain: Any, x: object) -> Any: ...

    def check_parts(self, domain: Any, x: object) -> Any: ...


@attrs.frozen
class EngineLookup:
    """The registry's functions the domains call (those of :mod:`opendp_duff.engines`)."""

    local: DomainEngine                              # the local columns (numpy arrays)
    engine_named: Callable[[str], DomainEngine]      # raises MakeError for an unknown name
    column_engine_names: Callable[[], list[str]]
    frame_engine_names: Callable[[], list[str]]
    check_frame: Callable[[Any, object], Any]        # never raises: the frame or a refusal


_INSTALLED: list[EngineLookup] = []


def install(lookup: EngineLookup) -> None:
    """Called once, by :mod:`opendp_duff.engines` as it is imported."""
    _INSTALLED[:] = [lookup]


def installed() -> EngineLookup:
    """The engines' registry (installed by ``import opendp_duff``)."""
    if not _INSTALLED:  # unreachable through the package: its __init__ imports the engines
        raise RuntimeError("opendp_duff.engines has not been imported")
    return _INSTALLED[0]
