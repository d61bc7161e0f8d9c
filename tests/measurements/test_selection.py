"""The one-pass selection kernel (opendp_duff.engines.selection.select_window) against a
brute force: sort the (clipped) records, slice the window, count the ties.

Deterministic tests: values, counts, ties and sorted tails (including the sign of each zero)
equal the brute force on random and tie-heavy data (integers, few distinct values, all equal,
records at or beyond the clip bounds, infinities, -0.0 and +0.0), with and without the implicit
clip, in chunks of every phase; for ANY pivots lo <= p <= q <= hi (a hypothesis search: the
pivots decide the cost only), including pivots that miss the window and force the second pass;
for an order built so that the sample misses; the input is never modified; a typical window
costs one pass and its tails none until they are opened.  Nothing here is statistical.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opendp_duff.engines import selection as sel
from opendp_duff.engines import SelectedRecords, SortedRecords
from opendp_duff.engines.selection import select_window


def brute(x, first, last, clip):
    y = np.sort(x if clip is None else np.clip(x, *clip)) + 0.0
    return SortedRecords(y).window(first, last)


def same_window(got, want):
    assert (got.n, got.first) == (want.n, want.first)
    assert np.array_equal(got.values, want.values)
    assert not np.signbit(got.values[got.values == 0]).any()
    for g, w in ((got.left, want.left), (got.right, want.right)):
        assert (g.count, g.ties) == (w.count, w.ties)
        gv, wv = g.values(), w.values()
        assert gv.dtype == np.float64 and np.array_equal(gv, wv) and gv.size == g.count
        assert not np.signbit(gv[gv == 0]).any()   # -0.0 never comes back


def datasets(rng, n):
    yield "uniform", rng.uniform(-1.0, 2.0, n)
    yield "integers", rng.integers(-3, 12, n).astype(float)
    yield "few values", rng.choice([0.0, 0.25, 0.5, 1.0], size=n, p=[0.1, 0.5, 0.1, 0.3])
    yield "all equal", np.full(n, 0.5)
    yield "signed zeros", rng.choice([-0.0, 0.0, -1.0, 1.0], size=n)
    yield "beyond the bounds", rng.choice([-np.inf, -5.0, 0.0, 0.3, 1.0, 7.0, np.inf], size=n)
    yield "at the bounds", np.concatenate([np.zeros(n // 3), rng.uniform(0, 1, n - 2 * (n // 3)), np.ones(n // 3)])


CLIPS = [None, (0.0, 1.0), (0.25, 0.25), (-0.5, 0.4), (-0.0, -0.0), (-0.0, 1.0)]


def windows(rng, n):
    pairs = {(1, 1), (1, n), (n, n), (max(1, n // 2 - 7), min(n, n // 2 + 7)), (min(2, n), min(3, n))}
    for _ in range(6):
        a, b = sorted(int(v) for v in rng.integers(1, n + 1, size=2))
        pairs.add((a, b))
    return sorted(pairs)


@pytest.mark.parametrize("chunk", [sel._CHUNK, 7, 64])
def test_window_equals_the_brute_force(monkeypatch, chunk):
    """The pass itself (no small-input shortcut), in chunks of several phases."""
    monkeypatch.setattr(sel, "_DIRECT", 0)
    monkeypatch.setattr(sel, "_CHUNK", chunk)
    rng = np.random.default_rng(60)
    for n in (1, 2, 3, 50, 301):
        for _name, x in datasets(rng, n):
            for clip in CLIPS:
                for first, last in windows(rng, n):
                    same_window(select_window(x, first, last, clip), brute(x, first, last, clip))


def test_small_inputs_are_sorted_and_large_ones_selected():
    rng = np.random.default_rng(61)
    for n in (sel._DIRECT, sel._DIRECT + 1, 3 * sel._DIRECT + 5):
        for _name, x in datasets(rng, n):
            for clip in CLIPS:
                for first, last in windows(rng, n)[::2]:
                    same_window(select_window(x, first, last, clip), brute(x, first, last, clip))


def test_selected_records_is_the_kernel():
    x = np.random.default_rng(62).normal(size=20000)
    for clip in (None, (-0.5, 0.5)):
        same_window(SelectedRecords(x, clip).window(9000, 9100), brute(x, 9000, 9100, clip))
        assert SelectedRecords(x, clip).n == x.size


class Passes:
    """Counts the passes of the kernel over the records (the bracket passes)."""

    def __init__(self, monkeypatch):
        self.count = 0
        inner = sel._bracket

        def counted(*args):
            self.count += 1
            return inner(*args)
        monkeypatch.setattr(sel, "_bracket", counted)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_any_pivots_give_the_same_window(data):
    """The pivots are a cost decision: every lo <= p <= q <= hi gives the brute force's window,
    those that miss it through the second pass."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    n = data.draw(st.integers(1, 60))
    pool = data.draw(st.sampled_from([[-0.0, 0.0, 1.0], [0.0, 0.5, 2.0, -3.0, np.inf], list(rng.normal(size=8))]))
    x = rng.choice(np.array(pool, dtype=float), size=n)
    clip = data.draw(st.sampled_from([None, (0.0, 1.0), (-1.0, 0.5), (0.5, 0.5)]))
    lo, hi = (-math.inf, math.inf) if clip is None else clip
    first = data.draw(st.integers(1, n))
    last = data.draw(st.integers(first, n))
    cands = sorted({lo, hi} | {float(min(max(v, lo), hi)) + 0.0 for v in x})
    p = data.draw(st.sampled_from(cands))
    q = data.draw(st.sampled_from([c for c in cands if c >= p]))
    old = (sel._DIRECT, sel._pivots)
    try:
        sel._DIRECT, sel._pivots = 0, lambda *args: (p, q)
        got = select_window(x, first, last, clip)
    finally:
        sel._DIRECT, sel._pivots = old
    same_window(got, brute(x, first, last, clip))


