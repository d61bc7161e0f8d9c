"""Measurements: randomised functions with privacy maps.

Each module defines ``__all__``; its public names are re-exported here and in ``dp.m``.
"""
from .._exports import collect as _collect
from .gaussian import *  # noqa: F401,F403
from .laplace import *  # noqa: F401,F403
from .duff import *  # noqa: F401,F403
from .duff_mean import *  # noqa: F401,F403
from .smooth_sensitivity import *  # noqa: F401,F403
from .noisy_max import *  # noqa: F401,F403
from .duff_mode import *  # noqa: F401,F403


__all__ = _collect(__name__)
