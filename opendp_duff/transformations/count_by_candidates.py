"""make_count_by_candidates: how many records equal each public candidate."""
from __future__ import annotations

from typing import Any


from .._constants import EXACT_INT_BOUND
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..engines.candidates import candidate_values
from ..metrics import ChangeOneDistance, InfDifferenceDistance, Metric
from ._common import dataset_space

__all__ = ["make_count_by_candidates", "then_count_by_candidates"]


def make_count_by_candidates(input_domain: VectorDomain, input_metric: Metric, candidates: Any) -> Transformation:
    """Count the records equal to each candidate: x -> (n_c for c in candidates).

    Records equal to no candidate are not counted.  The counts are the scores of
    ``make_report_noisy_max_gumbel`` (the noisy mode).  The domain's engine counts (locally a
    lookup per record; on Spark one join with the candidates and one aggregation).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T float, int or str, without NaN,
          any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: int vectors of length len(candidates), in the candidates' order, with
          entries in [0, 2^53] (a count is at most the number of records).
        * Output metric: ``inf_difference_distance()``.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).
        candidates: a public, non-empty list, tuple or 1-d array of distinct values of the
            records' type: finite numbers, or strings (Python str or numpy str_) when T is str.
            Float candidates are compared with each record's float64 value (an integer
            candidate must be exactly a float, and -0.0 is the candidate 0.0); int candidates
            must fit in 64 bits; strings are compared with ``==`` (code point by code point).

    Stability map:
        * symmetric distance: ``map(d_in) = d_in``.  An added record raises at most one count
          by 1 and a removed one lowers at most one count by 1, so with a additions and r
          removals every count moves within [-r, a] and max_c - min_c of the changes is at
          most a + r = d_in.
        * change-one distance: a substitution is one removal and one addition,
          ``map(d_in) = 2 d_in``.

        Exact integers; ``map(0) = 0``.  The counts are monotone under addition, which is what
        lets ``make_report_noisy_max_gumbel`` charge d_in / scale instead of 2 d_in / scale
        ([OpenDP-Gumbel] §3.1).

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``candidates`` is not a list, tuple
            or 1-d array, or holds a value of the wrong kind for T.
        MakeError: NaN in the element domain; ``change_one_distance()`` on a domain of unknown size;
            ``candidates`` empty, with a repeated value, or with a value that is not finite, not exactly
            a float (T float) or outside 64 bits (T int).
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/count_by_candidates/make_count_by_candidates.tex``.

    References: [OpenDP-Gumbel] §3.1 (the inf-difference distance and monotone scores).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_count_by_candidates(candidates=[1, 2, 3])
        >>> t([1, 1, 3, 7]).tolist(), t.map(1)
        ([2, 0, 1], 1)
        >>> words = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> (words >> dp.t.then_count_by_candidates(candidates=["N", "S"]))(["N", "E", "N"]).tolist()
        [2, 0]
    """
    # [proof:make_count_by_candidates]
    elem = dataset_space(input_domain, input_metric, allow_str=True, any_engine=True)
    cands = candidate_values(candidates, elem.T)
    engine, T = column_engine(input_domain), elem.T
    factor = 2 if isinstance(input_metric, ChangeOneDistance) else 1
    out = VectorDomain(AtomDomain(int, (0, EXACT_INT_BOUND), False), len(cands), False)

    def function(x):
        return engine.candidate_counts(x, cands, T)

    return Transformation(input_domain, out, input_metric, InfDifferenceDistance(),
                          function, lambda d_in: factor * d_in)
    # [end:make_count_by_candidates]


then_count_by_candidates = then(make_count_by_candidates)
