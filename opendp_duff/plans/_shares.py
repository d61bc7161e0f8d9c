"""Shares of a budget, in exact arithmetic: a total cut in proportion to weights.

A budget is the ``d_out`` of a measure: a float for pure DP and zCDP, a pair (epsilon, delta)
for approximate DP or (rho, delta) for approximate zCDP.  Its components are handled as exact
rationals (:func:`exact`) and handed out rounded down (:func:`rounded`), so that the shares of a
total never sum to more than it.  The context splits its budget over queries with
:class:`Shares`, and a plan with several statistics splits its own budget over them with the same class.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional, Sequence, Tuple

from .. import arithmetic as ar
from ._casts import Budget

__all__ = ["Shares", "exact", "rounded"]

Exact = Tuple[Fraction, ...]


def exact(budget: Budget) -> Exact:
    """The budget as a tuple of exact rationals (one or two components)."""
    parts = budget if isinstance(budget, tuple) else (budget,)
    return tuple(ar.Q(p) for p in parts)


def rounded(parts: Exact, upward: bool) -> Budget:
    """Exact components back to a budget of floats, each rounded up or down."""
    rnd = ar.up if upward else ar.down
    floats = tuple(rnd(p) for p in parts)
    return floats[0] if len(floats) == 1 else (floats[0], floats[1])


class Shares(Sequence[Budget]):
    """The shares of a total budget, in proportion to weights (all equal for an even split):
    share i < n - 1 is ``total * w_i / sum(w)`` rounded down, and the last is what the others
    leave, rounded down.  Their exact sum never exceeds ``total``, and equals it whenever the
    last remainder is a float (it is for an even split of a power of two, and often).

    Computed on demand: an even split of any size costs O(1) per share (the shares before the
    last are all equal), a weighted one O(1) per share after the weights' sum.
    """

    def __init__(self, total: Budget, n: int, weights: Optional[Sequence[Fraction]] = None) -> None:
        self._whole, self._n, self._weights = exact(total), n, weights
        self._weight_sum = Fraction(n) if weights is None else sum(weights, Fraction(0))
        self._last: Optional[Budget] = None

    def __len__(self) -> int:
        return self._n

    def _share(self, weight: Fraction) -> Budget:
        return rounded(tuple(c * weight / self._weight_sum for c in self._whole), upward=False)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = range(self._n)[i]                      # IndexError outside, negative from the end
        if i < self._n - 1:
            return self._share(Fraction(1) if self._weights is None else self._weights[i])
        if self._last is None:
            if self._weights is None:              # n - 1 equal shares before the last
                used = [(self._n - 1) * c for c in exact(self._share(Fraction(1)))] if self._n > 1 \
                    else [Fraction(0)] * len(self._whole)
            else:
                before = [exact(self._share(w)) for w in self._weights[:-1]]
                used = [sum((b[k] for b in before), Fraction(0)) for k in range(len(self._whole))]
            self._last = rounded(tuple(c - u for c, u in zip(self._whole, used, strict=True)), upward=False)
        return self._last
