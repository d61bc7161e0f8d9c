"""The interactive sequential compositor the context runs on.

``dp.c.make_sequential_composition`` is the compositor; this module picks it up and, where the
combinator is not available in this build, provides a local one with the same interface so the
context works on arrays (see ``sequential_composition``).
"""
from __future__ import annotations

from typing import Any, Callable

from ..core import Measurement
from ..errors import MakeError
from ._budget import Budget, Exact, exact, fits, rounded

__all__ = ["sequential_composition", "BudgetExceeded"]


try:  # the library's error, where it exists
    from ..errors import BudgetExceeded  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    class BudgetExceeded(MakeError):  # type: ignore[no-redef]
        """A query asks for more privacy budget than remains."""


class _Queryable:
    """Runs measurements on the data while the sum of their budgets fits in ``d_out``."""

    def __init__(self, data: Any, domain: Any, metric: Any, measure: Any, d_in: Any, d_out: Budget) -> None:
        self._data, self._domain, self._metric, self._measure, self._d_in = data, domain, metric, measure, d_in
        self._total: Exact = exact(d_out)
        self._spent: Exact = tuple(0 * c for c in self._total)

    def __call__(self, measurement: Measurement, d_mid: Budget) -> Any:
        return self.query(measurement, d_mid)

    def query(self, measurement: Measurement, d_mid: Budget) -> Any:
        if not isinstance(measurement, Measurement):
            raise MakeError(f"measurement ({measurement!r}) must be a Measurement")
        if (measurement.input_domain, measurement.input_metric) != (self._domain, self._metric):
            raise MakeError("the measurement's input domain and metric must be the compositor's")
        if measurement.output_measure != self._measure:
            raise MakeError(f"the measurement's output measure must be {self._measure!r}")
        d_mid = self._measure.validate(d_mid, "d_mid")
        if not measurement.check(self._d_in, d_mid):
            raise MakeError(f"the measurement does not meet d_mid ({d_mid!r}) at d_in ({self._d_in!r})")
        left = tuple(t - s for t, s in zip(self._total, self._spent, strict=True))
        if not fits(d_mid, left):
            raise BudgetExceeded(f"d_mid ({d_mid!r}) exceeds the remaining budget ({rounded(left, False)!r})")
        answer = measurement(self._data)
        self._spent = tuple(s + q for s, q in zip(self._spent, exact(d_mid), strict=True))
        return answer

    @property
    def spent(self) -> Budget:
        return rounded(self._spent, upward=True)

    @property
    def remaining(self) -> Budget:
        return rounded(tuple(t - s for t, s in zip(self._total, self._spent, strict=True)), upward=False)


def _local(input_domain: Any, input_metric: Any, output_measure: Any, d_in: Any, d_out: Budget) -> Measurement:
    def privacy_map(d: Any) -> Budget:
        if d > d_in:
            raise MakeError(f"d_in ({d!r}) exceeds the compositor's d_in ({d_in!r})")
        return d_out

    def function(data: Any) -> _Queryable:
        return _Queryable(data, input_domain, input_metric, output_measure, d_in, d_out)

    return Measurement(input_domain, input_metric, output_measure, function, privacy_map)


def sequential_composition() -> Callable[..., Measurement]:
    """``dp.c.make_sequential_composition``, or the local compositor where it is missing."""
    from .. import combinators
    return getattr(combinators, "make_sequential_composition", _local)