@pytest.mark.parametrize("planted", [5.0, -5.0])
def test_an_order_that_fools_the_sample_costs_one_more_pass(monkeypatch, planted):
    """Every sampled record is the largest (smallest) value: both pivots land above (below) a
    window in the middle, the exact counts say so, and the side that missed is opened."""
    n = 200_000
    x = np.random.default_rng(63).uniform(0.0, 1.0, n)
    s = min(n, max(1024, int(n ** sel._SAMPLE)))
    i = np.arange(s)
    stride = n // s
    x[i * stride + (i * 40503) % stride] = planted
    before = x.copy()
    for clip, (first, last) in [(None, (n // 2, n // 2 + 50)), ((0.0, 2.0), (n // 3, n // 3 + 200)),
                                ((-9.0, 9.0), (n // 2, n // 2))]:
        passes = Passes(monkeypatch)
        w = select_window(x, first, last, clip)
        same_window(w, brute(x, first, last, clip))
        assert passes.count == 2
        monkeypatch.undo()
    assert np.array_equal(x, before)


def test_one_pass_and_no_tail_work_on_typical_data(monkeypatch):
    x = np.random.default_rng(64).uniform(0.0, 1.0, 300_000)
    before = x.copy()
    outside = []
    inner = sel._outside
    monkeypatch.setattr(sel, "_outside", lambda *a, **k: outside.append(1) or inner(*a, **k))
    passes = Passes(monkeypatch)
    w = select_window(x, 149_900, 150_100, clip=(0.1, 0.9))
    assert passes.count == 1 and outside == []
    assert w.values.size == 201
    w.left.values()
    assert outside == [1]                      # a tail costs its pass when it is opened
    assert np.array_equal(x, before)


def test_clip_to_one_point_and_windows_of_clipped_records():
    x = np.random.default_rng(65).normal(size=50_000)
    w = select_window(x, 1, x.size, clip=(0.3, 0.3))
    assert np.all(w.values == 0.3) and w.left.count == 0 and w.right.count == 0
    # half the records clipped to each bound: windows at the bounds are copies of them
    y = np.concatenate([np.full(25_000, -9.0), np.full(25_000, 9.0)])
    same_window(select_window(y, 24_990, 25_010, clip=(0.0, 1.0)), brute(y, 24_990, 25_010, (0.0, 1.0)))
