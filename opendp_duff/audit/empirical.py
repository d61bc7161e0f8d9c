"""The empirical audit: a black-box, sample-based lower bound on epsilon.

:func:`empirical_epsilon_lower_bound` draws releases (through the measurement itself, hence
through :mod:`opendp_duff.samplers`), chooses an event on one half of the draws and bounds its
two probabilities on the other half with one-sided Clopper-Pearson intervals [CP34].

Nothing here is differentially private: an audit reads the data.  Error messages never show data.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable
from typing import Any

import attrs
import numpy as np

from .._constants import INF
from ..core import Measurement

__all__ = ["empirical_epsilon_lower_bound", "EmpiricalAudit", "clopper_pearson"]


@attrs.frozen
class EmpiricalAudit:
    """A lower bound on epsilon from samples (see :func:`empirical_epsilon_lower_bound`).

    ``epsilon_lower_bound`` holds with probability at least ``confidence``; ``event`` says which
    set of releases was used; ``counts`` = (hits under x, hits under x', held-out draws per side).

    >>> from opendp_duff.audit import EmpiricalAudit
    >>> EmpiricalAudit(0.8, 0.95, "y > 1", (500, 180, 1000)).epsilon_lower_bound
    0.8
    """

    epsilon_lower_bound: float
    confidence: float
    event: str
    counts: tuple[int, int, int]
    delta: float = 0.0


def clopper_pearson(k: Any, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson bounds [CP34] on a binomial proportion p from k successes in
    n trials: ``lower`` with P(p < lower) <= level and ``upper`` with P(p > upper) <= level.

    lower = the ``level`` quantile of Beta(k, n - k + 1) (0 when k = 0); upper = the
    ``1 - level`` quantile of Beta(k + 1, n - k) (1 when k = n).  ``k`` may be an array.

    >>> from opendp_duff.audit.empirical import clopper_pearson
    >>> lo, hi = clopper_pearson(0, 10, 0.05)
    >>> float(lo), round(float(hi), 4)     # 1 - 0.05^(1/10)
    (0.0, 0.2589)
    """
    from scipy import stats  # imported when used: scipy.stats is slow to load

    k = np.asarray(k)
    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, stats.beta.ppf(level, np.maximum(k, 1), n - k + 1), 0.0)
        upper = np.where(k < n, stats.beta.ppf(1 - level, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


def _log_ratio_bound(kp: Any, kq: Any, n: int, level: float, delta: float) -> np.ndarray:
    """log((p_lo - delta) / q_hi) for each event (-inf where p_lo <= delta)."""
    lo, _ = clopper_pearson(kp, n, level)
    _, hi = clopper_pearson(kq, n, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300) / hi), -INF)


def _to_feature(out: Any, feature: Callable[[Any], Any] | None) -> Any:
    y = feature(out) if feature is not None else out
    if isinstance(y, np.ndarray):
        if y.size != 1:
            raise ValueError("vector releases need feature= (a function to a scalar)")
        y = y.reshape(-1)[0].item()
    return y


def _numeric_events(ys: np.ndarray, yq: np.ndarray, h: int, n_thresholds: int):
    """Thresholds {y <= t}, {y > t} and bins between thresholds, chosen on the first h draws
    of each side: (names, a function sample -> counts per event)."""
    pool = np.concatenate([ys[:h], yq[:h]])
    t = np.unique(np.quantile(pool, np.linspace(0, 1, n_thresholds + 2)[1:-1]))
    if np.unique(pool).size <= 2 * n_thresholds:  # few values: every value is its own bin
        vals = np.unique(pool)
        t = np.unique(np.concatenate([t, vals, vals[:-1] + np.diff(vals) / 2]))

    def counts(sample: np.ndarray) -> np.ndarray:
        c = np.searchsorted(np.sort(sample), t, side="right")  # #{y <= t_k}
        m = sample.size
        bins = np.diff(np.concatenate([[0], c, [m]]))            # (t_{k-1}, t_k]
        return np.concatenate([c, m - c, bins])

    names = ([f"y <= {v:.6g}" for v in t] + [f"y > {v:.6g}" for v in t]
             + [f"{lo:.6g} < y <= {hi:.6g}" for lo, hi in zip(np.r_[-INF, t], np.r_[t, INF], strict=True)])
    return names, counts


