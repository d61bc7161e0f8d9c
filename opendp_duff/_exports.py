"""Collect the public names of a package's submodules (each defines ``__all__``)."""
import sys


def collect(package):
    """Sorted union of ``__all__`` over the already-imported submodules of ``package``."""
    names = set()
    for mod_name, mod in list(sys.modules.items()):
        if mod_name.startswith(package + ".") and mod is not None:
            names.update(getattr(mod, "__all__", ()))
    return sorted(names)
