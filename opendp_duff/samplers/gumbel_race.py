"""The exact Gumbel race: index i with probability exactly exp(w_i) / sum_j exp(w_j).

Member i has the exact log-weight ``w_i = numer_i / denom + ln(right_i - left_i)`` (the
floats read as exact rationals; the log-length term is absent without intervals): the
report-noisy-max weights (numer = score, denom = scale) and the Duff step densities (numer =
level, denom = scale, [left, right] = interval).

Competitor c has the key ``K_c = W_c + G(U_c)``, ``G(u) = -ln(-ln u)``, ``U_c`` a
:class:`~opendp_duff.samplers.psrn.PSRN`; the winner is ``argmax_c K_c``, which has the
softmax law [Gum54].  Each competitor carries an interval that provably contains its key;
competitors whose upper key is below the best lower key are dropped for good, the others
are refined, until one remains (bounds in :mod:`._race_keys`):

* level 0 (vectorised): the float path's key at the midpoint ``(2k+1) 2^-53`` of the 52-bit
  interval given by the top 52 of the 64 bits drawn, +-1 and a rigorous float margin;
* level 1 (contenders only): G at both ends of the 52-bit interval, in floats;
* level t >= 2: decimal interval arithmetic on the first ``64 2^(t-2)`` bits of U.

Each competitor draws 8 bytes, as :func:`~opendp_duff.samplers.float_path.uniform_open`
does; more bits are drawn only at the decimal levels (rare).

Groups (``groups``, start offsets as in ``np.add.reduceat``) race with ONE Gumbel at their
exact log-mass; the winning group is opened by an independent race among its members (in
~sqrt(n) chunks when large); :mod:`.lazy_race` races blocks known at first only by an upper
bound on their mass.
:func:`exact_race_with_ties` races members of equal weight as one block and draws the
winner's member uniformly.  Grouping changes the cost, never the law.  Proof: ``proofs/samplers/gumbel_race.tex``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import MakeError
from . import _race_keys as keys
from .byte_sources import current_rng
from .interval import DecimalIA, digits_for_bits
from .psrn import PSRN

__all__ = ["exact_gumbel_race", "exact_race_with_ties"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
# [proof:_DIRECT]
_DIRECT = 4096   # cost only: an opened block larger than this is raced in ~sqrt(n) chunks
# [end:_DIRECT]
# [proof:_SMALL]
_SMALL = 64      # cost only: races with at most this many competitors skip level 0
# [end:_SMALL]
# [proof:_LAZY]
_LAZY = 65536    # cost only: blocks larger than this start with the cheap upper bound alone
# [end:_LAZY]
# [proof:_TIES]
_TIES = 4096     # cost only: races of more members than this look for tied numerators
# [end:_TIES]


# [proof:_level_bits]
def _level_bits(level: int) -> int:
    """Bits of U used at decimal level >= 2."""
    return 64 << (level - 2)
# [end:_level_bits]


class _Race:
    """One exact race among competitors (members grouped by ``starts``)."""

    def __init__(self, N: Floats, D: float, L: Floats | None, R: Floats | None, starts: Ints,
                 stats: dict[str, int], raw: npt.NDArray[np.uint64] | None = None) -> None:
        self.N, self.D, self.L, self.R = N, D, L, R
        self.starts = starts
        self.ends = np.append(starts[1:], N.size)
        self.stats = stats
        self.nref = float(N.max())
        self.psrn: dict[int, PSRN] = {}
        self.q_lo, self.q_hi = keys.q_terms(N, D, self.nref)
        if raw is None:
            raw = np.frombuffer(current_rng().random_bytes(8 * starts.size), dtype=np.uint64)
        self.raw = raw

    def _count(self, name: str, n: int) -> None:
        self.stats[name] = self.stats.get(name, 0) + n

    def _terms(self, idx: Any) -> tuple[Floats, Floats, Floats, Floats, Floats]:
        return keys.member_terms(self.q_lo, self.q_hi, self.L, self.R, idx)

    def _groups_float(self, gs: npt.NDArray[np.intp]) -> tuple[Floats, Floats, Floats]:
        return keys.groups_float(self.q_lo, self.q_hi, self.L, self.R, self.starts[gs],
                                 (self.ends - self.starts)[gs])

    # [proof:race_run]
    def run(self) -> int:
        """The index of the winning competitor."""
        n_c = self.starts.size
        k = (self.raw >> np.uint64(12)).astype(np.float64)
        sizes = self.ends - self.starts
        single = sizes == 1
        if n_c > _SMALL and single.all():
            # level 0 by screening (one pass over the float-path keys); level 1 for the contenders
            cand = keys.screen(self.q_lo, self.q_hi, self.L, self.R, k)
            q_lo, q_hi, l_lo, l_hi, wmag = self._terms(cand)
            self._count("float_refined", cand.size)
            lo, hi = keys.level1(k[cand], q_lo + l_lo, q_hi + l_hi, wmag)
            return self._loop(cand, lo, hi, 1, None)
        if single.all():
            q_lo, q_hi, l_lo, l_hi, wmag = self._terms(slice(None))
            w_lo, w_hi = q_lo + l_lo, q_hi + l_hi
        else:
            ub = keys.group_uppers(self.q_hi, self.L, self.R, self.starts, self.ends)
            w_lo, w_hi = np.full(n_c, -np.inf), ub
            wmag = np.abs(ub) + keys.MAG0
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
            return self._loop(cand, lo, hi, 1, (k, single, w_lo, w_hi, wmag))
        lo, hi = keys.level0(k, w_lo, w_hi, wmag)
        return self._loop(cand, lo, hi, 0, (k, single, w_lo, w_hi, wmag))

    def _loop(self, cand: npt.NDArray[np.intp], lo: Any, hi: Any, level: int, l1_args: Any) -> int:
        """Drop the competitors whose upper key is below the best lower key; refine the rest."""
        while True:
            best = lo.max()
            keep = hi >= best
            if np.count_nonzero(keep) == 1:
                return int(cand[np.argmax(keep)])
            cand, lo, hi = cand[keep], lo[keep], hi[keep]
            level += 1
            self._count("rounds", 1)
            if level == 1:
                k, single, w_lo, w_hi, wmag = l1_args
                self._count("float_refined", cand.size)
                lo, hi = self._level1(cand, k[cand], single[cand], w_lo[cand], w_hi[cand], wmag[cand])
            else:
                self._count("decimal_refined", cand.size)
                lo, hi = self._decimal(cand, level)

    def _level1(self, cand: npt.NDArray[np.intp], k: Floats, single: npt.NDArray[np.bool_], w_lo: Floats,
                w_hi: Floats, wmag: Floats) -> tuple[Floats, Floats]:
        w_lo, w_hi, wmag = w_lo.copy(), w_hi.copy(), wmag.copy()
        big = np.flatnonzero(~single & ((self.ends - self.starts)[cand] > _LAZY))
        if big.size:  # large blocks that only had their cheap upper bound
            w_lo[big], w_hi[big], wmag[big] = self._groups_float(cand[big])
        return keys.level1(k, w_lo, w_hi, wmag)

    def _decimal(self, cand: npt.NDArray[np.intp], level: int) -> tuple[Any, Any]:
        bits = _level_bits(level)
        ia = DecimalIA.at(digits_for_bits(bits))
        lo, hi = [], []
        for c in cand.tolist():
            ps = self.psrn.get(c)
            if ps is None:
                ps = self.psrn[c] = PSRN(int(self.raw[c]), 64)  # the float path's 8 bytes
            ps.refine_to(bits)
            s = slice(int(self.starts[c]), int(self.ends[c]))
            L = None if self.L is None else self.L[s]
            R = None if self.R is None else self.R[s]
            w_lo, w_hi = keys.decimal_weight(ia, self.N[s], self.D, L, R, self.nref)
            g_lo, g_hi = keys.decimal_gumbel(ia, ps)
            lo.append(ia.dn.add(w_lo, g_lo))
            hi.append(ia.up.add(w_hi, g_hi))
        return np.array(lo, dtype=object), np.array(hi, dtype=object)
    # [end:race_run]


# [proof:_check_race_args]
def _check_race_args(numer: npt.ArrayLike, denom: float, left: npt.ArrayLike | None,
                     right: npt.ArrayLike | None, groups: npt.ArrayLike | None
                     ) -> tuple[Floats, float, Floats | None, Floats | None, Ints]:
    N = np.asarray(numer, dtype=np.float64).reshape(-1)
    if N.size == 0:
        raise MakeError("exact_gumbel_race needs at least one candidate")
    if np.isnan(N).any():
        raise MakeError("numer must not contain NaN")
    D = _check_denom(denom)
    L = R = None
    if (left is None) != (right is None):
        raise MakeError("give both left and right, or neither")
    if left is not None:
        L = np.asarray(left, dtype=np.float64).reshape(-1)
        R = np.asarray(right, dtype=np.float64).reshape(-1)
        if not (L.size == R.size == N.size):
            raise MakeError(f"numer, left and right must have equal lengths, not {N.size}, {L.size}, {R.size}")
        if not (np.isfinite(L).all() and np.isfinite(R).all()):
            raise MakeError("left and right must be finite")
        if (R < L).any():
            raise MakeError("each interval must have left <= right")
    if groups is None:
        starts = np.arange(N.size)
    else:
        starts = np.asarray(groups, dtype=np.int64).reshape(-1)
        if starts.size == 0 or starts[0] != 0 or (np.diff(starts) <= 0).any() or starts[-1] >= N.size:
            raise MakeError("groups must be strictly increasing start offsets beginning at 0")
    return N, D, L, R, starts
# [end:_check_race_args]


def _check_denom(denom: float) -> float:
    D = float(denom)
    if not (math.isfinite(D) and D > 0):
        raise MakeError(f"denom ({D!r}) must be positive and finite")
    return D


# [proof:exact_gumbel_race]
def exact_gumbel_race(numer: npt.ArrayLike, denom: float = 1.0, left: npt.ArrayLike | None = None,
                      right: npt.ArrayLike | None = None, groups: npt.ArrayLike | None = None,
                      stats: dict[str, int] | None = None) -> int:
    """Index i with probability exactly exp(w_i) / sum_j exp(w_j), w_i = numer_i / denom + ln(right_i - left_i).

    Args:
        numer: the numerators, floats (no NaN); -inf is weight 0.  If some are +inf, only
            those can win, with probabilities proportional to their lengths.
        denom: a positive finite float.
        left, right: the intervals (both or neither), finite, left <= right; a zero-length
            interval is weight 0.
        groups: sorted start offsets of contiguous blocks; changes the cost only.
        stats: a dict that counts refinements (``rounds``, ``float_refined``,
            ``decimal_refined``, ``blocks_opened``).

    Returns:
        The index of the winning member.  Randomness: 8 bytes per competitor (as
        ``uniform_open``), more only on decimal refinement.

    Raises:
        MakeError: on malformed input, or if no candidate has positive weight.
    """
    N, D, L, R, starts = _check_race_args(numer, denom, left, right, groups)
    stats = {} if stats is None else stats
    alive = N > -np.inf
    if L is not None and R is not None:
        alive &= R > L
    pos = N == np.inf
    if pos.any():  # the limit law: weights ln(length) on the +inf members, 0 elsewhere
        N, D, alive = np.where(pos & alive, 0.0, -np.inf), 1.0, pos & alive
    idx = None
    if not alive.all():
        if not alive.any():
            raise MakeError("no candidate has positive weight")
        idx = np.flatnonzero(alive)
        gid = np.repeat(np.arange(starts.size), np.diff(np.append(starts, N.size)))[idx]
        starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
        N = N[idx]
        if L is not None and R is not None:
            L, R = L[idx], R[idx]
    return _finish(N, D, L, R, starts, stats, idx)


def _finish(N: Floats, D: float, L: Floats | None, R: Floats | None, starts: Ints, stats: dict[str, int],
            idx: npt.NDArray[np.intp] | None, raw: npt.NDArray[np.uint64] | None = None) -> int:
    """Race the groups, open the winner by an independent race (recursively); return the member's
    index (mapped through ``idx`` if given).  ``raw``: the first race's 8-byte draws."""
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
        if L is not None and R is not None:
            L, R = L[a:b], R[a:b]
        n = b - a
        starts = np.arange(n) if n <= _DIRECT else np.arange(0, n, math.isqrt(n - 1) + 1)