def _value_events(keys: list[Hashable]):
    """One event {y == k} per value seen in the selection half: (names, counts function)."""
    idx = {k: i for i, k in enumerate(keys)}

    def counts(sample: list[Hashable]) -> np.ndarray:
        c = np.zeros(len(keys), dtype=np.int64)
        for v in sample:
            if v in idx:
                c[idx[v]] += 1
        return c
    return [f"y == {k!r}" for k in keys], counts


def empirical_epsilon_lower_bound(meas: Measurement, x: Any, x_prime: Any, n_samples: int,
                                  confidence: float = 0.95, *, delta: float = 0.0,
                                  feature: Callable[[Any], Any] | None = None,
                                  n_thresholds: int = 64) -> EmpiricalAudit:
    """A black-box lower bound on the epsilon of ``meas`` from ``n_samples`` releases on each of
    ``x`` and ``x_prime``: with probability >= ``confidence``, the true (epsilon, ``delta``)
    curve has epsilon >= the returned bound (so a pure-DP map below it is refuted).

    The first half of the draws chooses an event E (a threshold {y <= t} or {y > t}, a bin
    between two thresholds, or for discrete releases a single value) and a direction; the
    held-out half gives one-sided Clopper-Pearson bounds [CP34] p_lo on P[M(x) in E] and q_hi
    on P[M(x') in E], each at level (1 - confidence)/2, and the bound is
    log((p_lo - delta) / q_hi), or 0.  ``feature`` maps a release to a scalar or a hashable
    value (needed for vector releases).  All randomness is the measurement's own.
    ``n_samples`` is an integer >= 20, ``confidence`` in (0, 1), ``delta`` in [0, 1).

    >>> import opendp_duff as dp
    >>> from opendp_duff.audit import empirical_epsilon_lower_bound
    >>> from opendp_duff.samplers import seeded_rng_for_tests
    >>> m = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    >>> with seeded_rng_for_tests(1):
    ...     res = empirical_epsilon_lower_bound(m, 0.0, 1.0, n_samples=2000)
    >>> 0.3 < res.epsilon_lower_bound <= m.map(1.0)
    True
    """
    if not isinstance(meas, Measurement):
        raise TypeError(f"meas must be a Measurement, not {type(meas).__name__}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or n_samples < 20:
        raise ValueError(f"n_samples ({n_samples!r}) must be an integer >= 20")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence ({confidence!r}) must lie in (0, 1)")
    if not 0 <= delta < 1:
        raise ValueError(f"delta ({delta!r}) must lie in [0, 1)")
    n = int(n_samples)
    ys: Any = [_to_feature(meas(x), feature) for _ in range(n)]
    yq: Any = [_to_feature(meas(x_prime), feature) for _ in range(n)]
    h = n // 2
    a = (1 - confidence) / 2
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in ys + yq):
        ys, yq = np.asarray(ys, dtype=np.float64), np.asarray(yq, dtype=np.float64)
        names, counts = _numeric_events(ys, yq, h, n_thresholds)
    else:
        names, counts = _value_events(list(dict.fromkeys(ys[:h] + yq[:h])))
    sel = counts(ys[:h]), counts(yq[:h])
    held = counts(ys[h:]), counts(yq[h:])
    m_held = n - h
    s1 = _log_ratio_bound(sel[0], sel[1], h, a, delta)
    s2 = _log_ratio_bound(sel[1], sel[0], h, a, delta)
    if max(s1.max(initial=-INF), s2.max(initial=-INF)) == -INF:
        return EmpiricalAudit(0.0, confidence, "none", (0, 0, m_held), delta)
    flip = s2.max() > s1.max()
    k = int(np.argmax(s2 if flip else s1))
    kp, kq = (held[1][k], held[0][k]) if flip else (held[0][k], held[1][k])
    lo, _ = clopper_pearson(int(kp), m_held, a)
    _, hi = clopper_pearson(int(kq), m_held, a)
    eps = math.log((float(lo) - delta) / float(hi)) if lo > delta else 0.0
    event = names[k] + (" (x' over x)" if flip else " (x over x')")
    return EmpiricalAudit(max(0.0, eps), confidence, event, (int(kp), int(kq), m_held), delta)
