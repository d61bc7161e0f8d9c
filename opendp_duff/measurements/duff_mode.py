"""make_duff_mode: the Duff exponential mechanism for the mode over public candidates.

[GM-Duff] Definition 8 and §4.1 ("Modes"): u(c, x) = n_c - n_max.  Built as
``make_count_by_candidates >> make_report_noisy_max_gumbel`` (inf-difference metric,
[OpenDP-Gumbel] §3.1), then the lookup index -> candidate.

Proof: ``proofs/measurements/duff_mode/make_duff_mode.tex``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import attrs

from ..core import Measurement, make_chain_mt, make_chain_pm, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..laws import DiscreteLaw
from ..metrics import Metric, SymmetricDistance
from ..transformations import dataset_space
from ..engines.candidates import candidate_values
from ..transformations.count_by_candidates import make_count_by_candidates
from .noisy_max import make_report_noisy_max_gumbel

__all__ = ["make_duff_mode", "then_duff_mode"]  # its utility: opendp_duff.duff_utility.duff_mode_utility


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
    integer counts, candidates of equal count racing as one block.  Numeric candidates are
    indexed by a hash table of their bit patterns (or a table of a small int range), and each
    record is counted by one lookup, without sorting the candidates or the records: m
    candidates and n records cost expected O(n + m) numpy work.  Numeric candidates are best
    given as a numpy array; they are checked and indexed without a Python object each.  The
    running time is not protected.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``candidates`` is not a list, tuple
            or 1-d array, or holds a value of the wrong kind for T, or ``scale`` is not a real number.
        MakeError: NaN in the element domain; ``input_metric`` not ``symmetric_distance()``;
            ``candidates`` empty, with a repeated value, or with a value that is not finite, not exactly
            a float (T float) or outside 64 bits (T int); ``scale`` negative or NaN.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

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
