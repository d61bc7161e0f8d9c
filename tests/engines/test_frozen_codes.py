"""Key codes kept for a context's snapshot (engines/_frames.py ``freeze`` and
``LocalFrames.key_codes``): a frozen frame's codes are computed once per (column, keys, type)
and returned again, read-only and equal to a fresh computation; at most four are kept per frame;
the mark goes with the frame; threads sharing a frozen frame get right codes; a frame that is not
frozen is coded at every split; a context on a
pandas or Polars frame codes its string keys once over several grouped releases, and the caller's
later change to its own frame reaches neither the releases' parts nor the kept codes.  No
randomness is compared: every check is exact."""
import gc

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.engines import _frames, engine_named

pd = pytest.importorskip("pandas")

KEYS = ("a", "b", "c")
DOMAIN = dp.dataframe_domain({"key": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})


def frame(library="pandas"):
    data = {"key": ["a", "c", "z", "b", "a", "c"], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}
    if library == "polars":
        pl = pytest.importorskip("polars")
        return pl.DataFrame(data)
    return pd.DataFrame(data)


def counting(monkeypatch, engine):
    calls = []
    real = type(engine).string_codes

    def string_codes(self, df, name, keys):
        calls.append(name)
        return real(self, df, name, keys)
    monkeypatch.setattr(type(engine), "string_codes", string_codes)
    return calls


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_frozen_codes_are_kept_read_only_and_equal_to_fresh_ones(monkeypatch, library):
    df = frame(library)
    engine = engine_named(library)
    calls = counting(monkeypatch, engine)
    fresh = [engine.key_codes(df, "key", KEYS, DOMAIN) for _ in range(2)]
    assert len(calls) == 2                                 # not frozen: coded at every call
    snap = engine.snapshot(df)
    kept = [engine.key_codes(snap, "key", KEYS, DOMAIN) for _ in range(3)]
    assert len(calls) == 3                                 # frozen: coded once
    assert kept[0] is kept[2] and not kept[0].flags.writeable
    assert kept[0].tolist() == fresh[0].tolist() == [0, 2, 3, 1, 0, 2]
    other = engine.key_codes(snap, "key", ("c", "a"), DOMAIN)
    assert other.tolist() == [1, 0, 2, 2, 1, 0] and len(calls) == 4


def test_at_most_four_codes_are_kept_and_the_mark_goes_with_the_frame():
    engine = engine_named("pandas")
    snap = engine.snapshot(frame())
    key = id(snap)
    for i in range(6):
        engine.key_codes(snap, "key", KEYS[:1] + (f"k{i}",), DOMAIN)
    assert len(_frames._FROZEN[key]) == 4
    assert [name[1][1] for name in _frames._FROZEN[key]] == ["k2", "k3", "k4", "k5"]
    del snap
    gc.collect()
    assert key not in _frames._FROZEN


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_context_codes_its_keys_once_and_ignores_the_callers_changes(monkeypatch, library):
    df = frame(library)
    calls = counting(monkeypatch, engine_named(library))
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=100.0), domain=DOMAIN)
    counts = []
    for _ in range(3):
        released = ctx.query(epsilon=10.0).group_by("key", keys=list(KEYS)).column("x").count().release()
        counts.append(released)
        if library == "pandas":
            df.loc[:, "key"] = "a"                         # the caller's frame, not the snapshot
    assert calls == ["key"]
    assert all(len(r) == len(KEYS) for r in counts)
    codes = engine_named(library).key_codes(ctx._queryable._data, "key", KEYS, DOMAIN)
    assert codes.tolist() == [0, 2, 3, 1, 0, 2]


def test_parts_of_a_frozen_frame_are_not_views_of_the_kept_codes():
    engine = engine_named("pandas")
    snap = engine.snapshot(frame())
    parts = engine.split(snap, "key", KEYS, DOMAIN)
    again = engine.split(snap, "key", KEYS, DOMAIN)
    assert [p.column("x").tolist() for p in parts] == [p.column("x").tolist() for p in again] \
        == [[1.0, 5.0], [4.0], [2.0, 6.0]]
    assert np.array_equal(engine.key_codes(snap, "key", KEYS, DOMAIN), [0, 2, 3, 1, 0, 2])


def test_threads_sharing_a_frozen_frame_get_right_codes_and_never_raise():
    from concurrent.futures import ThreadPoolExecutor
    engine = engine_named("pandas")
    snap = engine.snapshot(frame())
    key_sets = [tuple(KEYS[i % 3:]) + (f"k{i}",) for i in range(12)] * 4

    def codes(keys):
        return engine.key_codes(snap, "key", keys, DOMAIN).tolist()
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(codes, key_sets))
    assert got == [engine.key_codes(frame(), "key", keys, DOMAIN).tolist() for keys in key_sets]
    assert len(_frames._FROZEN[id(snap)]) <= 4
