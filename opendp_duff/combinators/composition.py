"""make_composition: sequential, non-adaptive composition; and what every compositor refuses
to run (:func:`check_part`)."""
from __future__ import annotations

from typing import Any, Sequence

from ..core import Measurement, derived, check_fit, certified
from ..errors import MakeError, MakeTypeError, MeasureMismatch
from ..features import require
from ..measures import ApproximateDivergence, MaxDivergence, ZeroConcentratedDivergence

__all__ = ["make_composition", "check_part", "same_measure"]

COMPOSABLE = (MaxDivergence, ZeroConcentratedDivergence, ApproximateDivergence)


# [proof:check_part]
def check_part(measurement: Measurement, what: str) -> None:
    """Refuse, before any data is read, a measurement that a compositor must not run.

    * An interactive one (its release answers further queries, e.g. a compositor, however
      wrapped): running it inside another compositor would interleave two interactive
      mechanisms, which is concurrent composition [VW21], not covered by the compositors' proofs
      (MakeError).
    * One that the library did not build, or that has a part the library did not build (a
      user-written function or map), unless the feature "honest-but-curious" is on
      (FeatureNotEnabled).

    ``what`` names the measurement in the message (public).
    """
    if measurement.interactive:
        raise MakeError(f"{what} is interactive (it releases something that answers queries): nesting it in "
                        "a compositor would be concurrent composition, which is not supported")
    if not certified(measurement):
        require("honest-but-curious", f"{what}, which the library did not build (a user-written function or "
                                      "map),")


def same_measure(first: Any, other: Any) -> bool:
    """Whether two measures are the same, exact type included (a subclass could redefine ==)."""
    return type(first) is type(other) and first == other
# [end:check_part]


def make_composition(measurements: Sequence[Measurement]) -> Measurement:
    """Run every measurement on the same data and release the tuple of their outputs.

    The measurements run one after the other, each with fresh randomness, none seeing another's
    output (non-adaptive sequential composition).

    Contract:
        * Input domain / Input metric: those shared by every measurement.
        * Output measure: the one they share: ``max_divergence()``,
          ``zero_concentrated_divergence()`` or ``approximate_divergence()``.

    Args:
        measurements: a non-empty list or tuple of Measurements with the same input domain,
            input metric and output measure (privacy profiles compose after ``make_fix_delta``),
            none interactive (MakeError: that would be concurrent composition, [VW21]), all
            built by the library unless the feature "honest-but-curious" is on
            (:func:`check_part`).  The result is certified iff every part is.

    Privacy map:
        The sum of the parts' maps at the same d_in, rounded up: epsilon = sum epsilon_i,
        rho = sum rho_i, or (sum epsilon_i, min(1, sum delta_i)).  ``map(0) = 0`` (or (0, 0)),
        since every part maps 0 to 0; an infinite part gives ``inf``.

    Raises:
        MakeTypeError: an element of ``measurements`` is not a Measurement.
        MakeError: ``measurements`` empty or not a list or tuple; a part that is interactive; a measure
            that does not compose here.
        FeatureNotEnabled: a part the library did not build, without "honest-but-curious".
        DomainMismatch, MetricMismatch, MeasureMismatch: the parts differ in input domain, input metric
            or output measure.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/composition/make_composition.tex``.

    References: [DR14] Thm. 3.16 (pure and approximate DP); [BS16] Lemma 2.3 (zCDP).

    Example:
        >>> import opendp_duff as dp
        >>> lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> dp.c.make_composition([lap, lap]).map(1.0)
        1.0
    """
    # [proof:make_composition]
    if not isinstance(measurements, (list, tuple)) or not measurements:
        raise MakeError(f"measurements ({measurements!r}) must be a non-empty list of Measurements")
    for i, m in enumerate(measurements):
        if not isinstance(m, Measurement):
            raise MakeTypeError(f"measurements[{i}] ({m!r}) must be a Measurement")
        check_part(m, f"measurements[{i}]")
    first = measurements[0]
    if not isinstance(first.output_measure, COMPOSABLE):
        raise MakeError(f"output_measure ({first.output_measure!r}) does not compose here; "
                        "convert it first (for example with make_fix_delta)")
    for m in measurements[1:]:
        check_fit(first.input_domain, first.input_metric, m.input_domain, m.input_metric,
             "composition needs one input domain", "composition needs one input metric")
        if not same_measure(first.output_measure, m.output_measure):
            raise MeasureMismatch(first.output_measure, m.output_measure, "composition needs one measure")
    functions = [m._function for m in measurements]
    maps = [m.privacy_map for m in measurements]
    measure = first.output_measure

    def function(x):
        return tuple(f(x) for f in functions)

    def privacy_map(d_in):
        return measure.compose([p(d_in) for p in maps])

    return derived(Measurement(first.input_domain, first.input_metric, measure, function, privacy_map),
                    *measurements)
    # [end:make_composition]