# [end:exact_gumbel_race]


# [proof:tied_race]
def exact_race_with_ties(numer: npt.ArrayLike, denom: float = 1.0) -> int:
    """:func:`exact_gumbel_race` without intervals, the same law, with the members of equal
    numerator raced as ONE competitor: index i with probability exactly
    exp(numer_i / denom) / sum_j exp(numer_j / denom).

    A block of s members of numerator v has mass s exp(v / denom): it races as the interval
    [0, s] at numerator v, and its member is then drawn uniformly (:func:`_uniform_below`).
    Blocks are formed (cost only) when the numerators are few integers, e.g. counts: then
    a race among m members costs O(m) numpy work and a race among the distinct values.
    """
    N = np.asarray(numer, dtype=np.float64).reshape(-1)
    blocks = _tie_blocks(N) if N.size > _TIES else None
    if blocks is None:
        return exact_gumbel_race(N, denom)
    values, sizes = blocks
    g = exact_gumbel_race(values, denom, np.zeros(values.size), sizes)
    r = _uniform_below(int(sizes[g]))
    return int(np.flatnonzero(N == values[g])[r])


def _tie_blocks(N: Floats) -> tuple[Floats, Floats] | None:
    """(values, sizes) of the distinct entries of N when its finite entries are integers
    spanning at most N.size and at most a quarter of the entries are distinct; else None
    (a cost decision only).  The finite entries are bucketed by i = v - min, exact: an
    entry passes the check only if it equals min + i, an integer."""
    finite = np.isfinite(N)
    parts: list[tuple[float, int]] = []
    F = N
    if not finite.all():
        if np.isnan(N).any():
            return None                    # exact_gumbel_race refuses it
        F = N[finite]
        parts = [(v, int(np.count_nonzero(N == v))) for v in (-np.inf, np.inf)]
    if F.size:
        lo, hi = float(F.min()), float(F.max())
        if hi - lo > N.size or not lo.is_integer():
            return None
        d = F - lo
        i = d.astype(np.intp)
        np.add(i, lo, out=d)               # (in place: one float copy of N at a time)
        if not np.array_equal(d, F):       # some entry is not the integer lo + i
            return None
        del d
        c = np.bincount(i)
        at = np.flatnonzero(c)
        if at.size > N.size // 4:
            return None
        parts += list(zip((at + lo).tolist(), c[at].tolist(), strict=True))
    values, sizes = zip(*[(v, s) for v, s in parts if s], strict=True)
    return np.array(values, dtype=np.float64), np.array(sizes, dtype=np.float64)


def _uniform_below(s: int) -> int:
    """An exact uniform integer of [0, s), s >= 1: b = bit length of s - 1 random bits, read
    as an integer and redrawn while >= s (each try succeeds with probability > 1/2)."""
    b = (s - 1).bit_length()
    while b:
        r = int.from_bytes(current_rng().random_bytes((b + 7) // 8), "big") >> (-b % 8)
        if r < s:
            return r
    return 0
# [end:tied_race]
