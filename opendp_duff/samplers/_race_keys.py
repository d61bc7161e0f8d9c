"""Rigorous bounds on the keys of the Gumbel race, in floats and in decimals.

A competitor's key is ``K = W + G(U)``: ``W`` its exact log-weight (shifted by ``nref / D``
so that the largest is at most 0) and ``G(u) = -ln(-ln u)``.  Every function here returns
bounds that provably contain the exact quantity; each margin is labelled with the equation
of ``proofs/samplers/gumbel_race.tex`` that justifies it.  The float bounds assume numpy's
``log``/``exp`` err by at most 2^8 ulp (stated once, in that proof, as (F2)).
"""
from __future__ import annotations

import math
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .interval import INF, ZERO, DecimalIA, Interval
from .psrn import PSRN

Floats = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp] | slice

_MAX = sys.float_info.max
_LOG2 = math.log(2.0)
_TWO_M52 = 2.0 ** -52
_TWO_M53 = 2.0 ** -53
# [proof:REL]
REL = 2.0 ** -36           # (eq:float-margin): 64 x the proven float error 2^-42 mag
# [end:REL]
# [proof:MAG0]
MAG0 = 8.0                 # (eq:float-margin): the absolute part of mag
# [end:MAG0]
# [proof:_Q_SHRINK]
_Q_SHRINK = 1.0 - 2.0 ** -50   # (eq:q-overflow): one rounding of MAX/(2D) is below 2^-50 relative
# [end:_Q_SHRINK]
# [proof:_TINY_HALF]
_TINY_HALF = 2.0 ** -1000  # (eq:tiny-length): half-lengths below this get the bounds (-inf, -690]
# [end:_TINY_HALF]
# [proof:_TINY_LOG]
_TINY_LOG = -690.0         # (eq:tiny-length)
# [end:_TINY_LOG]
# [proof:K_TOP]
K_TOP = float(2 ** 52 - 2)  # (eq:level0-step): G moves by < 1 across the 52-bit interval for 1 <= k <= K_TOP
# [end:K_TOP]
# [proof:_SUM_REL]
_SUM_REL = 2.0 ** -50      # (eq:block-upper): relative error of a float sum of n >= 0 terms, per term
# [end:_SUM_REL]
# [proof:_SUM_ABS]
_SUM_ABS = 2.0 ** -1073    # (eq:block-upper): absolute error of a subnormal half-length, per term
# [end:_SUM_ABS]
# [proof:_LOG_PAD]
_LOG_PAD = 2.0 ** -49      # (eq:block-upper), (eq:block-lse): per member, for the log of a float sum
# [end:_LOG_PAD]
# [proof:_G_SAFE]
_G_SAFE = 37.0             # (eq:screen): |G(mu)| <= 36 for safe k, plus 1 for the level-0 step
# [end:_G_SAFE]


# [proof:float_terms]
def q_terms(N: Floats, D: float, nref: float) -> tuple[Floats, Floats]:
    """Float bounds (q_lo, q_hi) on q = (N - nref) / D <= 0: both the float evaluation (within
    REL mag of q), except after overflow: q_lo = -inf and q_hi a rigorous upper bound."""
    with np.errstate(over="ignore", under="ignore"):
        q = (N - nref) / D
    q_hi = q
    ovf = q == -np.inf
    if ovf.any():  # (eq:q-overflow): |q| >= min(MAX / (2D), MAX / 2)
        with np.errstate(over="ignore"):
            cap = -0.5 * _MAX / D
        cap = max(cap * _Q_SHRINK, -0.5 * _MAX) if math.isfinite(cap) else -0.5 * _MAX
        q_hi = np.where(ovf, cap, q)
    return q, q_hi


def l_terms(L: Floats, R: Floats) -> tuple[Floats, Floats]:
    """Float bounds (l_lo, l_hi) on l = ln(R - L), R > L: the float evaluation (within REL mag
    of l), or (-inf, -690] for half-lengths below 2^-1000 (eq:tiny-length)."""
    half = 0.5 * R - 0.5 * L
    with np.errstate(divide="ignore"):
        ell = np.log(half) + _LOG2
    tiny = half < _TINY_HALF
    if tiny.any():
        return np.where(tiny, -np.inf, ell), np.where(tiny, _TINY_LOG, ell)
    return ell, ell


def gumbel_float(u: Floats) -> Floats:
    """The float evaluation of G(u) = -ln(-ln u) (within REL mag of G(u) for u in [2^-53, 1 - 2^-53])."""
    with np.errstate(divide="ignore"):
        return -np.log(-np.log(u))


def finite_abs(x: Floats) -> Floats:
    return np.where(np.isfinite(x), np.abs(x), 0.0)


