"""smooth_sensitivity_{median, quantile, trimmed_mean}: against brute forces.

Three references, from the formula down to the definition:
* ``formula_*``: [BS19] Proposition 40, max over k and l, O(n^2), in
  50-digit decimal arithmetic (so "the result is an upper bound" is checked exactly);
* ``definition_*``: S^t(x) = max_y e^{-t d(x, y)} LS(y) by enumerating every dataset y over a
  small universe that contains the bounds and x's values, LS(y) by enumerating y's neighbours.
No test here is statistical: the random inputs are fixed by seeds and every check is exact.
"""
import functools
import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import multiset_distance
from opendp_duff.smooth import sensitivity as ssm


@pytest.fixture(autouse=True)
def _decimal_precision():
    """The exact references below compute with 50-digit decimals: a local context, so that the
    setting neither leaks into other test modules nor is overwritten by them."""
    with localcontext() as ctx:
        ctx.prec = 50
        yield


REL = 1e-9  # the computed value may exceed the exact one by the documented slack (< 1e-9 here)


# ------------------------------------------------------------------ formula brute force

def _padded(x, lo, hi):
    x = [min(max(float(v), lo), hi) for v in x]
    n = len(x)
    return lambda i: Decimal(lo) if i <= 0 else Decimal(hi) if i > n else Decimal(x[i - 1])


def formula_trimmed(x, m, t, bounds):
    """[BS19] Proposition 40 verbatim: 1/(n-2m) max_{k=0..n} e^{-kt} max_{l=0..k+1} ..."""
    lo, hi = bounds
    n = len(x)
    X = _padded(x, lo, hi)
    best = Decimal(0)
    for k in range(n + 1):
        inner = max(X(n - m + 1 + k - ell) - X(m + 1 - ell) for ell in range(k + 2))
        best = max(best, (-Decimal(k) * Decimal(t)).exp() * inner)
    return best / (n - 2 * m)


def formula_order_stat(x, r, t, bounds):
    """[NRS07] §3.1 for the r-th order statistic: max_k e^{-kt} max_{l=0..k+1} x_(r+k+1-l) - x_(r-l)."""
    lo, hi = bounds
    n = len(x)
    X = _padded(x, lo, hi)
    best = Decimal(0)
    for k in range(n + 1):
        inner = max(X(r + k + 1 - ell) - X(r - ell) for ell in range(k + 2))
        best = max(best, (-Decimal(k) * Decimal(t)).exp() * inner)
    return best


def formula_median_symmetric(x, t, bounds):
    lo, hi = bounds
    n = len(x)
    X = _padded(x, lo, hi)
    best = Decimal(0)
    for i in range(n + 2):
        for j in range(i + 1, n + 2):
            if i + j in (n, n + 1):
                best = max(best, (-Decimal(j - i - 1) * Decimal(t)).exp() * (X(j) - X(i)))
    return best


def check_close(got, exact):
    """got is an upper bound on exact and within the documented relative slack of it."""
    assert Decimal(got) >= exact
    assert Decimal(got) <= exact * Decimal(1 + REL) + Decimal(1e-300)


def _datasets(seed):
    """Random sorted datasets: continuous, heavy ties, values at and beyond the bounds."""
    rng = np.random.default_rng(seed)
    out = []
    for n in (1, 2, 3, 4, 5, 6, 7, 10, 31, 64):
        out.append(np.sort(rng.normal(0, 1, n)))
        out.append(np.sort(rng.choice([-2.0, -1.0, 0.0, 0.0, 1.0, 3.0], n)))
        out.append(np.sort(rng.normal(0, 4, n)))           # many clipped to [-3, 3]
        out.append(np.full(n, 0.5))                          # all tied: defeats early stopping
        out.append(np.sort(rng.choice([-3.0, 3.0], n)))     # only the bounds
    return out


