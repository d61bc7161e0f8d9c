"""make_count_by_key: how many records hold each value, for values not known in advance."""
from __future__ import annotations

import collections
from typing import Any

import numpy as np

from ..core import Transformation, then
from ..domains import VectorDomain
from ..map_domain import count_map_domain
from ..metrics import ChangeOneDistance, L01InfDistance, Metric, PartitionBound
from ._common import as_array, dataset_space

__all__ = ["make_count_by_key", "then_count_by_key"]


def make_count_by_key(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """Count the records of each distinct value: x -> {key: number of records equal to key}.

    The keys are the values that occur (each count is at least 1), in increasing order; they
    are private, which is why ``make_threshold_keys`` releases only those with a large noisy
    count.  When the keys are public, ``make_count_by_candidates`` counts them instead.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T))``, T str, int or float, without NaN
          (bounds are allowed and ignored).
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: ``count_map_domain(T)``: keys of type T, counts in [0, 2^53].
        * Output metric: ``l01inf_distance()``, a missing key read as a count of 0.

    Args:
        input_domain: the domain of the data (see the contract).
        input_metric: the dataset metric (see the contract).

    Stability map:
        * symmetric distance: ``map(d) = (d, d, d)``: each added or removed record changes one
          count by 1, so at most d counts change, by at most d in total and each by at most d.
        * change-one distance: ``map(d) = (2 d, 2 d, d)``: a substitution removes one record
          and adds one.

        Exact integers; ``map(0) = (0, 0, 0)``.

    Float keys compare as float64 values, -0.0 being the key 0.0; strings compare with ``==``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: NaN in the element domain; a domain that names an engine (the constructor runs on
            local data only); ``change_one_distance()`` on a domain of unknown size.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/count_by_key/make_count_by_key.tex``.

    References: [KKMN09] (counts per query, then noisy thresholding); [DVGM22] (partition
    selection: the keys of a GROUP BY are data).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> t = space >> dp.t.then_count_by_key()
        >>> t(["N", "S", "N"]), t.map(1)
        ({'N': 2, 'S': 1}, PartitionBound(l0=1, l1=1, linf=1))
    """
    # [proof:make_count_by_key]
    elem = dataset_space(input_domain, input_metric, allow_str=True)
    change_one = isinstance(input_metric, ChangeOneDistance)

    def function(x: Any) -> dict[Any, int]:
        if elem.T is str:
            tally = collections.Counter(x)                 # by str equality
            return {k: tally[k] for k in sorted(tally)}
        keys, counts = np.unique(as_array(x, elem.T), return_counts=True)   # -0.0 read as 0.0
        return dict(zip(keys.tolist(), counts.tolist(), strict=True))

    def stability_map(d_in: int) -> PartitionBound:
        return PartitionBound(2 * d_in, 2 * d_in, d_in) if change_one else PartitionBound(d_in, d_in, d_in)

    return Transformation(input_domain, count_map_domain(elem.T), input_metric, L01InfDistance(),
                          function, stability_map)
    # [end:make_count_by_key]


then_count_by_key = then(make_count_by_key)
