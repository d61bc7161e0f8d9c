"""Exact samplers: Gumbel races and uniforms settled by lazily refined random bits.

The float path (:func:`opendp_duff.samplers.gumbel_argmax`, ``uniform_open``)
computes ``argmax_i (w_i + G_i)`` with ``G_i = -log(-log u_i)`` in double
precision, so its output law is only *close* to softmax(w).  The samplers here
release *exactly* the idealised law, at nearly the same cost.

**Partially sampled random numbers (PSRN).**  A uniform U on (0, 1) known to its
first b bits is the dyadic interval [m 2^-b, (m+1) 2^-b).  Appending fresh
independent bits refines the interval and never changes the law of U.  Each
competitor of a race draws 8 bytes, exactly as ``uniform_open`` does: the top 52
bits k give the float path's uniform (2k+1) 2^-53, which is the *midpoint* of the
52-bit interval [k 2^-52, (k+1) 2^-52); the 12 low bits, which the float path
throws away, are the first refinement, free of charge.  Further bits come from
``current_rng().random_bytes`` only when needed.

**Race.**  Competitor c has an exact log-weight W_c and a key K_c = W_c + G(U_c),
G(u) = -log(-log u) (increasing).  Every competitor carries an interval
[lo_c, hi_c] that provably contains K_c.  Let best = max_c lo_c.  Competitors with
hi_c < best cannot hold the largest key and are dropped for good; the others are
refined (tighter arithmetic, then more bits); the race ends when one competitor
remains.  It is then argmax_c K_c, so the output is exactly the Gumbel-max
sample: index c with probability softmax(W)_c.  The refinement levels are

* level 0 (every competitor, vectorised): the float-path key at the midpoint
  ``(2k+1) 2^-53``, widened by 1 (a proven bound on how far G moves across the
  52-bit interval when 1 <= k <= 2^52 - 2) and by a rigorous float margin;
* level 1 (contenders only, vectorised): G at both ends of the 52-bit interval,
  in floats, with the same margin;
* level t >= 2: ``decimal`` interval arithmetic (directed rounding for + - * /,
  a one-ulp margin around the correctly rounded ``ln``/``exp``) at precision
  ``p_t`` digits on the first ``b_t = 64 * 2^(t-2)`` bits of U.

**Float margin.**  We assume numpy's ``log``/``exp`` on float64 err by at most
2^8 ulp (relative error <= 2^-44); glibc and numpy's SIMD kernels document a few
ulp at most, so this leaves a factor of about 64.  Then every float key below is
within 2^-42 * mag of the exact key, mag = |q| + |l| + |G| + 8 (q: the score
part, l: the log-length part), and we widen by 2^-36 * mag
(``proofs/samplers/exact.tex`` has the derivation).

**Weights.**  Member i of the candidate list has the exact log-weight

    w_i = numer_i / denom + log(right_i - left_i)

with ``numer_i``, ``denom``, ``left_i``, ``right_i`` floats read as exact rationals
(the log-length term is omitted when no intervals are given).  This covers the
report-noisy-max weights (numer = score, denom = scale) and the Duff step
densities (numer = level, denom = scale, [left, right] = interval).

**Groups (the block trick).**  ``groups`` (start offsets, like ``np.add.reduceat``)
partitions the members into contiguous blocks.  A block races with ONE Gumbel at
its exact log-mass log sum_{i in block} exp(w_i), evaluated lazily (a cheap upper
bound first, a float log-sum-exp only if that bound is competitive, ``decimal``
only if floats cannot decide); the winning block is then opened by an
independent race among its members (large blocks in ~sqrt(n) chunks).  Grouping
changes the cost only: the returned member has probability exactly
exp(w_i) / sum_j exp(w_j) whatever the grouping (max and argmax of independent
Gumbels are independent; the max of a block is Gumbel at its log-mass).

**Lazy blocks.**  :func:`exact_race_with_lazy_blocks` also accepts blocks whose
members are not even materialised (:class:`LazyGroup`: an exact upper bound
(right_up - left_up) exp(numer_up / denom) on the block's mass, and a callable
producing the members).  A block is materialised only if the upper key of its bound
reaches the best item's lower key; the law is unchanged (same bits, same argmax).
This is the shape of the Duff samplers: a window of near intervals plus far blocks.

Proof: ``proofs/samplers/exact.tex``.
"""
import decimal
import math
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np

from . import current_rng

