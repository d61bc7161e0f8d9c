"""The exceptions opendp_duff raises.

Every error is raised while a constructor or a map validates its *public*
parameters; none is raised by a released function on a member of its input
domain.  They subclass TypeError or ValueError so that callers that only know
the standard hierarchy still catch them.
"""


class MakeError(ValueError):
    """A constructor was given a parameter with a bad value."""


class MakeTypeError(TypeError):
    """A constructor was given a parameter of the wrong kind."""


class MapError(ValueError):
    """A stability or privacy map was given a bad distance."""


class ChainError(ValueError):
    """Two pieces of a chain do not fit together.  Holds both sides."""

    def __init__(self, what, left, right, hint=""):
        self.left, self.right = left, right
        msg = f"chain does not fit: output {what} {left!r} != input {what} {right!r}"
        super().__init__(msg + (f" ({hint})" if hint else ""))


class DomainMismatch(ChainError):
    def __init__(self, left, right, hint=""):
        super().__init__("domain", left, right, hint)


class MetricMismatch(ChainError):
    def __init__(self, left, right, hint=""):
        super().__init__("metric", left, right, hint)


class MeasureMismatch(ChainError):
    def __init__(self, left, right, hint=""):
        super().__init__("measure", left, right, hint)
