"""``make_clamp >> make_duff_quantile`` on unsorted local records runs one fused function (the
selection clips each record as it reads it) and releases exactly what the composition releases.

Deterministic: with the same random bytes the fused chain and the two steps called one after the
other give the same float, on random and tie-heavy data (signed zeros, infinities, records beyond
the bounds, all equal, bounds lo = hi), for the median and other quantiles, for a vector and for a
frame's column; the maps and the exact law do not change; a sorted domain, an integer clamp or a
clamp to other bounds is not fused.  Nothing here is statistical.
"""
import math

import attrs
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.links import _Composed
from opendp_duff.samplers import seeded_rng_for_tests
from opendp_duff.transformations.clamp import ClampRecords

SYM = dp.symmetric_distance()
FLOATS = dp.vector_domain(dp.atom_domain(T=float)), SYM


def data(rng, n):
    yield rng.normal(0.0, 2.0, n)
    yield rng.integers(-2, 3, n).astype(float)
    yield rng.choice([-0.0, 0.0, -np.inf, np.inf, 0.5], size=n)
    yield np.full(n, 7.0)


def steps(f):
    return [*steps(f.outer), *steps(f.inner)] if isinstance(f, _Composed) else [f]


def fused(chain):
    """No clamp is called on its own: the chain's last steps are one fused function."""
    return not any(isinstance(f, ClampRecords) for f in steps(chain._function))


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (0.0, 0.5), (-0.0, 3.0), (0.25, 0.25)])
@pytest.mark.parametrize("alpha", [0.5, 0.05, 0.9])
def test_the_fused_chain_releases_what_the_composition_releases(bounds, alpha):
    clamp = FLOATS >> dp.t.then_clamp(bounds)
    quantile = (clamp.output_domain, SYM) >> dp.m.then_duff_quantile(alpha, 1.0)
    chain = clamp >> quantile
    assert fused(chain)
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 9000):                  # below and above the selection's direct sort
        for x in data(rng, n):
            for seed in range(2 if n < 100 else 1):
                with seeded_rng_for_tests(seed):
                    got = chain._function(x)
                with seeded_rng_for_tests(seed):
                    want = quantile._function(clamp._function(x))
                assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    assert [chain.map(d) for d in (0, 1, 3)] == [quantile.map(d) for d in (0, 1, 3)]
    x = np.array([3.0, -2.0, 0.1, 0.1])
    got, want = chain.output_law(x), quantile.output_law(clamp(x))
    assert type(got) is type(want)
    assert all(np.array_equal(np.asarray(a), np.asarray(b))
               for a, b in zip(attrs.astuple(got, recurse=False), attrs.astuple(want, recurse=False), strict=True))


def test_a_frame_column_is_fused_after_select_column():
    pd = pytest.importorskip("pandas")
    frames = dp.dataframe_domain({"x": dp.atom_domain(T=float)}), SYM
    chain = frames >> dp.t.then_select_column("x") >> dp.t.then_clamp((0.0, 1.0)) >> dp.m.then_duff_median(0.5)
    assert fused(chain)
    x = np.random.default_rng(4).normal(0.5, 1.0, 12_000)
    local = FLOATS >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(0.5)
    with seeded_rng_for_tests(8):
        got = chain._function(pd.DataFrame({"x": x}))
    with seeded_rng_for_tests(8):
        want = local._function(x)
    assert got == want


def test_only_the_last_clamp_is_fused():
    first = FLOATS >> dp.t.then_clamp((0.0, 1.0))
    second = (first.output_domain, SYM) >> dp.t.then_clamp((0.25, 0.5))
    median = (second.output_domain, SYM) >> dp.m.then_duff_median(1.0)
    chain = first >> second >> median
    assert steps(chain._function)[1] is first._function     # the first clamp runs, the second is fused
    x = np.random.default_rng(6).normal(0.4, 0.5, 9000)
    with seeded_rng_for_tests(2):
        got = chain._function(x)
    with seeded_rng_for_tests(2):
        want = median._function(second._function(first._function(x)))
    assert got == want


def test_what_is_not_fused_still_composes():
    sorted_space = dp.vector_domain(dp.atom_domain(T=float), sorted=True), SYM
    on_sorted = sorted_space >> dp.t.then_clamp((0.0, 1.0)) >> dp.m.then_duff_median(1.0)
    assert not fused(on_sorted)
    sorted_chain = FLOATS >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(1.0)
    assert not fused(sorted_chain)
    with seeded_rng_for_tests(1):
        assert 0.0 <= on_sorted._function(np.array([0.1, 0.2, 2.0])) <= 1.0