def member_terms(q_lo: Floats, q_hi: Floats, L: Floats | None, R: Floats | None,
                 idx: Index) -> tuple[Floats, Floats, Floats, Floats, Floats]:
    """(q_lo, q_hi, l_lo, l_hi, mag) of the members ``idx``: the exact q + l lies in
    [q_lo + l_lo - REL mag, q_hi + l_hi + REL mag] (eq:float-margin)."""
    ql, qh = q_lo[idx], q_hi[idx]
    if L is None or R is None:
        z = np.zeros(ql.shape)
        return ql, qh, z, z, np.abs(qh) + MAG0
    l_lo, l_hi = l_terms(L[idx], R[idx])
    return ql, qh, l_lo, l_hi, np.abs(qh) + np.abs(l_hi) + MAG0
# [end:float_terms]


# [proof:float_levels]
def level0(k: Floats, w_lo: Floats, w_hi: Floats, wmag: Floats) -> tuple[Floats, Floats]:
    """Key bounds from G at the float path's midpoint (2k+1) 2^-53, +-1 for the 52-bit interval
    (eq:level0-step), + the margin; (-inf, inf) for the unsafe k = 0 and k = 2^52 - 1."""
    g = gumbel_float((2.0 * k + 1.0) * _TWO_M53)
    safe = (k >= 1.0) & (k <= K_TOP)
    m0 = REL * (wmag + np.abs(g)) + 1.0
    with np.errstate(invalid="ignore", over="ignore"):   # overflow only widens (eq:level-overflow)
        return np.where(safe, (w_lo + g) - m0, -np.inf), np.where(safe, (w_hi + g) + m0, np.inf)


def level1(k: Floats, w_lo: Floats, w_hi: Floats, wmag: Floats) -> tuple[Floats, Floats]:
    """Key bounds from G at both (exact) ends of the 52-bit interval [k 2^-52, (k+1) 2^-52]."""
    g_lo = gumbel_float(k * _TWO_M52)
    g_hi = gumbel_float((k + 1.0) * _TWO_M52)
    m1 = REL * (wmag + np.maximum(finite_abs(g_lo), finite_abs(g_hi)))
    with np.errstate(invalid="ignore", over="ignore"):   # overflow only widens (eq:level-overflow)
        return (w_lo + g_lo) - m1, (w_hi + g_hi) + m1


def group_uppers(q_hi: Floats, L: Floats | None, R: Floats | None, starts: npt.NDArray[np.int64],
                 ends: npt.NDArray[np.int64]) -> Floats:
    """Cheap upper bounds on every group's log-mass, no logarithm per member (eq:block-upper):
    max q + ln(sum of lengths), widened."""
    n = (ends - starts).astype(np.float64)
    qmax = np.maximum.reduceat(q_hi, starts)   # q + REL (|q| + 8) increases with q <= 0
    qmax = qmax + REL * (np.abs(qmax) + MAG0)
    if L is None or R is None:
        lsum = np.log(n)
    else:
        half = 0.5 * R - 0.5 * L
        tot = np.add.reduceat(half, starts) * (1.0 + n * _SUM_REL) + n * _SUM_ABS
        lsum = np.log(tot) + _LOG2
    ub = qmax + lsum
    return ub + REL * (np.abs(qmax) + np.abs(lsum) + MAG0) + n * _LOG_PAD


def groups_float(q_lo: Floats, q_hi: Floats, L: Floats | None, R: Floats | None,
                 starts: npt.NDArray[np.int64], sizes: npt.NDArray[np.int64]) -> tuple[Floats, Floats, Floats]:
    """Float bounds (lo, hi, mag) on the log-masses of the groups [starts, starts + sizes):
    a log-sum-exp of the member bounds, widened (eq:block-lse)."""
    new_st = np.cumsum(sizes) - sizes
    idx = np.arange(int(sizes.sum())) + np.repeat(starts - new_st, sizes)
    ql, qh, l_lo, l_hi, mag = member_terms(q_lo, q_hi, L, R, idx)
    out = []
    for w in ((ql + l_lo) - REL * mag, (qh + l_hi) + REL * mag):
        top = np.maximum.reduceat(w, new_st)
        base = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(under="ignore", divide="ignore"):
            out.append(top + np.log(np.add.reduceat(np.exp(w - np.repeat(base, sizes)), new_st)))
    lo, hi = out
    pad = sizes * _LOG_PAD
    lo = lo - (REL * (finite_abs(lo) + MAG0) + pad)
    hi = hi + (REL * (np.abs(hi) + MAG0) + pad)
    return lo, hi, np.maximum(finite_abs(lo), np.abs(hi)) + MAG0
# [end:float_levels]


