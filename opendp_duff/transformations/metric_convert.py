"""Convert between the two dataset metrics on datasets of a known size.

On a vector domain of public size n, two datasets that differ by d substitutions
(``change_one_distance``) differ by d removals and d additions (``symmetric_distance`` 2d),
and conversely two datasets of the same size at symmetric distance d differ by exactly d/2
substitutions (d is even).  These identity transformations let a mechanism proven under
one relation be used under the other: Bun & Steinke (file 004) work with substitution,
the Duff paper (file 000, Definition 1) with add/remove.
"""
from ..core import Transformation, then
from ..errors import MakeError
from ..metrics import ChangeOneDistance, SymmetricDistance
from ._common import dataset_space

__all__ = ["make_symmetric_to_change_one", "then_symmetric_to_change_one",
           "make_change_one_to_symmetric", "then_change_one_to_symmetric"]


def _identity(x):
    return x


def make_symmetric_to_change_one(input_domain, input_metric):
    """The identity on datasets of known size n, from ``symmetric_distance`` to
    ``change_one_distance``.

    Stability map: ``map(d_in) = floor(d_in / 2)``.  Same-size multisets x, x' with
    |x triangle x'| = d have |x minus x'| = |x' minus x| = d/2 (d is even), and d/2
    substitutions turn one into the other; an odd bound d_in therefore allows at most
    d_in - 1, hence the floor.  ``input_domain`` must have a known ``size``.

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float), size=10), dp.symmetric_distance()
    >>> t = space >> dp.t.then_symmetric_to_change_one() >> dp.t.then_clamp(bounds=(0.0, 1.0))
    >>> t.output_metric, t.map(1), t.map(4), t.map(5)
    (ChangeOneDistance(), 0, 2, 2)
    """
    dataset_space(input_domain, input_metric, need_size=True)
    if not isinstance(input_metric, SymmetricDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be symmetric_distance()")
    return Transformation(input_domain, input_domain, input_metric, ChangeOneDistance(),
                          _identity, lambda d_in: d_in // 2)


def make_change_one_to_symmetric(input_domain, input_metric):
    """The identity on datasets of known size n, from ``change_one_distance`` to
    ``symmetric_distance``.

    Stability map: ``map(d_in) = 2 d_in``: each substitution is one removal and one
    addition.  ``input_domain`` must have a known ``size`` (the change-one distance is only
    defined between datasets of the same public size).

    >>> import opendp_duff as dp
    >>> space = dp.vector_domain(dp.atom_domain(T=float), size=10), dp.change_one_distance()
    >>> t = space >> dp.t.then_change_one_to_symmetric() >> dp.t.then_sort()
    >>> t.output_metric, t.map(3)
    (SymmetricDistance(), 6)
    """
    dataset_space(input_domain, input_metric, need_size=True)
    if not isinstance(input_metric, ChangeOneDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be change_one_distance()")
    return Transformation(input_domain, input_domain, input_metric, SymmetricDistance(),
                          _identity, lambda d_in: 2 * d_in)


then_symmetric_to_change_one = then(make_symmetric_to_change_one)
then_change_one_to_symmetric = then(make_change_one_to_symmetric)
