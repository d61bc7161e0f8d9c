"""Keys of several columns for ``make_partition_by``: the public tuple keys validated, and the rows
of a local frame coded by the key tuple they equal.

A row's code is found one column at a time, in the manner of a radix sort: after columns
1..j, a row's code is the rank of its prefix among the distinct prefixes of the keys (or a
sentinel, no key has that prefix); the next column's code (the position of the value among the
keys' values in that column, or a sentinel) is combined with it into one integer, looked up
among the keys' combined prefixes by a binary search.  Every integer stays below (k + 1)^2 for k
keys, and the work is O(rows (columns + log k)) numpy operations, with no Python loop over rows.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engines import LocalPart
from ..errors import MakeError, MakeTypeError
from ..engines.candidates import validate_candidates

__all__ = ["validate_tuple_keys", "tuple_codes"]


# [proof:validate_tuple_keys]
def validate_tuple_keys(keys: Any, types: Sequence[type]) -> tuple[tuple[Any, ...], ...]:
    """Distinct tuples, one value per key column, each validated (and converted) as
    ``make_count_by_candidates`` validates a candidate of its column's type; errors name
    ``keys`` and positions, and quote only the public keys."""
    if isinstance(keys, (str, bytes, dict, set, frozenset)) or not hasattr(keys, "__len__"):
        raise MakeTypeError(f"keys ({keys!r}) must be a list or tuple of key tuples")
    if len(keys) == 0:
        raise MakeError("keys ([]) must not be empty")
    width = len(types)
    for i, key in enumerate(keys):
        if not isinstance(key, tuple) or len(key) != width:
            raise MakeTypeError(f"keys[{i}] ({key!r}) must be a tuple of {width} values, one per column of by")
    columns = []
    for j, T in enumerate(types):
        distinct = list(dict.fromkeys(key[j] for key in keys))
        values = validate_candidates(distinct, T, name=f"keys[...][{j}]")
        lookup = dict(zip(distinct, values, strict=True))
        columns.append([lookup[key[j]] for key in keys])
    out = tuple(zip(*columns, strict=True))
    if len(set(out)) != len(out):
        raise MakeError("keys must be distinct tuples (once each value is read as its column's type)")
    return out
# [end:validate_tuple_keys]


# [proof:tuple_codes]
def tuple_codes(engine: Any, frame: Any, by: Sequence[str], keys: tuple[tuple[Any, ...], ...],
                domain: Any) -> np.ndarray:
    """For each row of a member frame (or part) of a local engine, the position of the key
    tuple its ``by`` values equal, else ``len(keys)``."""
    k = len(keys)
    prefix = np.zeros(len(frame) if isinstance(frame, LocalPart) else engine.n_rows(frame), dtype=np.int64)
    key_prefix = np.zeros(k, dtype=np.int64)
    for j, name in enumerate(by):
        values = tuple(dict.fromkeys(key[j] for key in keys))       # the keys' distinct values, in order
        position = {v: i for i, v in enumerate(values)}
        m = len(values)                                             # code m: equal to no key's value
        column = engine.key_codes(frame, name, values, domain).astype(np.int64)
        rows = prefix * (m + 1) + column                            # < (k + 1)^2: no overflow
        wanted = key_prefix * (m + 1) + np.array([position[key[j]] for key in keys], dtype=np.int64)
        distinct = np.unique(wanted)                                # sorted; a sentinel prefix is above all
        found = np.minimum(np.searchsorted(distinct, rows), len(distinct) - 1)
        prefix = np.where(distinct[found] == rows, found, len(distinct))
        key_prefix = np.searchsorted(distinct, wanted)
    code_of = np.full(len(np.unique(key_prefix)) + 1, k, dtype=np.intp)   # distinct keys: distinct prefixes
    code_of[key_prefix] = np.arange(k)
    return code_of[prefix]
# [end:tuple_codes]
