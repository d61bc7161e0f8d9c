"""Exact samplers (gumbel_race, uniform, psrn of opendp_duff.samplers) against exact references.

Every statistical test below is a chi-square or Kolmogorov-Smirnov test at level
1e-3, run under ``rerun_once`` (a second seed on failure): false-failure rate about
1e-6 per test.  References are closed forms (softmax, the exact mass of each float's
rounding cell computed with fractions, the uniform CDF).
"""
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from helpers import rerun_once
from opendp_duff import samplers
from opendp_duff.samplers import _race_keys as K
from opendp_duff.samplers import gumbel_race as E
from opendp_duff.samplers import lazy_race as LR
from opendp_duff.samplers import uniform as U
from opendp_duff.samplers.interval import DecimalIA
from opendp_duff.samplers.psrn import PSRN
from opendp_duff.samplers import seeded_rng_for_tests

ALPHA = 1e-3


def softmax(w):
    w = np.asarray(w, dtype=float)
    p = np.exp(w - w[np.isfinite(w)].max())
    return p / p.sum()


def chi2_ok(counts, probs):
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    assert np.all(counts[probs == 0] == 0)  # impossible outcomes never happen
    keep = probs * counts.sum() >= 5  # pool sparse cells
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(probs[keep], probs[~keep].sum()) * counts.sum()
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp).pvalue > ALPHA


def draws(n, f):
    return np.array([f() for _ in range(n)])


