"""How two steps of a chain link: whether an output space fits the next input space, and the
function of the chain (with a fused step when the next step offers one).

:mod:`opendp_duff.core`'s chain constructors use both; the combinators call :func:`check_fit`.
Proofs: ``proofs/core/make_chain_tt.tex`` (and ``make_chain_mt``, ``make_chain_pm``).
"""
from __future__ import annotations

from typing import Any, Callable

from .errors import DomainMismatch, MetricMismatch

__all__ = ["check_fit"]


# [proof:fit]
def check_fit(out_domain: object, out_metric: object, in_domain: object, in_metric: object,
              domain_hint: str = "", metric_hint: str = "") -> None:
    """Whether an output space fits the next input space: the same type and equal.

    Raises:
        DomainMismatch, MetricMismatch: they differ (the error shows both sides and the hint).
    """
    # the exact type first: a subclass could redefine == (and Python would ask it first)
    if type(out_domain) is not type(in_domain) or out_domain != in_domain:
        raise DomainMismatch(out_domain, in_domain, domain_hint)
    if type(out_metric) is not type(in_metric) or out_metric != in_metric:
        raise MetricMismatch(out_metric, in_metric, metric_hint)
# [end:fit]


# [proof:compose]
class _Composed:
    """``outer`` after ``inner``: the function of a chain, with its two steps kept so that a
    later chain can fuse its last step with the next one (:func:`_compose`)."""

    __slots__ = ("outer", "inner")

    def __init__(self, outer: Callable[[Any], Any], inner: Callable[[Any], Any]) -> None:
        self.outer, self.inner = outer, inner

    def __call__(self, x: Any) -> Any:
        return self.outer(self.inner(x))


def _compose(f1: Callable[[Any], Any], f0: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``f1`` after ``f0``.  A step's function may offer ``after(f)``: a function equal to
    ``f1(f(x))`` on every member of ``f``'s input domain, or None; its constructor's proof shows
    the equality.  The chain then calls that fused function in place of ``f0``'s last step and
    ``f1`` (an implementation of the same function, cheaper: e.g. a clamp left to a selection)."""
    after = getattr(f1, "after", None)
    if after is not None:
        last, rest = (f0.outer, f0.inner) if type(f0) is _Composed else (f0, None)
        fused = after(last)
        if fused is not None:
            return fused if rest is None else _Composed(fused, rest)
    return _Composed(f1, f0)
# [end:compose]
