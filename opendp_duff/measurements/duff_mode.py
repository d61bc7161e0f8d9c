"""make_duff_mode: the Duff exponential mechanism for the mode over public candidates.

[GM-Duff] Definition 8 and §4.1 ("Modes"): u(c, x) = n_c - n_max.  Built as
``make_count_by_candidates >> make_report_noisy_max_gumbel`` (inf-difference metric,
[OpenDP-Gumbel] §3.1), then the lookup index -> candidate.

Proof: ``proofs/measurements/duff_mode/make_duff_mode.tex``.
"""
from __future__ import annotations

import collections
import numbers
from collections.abc import Sequence
from typing import Any, cast

import attrs
import numpy as np

from ..core import Measurement, make_chain_mt, make_chain_pm, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..laws import DiscreteLaw
from ..metrics import Metric, SymmetricDistance
from ..transformations._common import dataset_space
from ..engines.candidates import candidate_counter, record_key, record_keys
from ..transformations.count_by_candidates import candidate_values, make_count_by_candidates, validate_candidates
from .noisy_max import make_report_noisy_max_gumbel

__all__ = ["make_duff_mode", "then_duff_mode"]  # duff_mode_utility: via dp.duff_utility


def make_duff_mode(input_domain: VectorDomain, input_metric: Metric, candidates: Sequence[Any],
                   scale: float) -> Measurement:
    """Release a public candidate near the mode: the exponential mechanism with the Duff utility.

    Releases candidate c with probability proportional to exp(u(c, x) / scale), where
    u(c, x) = n_c - n_max is the Duff utility of the mode ([GM-Duff] Definition 8, §4.1
    "Modes"): n_c counts the records equal to c and n_max is the largest number of equal
    records in x (over every value, candidate or not; 0 for no records).  Ties count: c
    is a mode when no value is more frequent (see :func:`duff_mode_utility`).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))`` with T float, int or str, no NaN
          (bounds are not needed).
        * Input metric: ``symmetric_distance()`` (add/remove one record, [GM-Duff] Definition 1).
        * Output measure: ``max_divergence()``.

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: ``symmetric_distance()``.
        candidates: a public, non-empty sequence of distinct values of type T: finite
            numbers, or strings for a string domain (as in ``make_count_by_candidates``).
        scale: the temperature, a number >= 0 or ``inf``; ``scale = 1 / epsilon`` gives
            epsilon-DP.

    Privacy map:
        ``map(d_in) = d_in / scale``, rounded up.  n_max is common to every candidate and
        cancels from the probabilities, and d_in additions and removals move
        max_c - min_c of the count changes by at most d_in (the inf-difference bound of
        [OpenDP-Gumbel] §3.1, §4.2), so the generic factor 2 of the exponential mechanism
        is not needed.  ``map(0) = 0``; scale 0 gives ``inf`` (an argmax of the counts,
        ties broken uniformly); scale ``inf`` gives 0 (a uniform candidate).

    Sampling is exact: the Gumbel race of ``make_report_noisy_max_gumbel`` on the exact
    integer counts, candidates of equal count racing as one block (so ten million candidates,
    most of them counted 0, cost O(n + m) numpy work).  Numeric candidates are best given as a
    numpy array; they are checked and indexed without a Python object each.  The running time
    is not protected.

    Proof: ``proofs/measurements/duff_mode/make_duff_mode.tex``.

    References: [GM-Duff] Definition 8, Lemma 1, §4.1 (Modes); [OpenDP-Gumbel] Theorem 2.1,
    §3.1, §4.2; [MT07].

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
        >>> m = space >> dp.t.then_clamp(bounds=(0, 9)) >> dp.m.then_duff_mode(candidates=[1, 2, 3], scale=0.5)
        >>> m.map(1), m([1, 2, 2, 2, 3]) in (1, 2, 3)
        (2.0, True)
        >>> words = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> (words >> dp.m.then_duff_mode(candidates=["N", "S"], scale=1.0))(["N", "N", "E"]) in ("N", "S")
        True
    """
    # [proof:make_duff_mode]
    dataset_space(input_domain, input_metric, allow_str=True, any_engine=True)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance(): "
                        "the Duff utility counts added and removed records")
    cands = candidate_values(candidates, input_domain.element_domain.T)   # validated once
    counts = make_count_by_candidates(input_domain, input_metric, cands)
    report = make_report_noisy_max_gumbel(cast(VectorDomain, counts.output_domain), counts.output_metric, scale)
    chain = make_chain_mt(report, counts)                     # counts >> report
    release = make_chain_pm(lambda i: cands[i], chain)        # chain >> (index -> candidate)
    # [end:make_duff_mode]
    chain_law = chain.output_law
    assert chain_law is not None                              # the report knows its law

    # [proof:make_duff_mode.output_law]
    def output_law(x):  # index -> candidate is injective: the index law relabelled (opendp_duff.audit)
        law = chain_law(x)
        return DiscreteLaw(tuple(cands[i] for i in law.support), law.log_pmf)
    # [end:make_duff_mode.output_law]

    return attrs.evolve(release, output_law=output_law)


then_duff_mode = then(make_duff_mode)


# [proof:duff_mode_utility]
def duff_mode_utility(x: Any, candidates: Sequence[Any], T: type | None = None) -> np.ndarray:
    """The Duff utility of the mode, u(c, x) = n_c - n_max, for each candidate c.

    [GM-Duff] Definition 8 with T(x) the *set* of modes:
    c counts as the mode of x' when no value is more frequent in x' (ties all
    count).  Then -u(c, x) is the fewest additions and removals that make c a
    mode: adding n_max - n_c copies of c suffices, and fewer cannot, since c
    must overtake a most frequent value v of x and each edit raises n_c or
    lowers n_v by at most one.  Under a single-valued tie-break the losers of a
    tie would need one more edit, which is not the paper's closed form.

    ``T`` (float, int or str) says how records are compared: float compares float64
    values, str compares strings; the default is str when the candidates are
    strings, int when the candidates and records are all integers, else float.
    Returns an int64 array in the candidates' order.

    >>> from opendp_duff.measurements.duff_mode import duff_mode_utility
    >>> duff_mode_utility([1, 1, 1, 2, 5, 5], candidates=[1, 2, 3]).tolist()
    [0, -2, -3]
    """
    if T is None:
        if len(candidates) and all(type(c) in (str, np.str_) for c in candidates):
            T = str
        else:
            T = int if _all_int(x, candidates) else float
    cands = validate_candidates(candidates, T)
    counts = candidate_counter(cands, T)(x)
    return counts - _largest_count(x, T)
# [end:duff_mode_utility]


def _all_int(x: Any, candidates: Sequence[Any]) -> bool:
    def is_int(e: Any) -> bool:
        return isinstance(e, numbers.Integral) and not isinstance(e, (bool, np.bool_))
    arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
    recs_int = arr.size == 0 or arr.dtype.kind in "iu" or (
        arr.dtype.kind == "O" and all(is_int(e) for e in arr.reshape(-1)))
    return recs_int and all(is_int(c) for c in candidates)


def _largest_count(x: Any, T: type) -> int:
    """max over values y of the number of records equal to y (0 for no records)."""
    if T is str:
        return max(collections.Counter(x).values(), default=0)
    keys = record_keys(x, T)
    if keys is None:
        tally = collections.Counter(record_key(e, T) for e in x)
        return max(tally.values(), default=0)
    if keys.size == 0:
        return 0
    if T is float:
        keys = np.where(keys == 0, 0.0, keys)  # -0.0 and 0.0 are one value
    return int(np.unique(keys, return_counts=True)[1].max())
