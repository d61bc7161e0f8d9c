"""Domains of maps: a dictionary from keys of one type to values of one type (counts per key).

:func:`map_domain` builds a :class:`MapDomain` from an atom domain of keys (str, int or float,
without NaN; or a tuple of such atom domains, for keys of several columns, which are tuples with
one value per column) and an atom domain of values.  ``admit`` returns a new ``dict`` of canonical keys
and values (Python str, int or float, a float key's zero always +0.0), or refuses with a
:class:`~opendp_duff.errors.NotAMember` error that names the requirement and never a key or a
value: keys are data too.  The order of a dictionary is not part of the member: two dictionaries
with the same items are the same map, so a function of a map must not depend on the order.

Example:
    >>> import opendp_duff as dp
    >>> from opendp_duff.map_domain import map_domain
    >>> counts = map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int, bounds=(0, 2 ** 53)))
    >>> counts.member({"N": 3, "S": 0}), counts.member({"N": -1}), counts.member(["N"])
    (True, False, False)
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ._constants import EXACT_INT_BOUND
from .membership import Admits, Refusal, check_atom
from .domains import AtomDomain, atom_domain
from .errors import MakeError, MakeTypeError, NotAMemberTypeError, NotAMemberValueError

__all__ = ["MapDomain", "map_domain", "count_map_domain"]


# [proof:MapDomain]
@attrs.frozen(repr=False)
class MapDomain(Admits):
    """Maps (dictionaries) from members of ``key_domain`` to members of ``value_domain``.

    Build it with :func:`map_domain`.  Members: a ``dict`` or any ``collections.abc.Mapping``
    with at most 2^53 items, every key a member of ``key_domain`` (for a tuple of atom domains,
    a tuple of as many values, each a member of its domain) and every value one of
    ``value_domain``.  A missing key and a key whose value is 0 are different members, but
    every metric and function on count maps here reads a missing key as a count of 0.
    """

    key_domain: Any            # an AtomDomain, or a tuple of them (keys of several columns)
    value_domain: AtomDomain

    def __repr__(self) -> str:
        return f"MapDomain(keys={self.key_domain!r}, values={self.value_domain!r})"

    def check(self, x: object) -> Any:
        """``x`` as a new dict of canonical keys and values (float keys with +0.0 for a zero), or
        a refusal: a type refusal when ``x`` is not a mapping or a key or value is the wrong kind;
        a value refusal when a key or value is outside its domain (NaN, bounds, range).  Never
        raises."""
        out, refusal = _check_map(self, x)
        return out if refusal is None else refusal
# [end:MapDomain]


# [proof:check_map]
_UNREADABLE = Refusal(NotAMemberTypeError, "the data could not be read as a mapping")


def _check_map(domain: MapDomain, x: object) -> tuple[dict[Any, Any] | None, Refusal | None]:
    """``(canonical dict, None)`` for a member, else ``(None, refusal)``; never raises."""
    if not isinstance(x, Mapping):
        return None, Refusal(NotAMemberTypeError, f"data must be a mapping (a dict), not {type(x).__name__}")
    try:
        items = list(x.items())
    except Exception:  # noqa: BLE001 - foreign code (items, __iter__, __getitem__) raised
        return None, _UNREADABLE
    if len(items) > EXACT_INT_BOUND:
        return None, Refusal(NotAMemberValueError, "a map has at most 2^53 items")
    out: dict[Any, Any] = {}
    for key, value in items:
        k, refusal = _check_key(domain.key_domain, key)
        if refusal is not None:
            return None, Refusal(refusal.error, "keys: " + refusal.requirement)
        val, refusal = check_atom(domain.value_domain, value)
        if refusal is not None:
            return None, Refusal(refusal.error, "values: " + refusal.requirement)
        out[k] = val
    if len(out) != len(items):
        return None, Refusal(NotAMemberValueError, "keys must be distinct once converted to the key type")
    return out, None


def _check_key(key_domain: Any, key: object) -> tuple[Any, Refusal | None]:
    """A canonical key (a float's zero +0.0: -0.0 and 0.0 are one key), or a refusal; a key of
    a tuple of domains is a tuple (exactly) of as many values, each checked by its domain."""
    if isinstance(key_domain, AtomDomain):
        k, refusal = check_atom(key_domain, key)
        return (k + 0.0 if isinstance(k, float) else k), refusal
    if type(key) is not tuple or len(key) != len(key_domain):
        return None, Refusal(NotAMemberTypeError, f"a key must be a tuple of {len(key_domain)} values")
    out = []
    for domain, component in zip(key_domain, key, strict=True):
        k, refusal = check_atom(domain, component)
        if refusal is not None:
            return None, refusal
        out.append(k + 0.0 if isinstance(k, float) else k)
    return tuple(out), None
# [end:check_map]


# [proof:map_domain]
def map_domain(key_domain: Any, value_domain: AtomDomain) -> MapDomain:
    """The domain of maps from members of ``key_domain`` to members of ``value_domain``.

    Args:
        key_domain: an :class:`AtomDomain` of str, int or float keys, without NaN and without
            bounds (keys are labels); or a tuple of at least two such domains (keys of several
            columns: tuples with one value per column).
        value_domain: an :class:`AtomDomain` of the values.

    Raises:
        MakeTypeError: a domain is not an AtomDomain (or a tuple of them, for the keys).
        MakeError: a key domain admits NaN or has bounds, or a tuple of fewer than two.
    """
    keys = key_domain if isinstance(key_domain, tuple) else (key_domain,)
    if isinstance(key_domain, tuple) and len(key_domain) < 2:
        raise MakeError(f"key_domain ({key_domain!r}) must be an AtomDomain or a tuple of at least two")
    for name, dom in [*(("key_domain", k) for k in keys), ("value_domain", value_domain)]:
        if not isinstance(dom, AtomDomain):
            raise MakeTypeError(f"{name} ({dom!r}) must be an AtomDomain")
    for k in keys:
        if k.nan or k.bounds is not None:
            raise MakeError(f"key_domain ({k!r}) must have neither NaN nor bounds: keys are labels")
    return MapDomain(key_domain, value_domain)
# [end:map_domain]


# [proof:count_map_domain]
def count_map_domain(T: Any) -> MapDomain:
    """Counts per key: keys of type T (str, int or float; or tuples of values of the types of a
    tuple T), values integers in [0, 2^53] (a count is at most the number of records).  The
    output domain of ``make_count_by_key``."""
    keys = tuple(atom_domain(T=t) for t in T) if isinstance(T, tuple) else atom_domain(T=T)
    return map_domain(keys, atom_domain(T=int, bounds=(0, EXACT_INT_BOUND)))
# [end:count_map_domain]