__all__ = ["exact_gumbel_race", "exact_race_with_lazy_blocks", "LazyGroup", "exact_uniform_float",
           "exact_uniform_floats", "PSRN"]

_MAX = sys.float_info.max
_REL = 2.0 ** -36          # float margin factor (64x the proven error bound 2^-42 * mag)
_MAG0 = 8.0                # absolute part of mag
_TINY_HALF = 2.0 ** -1000  # half-lengths below this get the loose bounds (-inf, -690]
_LOG2 = math.log(2.0)
_K_TOP = float(2 ** 52 - 2)  # largest "safe" 52-bit index for the level-0 bound
_TWO_M52 = 2.0 ** -52
_TWO_M53 = 2.0 ** -53
_DIRECT = 4096             # an opened block larger than this is raced in ~sqrt(n) chunks
_SMALL = 64               # races with at most this many competitors skip level 0
_LAZY = 65536              # blocks larger than this start with a cheap upper bound only
_INF_D = Decimal("Infinity")


class PSRN:
    """A uniform on (0, 1) known to its first ``bits`` bits: [m 2^-bits, (m+1) 2^-bits).

    ``refine(nbits)`` appends fresh random bits (drawn in whole bytes).  Refining
    never changes the law of the underlying uniform: the bits of a uniform are
    i.i.d. fair coins, and the appended ones are fresh fair coins.
    """

    __slots__ = ("m", "bits")

    def __init__(self, m, bits):
        self.m, self.bits = int(m), int(bits)

    @classmethod
    def draw(cls, nbytes=8):
        return cls(int.from_bytes(current_rng().random_bytes(nbytes), "big"), 8 * nbytes)

    def refine_to(self, bits):
        """Know at least ``bits`` bits (whole bytes are drawn)."""
        extra = bits - self.bits
        if extra > 0:
            nbytes = (extra + 7) // 8
            fresh = int.from_bytes(current_rng().random_bytes(nbytes), "big")
            self.m = (self.m << (8 * nbytes)) | fresh
            self.bits += 8 * nbytes

    def bounds(self):
        """(lo, hi) as exact Fractions."""
        return Fraction(self.m, 1 << self.bits), Fraction(self.m + 1, 1 << self.bits)


# ----------------------------------------------------------------------------- decimal intervals

def _ctxs(p):
    kw = dict(prec=p, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
              traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])
    return (decimal.Context(rounding=decimal.ROUND_FLOOR, **kw),
            decimal.Context(rounding=decimal.ROUND_CEILING, **kw),
            decimal.Context(rounding=decimal.ROUND_HALF_EVEN, **kw))


def _ulp(r, ctx):
    """One unit in the last place of r at the context precision (>= the error of a
    correctly rounded result r); the smallest positive decimal for r = 0."""
    if not r.is_finite():
        return Decimal(0)
    if r.is_zero():
        return Decimal((0, (1,), ctx.Etiny()))
    return Decimal((0, (1,), max(r.adjusted() - ctx.prec + 1, ctx.Etiny())))