# [proof:screen]
def screen(q_lo: Floats, q_hi: Floats, L: Floats | None, R: Floats | None, k: Floats) -> npt.NDArray[np.intp]:
    """Level 0 for a race of singletons in one pass: the indices that may hold the largest key.

    kappa_i = fl(q_hi + l_hi + g_i) is the float path's key (g at the midpoint).  Every i with
    kappa_i < T, T computed exactly from the leader's level-0 lower key and rounded down, has
    an upper key below that lower key (eq:screen)."""
    if L is None or R is None:
        l_lo: Floats | float = 0.0
        l_hi: Floats | float = 0.0
        lmax = 0.0
    else:
        l_lo, l_hi = l_terms(L, R)
        lmax = float(np.max(np.abs(l_hi)))
    g = gumbel_float((2.0 * k + 1.0) * _TWO_M53)
    key = (q_hi + l_hi) + g
    safe = (k >= 1.0) & (k <= K_TOP)
    all_safe = bool(safe.all())
    lead = int(np.argmax(key if all_safe else np.where(safe, key, -np.inf)))
    if not safe[lead]:
        return np.arange(k.size)
    ll = 0.0 if isinstance(l_lo, float) else float(l_lo[lead])
    lh = 0.0 if isinstance(l_hi, float) else float(l_hi[lead])
    gl = float(g[lead])
    mag = abs(float(q_hi[lead])) + abs(lh) + abs(gl) + MAG0
    lo_lead = (float(q_lo[lead]) + ll + gl) - 1.0 - REL * mag
    if not math.isfinite(lo_lead):
        return np.arange(k.size)
    rel, A = Fraction(REL), Fraction(lmax) + Fraction(_G_SAFE)
    B = Fraction(lo_lead) - 1 - rel * (2 * A + 9)
    T_exact = B - 8 * rel * (abs(B) + 1)
    T = float(T_exact)
    if Fraction(T) > T_exact:
        T = math.nextafter(T, -math.inf)
    out = key >= T
    if not all_safe:
        out |= ~safe
    return np.flatnonzero(out)
# [end:screen]


# [proof:decimal_keys]
def decimal_weight(ia: DecimalIA, N: Floats, D: float, L: Floats | None, R: Floats | None,
                   nref: float) -> Interval:
    """An enclosure of ln sum_j (R_j - L_j) exp((N_j - nref) / D), the floats read exactly
    (one member: no exp/ln round trip).  D > 0, so x / D is increasing in x."""
    dn, up = ia.dn, ia.up
    dD, dref = Decimal(float(D)), Decimal(float(nref))

    def q(j: int) -> Interval:
        n = Decimal(float(N[j]))
        return dn.divide(dn.subtract(n, dref), dD), up.divide(up.subtract(n, dref), dD)

    def length(j: int, L: Floats, R: Floats) -> Interval:   # both ends >= 0: R_j - L_j >= 0 exactly
        r, l_ = Decimal(float(R[j])), Decimal(float(L[j]))
        return dn.subtract(r, l_), up.subtract(r, l_)

    if N.size == 1:
        w = q(0)
        if L is None or R is None:
            return w
        len_lo, len_hi = length(0, L, R)
        return dn.add(w[0], ia.ln_dn(len_lo)), up.add(w[1], ia.ln_up(len_hi))
    s_lo, s_hi = ZERO, ZERO
    for j in range(N.size):
        w = q(j)
        e_lo, e_hi = ia.exp_dn(w[0]), ia.exp_up(w[1])
        if L is not None and R is not None:
            len_lo, len_hi = length(j, L, R)
            e_lo, e_hi = dn.multiply(e_lo, len_lo), up.multiply(e_hi, len_hi)
        s_lo, s_hi = dn.add(s_lo, e_lo), up.add(s_hi, e_hi)
    return ia.ln_dn(s_lo), ia.ln_up(s_hi)


def decimal_gumbel(ia: DecimalIA, ps: PSRN) -> Interval:
    """An enclosure of G(U) = -ln(-ln U) for U in the PSRN's interval (G is increasing):
    -inf at the lower end when m = 0, +inf at the upper end when the interval reaches 1."""
    u_lo, u_hi = ps.enclosure(ia)
    if ps.m == 0:
        g_lo = -INF
    else:
        t = ia.ln_dn(u_lo)                               # <= ln u_lo < 0
        g_lo = ia.ln_up(t.copy_negate()).copy_negate()
    if ps.m + 1 == 1 << ps.bits:
        g_hi = INF
    else:
        t = ia.ln_up(u_hi)                               # >= ln u_hi
        g_hi = INF if t >= 0 else ia.ln_dn(t.copy_negate()).copy_negate()
    return g_lo, g_hi
# [end:decimal_keys]
