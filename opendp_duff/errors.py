"""The exceptions opendp_duff raises.

Two families, for two moments:

* Building: a constructor or a map refuses a *public* parameter (:class:`MakeError`,
  :class:`MakeTypeError`, :class:`MapError`), two pieces that do not fit together
  (:class:`ChainError` and its subclasses), a query beyond the budget (:class:`BudgetExceeded`)
  or something that needs a consent switch (:class:`FeatureNotEnabled`).  These messages name
  the parameter and show its value, which is public.
* Running: ``Transformation.__call__`` and ``Measurement.__call__`` refuse data that is not a
  member of the input domain (:class:`NotAMemberTypeError`, :class:`NotAMemberValueError`,
  both :class:`NotAMember`), before the function runs and before any randomness is drawn.
  These messages describe the domain and the requirement that failed, never the data: no
  value, no length, no repr of the input, and no chained exception that holds any of them.

A released function never raises on a member of its input domain.  Every class subclasses
TypeError (the wrong kind of thing) or ValueError (a bad value), so that callers that only
know the standard hierarchy still catch them.
"""
from __future__ import annotations

__all__ = ["MakeError", "MakeTypeError", "MapError", "BudgetExceeded", "FeatureNotEnabled", "ChainError",
           "DomainMismatch", "MetricMismatch", "MeasureMismatch", "NotAMember", "NotAMemberTypeError",
           "NotAMemberValueError"]


# [proof:MakeError]
class MakeError(ValueError):
    """A constructor was given a parameter with a bad value."""
# [end:MakeError]


# [proof:MakeTypeError]
class MakeTypeError(TypeError):
    """A constructor was given a parameter of the wrong kind."""
# [end:MakeTypeError]


# [proof:MapError]
class MapError(ValueError):
    """A stability or privacy map was given a bad distance."""
# [end:MapError]


# [proof:BudgetExceeded]
class BudgetExceeded(MakeError):
    """A query to an interactive compositor asks for more privacy loss than remains.

    Raised before the query touches the data; nothing is charged.  The message shows the
    query's budget and what remains (public numbers)."""
# [end:BudgetExceeded]


# [proof:FeatureNotEnabled]
class FeatureNotEnabled(MakeError):
    """Something that weakens the library's guarantees was asked for without consent.

    The message names the feature (``"insecure-randomness"``, ``"honest-but-curious"``) and
    how to turn it on: ``opendp_duff.enable_features(name)``.  Raised before any data is read.

    Args:
        feature: the feature's name.
        what: what was refused (public).
    """

    def __init__(self, feature: str, what: str) -> None:
        self.feature = feature
        super().__init__(f"{what} needs the feature {feature!r}, which weakens the privacy guarantees; "
                         f"turn it on explicitly with opendp_duff.enable_features({feature!r}) "
                         "(see docs/threat-model.md)")
# [end:FeatureNotEnabled]


class ChainError(ValueError):
    """Two pieces of a chain do not fit together.

    Args:
        what: ``"domain"``, ``"metric"`` or ``"measure"``.
        left: the output side (public: a domain, metric or measure).
        right: the input side it was chained to.
        hint: an optional sentence saying how to fix it.
    """

    def __init__(self, what: str, left: object, right: object, hint: str = "") -> None:
        self.left, self.right = left, right
        msg = f"chain does not fit: output {what} {left!r} != input {what} {right!r}"
        super().__init__(msg + (f" ({hint})" if hint else ""))


# [proof:DomainMismatch]
class DomainMismatch(ChainError):
    """The output domain of one piece is not the input domain of the next."""

    def __init__(self, left: object, right: object, hint: str = "") -> None:
        super().__init__("domain", left, right, hint)
# [end:DomainMismatch]


# [proof:MetricMismatch]
class MetricMismatch(ChainError):
    """The output metric of one piece is not the input metric of the next."""

    def __init__(self, left: object, right: object, hint: str = "") -> None:
        super().__init__("metric", left, right, hint)
# [end:MetricMismatch]


class MeasureMismatch(ChainError):
    """Measurements that must share a privacy measure do not."""

    def __init__(self, left: object, right: object, hint: str = "") -> None:
        super().__init__("measure", left, right, hint)


# [proof:NotAMember]
class NotAMember(Exception):
    """Data given to a transformation or measurement is not a member of its input domain.

    The message names the domain (public) and the requirement that failed; it never quotes
    the data.  Catch this class to catch both subclasses.
    """

    def __init__(self, domain: object, requirement: str) -> None:
        self.domain = domain
        self.requirement = requirement
        super().__init__(f"the data is not a member of the input domain {domain!r}: {requirement}")
# [end:NotAMember]


# [proof:NotAMemberTypeError]
class NotAMemberTypeError(NotAMember, TypeError):
    """The data, or one of its elements, is the wrong kind of thing (a string, None, a 2-d
    array, a bool, a float in an integer domain, ...)."""
# [end:NotAMemberTypeError]


# [proof:NotAMemberValueError]
class NotAMemberValueError(NotAMember, ValueError):
    """The data has the right kind but a value the domain excludes (NaN, a value outside the
    bounds, an integer too large to be exact, the wrong number of records, unsorted)."""
# [end:NotAMemberValueError]
