"""Privacy units that protect people: data of a public size needs ``unit_of(changes=k)``, and no
statistic is charged less than what a person's k changed rows can do.

The sum of data of a public size under ``unit_of(contributions=1)`` would be charged for one row
added or removed, which a public size makes impossible (a same-size neighbour is at symmetric
distance 2): the context refuses that unit.  Under ``unit_of(changes=k)`` the sum's noise is
calibrated to k (hi - lo), checked here in exact rationals; the Duff median and grouped
statistics are charged as 2k rows added or removed, the same neighbours."""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp

pd = pytest.importorskip("pandas")

N = 1000
X = np.random.default_rng(11).uniform(0.0, 100.0, size=N)
SIZED = dp.vector_domain(dp.atom_domain(T=float), size=N)
BOUNDS = (0.0, 100.0)


def test_a_public_size_with_a_unit_of_rows_added_or_removed_is_refused():
    with pytest.raises(dp.MakeError, match=r"size is declared public.*unit_of\(changes=k\)"):
        dp.Context.compositor(data=X, privacy_unit=dp.unit_of(contributions=1),
                              privacy_loss=dp.loss_of(epsilon=1.0), domain=SIZED)
    with pytest.raises(dp.MakeError, match="size=n"):
        dp.Context.compositor(data=X, privacy_unit=dp.unit_of(changes=1), privacy_loss=dp.loss_of(epsilon=1.0))


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("epsilon", [1.0, 0.1])
def test_the_sum_is_charged_what_k_changed_rows_can_do(k, epsilon):
    ctx = dp.Context.compositor(data=X, privacy_unit=dp.unit_of(changes=k), privacy_loss=dp.loss_of(epsilon=10.0),
                                domain=SIZED)
    plan = dp.query().sum(bounds=BOUNDS)
    measurement = ctx.resolve(plan, epsilon=epsilon)
    scale = ctx.compile(plan).parameter(epsilon)
    assert measurement.map(k) <= epsilon
    # the Laplace scale covers the change of k rows from lo to hi: k (hi - lo) / scale <= epsilon
    assert Fraction(k) * Fraction(BOUNDS[1] - BOUNDS[0]) / Fraction(scale) <= Fraction(epsilon)
    assert Fraction(k) * Fraction(BOUNDS[1] - BOUNDS[0]) / Fraction(scale) > Fraction(epsilon) * Fraction(99, 100)
    assert np.isfinite(ctx.release(plan, epsilon=epsilon))


def test_the_median_and_the_count_under_changed_rows():
    ctx = dp.Context.compositor(data=X, privacy_unit=dp.unit_of(changes=1), privacy_loss=dp.loss_of(epsilon=1.0),
                                domain=SIZED)
    plan = dp.query().median(bounds=BOUNDS, scale=4.0)
    by_hand = (SIZED, dp.symmetric_distance()) >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(scale=4.0)
    assert ctx.resolve(plan).map(1) == by_hand.map(2)          # one change: two rows
    with pytest.raises(dp.MakeError, match="declared public"):
        ctx.release(dp.query().count(), epsilon=0.5)
    assert ctx.remaining == 1.0


def test_grouped_statistics_of_a_sized_frame_follow_the_changed_rows():
    df = pd.DataFrame({"g": np.where(X < 50, "a", "b"), "x": X})
    domain = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}, size=N)
    ctx = dp.Context.compositor(data=df, privacy_unit=dp.unit_of(changes=1), privacy_loss=dp.loss_of(epsilon=2.0),
                                domain=domain)
    grouped = ctx.resolve(dp.query().group_by("g", keys=["a", "b"]).column("x").median(bounds=BOUNDS, scale=4.0))
    unsized = domain.with_(size=None)
    parts = (unsized, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a", "b"])
    part = ((parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("x")
            >> dp.t.then_clamp(BOUNDS) >> dp.m.then_duff_median(scale=4.0))
    parallel = dp.c.make_parallel_composition(parts.output_domain, parts.output_metric, part)
    assert grouped.map(1) == parallel.map(parts.map(2))
    out = ctx.release(dp.query().group_by("g", keys=["a", "b"]).column("x").median(bounds=BOUNDS), epsilon=1.0)
    assert list(out["g"]) == ["a", "b"]
    with pytest.raises(dp.MakeError, match="grouped sum"):
        ctx.resolve(dp.query().group_by("g", keys=["a", "b"]).column("x").sum(bounds=BOUNDS), epsilon=0.5)