class _Dec:
    """Directed-rounding interval helpers at precision p (``ln``/``exp`` are correctly
    rounded by ``decimal``; we widen by a whole ulp, twice the guaranteed error)."""

    def __init__(self, p):
        self.f, self.c, self.n = _ctxs(p)

    def ln_lo(self, x):
        if x.is_zero():
            return -_INF_D
        if x.is_infinite():
            return _INF_D
        r = x.ln(self.n)
        return r if r.is_zero() and x == 1 else self.f.subtract(r, _ulp(r, self.n))

    def ln_hi(self, x):
        if x.is_zero():
            return -_INF_D
        if x.is_infinite():
            return _INF_D
        r = x.ln(self.n)
        return r if r.is_zero() and x == 1 else self.c.add(r, _ulp(r, self.n))

    def exp_lo(self, x):
        if x.is_infinite():
            return Decimal(0) if x < 0 else _INF_D
        r = x.exp(self.n)
        return max(self.f.subtract(r, _ulp(r, self.n)), Decimal(0))

    def exp_hi(self, x):
        if x.is_infinite():
            return Decimal(0) if x < 0 else _INF_D
        r = x.exp(self.n)
        return self.c.add(r, _ulp(r, self.n))

    def gumbel(self, m, bits):
        """Bounds on G(U) = -ln(-ln U) for U in [m 2^-bits, (m+1) 2^-bits]."""
        two = Decimal(1 << bits)  # exact
        if m == 0:
            g_lo = -_INF_D
        else:
            t = self.ln_lo(self.f.divide(Decimal(m), two))   # <= ln u_lo < 0
            g_lo = self.ln_hi(t.copy_negate()).copy_negate()
        if m + 1 == 1 << bits:
            g_hi = _INF_D
        else:
            t = self.ln_hi(self.c.divide(Decimal(m + 1), two))  # >= ln u_hi
            g_hi = _INF_D if t >= 0 else self.ln_lo(t.copy_negate()).copy_negate()
        return g_lo, g_hi

    def weight(self, N, D, L, R, nref):
        """Bounds on log sum_j (R_j - L_j) exp((N_j - nref) / D) (float arrays, exact)."""
        f, c = self.f, self.c
        dD, dref = Decimal(float(D)), Decimal(float(nref))
        if N.size == 1:
            n = Decimal(float(N[0]))
            q_lo = f.divide(f.subtract(n, dref), dD)
            q_hi = c.divide(c.subtract(n, dref), dD)
            if L is None:
                return q_lo, q_hi
            r, l_ = Decimal(float(R[0])), Decimal(float(L[0]))
            return (f.add(q_lo, self.ln_lo(f.subtract(r, l_))),
                    c.add(q_hi, self.ln_hi(c.subtract(r, l_))))
        s_lo, s_hi = Decimal(0), Decimal(0)
        for j in range(N.size):
            n = Decimal(float(N[j]))
            e_lo = self.exp_lo(f.divide(f.subtract(n, dref), dD))
            e_hi = self.exp_hi(c.divide(c.subtract(n, dref), dD))
            if L is not None:
                r, l_ = Decimal(float(R[j])), Decimal(float(L[j]))
                e_lo = f.multiply(e_lo, f.subtract(r, l_))
                e_hi = c.multiply(e_hi, c.subtract(r, l_))
            s_lo, s_hi = f.add(s_lo, e_lo), c.add(s_hi, e_hi)
        return self.ln_lo(s_lo), self.ln_hi(s_hi)


