"""The exact Gumbel race over items and lazy blocks: blocks known at first only through an
upper bound on their mass, materialised only if that bound could win.

The race is :func:`~opendp_duff.samplers.gumbel_race.exact_gumbel_race`'s, with the same keys
and the same exact law; a block that cannot hold the largest key is dropped without being
built, which is what lets a sampler leave the far tails of a window unread.  Proof:
``proofs/samplers/gumbel_race.tex`` (section on lazy blocks).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from ..errors import MakeError
from . import _race_keys as keys
from .byte_sources import current_rng
from .gumbel_race import _check_denom, _finish

__all__ = ["exact_race_with_lazy_blocks", "LazyGroup"]


# [proof:lazy_blocks]
class LazyGroup:
    """A block of members known at first only through an upper bound on its mass.

    The caller guarantees, in exact arithmetic, that
    ``(right_up - left_up) exp(numer_up / denom) >= sum_j (right_j - left_j) exp(numer_j / denom)``
    over the block's members (e.g. every member level <= numer_up and the members are disjoint
    sub-intervals of [left_up, right_up]).  ``members()`` returns the member arrays
    ``(numer, left, right)``; it is called only if the bound could win.
    """

    __slots__ = ("numer_up", "left_up", "right_up", "members")

    def __init__(self, numer_up: float, left_up: float, right_up: float,
                 members: Callable[[], tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]]) -> None:
        self.numer_up, self.left_up, self.right_up = float(numer_up), float(left_up), float(right_up)
        self.members = members


def exact_race_with_lazy_blocks(numer: npt.ArrayLike, denom: float, left: npt.ArrayLike, right: npt.ArrayLike,
                                blocks: Iterable[LazyGroup], stats: dict[str, int] | None = None
                                ) -> tuple[int | None, int]:
    """:func:`exact_gumbel_race` over singleton items and :class:`LazyGroup` blocks, same exact law.

    Member weights are (right - left) exp(numer / denom).  Every competitor (item or block)
    draws its 8 bytes first.  A block whose upper-bound key (its bound's weight plus G at the
    top of its 52-bit interval, in floats with the margin) is below the largest item lower key
    cannot hold the largest key and is dropped without calling ``members()``; the others are
    materialised and race, with the SAME random bits, as groups.

    Args:
        numer, left, right: the items (possibly empty): finite intervals with left <= right,
            numerators finite or -inf (weight 0).
        denom: a positive finite float.
        blocks: the lazy blocks (finite bounds, left_up <= right_up).
        stats: as for :func:`exact_gumbel_race`, plus ``blocks_materialised``.

    Returns:
        ``(None, i)`` for item i, or ``(j, i)`` for member i of block j.

    Raises:
        MakeError: on malformed input, or if no candidate has positive weight.
    """
    stats = {} if stats is None else stats
    D = _check_denom(denom)
    N = np.asarray(numer, dtype=np.float64).reshape(-1)
    L = np.asarray(left, dtype=np.float64).reshape(-1)
    R = np.asarray(right, dtype=np.float64).reshape(-1)
    if not (N.size == L.size == R.size):
        raise MakeError(f"numer, left and right must have equal lengths, not {N.size}, {L.size}, {R.size}")
    if np.isnan(N).any() or np.isposinf(N).any():
        raise MakeError("numer must not contain NaN or +inf here")
    if N.size and not (np.isfinite(L).all() and np.isfinite(R).all() and (R >= L).all()):
        raise MakeError("intervals must be finite with left <= right")
    blocks = list(blocks)
    item_idx = np.flatnonzero((N > -np.inf) & (R > L))
    ups = np.array([[b.numer_up, b.left_up, b.right_up] for b in blocks], dtype=np.float64).reshape(-1, 3)
    if not (np.isfinite(ups).all() and (ups[:, 2] >= ups[:, 1]).all()):
        raise MakeError("block bounds must be finite with left_up <= right_up")
    live_b = np.flatnonzero(ups[:, 2] > ups[:, 1])
    n_i, n_b = item_idx.size, live_b.size
    raw = np.frombuffer(current_rng().random_bytes(8 * (n_i + n_b)), dtype=np.uint64)
    Ni, Li, Ri = N[item_idx], L[item_idx], R[item_idx]
    nref = max(float(Ni.max()) if n_i else -math.inf, float(ups[live_b, 0].max()) if n_b else -math.inf)
    if nref == -math.inf:
        raise MakeError("no candidate has positive weight")
    k = (raw >> np.uint64(12)).astype(np.float64)
    best = -math.inf
    if n_i:  # level-1 lower keys of the items
        q_lo, q_hi = keys.q_terms(Ni, D, nref)
        l_lo, l_hi = keys.l_terms(Li, Ri)
        g_lo = keys.gumbel_float(k[:n_i] * 2.0 ** -52)
        mag = np.abs(q_hi) + np.abs(l_hi) + keys.MAG0 + keys.finite_abs(g_lo)
        with np.errstate(invalid="ignore"):
            best = float(np.max((q_lo + l_lo + g_lo) - keys.REL * mag))
    keep: list[int] = []
    if n_b:  # level-1 upper keys of the blocks, from their bounds
        b = ups[live_b]
        _, q_hi = keys.q_terms(b[:, 0], D, nref)
        _, l_hi = keys.l_terms(b[:, 1], b[:, 2])
        g_hi = keys.gumbel_float((k[n_i:] + 1.0) * 2.0 ** -52)
        mag = np.abs(q_hi) + np.abs(l_hi) + keys.MAG0 + keys.finite_abs(g_hi)
        hi = (q_hi + l_hi + g_hi) + keys.REL * mag
        keep = [int(j) for j in np.flatnonzero(hi >= best)]
        stats["blocks_materialised"] = stats.get("blocks_materialised", 0) + len(keep)
    parts_n, parts_l, parts_r, starts, raws = [Ni], [Li], [Ri], list(range(n_i)), [raw[:n_i]]
    owner: list[tuple[int, npt.NDArray[np.intp], int]] = []
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
        raise MakeError("no candidate has positive weight")
    i = _finish(np.concatenate(parts_n), D, np.concatenate(parts_l), np.concatenate(parts_r),
                np.asarray(starts, dtype=np.int64), stats, None, raw=np.concatenate(raws))
    if i < n_i:
        return None, int(item_idx[i])
    for j, ok, start in owner:
        if start <= i < start + ok.size:
            return j, int(ok[i - start])
    raise AssertionError("unreachable")  # pragma: no cover
# [end:lazy_blocks]
