"""Convert between the two dataset metrics on datasets of a known size.

On a vector domain of public size n, two datasets that differ by d substitutions
(``change_one_distance``) differ by d removals and d additions (``symmetric_distance`` 2d),
and conversely two datasets of the same size at symmetric distance d differ by exactly d/2
substitutions (d is even).  These identity transformations let a mechanism proven under
one relation be used under the other: [BS19] works with substitution, [GM-Duff]
(Definition 1) with addition and removal.
"""
from __future__ import annotations

from typing import Union

from ..core import Transformation, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..frames.domain import DataFrameDomain
from ..metrics import ChangeOneDistance, Metric, SymmetricDistance
from ._common import dataset_space

__all__ = ["make_symmetric_to_change_one", "then_symmetric_to_change_one",
           "make_change_one_to_symmetric", "then_change_one_to_symmetric"]


# [proof:identity]
def _identity(x):
    return x
# [end:identity]


def make_symmetric_to_change_one(input_domain: VectorDomain, input_metric: Metric) -> Transformation:
    """The identity on datasets of known size n, from ``symmetric_distance`` to
    ``change_one_distance``.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T), size=n)``, T float or int, no NaN.
        * Input metric: ``symmetric_distance()``.
        * Output domain: the input domain.  Output metric: ``change_one_distance()``.

    Args:
        input_domain: the domain of the data; its size must be known.
        input_metric: ``symmetric_distance()``.

    Stability map:
        ``map(d_in) = floor(d_in / 2)``.  Same-size multisets x, x' with |x triangle x'| = d
        have |x minus x'| = |x' minus x| = d/2 (d is even), and d/2 substitutions turn one into
        the other; an odd bound d_in therefore allows at most d_in - 1.  Exact; ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``.
        MakeError: strings or NaN in the element domain, an unknown size, or ``input_metric`` not
            ``symmetric_distance()``.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/metric_convert/make_symmetric_to_change_one.tex``.

    References: [GM-Duff] Definition 1 (add/remove neighbours); [BS19] §2 (substitution).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float), size=10), dp.symmetric_distance()
        >>> t = space >> dp.t.then_symmetric_to_change_one() >> dp.t.then_clamp(bounds=(0.0, 1.0))
        >>> t.output_metric, t.map(1), t.map(4), t.map(5)
        (ChangeOneDistance(), 0, 2, 2)
    """
    # [proof:make_symmetric_to_change_one]
    dataset_space(input_domain, input_metric, need_size=True, any_engine=True)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance()")
    return Transformation(input_domain, input_domain, input_metric, ChangeOneDistance(),
                          _identity, lambda d_in: d_in // 2)
    # [end:make_symmetric_to_change_one]


def make_change_one_to_symmetric(input_domain: Union[VectorDomain, DataFrameDomain],
                                 input_metric: Metric) -> Transformation:
    """The identity on datasets of known size n, from ``change_one_distance`` to
    ``symmetric_distance``.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T), size=n)``, T float or int, no NaN, or
          ``dataframe_domain(columns, size=n)`` (frames as multisets of rows): the change-one
          distance is only defined between datasets of the same public size.
        * Input metric: ``change_one_distance()``.
        * Output domain: the input domain.  Output metric: ``symmetric_distance()``.

    Args:
        input_domain: the domain of the data; its size must be known.
        input_metric: ``change_one_distance()``.

    Stability map:
        ``map(d_in) = 2 d_in``: each substitution is one removal and one addition.  Exact;
        ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is neither a VectorDomain nor a DataFrameDomain, or (a
            VectorDomain) ``input_metric`` is neither ``symmetric_distance()`` nor
            ``change_one_distance()``.
        MakeError: strings or NaN in a vector domain's elements, an unknown size, or
            ``input_metric`` not ``change_one_distance()``.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/metric_convert/make_change_one_to_symmetric.tex``.

    References: [GM-Duff] Definition 1 (add/remove neighbours); [BS19] §2 (substitution).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float), size=10), dp.change_one_distance()
        >>> t = space >> dp.t.then_change_one_to_symmetric() >> dp.t.then_sort()
        >>> t.output_metric, t.map(3)
        (SymmetricDistance(), 6)
    """
    # [proof:make_change_one_to_symmetric]
    if not isinstance(input_domain, DataFrameDomain):
        dataset_space(input_domain, input_metric, need_size=True, any_engine=True)
    elif input_domain.size is None:
        raise MakeError(f"input_domain ({input_domain!r}) must have a known size")
    if not isinstance(input_metric, ChangeOneDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be change_one_distance()")
    return Transformation(input_domain, input_domain, input_metric, SymmetricDistance(),
                          _identity, lambda d_in: 2 * d_in)
    # [end:make_change_one_to_symmetric]


then_symmetric_to_change_one = then(make_symmetric_to_change_one)
then_change_one_to_symmetric = then(make_change_one_to_symmetric)