def _level_bits(level):
    """Bits of U and decimal digits used at refinement level >= 2."""
    bits = 64 << (level - 2)
    return bits, max(40, (bits * 30103) // 100000 + 25)


# ----------------------------------------------------------------------------- float terms

def _q_terms(N, D, nref):
    """Float bounds on q = (N - nref) / D for each member: (q_lo, q_hi).

    Both equal the float evaluation (within REL*mag of the exact q, see
    :func:`_l_terms` for mag) except after overflow (q_lo = -inf and q_hi a rigorous
    float upper bound, already exact as a bound)."""
    with np.errstate(over="ignore", under="ignore"):
        q = (N - nref) / D                       # in [-inf, 0]: nref is the largest numer
    q_hi = q
    ovf = q == -np.inf
    if ovf.any():
        # |true q| >= min(MAX/D, MAX(1-2^-53)) >= min(0.5 MAX/D, 0.5 MAX); bound it from above
        with np.errstate(over="ignore"):
            cap = -0.5 * _MAX / D
        cap = max(cap * (1.0 - 2.0 ** -50), -0.5 * _MAX) if math.isfinite(cap) else -0.5 * _MAX
        q_hi = np.where(ovf, cap, q)
    return q, q_hi


def _l_terms(L, R):
    """Float bounds (l_lo, l_hi) on l = log(R - L) (R > L): the float evaluation
    (within REL*mag of l), or (-inf, -690] for lengths below 2^-999."""
    half = 0.5 * R - 0.5 * L
    with np.errstate(divide="ignore"):
        ell = np.log(half) + _LOG2
    tiny = half < _TINY_HALF
    if tiny.any():
        return np.where(tiny, -np.inf, ell), np.where(tiny, -690.0, ell)
    return ell, ell


def _gumbel_float(u):
    with np.errstate(divide="ignore"):
        return -np.log(-np.log(u))


def _finite_abs(x):
    return np.where(np.isfinite(x), np.abs(x), 0.0)


class _Race:
    """One exact race among competitors (members grouped by ``starts``)."""

    def __init__(self, N, D, L, R, starts, stats, raw=None):
        self.N, self.D, self.L, self.R = N, D, L, R
        self.given_raw = raw
        self.starts = starts
        self.ends = np.append(starts[1:], N.size)
        self.stats = stats
        self.nref = float(N.max())
        self.psrn = {}
        self.q_lo, self.q_hi = _q_terms(N, D, self.nref)

    def _terms(self, idx):
        """(q_lo, q_hi, l_lo, l_hi, mag) for the members ``idx``; the exact
        q + l lies in [q_lo + l_lo - REL*mag, q_hi + l_hi + REL*mag]."""
        q_lo, q_hi = self.q_lo[idx], self.q_hi[idx]
        if self.L is None:
            z = np.zeros(q_lo.shape)
            return q_lo, q_hi, z, z, np.abs(q_hi) + _MAG0
        l_lo, l_hi = _l_terms(self.L[idx], self.R[idx])
        return q_lo, q_hi, l_lo, l_hi, np.abs(q_hi) + np.abs(l_hi) + _MAG0

    def _group_slice(self, c):
        a, b = int(self.starts[c]), int(self.ends[c])
        return slice(a, b)

    def _group_uppers(self):
        """Cheap rigorous upper bounds on every competitor's log-mass (vectorised, no
        logarithm per member): log(sum of lengths) + max q, widened by the margin."""
        q_hi = self.q_hi
        st = self.starts
        n = (self.ends - st).astype(np.float64)
        qmax = np.maximum.reduceat(q_hi, st)   # q_hi <= 0, and q + REL*(|q| + 8) increases with q
        qmax = qmax + _REL * (np.abs(qmax) + _MAG0)
        if self.L is None:
            lsum = np.log(n)
        else:
            half = 0.5 * self.R - 0.5 * self.L
            tot = np.add.reduceat(half, st) * (1.0 + n * 2.0 ** -50) + n * 2.0 ** -1073
            lsum = np.log(tot) + _LOG2
        ub = qmax + lsum
        return ub + _REL * (np.abs(qmax) + np.abs(lsum) + _MAG0) + n * 2.0 ** -49

    def _groups_float(self, gs):
        """Float bounds (lo, hi, mag) on the log-masses of the groups ``gs`` (vectorised
        log-sum-exp over their members, with a rigorous margin)."""
        st, sizes = self.starts[gs], (self.ends - self.starts)[gs]
        new_st = np.cumsum(sizes) - sizes
        idx = np.arange(int(sizes.sum())) + np.repeat(st - new_st, sizes)
        q_lo, q_hi, l_lo, l_hi, mag = self._terms(idx)
        out = []
        for w in ((q_lo + l_lo) - _REL * mag, (q_hi + l_hi) + _REL * mag):
            top = np.maximum.reduceat(w, new_st)
            base = np.where(np.isfinite(top), top, 0.0)
            with np.errstate(under="ignore", divide="ignore"):
                out.append(top + np.log(np.add.reduceat(np.exp(w - np.repeat(base, sizes)), new_st)))
        lo, hi = out
        pad = sizes * 2.0 ** -49
        lo = lo - (_REL * (_finite_abs(lo) + _MAG0) + pad)
        hi = hi + (_REL * (np.abs(hi) + _MAG0) + pad)
        return lo, hi, np.maximum(_finite_abs(lo), np.abs(hi)) + _MAG0

    def run(self):
        n_c = self.starts.size
        raw = self.given_raw
        if raw is None:
            raw = np.frombuffer(current_rng().random_bytes(8 * n_c), dtype=np.uint64)
        self.raw = raw
        k = (raw >> np.uint64(12)).astype(np.float64)
        sizes = self.ends - self.starts
        single = sizes == 1
        if n_c > _SMALL and single.all():
            # level 0, screening: the float-path keys, one pass; level 1 for the few contenders
            cand = self._screen(k)
            q_lo, q_hi, l_lo, l_hi, wmag = self._terms(cand)
            self.stats["float_refined"] = self.stats.get("float_refined", 0) + cand.size
            lo, hi = self._level1(cand, k[cand], np.ones(cand.size, dtype=bool), q_lo + l_lo,
                                  q_hi + l_hi, wmag)
            return self._loop(cand, lo, hi, 1, None)
        if single.all():
            q_lo, q_hi, l_lo, l_hi, wmag = self._terms(slice(None))
            w_lo, w_hi = q_lo + l_lo, q_hi + l_hi
        else:
            ub = self._group_uppers()
            w_lo, w_hi = np.full(n_c, -np.inf), ub
            wmag = np.abs(ub) + _MAG0
            one = np.flatnonzero(single)
            if one.size:
                q_lo, q_hi, l_lo, l_hi, mag = self._terms(self.starts[one])
                w_lo[one], w_hi[one], wmag[one] = q_lo + l_lo, q_hi + l_hi, mag
            small = np.flatnonzero(~single & (sizes <= _LAZY))
            if small.size:  # small blocks: their float log-sum-exp at once
                w_lo[small], w_hi[small], wmag[small] = self._groups_float(small)
        cand = np.arange(n_c)
        if n_c <= _SMALL:  # few competitors: numpy call overhead dominates, start at level 1
            lo, hi = self._level1(cand, k, single, w_lo, w_hi, wmag)
            level = 1
        else:
            # level 0: float-path key at the midpoint, +-1 for the 52-bit interval, + margin
            g = _gumbel_float((2.0 * k + 1.0) * _TWO_M53)
            safe = (k >= 1.0) & (k <= _K_TOP)
            m0 = _REL * (wmag + np.abs(g)) + 1.0
            with np.errstate(invalid="ignore"):
                lo = np.where(safe, (w_lo + g) - m0, -np.inf)
                hi = np.where(safe, (w_hi + g) + m0, np.inf)
            level = 0
        return self._loop(cand, lo, hi, level, (k, single, w_lo, w_hi, wmag))

    def _screen(self, k):
        """Level 0 for a race of singletons: the indices that may hold the largest key.

        key_i = fl(q_hi + l_hi + g_i) is the float path's key (g at the midpoint).  For
        safe k, |g| <= 36 and the exact key is at most key_i + 1 + REL*mag_i with
        mag_i <= 2|key_i| + 2A + 9, A = max|l_hi| + 37 (proof: exact.tex).  The leader's
        exact key is at least lo_L (the level-0 lower bound), so every i with
        key_i + 2 REL |key_i| < B = lo_L - 1 - REL (2A + 9) is out, and key_i < T =
        B - 8 REL (|B| + 1) implies that (T computed exactly, rounded down)."""
        q_lo, q_hi = self.q_lo, self.q_hi
        if self.L is None:
            l_lo = l_hi = 0.0
            lmax = 0.0
        else:
            l_lo, l_hi = _l_terms(self.L, self.R)
            lmax = float(np.max(np.abs(l_hi)))
        g = _gumbel_float((2.0 * k + 1.0) * _TWO_M53)
        key = (q_hi + l_hi) + g
        safe = (k >= 1.0) & (k <= _K_TOP)
        all_safe = bool(safe.all())
        lead = int(np.argmax(key if all_safe else np.where(safe, key, -np.inf)))
        if not safe[lead]:
            return np.arange(k.size)
        ll = 0.0 if self.L is None else float(l_lo[lead])
        lh = 0.0 if self.L is None else float(l_hi[lead])
        gl = float(g[lead])
        mag = abs(float(q_hi[lead])) + abs(lh) + abs(gl) + _MAG0
        lo_lead = (float(q_lo[lead]) + ll + gl) - 1.0 - _REL * mag
        if not math.isfinite(lo_lead):
            return np.arange(k.size)
        rel, A = Fraction(_REL), Fraction(lmax) + 37
        B = Fraction(lo_lead) - 1 - rel * (2 * A + 9)
        T_exact = B - 8 * rel * (abs(B) + 1)
        T = float(T_exact)
        if Fraction(T) > T_exact:
            T = math.nextafter(T, -math.inf)
        out = key >= T
        if not all_safe:
            out |= ~safe
        return np.flatnonzero(out)

    def _loop(self, cand, lo, hi, level, l1_args):
        """Drop competitors whose upper key is below the best lower key; refine the rest."""
        while True:
            best = lo.max()
            keep = hi >= best
            if np.count_nonzero(keep) == 1:
                return int(cand[np.argmax(keep)])
            cand, lo, hi = cand[keep], lo[keep], hi[keep]
            level += 1
            self.stats["rounds"] = self.stats.get("rounds", 0) + 1
            if level == 1:
                k, single, w_lo, w_hi, wmag = l1_args
                self.stats["float_refined"] = self.stats.get("float_refined", 0) + cand.size
                lo, hi = self._level1(cand, k[cand], single[cand], w_lo[cand], w_hi[cand],
                                      wmag[cand])
            else:
                self.stats["decimal_refined"] = self.stats.get("decimal_refined", 0) + cand.size
                lo, hi = self._decimal(cand, level)

    def _level1(self, cand, k, single, w_lo, w_hi, wmag):
        w_lo, w_hi, wmag = w_lo.copy(), w_hi.copy(), wmag.copy()
        big = np.flatnonzero(~single & ((self.ends - self.starts)[cand] > _LAZY))
        if big.size:  # large blocks that only had their cheap upper bound
            w_lo[big], w_hi[big], wmag[big] = self._groups_float(cand[big])
        g_lo = _gumbel_float(k * _TWO_M52)          # exact endpoints of the 52-bit interval
        g_hi = _gumbel_float((k + 1.0) * _TWO_M52)
        m1 = _REL * (wmag + np.maximum(_finite_abs(g_lo), _finite_abs(g_hi)))
        with np.errstate(invalid="ignore"):
            lo = (w_lo + g_lo) - m1
            hi = (w_hi + g_hi) + m1
        return lo, hi

    def _decimal(self, cand, level):
        bits, p = _level_bits(level)
        dec = _Dec(p)
        lo, hi = [], []
        for c in cand:
            c = int(c)
            ps = self.psrn.get(c)
            if ps is None:
                ps = self.psrn[c] = PSRN(int(self.raw[c]), 64)  # the float path's 8 bytes
            ps.refine_to(bits)
            s = self._group_slice(c)
            L = None if self.L is None else self.L[s]
            R = None if self.R is None else self.R[s]
            w_lo, w_hi = dec.weight(self.N[s], self.D, L, R, self.nref)
            g_lo, g_hi = dec.gumbel(ps.m, ps.bits)
            lo.append(dec.f.add(w_lo, g_lo))
            hi.append(dec.c.add(w_hi, g_hi))
        return np.array(lo, dtype=object), np.array(hi, dtype=object)


def _check_race_args(numer, denom, left, right, groups):
    N = np.asarray(numer, dtype=np.float64).reshape(-1)
    if N.size == 0:
        raise ValueError("exact_gumbel_race needs at least one candidate")
    if np.isnan(N).any():
        raise ValueError("numer must not contain NaN")
    D = float(denom)
    if not (math.isfinite(D) and D > 0):
        raise ValueError(f"denom ({D!r}) must be positive and finite")
    L = R = None
    if (left is None) != (right is None):
        raise ValueError("give both left and right, or neither")
    if left is not None:
        L = np.asarray(left, dtype=np.float64).reshape(-1)
        R = np.asarray(right, dtype=np.float64).reshape(-1)
        if not (L.size == R.size == N.size):
            raise ValueError("numer, left and right must have equal lengths")
        if not (np.isfinite(L).all() and np.isfinite(R).all()):
            raise ValueError("left and right must be finite")
        if (R < L).any():
            raise ValueError("each interval must have left <= right")
    if groups is None:
        starts = np.arange(N.size)
    else:
        starts = np.asarray(groups, dtype=np.int64).reshape(-1)
        if starts.size == 0 or starts[0] != 0 or (np.diff(starts) <= 0).any() or starts[-1] >= N.size:
            raise ValueError("groups must be strictly increasing start offsets beginning at 0")
    return N, D, L, R, starts


def exact_gumbel_race(numer, denom=1.0, left=None, right=None, groups=None, stats=None):
    """Index i with probability exactly exp(w_i) / sum_j exp(w_j), where

        w_i = numer_i / denom + log(right_i - left_i)

    (the log term omitted when ``left``/``right`` are not given), every input read
    as an exact rational.  ``numer_i = -inf`` or a zero-length interval is weight 0
    (never wins); if some ``numer_i = +inf`` (with positive length), only those can
    win, with probabilities proportional to their lengths.  ``denom`` is positive
    and finite.  ``groups`` (sorted start offsets) only changes the cost (block
    trick).  ``stats``, a dict, counts refinements: ``rounds``, ``float_refined``
    (competitors refined to level 1), ``decimal_refined``.

    Randomness: 8 bytes per competitor (as ``uniform_open``), more only on
    refinement.  Raises ValueError on malformed input or if no candidate has
    positive weight.
    """
    N, D, L, R, starts = _check_race_args(numer, denom, left, right, groups)
    stats = {} if stats is None else stats
    alive = N > -np.inf
    if L is not None:
        alive &= R > L
    pos = N == np.inf
    if pos.any():
        N, D, alive = np.where(pos & alive, 0.0, -np.inf), 1.0, pos & alive
    if alive.all():
        idx = None
    else:
        if not alive.any():
            raise ValueError("no candidate has positive weight")
        idx = np.flatnonzero(alive)
        gid = np.repeat(np.arange(starts.size), np.diff(np.append(starts, N.size)))[idx]
        starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
        N = N[idx]
        if L is not None:
            L, R = L[idx], R[idx]
    return _finish(N, D, L, R, starts, stats, idx)


def _finish(N, D, L, R, starts, stats, idx, raw=None):
    """Race the groups, open the winner (recursively), return the member's index
    (mapped through ``idx`` if given).  ``raw``: the first race's 8-byte draws."""
    offset = 0
    while True:
        c = _Race(N, D, L, R, starts, stats, raw).run()
        raw = None
        a = int(starts[c])
        b = int(starts[c + 1]) if c + 1 < starts.size else N.size
        offset += a
        if b - a == 1:
            return offset if idx is None else int(idx[offset])
        stats["blocks_opened"] = stats.get("blocks_opened", 0) + 1
        N = N[a:b]
        if L is not None:
            L, R = L[a:b], R[a:b]
        n = b - a
        starts = np.arange(n) if n <= _DIRECT else np.arange(0, n, math.isqrt(n - 1) + 1)


class LazyGroup:
    """A block of members known at first only through an upper bound on its mass.

    The caller guarantees, in exact arithmetic, that
    ``(right_up - left_up) * exp(numer_up / denom) >= sum_j (right_j - left_j) exp(numer_j / denom)``
    over the block's members (e.g. every member level <= numer_up and the members are
    disjoint sub-intervals of [left_up, right_up]).  ``members()`` returns the member
    arrays ``(numer, left, right)``; it is called only if the bound could win.
    """

    __slots__ = ("numer_up", "left_up", "right_up", "members")

    def __init__(self, numer_up, left_up, right_up, members):
        self.numer_up, self.left_up, self.right_up = float(numer_up), float(left_up), float(right_up)
        self.members = members


def exact_race_with_lazy_blocks(numer, denom, left, right, blocks, stats=None):
    """:func:`exact_gumbel_race` over singleton items (arrays ``numer``, ``left``,
    ``right``, possibly empty) and :class:`LazyGroup` blocks, with the same exact
    law: member weights (right - left) exp(numer / denom).  Returns ``(None, i)`` for
    item i or ``(j, i)`` for member i of block j.

    Every competitor draws its 8 bytes first.  A block whose upper-bound key (its
    bound weight plus the top of its Gumbel's 52-bit interval, in floats with the
    rigorous margin) is below the largest item lower key cannot hold the largest key
    and is dropped without calling ``members()``; the others are materialised and
    race, with the SAME random bits, as groups.  Finite numerators only.
    """
    stats = {} if stats is None else stats
    D = float(denom)
    if not (math.isfinite(D) and D > 0):
        raise ValueError(f"denom ({D!r}) must be positive and finite")
    N = np.asarray(numer, dtype=np.float64).reshape(-1)
    L = np.asarray(left, dtype=np.float64).reshape(-1)
    R = np.asarray(right, dtype=np.float64).reshape(-1)
    if not (N.size == L.size == R.size):
        raise ValueError("numer, left and right must have equal lengths")
    if np.isnan(N).any() or np.isposinf(N).any():
        raise ValueError("numer must not contain NaN or +inf here")
    if N.size and not (np.isfinite(L).all() and np.isfinite(R).all() and (R >= L).all()):
        raise ValueError("intervals must be finite with left <= right")
    blocks = list(blocks)
    item_idx = np.flatnonzero((N > -np.inf) & (R > L))
    ups = np.array([[b.numer_up, b.left_up, b.right_up] for b in blocks], dtype=np.float64).reshape(-1, 3)
    if not (np.isfinite(ups).all() and (ups[:, 2] >= ups[:, 1]).all()):
        raise ValueError("block bounds must be finite with left_up <= right_up")
    live_b = np.flatnonzero(ups[:, 2] > ups[:, 1])
    n_i, n_b = item_idx.size, live_b.size
    raw = np.frombuffer(current_rng().random_bytes(8 * (n_i + n_b)), dtype=np.uint64)
    Ni, Li, Ri = N[item_idx], L[item_idx], R[item_idx]
    nref = max(float(Ni.max()) if n_i else -math.inf, float(ups[live_b, 0].max()) if n_b else -math.inf)
    if nref == -math.inf:
        raise ValueError("no candidate has positive weight")
    k = (raw >> np.uint64(12)).astype(np.float64)
    best = -math.inf
    if n_i:  # level-1 lower keys of the items
        q_lo, _ = _q_terms(Ni, D, nref)
        l_lo, l_hi = _l_terms(Li, Ri)
        _, q_hi = _q_terms(Ni, D, nref)
        g_lo = _gumbel_float(k[:n_i] * _TWO_M52)
        mag = np.abs(q_hi) + np.abs(l_hi) + _MAG0 + _finite_abs(g_lo)
        with np.errstate(invalid="ignore"):
            best = float(np.max((q_lo + l_lo + g_lo) - _REL * mag))
    keep = []
    if n_b:  # level-1 upper keys of the blocks, from their bounds
        b = ups[live_b]
        _, q_hi = _q_terms(b[:, 0], D, nref)
        _, l_hi = _l_terms(b[:, 1], b[:, 2])
        g_hi = _gumbel_float((k[n_i:] + 1.0) * _TWO_M52)
        mag = np.abs(q_hi) + np.abs(l_hi) + _MAG0 + _finite_abs(g_hi)
        hi = (q_hi + l_hi + g_hi) + _REL * mag
        keep = [int(j) for j in np.flatnonzero(hi >= best)]
        stats["blocks_materialised"] = stats.get("blocks_materialised", 0) + len(keep)
    parts_n, parts_l, parts_r, starts, owner, raws = [Ni], [Li], [Ri], list(range(n_i)), [], [raw[:n_i]]
    size = n_i
    for j in keep:
        bn, bl, br = (np.asarray(a, dtype=np.float64).reshape(-1) for a in blocks[live_b[j]].members())
        ok = np.flatnonzero((bn > -np.inf) & (br > bl))
        if ok.size == 0:
            continue
        parts_n.append(bn[ok])
        parts_l.append(bl[ok])
        parts_r.append(br[ok])
        starts.append(size)
        owner.append((int(live_b[j]), ok, size))
        raws.append(raw[n_i + j:n_i + j + 1])
        size += ok.size
    if size == 0:
        raise ValueError("no candidate has positive weight")
    i = _finish(np.concatenate(parts_n), D, np.concatenate(parts_l), np.concatenate(parts_r),
                np.asarray(starts, dtype=np.int64), stats, None, raw=np.concatenate(raws))
    if i < n_i:
        return None, int(item_idx[i])
    for j, ok, start in owner:
        if start <= i < start + ok.size:
            return j, int(ok[i - start])
    raise AssertionError("unreachable")  # pragma: no cover


# ----------------------------------------------------------------------------- exact uniform

def _round_decided(A, W, ps):
    """The nearest float of every point of A + W*[lo, hi], if they all share one."""
    lo, hi = ps.bounds()
    f_lo = float(A + W * lo)  # Fraction -> float is correctly rounded (ties to even)
    f_hi = float(A + W * hi)
    return f_lo if f_lo == f_hi else None


def _check_ab(a, b):
    a, b = float(a), float(b)
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError("a and b must be finite")
    if a > b:
        raise ValueError("need a <= b")
    return a, b


def exact_uniform_float(a, b):
    """A uniform draw from the real interval [a, b], rounded to the nearest float
    (ties to even).  Exact: the uniform is a PSRN refined until every point of its
    current interval rounds to the same float.  8 bytes in the common case."""
    a, b = _check_ab(a, b)
    if a == b:
        return a
    return _uniform_from(Fraction(a), Fraction(b) - Fraction(a), PSRN.draw(8))


def _uniform_from(A, W, ps):
    while True:
        x = _round_decided(A, W, ps)
        if x is not None:
            return x
        ps.refine_to(ps.bits + 64)


def exact_uniform_floats(a, b, size):
    """``size`` independent :func:`exact_uniform_float` draws (one 8-byte draw for all
    of them up front, refinements one by one)."""
    a, b = _check_ab(a, b)
    size = int(size)
    if a == b or size == 0:
        return np.full(size, a)
    raw = current_rng().random_bytes(8 * size)
    A, W = Fraction(a), Fraction(b) - Fraction(a)
    out = np.empty(size)
    for i in range(size):
        out[i] = _uniform_from(A, W, PSRN(int.from_bytes(raw[8 * i:8 * i + 8], "big"), 64))
    return out
