"""``dp.m``: measurements."""
from .measurements import *  # noqa: F401,F403
from .measurements import __all__  # noqa: F401
