"""Local data frames (pandas, Polars): admission, columns, and the split by public keys.

What the pandas and Polars engines share.  Each library adapter (:mod:`._pandas`,
:mod:`._polars`) provides a few reads of its frames (rows, column names, a column as a numpy
array, string codes, building a frame); this module builds the engine operations on them:

* **Admission** (:meth:`LocalFrames.check_frame`): a frame is a member when it has exactly one
  column of each declared name and each, read as a numpy array, is a member of its vector
  domain; undeclared columns are never read.  A Polars LazyFrame is collected (its declared
  columns only) and the collected frame is the admitted value, so every later step reads the
  same rows.
* **The split** (:meth:`LocalFrames.split`): the key column is coded against the public keys
  (strings by the library's own hash lookup, numbers by a search among the keys), the rows are
  grouped by a stable radix sort of the codes (O(rows + keys)), and the declared columns are
  gathered once in that order by the library (a new frame, the batch's own).  Part i is a
  :class:`LocalPart`, rows ``starts[i]:starts[i + 1]`` of it: the first read of a column
  converts that column of the batch once, canonical (:mod:`opendp_duff.membership`), and a
  part's column is a view of it, so a million parts cost a million small views, not a million
  frames.  A part behaves as a frame of its library on demand (indexing it, or any frame
  attribute, builds that frame once, a slice of the batch's frame).

Proof: ``proofs/engines/local.tex``.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from .._constants import EXACT_INT_BOUND
from ..membership import Refusal, check_vector
from ..domains import VectorDomain
from ..errors import NotAMemberTypeError, NotAMemberValueError
from .candidates import candidate_index
from .local import LocalColumns

__all__ = ["LocalFrames", "LocalBatch", "LocalPart", "group_rows", "freeze"]


# [proof:LocalFrames]
class LocalFrames(LocalColumns):
    """A local frame engine: the shared operations over a library adapter's reads.

    The adapter methods (overridden by the pandas and Polars engines) read a frame that
    ``is_frame`` accepts, after ``materialize`` (a LazyFrame collected):

    ``is_frame(x)``, ``materialize(x, names)``, ``columns(df)``, ``has_column(df, name)``,
    ``read_column(df, name)`` (numbers in their dtype, a missing number as NaN, strings as an
    object array), ``n_rows(df)``, ``take_columns(df, names)``, ``take_rows(df, rows)`` (a new
    frame of those rows, in that order), ``slice_rows(df, a, b)``, ``string_codes(df, name,
    keys)`` (the position of the key each value equals, else ``len(keys)``),
    ``only_strings(df, name)`` (a shortcut: the column reads as Python str only) and
    ``frame_from(columns)``.
    """

    # ---- the adapter (see the class docstring) --------------------------------------------

    def is_frame(self, x: object) -> bool:
        raise NotImplementedError

    def materialize(self, x: Any, names: Sequence[str]) -> Any:
        return x

    def columns(self, df: Any) -> list[Any]:
        raise NotImplementedError

    def has_column(self, df: Any, name: str) -> bool:
        raise NotImplementedError

    def read_column(self, df: Any, name: str) -> np.ndarray:
        raise NotImplementedError

    def n_rows(self, df: Any) -> int:
        raise NotImplementedError

    def take_columns(self, df: Any, names: Sequence[str]) -> Any:
        raise NotImplementedError

    def take_rows(self, df: Any, rows: np.ndarray) -> Any:
        raise NotImplementedError

    def slice_rows(self, df: Any, start: int, stop: int) -> Any:
        raise NotImplementedError

    def string_codes(self, df: Any, name: str, keys: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def only_strings(self, df: Any, name: str) -> bool:
        return False

    def frame_from(self, columns: dict[str, Any]) -> Any:
        raise NotImplementedError

    # ---- the engine -------------------------------------------------------------------------

    def recognises(self, data: object) -> bool:
        return self.is_frame(data) or (isinstance(data, LocalPart) and data.batch.engine is self)

    def select(self, frame: Any, names: Sequence[str]) -> Any:
        if isinstance(frame, LocalPart):
            return frame                       # a part holds the declared columns; others are never read
        return self.take_columns(frame, names)

    def column(self, frame: Any, name: str, domain: Any) -> Any:
        if isinstance(frame, LocalPart):
            return frame.column(name)          # canonical already (gathered by the split)
        return domain.admit(self.read_column(frame, name))   # a member's column is a member of domain

    def result_frame(self, like: Any, columns: dict[str, list[Any]]) -> Any:
        return self.frame_from(columns)

    # [proof:check_local_frame]
    def check_frame(self, domain: Any, x: object) -> Any:
        """The admitted frame (``x``, or a LazyFrame's collected declared columns), or a refusal
        naming declared columns only (public), never a value or an undeclared name."""
        try:
            return self._check(domain, x)
        except Exception:  # noqa: BLE001 - foreign code (the library, properties) raised
            return _UNREADABLE

    def _check(self, domain: Any, x: Any) -> Any:
        if isinstance(x, LocalPart):
            return self._check_part(domain, x)
        if not self.is_frame(x):
            return Refusal(NotAMemberTypeError, f"data must be a {self.name} frame, not {type(x).__name__}")
        names = list(domain.columns)
        missing = [name for name in names if not self.has_column(x, name)]
        if missing:
            return Refusal(NotAMemberTypeError, f"the frame must have exactly one column named {missing[0]!r}")
        frame = self.materialize(x, names)
        n = self.n_rows(frame)
        if n > EXACT_INT_BOUND:
            return Refusal(NotAMemberValueError, "a frame has at most 2^53 rows")
        if domain.size is not None and n != domain.size:
            return Refusal(NotAMemberValueError, f"the domain has size {domain.size}: the frame must "
                                                 "have exactly that many rows")
        for name in names:
            if domain.columns[name].T is str and self.only_strings(frame, name):
                continue              # the size was checked above; strings have no other condition
            _, refusal = check_vector(domain.column_domain(name), self.read_column(frame, name))
            if refusal is not None:
                return refusal.within(f"column {name!r}")
        return frame

    def _check_part(self, domain: Any, part: LocalPart) -> Any:
        if part.batch.engine is not self:
            return Refusal(NotAMemberTypeError, f"data must be a {self.name} frame, not a part of another engine's")
        if domain.size is not None and len(part) != domain.size:
            return Refusal(NotAMemberValueError, f"the domain has size {domain.size}: the frame must "
                                                 "have exactly that many rows")
        for name in domain.columns:
            if name not in part.batch.columns:
                return Refusal(NotAMemberTypeError, f"the frame must have exactly one column named {name!r}")
            _, refusal = check_vector(domain.column_domain(name), part.column(name))
            if refusal is not None:
                return refusal.within(f"column {name!r}")
        return part
    # [end:check_local_frame]

    # [proof:local_split]
    def split(self, frame: Any, by: str, keys: tuple[Any, ...], domain: Any) -> tuple[Any, ...]:
        """One :class:`LocalPart` per key, over the declared columns of ``domain`` gathered in
        key order.  ``frame`` is a member of ``domain`` (a frame, or a part of one)."""
        codes = self.key_codes(frame, by, keys, domain)
        return self.split_by_codes(frame, codes, len(keys), domain, (by, keys))

    def key_codes(self, frame: Any, by: str, keys: tuple[Any, ...], domain: Any) -> np.ndarray:
        """For each row of a member frame (or part), the position of the key its ``by`` value
        equals (compared as ``make_count_by_candidates`` compares candidates), else ``len(keys)``.
        The codes of a frozen frame (:func:`freeze`) are kept and returned again, read-only."""
        T = domain.columns[by].T
        kept = _FROZEN.get(id(frame)) if not isinstance(frame, LocalPart) else None
        if kept is None:
            return self._key_codes(frame, by, keys, T, domain)
        name = (by, tuple(keys), T)                      # validated keys: numbers and str, hashable
        with _KEEP_LOCK:                                 # releases on threads share the frame
            codes = kept.get(name)
        if codes is None:
            codes = self._key_codes(frame, by, keys, T, domain)
            codes.setflags(write=False)
            with _KEEP_LOCK:
                while len(kept) >= _KEPT_CODES:          # the oldest go: memory stays bounded
                    kept.pop(next(iter(kept)))
                kept[name] = codes
        return codes

    def _key_codes(self, frame: Any, by: str, keys: tuple[Any, ...], T: type, domain: Any) -> np.ndarray:
        k = len(keys)
        codes: np.ndarray | None
        if T is str and not isinstance(frame, LocalPart):
            codes = self.string_codes(frame, by, keys)   # the library's hash lookup (str equality)
        elif T is str:
            index = {key: j for j, key in enumerate(keys)}
            column = frame.column(by)
            codes = np.fromiter((index.get(v, k) for v in column), dtype=np.intp, count=len(column))
        else:                                            # an admitted column fits its dtype
            codes = candidate_index(keys, T)(self.column(frame, by, domain.column_domain(by)))
        assert codes is not None
        return codes

    def split_by_codes(self, frame: Any, codes: np.ndarray, k: int, domain: Any,
                       key: tuple[str, tuple[Any, ...]] | None = None) -> tuple[Any, ...]:
        """Part i holds the rows of code i (in [0, k]; code k: no part), in their order.  ``key``
        = (by, keys) when the codes are those of one key column's values among ``keys``."""
        order, starts = group_rows(codes, k)
        gather: Callable[[str], np.ndarray]
        if isinstance(frame, LocalPart):                 # a part split again: its canonical columns
            gather = partial(self._gather_part, frame, order)
        else:
            gather = self._gather(frame, key, domain, order, starts)
        batch = LocalBatch(self, domain.columns, starts, gather)
        return tuple(LocalPart(batch, i) for i in range(k))

    def _gather(self, frame: Any, key: tuple[str, tuple[Any, ...]] | None, domain: Any,
                order: np.ndarray, starts: list[int]) -> Callable[[str], np.ndarray]:
        """The declared columns of ``frame`` in the rows of ``order``, read now into arrays of the
        batch's own (so later changes to the frame never reach a part): a numeric column by one
        numpy gather, the other string columns by one gather of the library; a string key column
        of a one-column split (``key`` = (by, keys)) is not read at all (every row of part j holds
        key j: the keys, repeated)."""
        by, keys = key if key is not None else (None, ())
        names = list(domain.columns)
        strings = [name for name in names if domain.columns[name].T is str and name != by]
        numbers = {name: np.take(self.read_column(frame, name), order)
                   for name in names if domain.columns[name].T is not str}
        grouped = self.take_rows(self.take_columns(frame, strings), order) if strings else None
        counts = [b - a for a, b in zip(starts[:-1], starts[1:], strict=True)]

        def read(name: str) -> np.ndarray:
            if name in numbers:
                return numbers[name]
            if name == by:                               # a string key column: the rows' key, by == (str)
                return np.repeat(np.array(keys + (None,), dtype=object)[:-1], counts)
            return self.read_column(grouped, name)
        return read

    @staticmethod
    def _gather_part(parent: LocalPart, order: np.ndarray, name: str) -> np.ndarray:
        """The canonical column ``name`` of a part, in the rows of ``order`` (a new array)."""
        gathered: np.ndarray = parent.column(name)[order]
        return gathered
    # [end:local_split]
# [end:LocalFrames]


# [proof:freeze]
_FROZEN: dict[int, dict[tuple[Any, ...], np.ndarray]] = {}
_KEPT_CODES = 4   # cost only: key codes kept per frozen frame (one intp per row each)
_KEEP_LOCK = threading.Lock()


def freeze(frame: Any) -> Any:
    """Mark ``frame`` as never changed again (a context's snapshot, which only the context
    holds), so that :meth:`LocalFrames.key_codes` keeps its codes for later releases.  The
    mark goes when the frame is collected; a frame that takes no weak reference is not marked.
    Returns ``frame``."""
    try:
        weakref.finalize(frame, _FROZEN.pop, id(frame), None)
    except TypeError:
        return frame
    _FROZEN[id(frame)] = {}
    return frame
# [end:freeze]


# [proof:_UNREADABLE]
_UNREADABLE = Refusal(NotAMemberTypeError, "the data could not be read as a data frame")
# [end:_UNREADABLE]


# [proof:group_rows]
def group_rows(codes: np.ndarray, k: int) -> tuple[np.ndarray, list[int]]:
    """Rows grouped by code: ``order`` lists the rows with code 0, then code 1, ..., then
    code k - 1, each group in increasing row order (rows with code k are left out), and part
    j is ``order[starts[j]:starts[j + 1]]``.  ``codes`` are integers in [0, k].  A stable
    radix sort: one pass of 8 or 16 bits below 2^16 keys, two stable 16-bit passes (low
    digit, then high) below 2^32 keys, so O(rows + keys)."""
    codes = np.asarray(codes)
    counts = np.bincount(codes, minlength=k + 1)
    starts = [0, *np.cumsum(counts[:k]).tolist()]
    if k < 2 ** 16:
        order = np.argsort(codes.astype(np.uint8 if k < 2 ** 8 else np.uint16), kind="stable")
    elif k < 2 ** 32:
        low = np.argsort((codes & 0xFFFF).astype(np.uint16), kind="stable")
        order = low[np.argsort((codes[low] >> 16).astype(np.uint16), kind="stable")]
    else:  # pragma: no cover - more keys than any memory holds
        order = np.argsort(codes, kind="stable")
    return order[:starts[k]], starts
# [end:group_rows]


# [proof:local_parts]
class LocalBatch:
    """The parts of one split: the declared columns gathered in key order, and the boundaries
    ``starts`` of the parts.  ``gather(name)`` returns the column ``name`` of every part in key
    order, an array of the batch's own (read from the frame when the split ran, or gathered from
    a parent part's canonical column); ``array(name)`` is it admitted (canonical), on first use."""

    __slots__ = ("engine", "columns", "starts", "_gather", "_arrays")

    def __init__(self, engine: LocalFrames, columns: Any, starts: list[int],
                 gather: Callable[[str], np.ndarray]) -> None:
        self.engine, self.columns, self.starts, self._gather = engine, columns, starts, gather
        self._arrays: dict[str, np.ndarray] = {}

    def array(self, name: str) -> np.ndarray:
        """The declared column ``name`` of every part, in key order, canonical."""
        if name not in self._arrays:                 # a sub-multiset of a member's column: a member
            self._arrays[name] = VectorDomain(self.columns[name], None, False).admit(self._gather(name))
        return self._arrays[name]


class LocalPart:
    """Part ``index`` of a :class:`LocalBatch`: the rows of one key.

    ``column(name)`` is a view of the batch's canonical column (O(1) once the batch has read it);
    ``len(part)`` is its number of rows.  Indexing it, or any other attribute, reads it as a
    frame of its library (built once, holding the declared columns only).  Its ``repr`` shows
    no data."""

    __slots__ = ("batch", "index", "_frame")

    def __init__(self, batch: LocalBatch, index: int) -> None:
        self.batch, self.index = batch, index
        self._frame: Any = None

    def column(self, name: str) -> np.ndarray:
        """The declared column ``name`` of this part (a view: callers must not modify it)."""
        return self.batch.array(name)[self.batch.starts[self.index]:self.batch.starts[self.index + 1]]

    def __len__(self) -> int:
        return self.batch.starts[self.index + 1] - self.batch.starts[self.index]

    def frame(self) -> Any:
        """This part as a frame of its library (built on first use)."""
        if self._frame is None:                      # the canonical columns, as a frame of the library
            batch = self.batch
            self._frame = batch.engine.frame_from({name: self.column(name) for name in batch.columns})
        return self._frame

    def __getitem__(self, item: Any) -> Any:
        return self.frame()[item]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.frame(), name)

    def __repr__(self) -> str:
        return f"LocalPart({self.batch.engine.name}, part {self.index})"
# [end:local_parts]
