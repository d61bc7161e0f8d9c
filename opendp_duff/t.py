"""``dp.t``: transformations (the names of :mod:`opendp_duff.transformations`, each looked up there:
the row-wise constructors load on first use, as they do there)."""
from typing import TYPE_CHECKING, Any

from . import transformations as _transformations
from .transformations import __all__  # noqa: F401

if TYPE_CHECKING:   # the names, for type checkers and editors
    from .transformations import *  # noqa: F403
    from .transformations import make_filter, make_with_column, then_filter, then_with_column  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(_transformations, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
