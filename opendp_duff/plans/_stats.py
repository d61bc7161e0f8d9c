"""Statistic expressions: ``dp.count()``, ``dp.median("x", bounds=...)``... as data-free values.

Each function returns a :class:`~opendp_duff.plans.Stat` naming a statistic of the vocabulary
(:mod:`._vocabulary`) and the column it reads; its arguments are bound and normalised exactly
as the builder method of the same name binds them (``query.column("x").median(bounds=...)``),
so the two spellings of a statistic are checked by one signature.  ``query.agg(...)`` releases
several of them at once.
"""
from __future__ import annotations

import inspect
from typing import Any, Optional, Sequence

from ..errors import MakeTypeError
from ._steps import Stat, arguments
from ._vocabulary import ENTRIES, bind

__all__ = ["count", "median", "quantile", "mean", "sum", "mode"]


def _stat(name: str, column: Optional[str], **kwargs: Any) -> Stat:
    if column is not None and not isinstance(column, str):
        raise MakeTypeError(f"{name}(): column ({column!r}) must be a column name")
    args = bind(inspect.signature(ENTRIES[name].declaration), name, (), kwargs)
    return Stat(name, column, arguments(args, name))


def count(column: Optional[str] = None, *, scale: Optional[float] = None) -> Stat:
    """The number of rows (of ``column``, which then may hold no missing values), plus Laplace
    noise of ``scale`` (calibrated to the statistic's share of the budget unless given).

    Example:
        >>> import opendp_duff as dp
        >>> dp.count()
        count()
    """
    return _stat("count", column, scale=scale)


def median(column: Optional[str] = None, *, bounds: Optional[tuple[float, float]] = None,
           scale: Optional[float] = None) -> Stat:
    """The Duff median of ``column`` clamped to ``bounds`` ([GM-Duff] §4.1), as ``query.median``.

    Example:
        >>> import opendp_duff as dp
        >>> dp.median("delay", bounds=(-60, 600))
        median('delay', bounds=(-60, 600))
    """
    return _stat("median", column, bounds=bounds, scale=scale)


def quantile(column: Optional[str], alpha: Any, *, bounds: Optional[tuple[float, float]] = None,
             scale: Optional[float] = None) -> Stat:
    """The Duff alpha-quantile of ``column`` (alpha in (0, 1)), as ``query.quantile``.

    Example:
        >>> import opendp_duff as dp
        >>> dp.quantile("delay", 0.9, bounds=(-60.0, 600.0))
        quantile('delay', alpha=0.9, bounds=(-60.0, 600.0))
    """
    return _stat("quantile", column, alpha=alpha, bounds=bounds, scale=scale)


def mean(column: Optional[str] = None, *, bounds: Optional[tuple[float, float]] = None,
         scale: Optional[float] = None) -> Stat:
    """The Duff mean of ``column`` clamped to ``bounds`` ([GM-Duff] §4.1, Means), as ``query.mean``.

    Example:
        >>> import opendp_duff as dp
        >>> dp.mean("delay", bounds=(0.0, 100.0))
        mean('delay', bounds=(0.0, 100.0))
    """
    return _stat("mean", column, bounds=bounds, scale=scale)


def sum(column: Optional[str] = None, *, bounds: Optional[tuple[float, float]] = None,  # noqa: A001
        scale: Optional[float] = None) -> Stat:
    """The sum of ``column`` clamped to ``bounds``, plus Laplace noise, as ``query.sum`` (data of
    a public size only).

    Example:
        >>> import opendp_duff as dp
        >>> dp.sum("delay", bounds=(0.0, 100.0))
        sum('delay', bounds=(0.0, 100.0))
    """
    return _stat("sum", column, bounds=bounds, scale=scale)


def mode(column: Optional[str], candidates: Sequence[Any], *, scale: Optional[float] = None) -> Stat:
    """The Duff mode of ``column`` over public ``candidates`` ([GM-Duff] §4.1, Modes), as ``query.mode``.

    Example:
        >>> import opendp_duff as dp
        >>> dp.mode("carrier", ["AA", "DL", "UA"])
        mode('carrier', candidates=('AA', 'DL', 'UA'))
    """
    return _stat("mode", column, candidates=candidates, scale=scale)
