"""Consent switches: the features that weaken opendp_duff's guarantees, all off by default.

A feature is turned on by name, for the whole process, and says in writing what it gives up
(``docs/threat-model.md``):

* ``"insecure-randomness"``: the random source may be seeded or replaced
  (:func:`~opendp_duff.samplers.seeded_rng_for_tests`,
  :func:`~opendp_duff.samplers.byte_source_for_tests`, the experiments' ``--seeded-noise``).
  A release drawn from a known seed can be recomputed by anyone who knows it: it is not
  private.  For tests, experiments and benchmarks only.
* ``"honest-but-curious"``: a compositor (and so a :class:`~opendp_duff.Context`) accepts a
  measurement or transformation that the library did not build (its function and map written
  by the user).  Its privacy then rests on the user's own proof, not on the library's.

>>> import opendp_duff as dp
>>> "honest-but-curious" in dp.enabled_features()
False
>>> dp.enable_features("honest-but-curious")
>>> "honest-but-curious" in dp.enabled_features()
True
>>> dp.disable_features("honest-but-curious")
>>> "honest-but-curious" in dp.enabled_features()
False
"""
from __future__ import annotations

import threading

from .errors import FeatureNotEnabled, MakeError, MakeTypeError

__all__ = ["FEATURES", "enable_features", "disable_features", "enabled_features", "require"]

FEATURES: dict[str, str] = {
    "insecure-randomness": "seed or replace the random source (tests, experiments, benchmarks only): "
                           "releases drawn from a known seed are not private",
    "honest-but-curious": "let compositors and contexts run measurements and transformations built "
                          "from user-written functions and maps, whose privacy the library cannot check",
}
"""The features, each with what it gives up."""

_enabled: set[str] = set()
_lock = threading.Lock()


def _names(names: tuple[str, ...]) -> list[str]:
    for name in names:
        if not isinstance(name, str):
            raise MakeTypeError(f"a feature name must be a str, not {type(name).__name__}")
        if name not in FEATURES:
            raise MakeError(f"unknown feature {name!r}: the features are {sorted(FEATURES)}")
    return list(names)


def enable_features(*names: str) -> None:
    """Turn the named features on for the whole process (an unknown name is refused)."""
    checked = _names(names)
    with _lock:
        _enabled.update(checked)


def disable_features(*names: str) -> None:
    """Turn the named features off again (turning off a feature that is off does nothing)."""
    checked = _names(names)
    with _lock:
        _enabled.difference_update(checked)


def enabled_features() -> frozenset[str]:
    """The features that are on."""
    with _lock:
        return frozenset(_enabled)


def require(feature: str, what: str) -> None:
    """Refuse ``what`` (a short description, public) unless ``feature`` is on."""
    if feature not in FEATURES:  # a typo here would silently refuse forever
        raise MakeError(f"unknown feature {feature!r}")
    with _lock:
        on = feature in _enabled
    if not on:
        raise FeatureNotEnabled(feature, what)