BOUNDS = (-3.0, 3.0)
TS = (1e-3, 0.05, 0.5, 3.0, 40.0)


@pytest.mark.slow
@pytest.mark.parametrize("t", TS)
def test_median_and_quantiles_match_formula(t):
    for x in _datasets(1):
        n = len(x)
        r = (n + 1) // 2
        check_close(dp.smooth_sensitivity_median(x, t, BOUNDS), formula_order_stat(x, r, t, BOUNDS))
        for alpha in (0.001, 0.1, 0.7, 0.999, Fraction(1, 3)):  # ranks 1 and n: alpha in (0, 1)
            rq = max(1, math.ceil(Fraction(str(alpha)) * n))
            check_close(dp.smooth_sensitivity_quantile(x, t, BOUNDS, alpha=alpha),
                        formula_order_stat(x, rq, t, BOUNDS))


@pytest.mark.slow
@pytest.mark.parametrize("t", TS)
def test_trimmed_mean_matches_formula(t):
    for x in _datasets(2):
        n = len(x)
        for m in sorted({0, 1, (n - 1) // 4, (n - 1) // 2}):
            if 2 * m < n:
                check_close(dp.smooth_sensitivity_trimmed_mean(x, t, BOUNDS, m=m),
                            formula_trimmed(x, m, t, BOUNDS))


@pytest.mark.parametrize("t", TS)
def test_median_symmetric_matches_formula(t):
    for x in _datasets(3):
        check_close(dp.smooth_sensitivity_median(x, t, BOUNDS, metric=dp.symmetric_distance()),
                    formula_median_symmetric(x, t, BOUNDS))


def test_trimmed_mean_with_one_kept_record_is_the_median_formula():
    x = np.sort(np.random.default_rng(4).normal(size=41))
    for t in (0.01, 0.3):
        assert dp.smooth_sensitivity_trimmed_mean(x, t, BOUNDS, m=20) == dp.smooth_sensitivity_median(
            x, t, BOUNDS)


# ------------------------------------------------------------------ larger n: float brute force

def _numpy_formula(x, p, q, t, lo, hi):
    """max over 0 <= i <= p, q <= j <= n+1, k = j - i - w >= 0 of (x_j - x_i) e^{-kt} / w, O(n^2)."""
    n = x.size
    w = q - p + 1
    xp = np.concatenate(([lo], np.clip(x, lo, hi), [hi]))
    i = np.arange(0, p + 1)[:, None]
    j = np.arange(q, n + 2)[None, :]
    k = j - i - w
    vals = np.where(k >= 0, (xp[j] - xp[i]) * np.exp(-np.maximum(k, 0) * t), 0.0)
    return vals.max() / w


@pytest.mark.parametrize("t", (0.002, 0.02, 0.2))
def test_large_n_against_quadratic_brute_force(t):
    """Windows much larger than the first guess 4/t, and the full-range fallback (ties)."""
    rng = np.random.default_rng(5)
    lo, hi = -10.0, 10.0
    for x in (np.sort(rng.normal(size=1500)), np.sort(rng.standard_cauchy(1501)),
              np.zeros(1400), np.sort(rng.integers(-2, 3, 1300)).astype(float)):
        n = x.size
        for p, q in (((n + 1) // 2,) * 2, (1, n), (n // 5 + 1, n - n // 5), (n // 10, n // 10)):
            exact = _numpy_formula(x, p, q, t, lo, hi)
            if p == q:
                got = dp.smooth_sensitivity_quantile(x, t, (lo, hi), alpha=Fraction(p, n))
            else:
                got = dp.smooth_sensitivity_trimmed_mean(x, t, (lo, hi), m=p - 1)
            assert exact * (1 - 1e-14) <= got <= exact * (1 + 1e-8)


# ------------------------------------------------------------------ definition brute force

def _median(y):
    """lower median x_(ceil(n/2)); the empty dataset's is a (padding convention)."""
    return sorted(y)[(len(y) + 1) // 2 - 1] if y else A


@functools.lru_cache(maxsize=None)
def _trimmed(m):
    def f(y):
        y = sorted(y)
        return Fraction(sum(Fraction(v) for v in y[m:len(y) - m]), len(y) - 2 * m)
    return f


A, B = 0.0, 4.0
UNIVERSE = (0.0, 1.0, 1.5, 3.0, 4.0)  # includes both bounds


def _change_one_neighbours(y):
    for idx in range(len(y)):
        for u in UNIVERSE:
            yield y[:idx] + (u,) + y[idx + 1:]


def _symmetric_neighbours(y):
    for idx in range(len(y)):
        yield y[:idx] + y[idx + 1:]
    for u in UNIVERSE:
        yield y + (u,)


def _ls(f, y, neighbours):
    fy = Fraction(f(y))
    return max((abs(Fraction(f(z)) - fy) for z in neighbours(y)), default=Fraction(0))


@functools.lru_cache(maxsize=None)
def _ls_table(f, sizes, change_one):
    """[(y, LS(y))] for every multiset y over UNIVERSE with |y| in sizes."""
    neighbours = _change_one_neighbours if change_one else _symmetric_neighbours
    return [(y, _ls(f, y, neighbours)) for size in sizes
            for y in itertools.combinations_with_replacement(UNIVERSE, size)]


def _definition(f, x, t, sizes, change_one):
    best = Decimal(0)
    for y, ls in _ls_table(f, sizes, change_one):
        d = multiset_distance(tuple(x), y, change_one)
        best = max(best, (-Decimal(d) * Decimal(t)).exp() * Decimal(ls.numerator) / ls.denominator)
    return best


def definition_change_one(f, x, t):
    """max over all y in UNIVERSE^n of e^{-t d(x, y)} LS(y), LS over UNIVERSE neighbours."""
    return _definition(f, x, t, (len(x),), True)


def definition_symmetric(f, x, t, max_size):
    """The same over all y with |y| <= max_size, under the add/remove distance."""
    return _definition(f, x, t, tuple(range(max_size + 1)), False)


def _tiny_datasets(n):
    return list(itertools.combinations_with_replacement(UNIVERSE, n))


@pytest.mark.slow
@pytest.mark.parametrize("n", (1, 2, 3, 4, 5))
def test_median_equals_definition_change_one(n):
    for t in (0.1, 1.0):
        for x in _tiny_datasets(n):
            check_close(dp.smooth_sensitivity_median(list(x), t, (A, B)),
                        definition_change_one(_median, x, t))


@functools.lru_cache(maxsize=None)
def _order_statistic(rank):
    return lambda y: sorted(y)[rank - 1]


@pytest.mark.slow
@pytest.mark.parametrize("n", (3, 4, 5))
def test_quantile_equals_definition_change_one(n):
    for alpha in (0.2, 0.8, 0.99):  # 0.99: rank n
        rank = max(1, math.ceil(Fraction(str(alpha)) * n))
        for x in _tiny_datasets(n)[::3]:
            check_close(dp.smooth_sensitivity_quantile(list(x), 0.5, (A, B), alpha=alpha),
                        definition_change_one(_order_statistic(rank), x, 0.5))


@pytest.mark.slow
@pytest.mark.parametrize("n", (1, 2, 3, 4, 5))
def test_trimmed_mean_equals_definition_change_one(n):
    t = 0.4
    for m in range((n + 1) // 2):
        f = _trimmed(m)
        for x in _tiny_datasets(n)[::2]:
            check_close(dp.smooth_sensitivity_trimmed_mean(list(x), t, (A, B), m=m),
                        definition_change_one(f, x, t))


@pytest.mark.slow
@pytest.mark.parametrize("n", (1, 2, 3, 4))
def test_median_equals_definition_symmetric(n):
    # the formula's last term comes from the empty dataset at distance n; sizes up to 2n + 1
    # cover every y within distance n + 1, beyond which e^{-kt}(b - a) cannot compete here.
    for t in (0.3, 1.5):
        for x in _tiny_datasets(n)[::4]:
            got = dp.smooth_sensitivity_median(list(x), t, (A, B), metric="symmetric")
            exact = definition_symmetric(_median, x, t, 2 * n + 1)
            check_close(got, exact)


# ------------------------------------------------------------------ properties, rounding, errors

def test_smooth_sensitivity_is_smooth_and_bounds_local_sensitivity():
    """S(x) >= LS(x) and S(x) <= e^t S(x') for random substitution neighbours."""
    rng = np.random.default_rng(6)
    lo, hi = -3.0, 3.0
    for _ in range(200):
        n = int(rng.integers(1, 30))
        x = np.sort(rng.choice([-3.0, -1.0, 0.0, 0.5, 2.0, 3.0], n))
        y = x.copy()
        y[rng.integers(n)] = rng.choice([-3.0, 0.25, 3.0])
        y.sort()
        t = float(rng.choice([0.05, 0.5, 2.0]))
        r = (n + 1) // 2
        sx, sy = dp.smooth_sensitivity_median(x, t, (lo, hi)), dp.smooth_sensitivity_median(y, t, (lo, hi))
        assert abs(x[r - 1] - y[r - 1]) <= sx + 1e-12
        slack = dp.smooth_sensitivity_rounding_slack(n)
        assert sx <= math.exp(t + slack) * sy * (1 + 1e-15)


def test_rounding_slack_is_tiny_and_validated():
    assert 0 < dp.smooth_sensitivity_rounding_slack(10**7) < 1e-9
    assert dp.smooth_sensitivity_rounding_slack(10**12) < 1e-9
    with pytest.raises(ValueError):
        dp.smooth_sensitivity_rounding_slack(0)


def test_extreme_values_do_not_underflow_or_overflow():
    # all records at a: the true value (b - a) e^{-(n - r) t} underflows a float; the result
    # must still be a positive upper bound
    x = np.zeros(100_000)
    assert dp.smooth_sensitivity_median(x, 1.0, (0.0, 1.0)) == ssm.FLOOR
    # records all at a = 0 with b = 1: the only positive pair is (r, n + 1), so S = e^{-(n - r) t}
    check_close(dp.smooth_sensitivity_median(np.zeros(1380), 1.0, (0.0, 1.0)), Decimal(-690).exp())
    assert dp.smooth_sensitivity_median(np.zeros(1420), 1.0, (0.0, 1.0)) == ssm.FLOOR  # e^-710
    # under add/remove only the pair (0, n + 1), at k = n, is positive: S = e^{-n t}
    check_close(dp.smooth_sensitivity_median(np.zeros(680), 1.0, (0.0, 1.0), metric="symmetric"),
                Decimal(-680).exp())
    assert dp.smooth_sensitivity_median(np.zeros(1380), 1.0, (0.0, 1.0), metric="symmetric") == ssm.FLOOR
    s = dp.smooth_sensitivity_median(np.zeros(3), 0.1, (-1e300, 1e300))
    assert math.isfinite(s) and s >= 1e300
    assert dp.smooth_sensitivity_median([1.0, 1.0], 0.5, (1.0, 1.0)) == 0.0


def test_numpy_log_is_within_the_assumed_4_ulp():
    """The rounding margin assumes numpy's float64 log is within 4 ulp (glibc's is within 1)."""
    rng = np.random.default_rng(7)
    x = rng.random(20_000) * 10.0 ** rng.integers(-320, 308, 20_000)
    x = x[x > 0]
    got = np.log(x)
    ref = np.array([math.log(v) for v in x])
    assert np.all(np.abs(got - ref) <= 3 * np.spacing(np.abs(ref)))


def test_garbage_data_never_raises_or_returns_nan():
    for x in ([3.0, 1.0, 2.0], [np.nan, 1.0, 2.0], [np.inf, -np.inf, 0.0], [1e308, -1e308]):
        for f in (lambda d: dp.smooth_sensitivity_median(d, 0.1, (0.0, 1.0)),
                  lambda d: dp.smooth_sensitivity_median(d, 0.1, (0.0, 1.0), metric="symmetric"),
                  lambda d: dp.smooth_sensitivity_trimmed_mean(d, 0.1, (0.0, 1.0), m=0)):
            assert math.isfinite(f(x))


@pytest.mark.parametrize("call, exc, name", [
    (lambda: dp.smooth_sensitivity_median([1.0], 0.0, (0, 1)), ValueError, "t"),
    (lambda: dp.smooth_sensitivity_median([1.0], math.inf, (0, 1)), ValueError, "t"),
    (lambda: dp.smooth_sensitivity_median([1.0], "a", (0, 1)), TypeError, "t"),
    (lambda: dp.smooth_sensitivity_median([1.0], 0.1, (1, 0)), ValueError, "bounds"),
    (lambda: dp.smooth_sensitivity_median([1.0], 0.1, (0, math.inf)), ValueError, "bounds"),
    (lambda: dp.smooth_sensitivity_median([1.0], 0.1, (-1e308, 1e308)), ValueError, "bounds"),
    (lambda: dp.smooth_sensitivity_median([1.0], 0.1, 1.0), TypeError, "bounds"),
    (lambda: dp.smooth_sensitivity_median([[1.0]], 0.1, (0, 1)), ValueError, "x_sorted"),
    (lambda: dp.smooth_sensitivity_median([], 0.1, (0, 1)), ValueError, "x_sorted"),
    (lambda: dp.smooth_sensitivity_median(["secret"], 0.1, (0, 1)), TypeError, "x_sorted"),
    (lambda: dp.smooth_sensitivity_median([1.0], 0.1, (0, 1), metric="l1"), ValueError, "metric"),
    (lambda: dp.smooth_sensitivity_trimmed_mean([1.0, 2.0], 0.1, (0, 1), m=1), ValueError, "m"),
    (lambda: dp.smooth_sensitivity_trimmed_mean([1.0, 2.0], 0.1, (0, 1), m=0.5), TypeError, "m"),
    (lambda: dp.smooth_sensitivity_trimmed_mean([1.0, 2.0], 0.1, (0, 1), m=-1), ValueError, "m"),
    (lambda: dp.smooth_sensitivity_quantile([1.0], 0.1, (0, 1), alpha=1.5), ValueError, "alpha"),
    (lambda: dp.smooth_sensitivity_quantile([1.0], 0.1, (0, 1), alpha=math.nan), ValueError, "alpha"),
])
def test_bad_parameters_raise_naming_the_parameter(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value).startswith(name)
    assert "secret" not in str(info.value)


def test_quantile_rank_reads_alpha_as_typed():
    x = np.sort(np.random.default_rng(8).normal(size=10))
    for alpha, rank in ((0.7, 7), (np.float64(0.7), 7), (0.1, 1), (Fraction(3, 10), 3), (Fraction(1, 100), 1),
                        (0.99, 10)):
        assert dp.smooth_sensitivity_quantile(x, 0.3, BOUNDS, alpha=alpha) == ssm._window_statistic(
            x, rank, rank, 0.3, *BOUNDS)


def test_accepts_lists_ints_and_clips():
    a = dp.smooth_sensitivity_median([-5, 1, 2, 9], 0.2, (0.0, 3.0))
    b = dp.smooth_sensitivity_median(np.array([0.0, 1.0, 2.0, 3.0]), 0.2, (0.0, 3.0))
    assert a == b
    assert ssm.smooth_sensitivity_median((0.5,), 1, (0, 1)) > 0
