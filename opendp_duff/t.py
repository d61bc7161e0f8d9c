"""``dp.t``: transformations."""
from .transformations import *  # noqa: F401,F403
from .transformations import __all__  # noqa: F401
