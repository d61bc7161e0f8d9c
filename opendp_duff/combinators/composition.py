"""make_composition: sequential, non-adaptive composition."""
from .. import _validate as v
from ..core import Measurement
from ..errors import DomainMismatch, MakeError, MeasureMismatch, MetricMismatch
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence

COMPOSABLE = (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence)


def make_composition(measurements):
    """Run every measurement on the same data and release the tuple of their outputs.

    Privacy: basic sequential composition, the sum of the parts, rounded up:

    * ``max_divergence``: epsilon = sum epsilon_i (Dwork & Roth, Theorem 3.16);
    * ``zero_concentrated_divergence``: rho = sum rho_i (Bun & Steinke 2016, Lemma 2.3);
    * ``approximate_divergence``: (sum epsilon_i, sum delta_i) (Dwork & Roth, Theorem 3.16).

    All measurements must share the input domain, input metric and output measure.

    >>> import opendp_duff as dp
    >>> lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> dp.c.make_composition([lap, lap]).map(1.0)
    1.0
    """
    if not isinstance(measurements, (list, tuple)) or not measurements:
        raise MakeError(f"measurements ({measurements!r}) must be a non-empty list of Measurements")
    for i, m in enumerate(measurements):
        v.instance(f"measurements[{i}]", m, Measurement, "a Measurement")
    first = measurements[0]
    if not isinstance(first.output_measure, COMPOSABLE):
        raise MakeError(f"output_measure ({first.output_measure!r}) does not compose here; "
                        "convert it first (for example with make_fix_delta)")
    for m in measurements[1:]:
        if m.input_domain != first.input_domain:
            raise DomainMismatch(first.input_domain, m.input_domain, "composition needs one input domain")
        if m.input_metric != first.input_metric:
            raise MetricMismatch(first.input_metric, m.input_metric, "composition needs one input metric")
        if m.output_measure != first.output_measure:
            raise MeasureMismatch(first.output_measure, m.output_measure, "composition needs one measure")
    functions = [m.function for m in measurements]
    maps = [m.privacy_map for m in measurements]
    measure = first.output_measure

    return Measurement(first.input_domain, first.input_metric, measure,
                       lambda x: tuple(f(x) for f in functions),
                       lambda d_in: measure.compose([p(d_in) for p in maps]))
