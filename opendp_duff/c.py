"""``dp.c``: combinators."""
from .combinators import *  # noqa: F401,F403
from .combinators import __all__  # noqa: F401
