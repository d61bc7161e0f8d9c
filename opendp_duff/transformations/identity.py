"""make_identity: the identity transformation on any domain, where every query plan starts."""
from __future__ import annotations

from typing import Any

from .. import _validate as v
from ..core import Transformation, then
from ..errors import MakeTypeError
from ..metrics import Metric

__all__ = ["make_identity", "then_identity"]


# [proof:identity_function]
def _same(x: Any) -> Any:
    return x
# [end:identity_function]


def make_identity(input_domain: Any, input_metric: Metric) -> Transformation:
    """The identity: every member is returned as it is.

    A query plan is compiled into a chain that starts here, on the data's domain and the privacy
    unit's metric, so that every plan is a transformation chain before its statistic, whatever
    its first step.

    Contract:
        * Input domain: any domain (with ``member`` and ``admit``): a vector, data-frame or
          partition domain...
        * Input metric: any metric.
        * Output domain: the input domain.  Output metric: the input metric.

    Args:
        input_domain: the domain of the data.
        input_metric: the metric on the data.

    Stability map:
        ``map(d_in) = d_in``: equal inputs give equal outputs at the same distance.  Exact (no
        arithmetic); ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` has no ``member`` and ``admit``, or ``input_metric`` is not a
            Metric.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/identity/make_identity.tex``.

    References: [DR14] §2.3 (stable transformations compose).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> t = dp.t.make_identity(*space) >> dp.t.then_clamp(bounds=(0.0, 1.0))
        >>> t([0.5, 3.0]).tolist(), t.map(2)
        ([0.5, 1.0], 2)
    """
    # [proof:make_identity]
    if not (callable(getattr(input_domain, "admit", None)) and callable(getattr(input_domain, "member", None))):
        raise MakeTypeError(f"input_domain ({input_domain!r}) must be a domain (with member and admit)")
    v.instance("input_metric", input_metric, Metric, "a metric")
    return Transformation(input_domain, input_domain, input_metric, input_metric, _same, lambda d_in: d_in)
    # [end:make_identity]


then_identity = then(make_identity)
