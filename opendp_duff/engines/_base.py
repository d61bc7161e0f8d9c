"""The engine protocol: what an adapter of one kind of data provides to the constructors.

An engine is below the constructors (``make_clamp``, ``make_duff_quantile``, ...): a constructor
picks the engine named by its input domain and calls the operations below, so one constructor
serves every engine.  The operations come in four groups:

* **Data.** ``recognises(data)`` (by type, looking the library up in ``sys.modules``, never
  importing it); ``schema(data)``, the domain read from the dtypes only, never from a value;
  ``snapshot(data)``, a copy of an admitted member that later changes to the caller's object
  cannot reach.
* **Admission.** ``check_frame``, ``check_column`` and ``check_parts`` return the admitted value
  or a :class:`~opendp_duff.membership.Refusal` and never raise; a refusal never quotes data.
* **Frames.** ``column`` (a declared column as a member of its vector domain), ``select``,
  ``split`` (one part per public key, O(rows + keys)), ``map_parts`` (a function on every part,
  in key order) and ``result_frame`` (a small frame of public values in the engine's library).
* **Columns.** Row-wise steps (``clamp``, ``impute``, ``sort``) return a column of the engine;
  statistics (``count``, ``exact_sum``, ``candidate_counts``, ``rank_source``) return exact
  numbers or the rank source the Duff samplers read; ``collect`` is the documented fallback that
  brings a column to the caller as a numpy array (memory O(n) where the caller runs).

A column of a local engine (numpy, pandas, Polars) is a numpy array, so the local engines share
their column operations (:mod:`opendp_duff.engines.local`); the Spark engine's column is a lazy
:class:`~opendp_duff.engines.spark.SparkColumn`.  Proofs of the per-engine facts the constructors
cite: ``proofs/engines/``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..membership import Refusal
from ..errors import NotAMemberTypeError, NotAMemberValueError
from .candidates import Candidates
from .rank_window import RankSource

__all__ = ["Engine", "Predict"]

Predict = Callable[[int], "tuple[int, int] | None"]
"""n -> the ranks (first, last) a sampler will ask of a rank source of n records (None: none).
An engine may compute that window ahead, in passes shared with other statistics; a wrong
prediction costs another pass, never a different window."""


# [proof:Engine]
class Engine:
    """The operations a data engine provides (see the module docstring).  Subclasses override them all.

    Attributes:
        name: the engine's name, as a domain names it (``"numpy"``, ``"pandas"``, ``"polars"``,
            ``"spark"``).
        column_engine: the ``engine`` of the vector domain of this engine's columns: None for the
            local engines (a column is a numpy array), the engine's own name otherwise.
        local: whether the engine's data lives in this process (its columns are numpy arrays).
    """

    name: str = "engine"
    column_engine: str | None = None
    local: bool = True

    def __repr__(self) -> str:
        return f"<engine {self.name}>"

    # ---- data ---------------------------------------------------------------------------------

    def recognises(self, data: object) -> bool:
        """Whether ``data`` is this engine's (by its type; never imports a library)."""
        raise NotImplementedError

    def is_frame(self, data: object) -> bool:
        """Whether ``data`` is a data frame of this engine (rather than 1-d data)."""
        return False

    def schema(self, data: object) -> Any:
        """The domain of ``data`` read from its dtypes only: a frame domain (float, integer and
        string columns; others left out) or a vector domain.

        Raises:
            MakeTypeError: the data has no schema to read (a list) or no supported dtype.
        """
        raise NotImplementedError

    def snapshot(self, data: object) -> Any:
        """A copy of an admitted member that later changes to the caller's object cannot reach."""
        return data

    def keys_refusal(self, data: object, by: str, keys: tuple[Any, ...]) -> str | None:
        """Why the public ``keys`` of the column ``by`` cannot occur in ``data`` by its schema
        (a type that fixes the values a column can hold), or None.  Reads the schema only, never
        a value; the reason names the column and the public keys, never the data."""
        return None

    # ---- admission --------------------------------------------------------------------------

    def check_frame(self, domain: Any, x: object) -> Any:
        """The admitted frame, or a refusal (never raises)."""
        return Refusal(NotAMemberTypeError, f"the {self.name} engine has no data frames")

    def check_column(self, domain: Any, x: object) -> Any:
        """The admitted column, or a refusal (never raises)."""
        return Refusal(NotAMemberTypeError, f"the {self.name} engine has no columns of its own")

    # [proof:check_local_parts]
    def check_parts(self, domain: Any, x: object) -> Any:
        """The tuple of admitted parts, or a refusal naming a part's position (public): a tuple
        or list of ``len(keys)`` members of the part domain (never raises: ``type`` reads no
        attribute of ``x``, and a tuple's or list's length and items are its own)."""
        if type(x) is not tuple and type(x) is not list:                       # exact types only
            return Refusal(NotAMemberTypeError, f"a partition must be a tuple of frames, not {type(x).__name__}")
        parts = tuple(cast("tuple[Any, ...]", x))
        if len(parts) != len(domain.keys):
            return Refusal(NotAMemberValueError, f"a partition has one frame per key: {len(domain.keys)} frames")
        admitted = []
        for i, part in enumerate(parts):
            value = domain.part_domain.check(part)
            if isinstance(value, Refusal):
                return value.within(f"part {i}")
            admitted.append(value)
        return tuple(admitted)
    # [end:check_local_parts]

    # ---- frames -----------------------------------------------------------------------------

    def column(self, frame: Any, name: str, domain: Any) -> Any:
        """The declared column ``name`` of a member frame, a member of ``domain`` (its vector domain)."""
        raise NotImplementedError

    def select(self, frame: Any, names: Sequence[str]) -> Any:
        """A member frame with (at least) the columns ``names``, the same rows in the same order."""
        raise NotImplementedError

    def split(self, frame: Any, by: str, keys: tuple[Any, ...], domain: Any) -> tuple[Any, ...]:
        """Part i holds the rows of a member frame of ``domain`` whose ``by`` value equals
        ``keys[i]`` (compared as ``make_count_by_candidates`` compares candidates), in their
        order, with the declared columns; rows of no key are dropped.  O(rows + keys)."""
        raise NotImplementedError

    def key_codes(self, frame: Any, by: str, keys: tuple[Any, ...], domain: Any) -> np.ndarray:
        """For each row of a member frame, the position of the key its ``by`` value equals (as
        ``split`` compares), else ``len(keys)`` (local engines)."""
        raise NotImplementedError

    def split_by_codes(self, frame: Any, codes: np.ndarray, k: int, domain: Any) -> tuple[Any, ...]:
        """``split`` given each row's code in [0, k]: part i holds the rows of code i, in order,
        with the declared columns (local engines; the split by several key columns)."""
        raise NotImplementedError

    def map_parts(self, f: Callable[[Any], Any], parts: tuple[Any, ...]) -> tuple[Any, ...]:
        """``f`` on every part, in order."""
        return tuple(f(part) for part in parts)

    def result_frame(self, like: Any, columns: dict[str, list[Any]]) -> Any:
        """A frame of the engine's library holding these public columns (``like`` is only used
        for its library or session)."""
        raise NotImplementedError

    # ---- columns ----------------------------------------------------------------------------

    def clamp(self, column: Any, T: type, lo: Any, hi: Any) -> Any:
        """Each element x (not NaN) as min(max(x, lo), hi); a float zero as +0.0."""
        raise NotImplementedError

    def impute(self, column: Any, constant: float) -> Any:
        """Each NaN element replaced by ``constant`` (a float, not -0.0); a float zero as +0.0."""
        raise NotImplementedError

    def sort(self, column: Any, T: type) -> Any:
        """The elements in non-decreasing order (or marked so: see the engine)."""
        raise NotImplementedError

    def count(self, column: Any) -> int:
        """The number of elements, exactly."""
        raise NotImplementedError

    def exact_sum(self, column: Any) -> Fraction:
        """The exact rational sum of finite float elements."""
        raise NotImplementedError

    def candidate_counts(self, column: Any, candidates: tuple[Any, ...] | Candidates, T: type) -> np.ndarray:
        """An int64 vector: the number of elements equal to each candidate, in order (a tuple of
        str for T=str, else validated numeric :class:`~opendp_duff.engines.candidates.Candidates`)."""
        raise NotImplementedError

    def rank_source(self, column: Any, bounds: tuple[float, float], is_sorted: bool,
                    predict: Predict) -> RankSource:
        """A :class:`~opendp_duff.engines.rank_window.RankSource` of the elements (finite floats
        of ``bounds``, no -0.0); ``is_sorted`` says the column is sorted (or marked so)."""
        raise NotImplementedError

    def collect(self, column: Any) -> np.ndarray:
        """The elements as a numpy array in their canonical dtype (float64 without -0.0, int64,
        or object of Python str), sorted if the column is sorted; the caller must not modify it.
        The fallback for what an engine cannot compute in place: memory O(n) in this process."""
        raise NotImplementedError
# [end:Engine]
