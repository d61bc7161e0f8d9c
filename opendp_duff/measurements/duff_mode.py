"""make_duff_mode: the Duff exponential mechanism for the mode over public candidates."""
import collections
import numbers

import attrs
import numpy as np

from ..laws import DiscreteLaw
from ..core import then
from ..errors import MakeError
from ..metrics import SymmetricDistance
from ..transformations._common import dataset_space
from ..transformations.count_by_candidates import (_key, _keys, candidate_counter,
                                                   make_count_by_candidates,
                                                   validate_candidates)
from .noisy_max import make_report_noisy_max_gumbel

__all__ = ["make_duff_mode", "then_duff_mode"]  # duff_mode_utility: via dp.duff_utility


def make_duff_mode(input_domain, input_metric, candidates, scale):
    """Release a candidate c with probability proportional to exp(u(c, x) / scale),
    where u(c, x) = n_c - n_max is the Duff utility of the mode.

    n_c is the number of records equal to c and n_max the largest number of
    equal records in x (over every value, candidate or not; 0 for empty x).
    ``scale`` is the temperature, as in ``make_report_noisy_max_gumbel``.
    Duff (file 000): Definition 8, section 4.1 "Modes", Lemma 1; see
    :func:`duff_mode_utility` for the tie convention.

    Neighbours: add/remove (``symmetric_distance()``).  Privacy
    (``max_divergence()``): ``map(d_in) = d_in / scale``, rounded up.  The
    generic exponential mechanism would charge 2 d_in / scale (Lemma 1 bounds
    each utility's change by d_in, and the normaliser can move the other
    way); here n_max is common to every candidate, so it cancels from the
    probabilities, which then depend only on the counts n_c, and those move
    together: d_in additions and removals change max_c - min_c of the count
    changes by at most d_in (the inf-difference bound of file 002, section 3.1).
    So scale = 1/epsilon gives epsilon-DP.

    Implemented as ``make_count_by_candidates >> make_report_noisy_max_gumbel``
    (inf-difference metric), followed by the lookup index -> candidate.

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    >>> m = space >> dp.t.then_clamp(bounds=(0, 9)) >> dp.m.then_duff_mode(candidates=[1, 2, 3], scale=0.5)
    >>> m.map(1), m([1, 2, 2, 2, 3]) in (1, 2, 3)
    (2.0, True)
    """
    dataset_space(input_domain, input_metric)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance(): "
                        "the Duff utility counts added and removed records")
    counts = make_count_by_candidates(input_domain, input_metric, candidates)
    report = make_report_noisy_max_gumbel(counts.output_domain, counts.output_metric, scale)
    cands = validate_candidates(candidates, input_domain.element_domain.T)
    chain = counts >> report

    def output_law(x):  # index -> candidate is injective: the index law relabelled (opendp_duff.audit)
        law = chain.output_law(x)
        return DiscreteLaw(tuple(cands[i] for i in law.support), law.log_pmf)

    return attrs.evolve(chain >> (lambda i: cands[i]), output_law=output_law)


then_duff_mode = then(make_duff_mode)


def duff_mode_utility(x, candidates, T=None):
    """The Duff utility of the mode, u(c, x) = n_c - n_max, for each candidate c.

    Definition 8 of the Duff paper (file 000) with T(x) the *set* of modes:
    c counts as the mode of x' when no value is more frequent in x' (ties all
    count).  Then -u(c, x) is the fewest additions and removals that make c a
    mode: adding n_max - n_c copies of c suffices, and fewer cannot, since c
    must overtake a most frequent value v of x and each edit raises n_c or
    lowers n_v by at most one.  Under a single-valued tie-break the losers of a
    tie would need one more edit, which is not the paper's closed form.

    ``T`` (float or int) says how records are compared: float compares float64
    values; the default is int when the candidates and records are all
    integers, else float.  Returns an int64 array in the candidates' order.

    >>> from opendp_duff.measurements.duff_mode import duff_mode_utility
    >>> duff_mode_utility([1, 1, 1, 2, 5, 5], candidates=[1, 2, 3]).tolist()
    [0, -2, -3]
    """
    if T is None:
        T = int if _all_int(x, candidates) else float
    cands = validate_candidates(candidates, T)
    counts = candidate_counter(cands, T)(x)
    return counts - _largest_count(x, T)


def _all_int(x, candidates):
    def is_int(e):
        return isinstance(e, numbers.Integral) and not isinstance(e, (bool, np.bool_))
    arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
    recs_int = arr.size == 0 or arr.dtype.kind in "iu" or (
        arr.dtype.kind == "O" and all(is_int(e) for e in arr.reshape(-1)))
    return recs_int and all(is_int(c) for c in candidates)


def _largest_count(x, T):
    """max over values y of the number of records equal to y (0 for no records)."""
    keys = _keys(x, T)
    if keys is None:
        tally = collections.Counter(_key(e, T) for e in x)
        return max(tally.values(), default=0)
    if keys.size == 0:
        return 0
    if T is float:
        keys = np.where(keys == 0, 0.0, keys)  # -0.0 and 0.0 are one value
    return int(np.unique(keys, return_counts=True)[1].max())
