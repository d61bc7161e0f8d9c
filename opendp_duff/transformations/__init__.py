"""Transformations: stable functions from datasets to datasets or numbers.

Each module defines ``__all__``; its public names are re-exported here and in ``dp.t``.
"""
import sys as _sys

from .clamp import *  # noqa: F401,F403
from .count import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from .sum import *  # noqa: F401,F403


def _exports():
    names = []
    for mod_name, mod in list(_sys.modules.items()):
        if mod_name.startswith(__name__ + ".") and mod is not None:
            names += getattr(mod, "__all__", [])
    return sorted(set(names))


__all__ = _exports()