class Counting:
    """A byte source wrapper that counts bytes (and can rig the next draw)."""

    def __init__(self, inner):
        self.inner, self.count, self.rig = inner, 0, None

    def random_bytes(self, n):
        self.count += n
        if self.rig is not None and n % 8 == 0 and n > 8:
            block, self.rig = self.rig, None
            return block * (n // 8)  # every competitor gets the same first 64 bits
        return self.inner.random_bytes(n)


def with_source(src, f):
    with samplers.byte_source_for_tests(src):
        return f()


# ----------------------------------------------------------------------------- the race

@pytest.mark.slow
@rerun_once(seed=601)
def test_race_matches_softmax():
    w = np.array([0.0, 1.0, -1.0, -np.inf, 2.0, -30.0, 0.5])
    c = np.bincount(draws(6000, lambda: E.exact_gumbel_race(w)), minlength=w.size)
    assert c[3] == 0
    assert chi2_ok(c, softmax(w))


@pytest.mark.slow
@rerun_once(seed=602)
@pytest.mark.parametrize("gap", [0.0, 1e-15])
def test_near_ties_are_uniform(gap):
    w = np.array([0.0, gap, 2 * gap, 0.0])
    c = np.bincount(draws(4000, lambda: E.exact_gumbel_race(w)), minlength=4)
    assert chi2_ok(c, softmax(w))


@pytest.mark.slow
@rerun_once(seed=603)
def test_huge_ranges():
    # log-weights +-1e300: only the two top ones can win, half each; with denom 1e300
    # the weights become 1, 1, -1, ~0 and all four compete
    numer = np.array([1e300, 1e300, -1e300, 5.0])
    c = np.bincount(draws(2000, lambda: E.exact_gumbel_race(numer)), minlength=4)
    assert chi2_ok(c, [0.5, 0.5, 0.0, 0.0])
    c = np.bincount(draws(4000, lambda: E.exact_gumbel_race(numer, denom=1e300)), minlength=4)
    assert chi2_ok(c, softmax([1.0, 1.0, -1.0, 5e-300]))


@pytest.mark.slow
@rerun_once(seed=604)
def test_overflowing_differences_and_tiny_denominators():
    # (numer - max) / denom overflows for the last two; they keep their bounds and never win
    numer = np.array([1.7e308, 1.7e308 - 2.0 ** 971, -1.7e308, -1.7e308])
    c = np.bincount(draws(3000, lambda: E.exact_gumbel_race(numer, denom=2.0 ** 970)), minlength=4)
    assert chi2_ok(c, softmax([2.0, 0.0, -np.inf, -np.inf]))
    c = np.bincount(draws(500, lambda: E.exact_gumbel_race(numer, denom=1e-300)), minlength=4)
    assert c[0] == 500


@rerun_once(seed=605)
def test_infinite_weights():
    w = np.array([np.inf, 0.0, np.inf, -np.inf])
    c = np.bincount(draws(2000, lambda: E.exact_gumbel_race(w)), minlength=4)
    assert chi2_ok(c, [0.5, 0, 0.5, 0])
    assert E.exact_gumbel_race([-np.inf, 3.0]) == 1
    with pytest.raises(ValueError):
        E.exact_gumbel_race([-np.inf, -np.inf])
    with pytest.raises(ValueError):
        E.exact_gumbel_race([0.0, np.nan])
    with pytest.raises(ValueError):
        E.exact_gumbel_race([0.0], denom=0.0)


@pytest.mark.slow
@rerun_once(seed=606)
def test_step_weights_with_lengths_and_groups():
    # Duff-style weights (right - left) * exp(level / scale), grouped as items + blocks;
    # the grouping must not change the law
    rng = np.random.default_rng(7)
    n = 300
    left = np.sort(rng.uniform(-5, 5, n))
    right = left + rng.exponential(0.05, n)
    right[5] = left[5]                                    # zero width: never wins
    levels = -rng.integers(0, 6, n).astype(float)
    scale = 0.7
    with np.errstate(divide="ignore"):
        w = np.log(right - left) + levels / scale   # -inf at the zero-width interval
    p = softmax(w)
    bins = np.minimum((np.cumsum(p) * 12).astype(int), 11)  # 12 cells of ~equal mass
    ref = np.bincount(bins, weights=p, minlength=12)
    for groups in (None, [0, 1, 2, 3, 50, 51, 200]):
        d = draws(3000, lambda groups=groups: E.exact_gumbel_race(levels, scale, left, right, groups=groups))
        assert not np.any(d == 5)
        assert chi2_ok(np.bincount(bins[d], minlength=12), ref)


@pytest.mark.slow
@rerun_once(seed=607)
def test_large_block_is_opened_in_chunks():
    n = 20000
    numer = np.linspace(-3.0, 0.0, n)
    p = softmax(numer)
    bins = np.minimum((np.cumsum(p) * 10).astype(int), 9)
    st = {}
    d = draws(800, lambda: E.exact_gumbel_race(numer, groups=[0, 10], stats=st))
    assert st["blocks_opened"] > 0
    assert chi2_ok(np.bincount(bins[d], minlength=10), np.bincount(bins, weights=p, minlength=10))


@pytest.mark.slow
@rerun_once(seed=608)
def test_lazy_far_block_upper_bound_only():
    # a block far below the items: only its cheap upper bound is ever needed
    n = 70000  # above _LAZY
    numer = np.r_[0.0, 0.0, np.full(n, -200.0)]
    st = {}
    d = draws(200, lambda: E.exact_gumbel_race(numer, groups=[0, 1, 2], stats=st))
    assert set(d) <= {0, 1} and st.get("blocks_opened", 0) == 0
    assert chi2_ok(np.bincount(d, minlength=2), [0.5, 0.5])
    # ... and a competitive one is evaluated and opened: mass 0.5 each side
    numer = np.r_[math.log(n), np.zeros(n)]
    d = draws(400, lambda: E.exact_gumbel_race(numer, groups=[0, 1], stats=st))
    assert chi2_ok(np.bincount(np.minimum(d, 1), minlength=2), [0.5, 0.5])


@pytest.mark.statistical  # seeded; its false-failure rate is stated below
def test_common_case_draws_the_float_path_bytes():
    # 8 bytes per competitor, as uniform_open / gumbel_argmax, unless decimal refinement ran
    w = np.random.default_rng(1).normal(size=50)
    with seeded_rng_for_tests(609):
        src = Counting(samplers.current_rng())
        ref = Counting(samplers.current_rng())
        with_source(ref, lambda: samplers.gumbel_argmax(w))
        plain = 0
        for _ in range(300):
            st, before = {}, src.count
            with_source(src, lambda st=st: E.exact_gumbel_race(w, stats=st))
            if "decimal_refined" not in st:
                assert src.count - before == ref.count == 8 * w.size
                plain += 1
        assert plain >= 299  # decimal refinement has probability ~1e-9 here
        before = src.count
        with_source(src, lambda: U.exact_uniform_float(-1.0, 3.0))
        assert src.count - before in (8, 16, 24)


@pytest.mark.slow
@rerun_once(seed=610)
def test_forced_refinement_equal_weights():
    # every competitor gets the SAME first 64 bits: floats cannot decide, the decimal
    # stage draws more bits; with equal weights the winner must still be uniform
    w = np.zeros(3)
    src = Counting(samplers.current_rng())
    st = {}

    def one():
        src.rig = src.inner.random_bytes(8)
        return with_source(src, lambda: E.exact_gumbel_race(w, stats=st))

    c = np.bincount(draws(1500, one), minlength=3)
    assert st["decimal_refined"] >= 3 * 1500  # every race went to the decimal stage
    assert chi2_ok(c, [1 / 3] * 3)


@pytest.mark.slow
@rerun_once(seed=611)
def test_forced_refinement_tiny_weight_gap():
    # Same 64-bit prefix I = [a, a + 2^-64) for both; G is linear on I to 1e-19 relative,
    # so K_i = const + w_i + s V_i with V_i uniform, s = G'(a) 2^-64 (rescaled within
    # I by the next bits).  With d = (w_1 - w_0) / s in [0, 1]:
    # P(0 wins) = (1 - d)^2 / 2 exactly up to 1e-19.
    src = Counting(samplers.current_rng())
    st = {}
    while True:
        prefix = src.inner.random_bytes(8)
        m = int.from_bytes(prefix, "big")
        if 2 ** 60 < m < 2 ** 64 - 2 ** 60:
            break
    with localcontext() as ctx:
        ctx.prec = 60
        a = Decimal(m) / Decimal(2 ** 64)
        slope = 1 / (a * -(a.ln()))  # G'(a)
        s = float(slope / Decimal(2 ** 64))
    w = np.array([0.0, 0.3 * s])
    d = (w[1] - w[0]) / s

    def one():
        src.rig = prefix
        return with_source(src, lambda: E.exact_gumbel_race(w, stats=st))

    c = np.bincount(draws(1500, one), minlength=2)
    assert st["decimal_refined"] >= 2 * 1500
    p0 = (1 - d) ** 2 / 2
    assert chi2_ok(c, [p0, 1 - p0])


@pytest.mark.slow
@rerun_once(seed=614)
@pytest.mark.parametrize("prefix", [b"\x00" * 8, b"\xff" * 8])
def test_extreme_prefixes_many_competitors(prefix):
    # all 70 competitors (> 64: the screening path) get the prefix 0...0 (U < 2^-64:
    # G -> -inf at the lower end) or 1...1 (U > 1 - 2^-64: G -> +inf at the upper end):
    # the "unsafe" float cases, settled by decimal refinement; equal weights, so the
    # winner is uniform
    w = np.zeros(70)
    src = Counting(samplers.current_rng())
    st = {}

    def one():
        src.rig = prefix
        return with_source(src, lambda: E.exact_gumbel_race(w, stats=st))

    d = draws(300, one)
    assert st["decimal_refined"] >= 70 * 300
    assert chi2_ok(np.bincount(d // 14, minlength=5), [0.2] * 5)


@pytest.mark.slow
@rerun_once(seed=615)
def test_screening_with_overflow_and_lengths():
    # > 64 singletons take the screening path; overflowing differences keep rigorous bounds
    numer = np.r_[1.7e308, 1.7e308 - 2.0 ** 971, np.full(98, -1.7e308)]
    c = np.bincount(draws(2000, lambda: E.exact_gumbel_race(numer, denom=2.0 ** 970)), minlength=100)
    assert chi2_ok(c, softmax(np.r_[2.0, 0.0, np.full(98, -np.inf)]))
    left = np.arange(100.0)
    right = left + np.where(np.arange(100) % 2 == 0, 1e-310, 2.0)  # half of the widths subnormal
    c = np.bincount(draws(2000, lambda: E.exact_gumbel_race(np.zeros(100), 1.0, left, right)) % 2,
                    minlength=2)
    assert c[0] == 0


def test_refinement_counts_in_common_case():
    # the float levels decide nearly every race: decimal refinement is not reached
    w = np.zeros(100)
    st = {}
    with seeded_rng_for_tests(612):
        for _ in range(200):
            E.exact_gumbel_race(w, stats=st)
    assert st.get("decimal_refined", 0) == 0
    assert st["float_refined"] > 0  # level 1 ran (100 competitors start at level 0)


def test_level0_gumbel_step_bound():
    # the level-0 bound: for 1 <= k <= 2^52 - 2, G moves by less than 1 across the
    # 52-bit interval on either side of the midpoint (checked at the extreme k, where
    # it is largest, with 50-digit arithmetic)
    def G(u):
        return -(-(u.ln())).ln()
    with localcontext() as ctx:
        ctx.prec = 50
        h = Decimal(2) ** -53
        for k in (1, 2, 3, 2 ** 51 - 1, 2 ** 51, 2 ** 52 - 3, 2 ** 52 - 2):
            mid = (2 * k + 1) * h
            assert G(mid + h) - G(mid) < Decimal("0.75")
            assert G(mid) - G(mid - h) < Decimal("0.75")


def test_decimal_interval_contains_truth():
    # the decimal Gumbel bounds contain a 100-digit reference and shrink with precision
    rng = np.random.default_rng(3)
    for _ in range(20):
        m, bits = int(rng.integers(1, 2 ** 62)), 62
        with localcontext() as ctx:
            ctx.prec = 100
            u_lo, u_hi = Decimal(m) / 2 ** bits, Decimal(m + 1) / 2 ** bits
            t_lo, t_hi = -(-(u_lo.ln())).ln(), -(-(u_hi.ln())).ln()
        widths = []
        for p in (30, 60):
            g_lo, g_hi = K.decimal_gumbel(DecimalIA(p), PSRN(m, bits))
            assert g_lo <= t_lo and t_hi <= g_hi
            widths.append(g_hi - g_lo)
        w_lo, w_hi = K.decimal_weight(DecimalIA(40), np.array([0.1]), 3.0, np.array([0.0]), np.array([0.7]), 1.0)
        with localcontext() as ctx:
            ctx.prec = 100
            true = (Decimal(0.1) - 1) / 3 + Decimal(0.7).ln()
        assert w_lo <= true <= w_hi and w_hi - w_lo < Decimal("1e-35")


def test_float_levels_bound_the_decimal_truth():
    # the float-level key intervals contain the exact key (checked with decimal)
    rng = np.random.default_rng(4)
    n = 200
    numer = rng.normal(scale=50, size=n)
    left = rng.uniform(-1, 1, n)
    right = left + rng.exponential(1.0, n)
    with seeded_rng_for_tests(613):
        r = E._Race(numer, 0.37, left, right, np.arange(n), {})
        raw = np.frombuffer(samplers.current_rng().random_bytes(8 * n), dtype=np.uint64)
    r.raw = raw
    k = (raw >> np.uint64(12)).astype(float)
    q_lo, q_hi, l_lo, l_hi, mag = r._terms(slice(None))
    lo, hi = r._level1(np.arange(n), k, np.ones(n, bool), q_lo + l_lo, q_hi + l_hi, mag)
    dec = DecimalIA(60)
    for i in range(n):
        w_lo, w_hi = K.decimal_weight(dec, numer[i:i + 1], 0.37, left[i:i + 1], right[i:i + 1], r.nref)
        g_lo, g_hi = K.decimal_gumbel(dec, PSRN(int(raw[i]), 64))  # the 64-bit interval lies inside the 52-bit one
        assert Decimal(lo[i]) <= w_lo + g_lo and w_hi + g_hi <= Decimal(hi[i])


# ----------------------------------------------------------------------------- exact uniform

def cell_masses(a, b):
    """Exact probability that round(U[a, b]) = f for each float f in [a, b] (small ranges)."""
    fl = [a]
    while fl[-1] < b:
        fl.append(float(np.nextafter(fl[-1], np.inf)))
    A, B = Fraction(a), Fraction(b)
    out = []
    for i, f in enumerate(fl):
        lo = A if i == 0 else (Fraction(fl[i - 1]) + Fraction(f)) / 2
        hi = B if i == len(fl) - 1 else (Fraction(f) + Fraction(fl[i + 1])) / 2
        out.append(float((hi - lo) / (B - A)))
    return np.array(fl), np.array(out)


@rerun_once(seed=620)
@pytest.mark.parametrize("a,b", [(1.0, 1.0 + 4 * 2.0 ** -52), (1.0 - 3 * 2.0 ** -53, 1.0 + 2 * 2.0 ** -52),
                                 (0.0, 10 * 5e-324), (-3 * 5e-324, 4 * 5e-324)])
def test_uniform_rounding_cells(a, b):
    fl, p = cell_masses(a, b)
    assert fl.size <= 16
    x = U.exact_uniform_floats(a, b, 3000)
    pos = np.searchsorted(fl, x)
    assert np.all(fl[pos] == x)  # every output is a float of [a, b]
    assert chi2_ok(np.bincount(pos, minlength=fl.size), p)


@rerun_once(seed=621)
def test_uniform_ks_and_support():
    a, b = -1.5, 2.25
    x = np.array([U.exact_uniform_float(a, b) for _ in range(4000)])
    assert np.all((x >= a) & (x <= b))
    assert stats.kstest(x, stats.uniform(a, b - a).cdf).pvalue > ALPHA
    y = U.exact_uniform_floats(-1e308, 1e308, 2000)  # width overflows a float: still exact
    assert np.all(np.isfinite(y))
    assert stats.kstest(y / 1e308, stats.uniform(-1, 2).cdf).pvalue > ALPHA


def test_uniform_is_nearest_float_of_its_point():
    # with a rigged prefix the refinement path runs; the output still rounds a point of [a, b]
    a, b = 0.0, 1.0
    with seeded_rng_for_tests(622):
        for _ in range(200):
            ps = PSRN.draw(8)
            x = U._uniform_from(U._affine(a, b), ps)
            lo, hi = ps.bounds()
            assert float(lo) <= x <= float(hi)  # Fraction -> float rounds to nearest
    assert U.exact_uniform_float(2.5, 2.5) == 2.5
    with pytest.raises(ValueError):
        U.exact_uniform_float(1.0, 0.0)
    with pytest.raises(ValueError):
        U.exact_uniform_float(0.0, math.inf)


def test_psrn_refinement_keeps_the_interval():
    with seeded_rng_for_tests(623):
        ps = PSRN.draw(8)
        lo0, hi0 = ps.bounds()
        ps.refine_to(100)
        lo1, hi1 = ps.bounds()
    assert ps.bits == 104 and lo0 <= lo1 < hi1 <= hi0 and hi1 - lo1 == Fraction(1, 2 ** 104)


# ----------------------------------------------------------------------------- lazy blocks

@pytest.mark.slow
@rerun_once(seed=630)
def test_lazy_blocks_match_softmax():
    # items plus two lazy blocks whose bounds are (max level, span); one block is far below
    N = np.array([0.0, -1.0, -np.inf])
    L, R = np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.5])
    bn, bl, br = np.array([-0.5, -2.0, -3.0]), np.array([3.0, 4.0, 6.0]), np.array([4.0, 5.5, 6.5])
    calls = [0]

    def far():
        calls[0] += 1
        return np.array([-60.0, -61.0]), np.array([10.0, 11.0]), np.array([11.0, 12.0])

    blocks = [LR.LazyGroup(-0.5, 3.0, 6.5, lambda: (bn, bl, br)), LR.LazyGroup(-60.0, 10.0, 12.0, far)]
    st = {}
    out = draws(4000, lambda: LR.exact_race_with_lazy_blocks(N, 1.0, L, R, blocks, stats=st))
    lab = [i if b is None else 3 + i for b, i in out]
    assert not any(b == 1 for b, _ in out)
    w = np.r_[N + np.log(R - L), bn + np.log(br - bl)]
    assert calls[0] < 5  # the far block's members are almost never materialised (prob ~e^-59)
    assert chi2_ok(np.bincount(lab, minlength=6), softmax(w))


def test_lazy_blocks_bytes_and_errors():
    with seeded_rng_for_tests(631):
        src = Counting(samplers.current_rng())
        blk = LR.LazyGroup(-100.0, 0.0, 1.0, lambda: (np.array([-100.0]), np.array([0.0]), np.array([1.0])))
        with_source(src, lambda: LR.exact_race_with_lazy_blocks([0.0, 0.0], 1.0, [0, 1], [1, 2], [blk]))
        assert src.count == 8 * 3  # one draw per competitor, blocks included
        assert LR.exact_race_with_lazy_blocks([], 1.0, [], [], [blk]) == (0, 0)
        with pytest.raises(ValueError):
            LR.exact_race_with_lazy_blocks([np.inf], 1.0, [0.0], [1.0], [])
        with pytest.raises(ValueError):
            LR.exact_race_with_lazy_blocks([-np.inf], 1.0, [0.0], [1.0], [])
