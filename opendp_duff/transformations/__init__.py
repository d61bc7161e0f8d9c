"""Transformations: stable functions from datasets to datasets or numbers.

Each module defines ``__all__``; its public names are re-exported here and in ``dp.t``.
"""
from .._exports import collect as _collect
from .clamp import *  # noqa: F401,F403
from .metric_convert import *  # noqa: F401,F403
from .count_by_candidates import *  # noqa: F401,F403
from .count import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from .sum import *  # noqa: F401,F403


__all__ = _collect(__name__)
