"""make_impute_constant: replace each NaN record by a public constant."""
from __future__ import annotations

from .. import _validate as v
from ..core import Transformation, then
from ..domains import AtomDomain, VectorDomain
from ..engines import column_engine
from ..errors import MakeError
from ..metrics import Metric
from ._common import dataset_space


def make_impute_constant(input_domain: VectorDomain, input_metric: Metric, constant: float) -> Transformation:
    """Replace each NaN record by ``constant``.

    The only way NaN enters a pipeline: raw data with missing values is a member of a domain
    with ``nan=True``, and this transformation maps it into the same domain without NaN, where
    every other constructor accepts it.  A zero is released as +0.0, whatever its sign.  The
    domain's engine imputes (a local column into a new numpy array; a Spark column lazily).

    Contract:
        * Input domain: ``vector_domain(atom_domain(T=float, nan=True))``, any ``size``, any engine.
        * Input metric: ``symmetric_distance()`` or ``change_one_distance()`` (known size).
        * Output domain: ``vector_domain(atom_domain(T=float))`` with the same size, not sorted
          (the constant can land anywhere in the order).
        * Output metric: the input metric.

    Args:
        input_domain: the domain of the raw data (see the contract).
        input_metric: the dataset metric (see the contract).
        constant: the public value that replaces NaN, a finite number.

    Stability map:
        ``map(d_in) = d_in``: a record-wise map sends neighbours to neighbours under both
        dataset metrics; exact (no arithmetic), and ``map(0) = 0``.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``constant`` is not a real number.
        MakeError: an element type other than float, or a domain that does not admit NaN;
            ``change_one_distance()`` on a domain of unknown size; ``constant`` NaN or infinite.
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/transformations/impute/make_impute_constant.tex``.

    References: none needed (a record-wise map; the stability argument is in the proof).

    Example:
        >>> import opendp_duff as dp
        >>> raw = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
        >>> t = raw >> dp.t.then_impute_constant(constant=0.0) >> dp.t.then_clamp(bounds=(0.0, 1.0))
        >>> t([0.5, float("nan"), 2.0]).tolist(), t.map(1)
        ([0.5, 0.0, 1.0], 1)
    """
    # [proof:make_impute_constant]
    elem = dataset_space(input_domain, input_metric, T=float, allow_nan=True, any_engine=True)
    if not elem.nan:
        raise MakeError(f"input_domain ({input_domain!r}) must admit NaN (atom_domain(T=float, nan=True)): "
                        "data without NaN needs no imputation")
    value = v.number("constant", constant) + 0.0      # finite; -0.0 -> +0.0
    out = input_domain.with_(element_domain=AtomDomain(float, None, False), sorted=False)
    engine = column_engine(input_domain)

    def function(x):
        return engine.impute(x, value)    # each record: x_i, or the constant where x_i is NaN

    return Transformation(input_domain, out, input_metric, input_metric, function, lambda d_in: d_in)
    # [end:make_impute_constant]


then_impute_constant = then(make_impute_constant)

__all__ = ["make_impute_constant", "then_impute_constant"]
