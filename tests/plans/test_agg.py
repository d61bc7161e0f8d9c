"""Several statistics in one query: ``query.agg(n=dp.count(), median=dp.median(...), ...)``.

* The statistic expressions and the ``agg`` step are data-free values: printed as the calls that
  built them, equal when built alike (equal weights written out or not), and read back from JSON.
* The budget is split exactly as the plan states: each statistic's share is the exact fraction of
  the budget by its weight rounded down (checked with Fraction), the statistic's map at the privacy
  unit is within its share, the composed map is at least the exact sum of the parts' maps and at
  most the budget, and the context charges the query's budget once.
* The release is one frame of the data's library (pandas, Polars; a dict for 1-D data), one row
  per key after ``group_by``, with a column per statistic.
* Label collisions (two statistics, or a statistic and a grouping column) and a statistic given a
  scale its share cannot pay are refused before any data is read, and charge nothing.
"""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import MakeError, MakeTypeError

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

KEYS = ("AA", "DL", "UA", "ZZ")       # "ZZ" is absent from the data
BOUNDS = (-100.0, 300.0)
DOMAIN = dp.dataframe_domain({"carrier": dp.atom_domain(T=str), "arr_delay": dp.atom_domain(T=float),
                              "distance": dp.atom_domain(T=int)})


def columns(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    return {"carrier": rng.choice(["AA", "DL", "UA"], n).tolist(), "arr_delay": rng.normal(10.0, 30.0, n),
            "distance": rng.integers(100, 3000, n)}


def frame(library, data=None):
    data = columns() if data is None else data
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)


def context(data, loss=None, **kwargs):
    return dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=loss or dp.loss_of(epsilon=2.0), **kwargs)


THREE = dict(n=dp.count(), median=dp.median("arr_delay", bounds=BOUNDS),
             p90=dp.quantile("arr_delay", 0.9, bounds=BOUNDS))


def test_statistic_expressions_are_values():
    assert repr(dp.median("x", bounds=(0, 1))) == "median('x', bounds=(0, 1))"
    assert dp.quantile("x", 0.9, bounds=[0.0, 1.0]) == dp.quantile("x", 0.9, bounds=(0.0, 1.0))
    assert repr(dp.count()) == "count()" and repr(dp.count("x", scale=2.0)) == "count('x', scale=2.0)"
    with pytest.raises(MakeTypeError):
        dp.median(3)                      # a column is a name
    with pytest.raises(MakeTypeError):
        dp.median("x", bounds=object())   # only public values


def test_an_agg_plan_prints_its_split_and_travels_as_json():
    plan = dp.query().group_by("carrier", keys=KEYS).agg(**THREE)
    assert repr(plan).endswith("p90=quantile('arr_delay', alpha=0.9, bounds=(-100.0, 300.0)), weights=(1, 1, 1))")
    assert plan == dp.query().group_by("carrier", keys=KEYS).agg(**THREE, weights=[1, 1, 1])
    assert dp.Query.from_json(plan.to_json()) == plan
    weighted = dp.query().agg(n=dp.count(), m=dp.mean("arr_delay", bounds=BOUNDS), weights={"m": 3, "n": 1})
    assert weighted.steps[-1].weights == (1, 3) and dp.Query.from_json(weighted.to_json()) == weighted
    assert plan != dp.query().group_by("carrier", keys=KEYS).agg(**THREE, weights=[1, 1, 2])


@pytest.mark.parametrize("weights", [[1, 2, 3], [1, 0], [1, float("inf")], [1, True], {"n": 1},
                                     {"n": 1, "m": 1, "x": 1}])
def test_weights_are_one_positive_number_per_statistic(weights):
    with pytest.raises(MakeError):
        dp.query().agg(n=dp.count(), m=dp.median("x"), weights=weights)


def test_weights_by_name_need_named_statistics():
    with pytest.raises(MakeError, match="every statistic named"):
        dp.query().agg(dp.count(), m=dp.median("x"), weights={"m": 1, "count": 1})


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_grouped_agg_is_one_frame_with_every_key(library):
    ctx = context(frame(library), domain=DOMAIN)
    out = ctx.query(epsilon=1.0).group_by("carrier", keys=KEYS).agg(**THREE).release()
    assert isinstance(out, pd.DataFrame if library == "pandas" else pl.DataFrame)
    assert list(out.columns) == ["carrier", "n", "median", "p90"]
    assert list(out["carrier"]) == list(KEYS)
    median, p90 = np.asarray(out["median"]), np.asarray(out["p90"])
    assert np.all((BOUNDS[0] <= median) & (median <= BOUNDS[1]) & (BOUNDS[0] <= p90) & (p90 <= BOUNDS[1]))
    assert ctx.spent == 1.0


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_an_ungrouped_agg_is_a_one_row_frame_with_default_labels(library):
    ctx = context(frame(library), domain=DOMAIN)
    out = ctx.query(epsilon=1.0).agg(dp.count(), dp.median("arr_delay", bounds=BOUNDS),
                                     dp.mean("distance", bounds=(0, 3000))).release()
    assert list(out.columns) == ["count", "arr_delay_median", "distance_mean"] and len(out) == 1


def test_on_1d_data_the_release_is_a_dict():
    ctx = context(np.linspace(0.0, 10.0, 501))
    out = ctx.query(epsilon=1.0).agg(n=dp.count(), m=dp.median(bounds=(0.0, 10.0))).release()
    assert set(out) == {"n", "m"} and 0.0 <= out["m"] <= 10.0


@pytest.mark.parametrize("loss, budget", [
    (dp.loss_of(epsilon=3.0), 1.0),
    (dp.loss_of(rho=1.0), 0.3),
    (dp.loss_of(epsilon=3.0, delta=1e-6), (1.0, 1e-7)),
])
def test_the_budget_is_split_exactly_as_the_plan_states(loss, budget):
    ctx = context(frame("pandas"), loss=loss, domain=DOMAIN)
    kwargs = ({"epsilon": budget[0], "delta": budget[1]} if isinstance(budget, tuple)
              else {"rho": budget} if isinstance(loss.measure, type(dp.zero_concentrated_divergence())) else
              {"epsilon": budget})
    weights = [1, 2, 4]
    plan = dp.query().group_by("carrier", keys=KEYS).agg(**THREE, weights=weights)
    compiled = ctx.compile(plan)
    shares = compiled.shares(budget)
    parts = budget if isinstance(budget, tuple) else (budget,)
    for k, total in enumerate(parts):       # the exact fraction rounded down; the last: what is left
        exact = [Fraction(total) * w / sum(weights) for w in weights[:-1]]
        exact.append(Fraction(total) - sum(Fraction(_parts(s)[k]) for s in shares[:-1]))
        for share, want in zip(shares, exact, strict=True):
            got = Fraction(_parts(share)[k])
            assert got <= want and got > want * (1 - Fraction(1, 2 ** 50))
        assert sum(Fraction(_parts(s)[k]) for s in shares) <= Fraction(total)
    params = compiled.parameter(budget)
    maps = []
    for (label, stat), share, param in zip(plan.steps[-1].statistics, shares, params, strict=True):
        alone = dp.query().group_by("carrier", keys=KEYS).agg(**{label: _with_scale(stat, param)})
        m = ctx.resolve(alone, **kwargs).map(1)
        assert _le(m, share), (label, m, share)         # each statistic within its share
        maps.append(m)
    whole = ctx.resolve(plan, **kwargs).map(1)
    total = _sum(maps)
    assert _le(total, whole) and _le(whole, budget)       # the exact sum, rounded up, within the budget
    ctx.release(plan, **kwargs)
    assert ctx.spent == budget                            # charged the query's budget, once


def _with_scale(stat, scale):
    return dp.plans.Stat(stat.name, stat.column, (*stat.args, ("scale", scale)))


def _parts(d):
    return d if isinstance(d, tuple) else (d,)


def _le(a, b):
    return all(Fraction(x) <= Fraction(y) for x, y in zip(_parts(a), _parts(b), strict=True))


def _sum(ds):
    return tuple(sum((Fraction(_parts(d)[i]) for d in ds), Fraction(0)) for i in range(len(_parts(ds[0]))))


@pytest.mark.parametrize("build, what", [
    (lambda q: q.group_by("carrier", keys=KEYS).agg(carrier=dp.count()), "grouping column"),
    (lambda q: q.agg(dp.median("arr_delay", bounds=BOUNDS), arr_delay_median=dp.count()), "another statistic"),
    (lambda q: q.agg(dp.count(), dp.count()), "another statistic"),
])
def test_label_collisions_are_refused_before_any_data_is_read(build, what):
    ctx = context(frame("pandas"), domain=DOMAIN)
    with pytest.raises(MakeError, match=what):
        build(ctx.query(epsilon=1.0))
    with pytest.raises(MakeError, match=what):
        ctx.release(build(dp.query()), epsilon=1.0)
    assert ctx.spent == 0.0


def test_a_statistic_whose_given_scale_exceeds_its_share_is_refused():
    ctx = context(frame("pandas"), domain=DOMAIN)
    plan = dp.query().agg(n=dp.count(scale=1.0), m=dp.median("arr_delay", bounds=BOUNDS))  # count costs 1
    with pytest.raises(MakeError, match="'n' costs"):
        ctx.release(plan, epsilon=1.0)                    # its share is 0.5
    assert ctx.spent == 0.0
    ctx.release(plan, epsilon=2.0)                        # its share is 1.0: it fits
    assert ctx.spent == 2.0


def test_every_statistic_needs_its_column_on_a_frame():
    ctx = context(frame("pandas"), domain=DOMAIN)
    with pytest.raises(MakeError, match="needs a column"):
        ctx.query(epsilon=1.0).agg(dp.median(bounds=BOUNDS))
    with pytest.raises(MakeError, match="missing values"):   # an inferred float column may hold NaN
        context(frame("pandas")).query(epsilon=1.0).agg(dp.median("arr_delay", bounds=BOUNDS))


def test_a_count_of_rows_reads_a_column_without_missing_values_or_imputes_one():
    data = {"x": [1.0, float("nan"), 3.0]}
    ctx = context(pd.DataFrame(data), loss=dp.loss_of(epsilon=1e6))   # inferred: x may hold NaN
    out = ctx.query(epsilon=1e5).agg(n=dp.count()).release()
    assert abs(out["n"][0] - 3) < 1                                    # Laplace noise of scale 1e-5


def test_grouping_by_several_columns_releases_a_column_per_key_part():
    data = columns()
    data["origin"] = ["JFK", "LGA"] * (len(data["carrier"]) // 2)
    domain = dp.dataframe_domain({**DOMAIN.columns, "origin": dp.atom_domain(T=str)})
    ctx = context(pd.DataFrame(data), domain=domain)
    keys = [("AA", "JFK"), ("DL", "LGA"), ("ZZ", "JFK")]
    plan = ctx.query(epsilon=1.0).group_by(["carrier", "origin"], keys=keys).agg(
        n=dp.count(), median=dp.median("arr_delay", bounds=BOUNDS))
    assert dp.Query.from_json(plan.to_json()) == plan
    out = plan.release()
    assert list(out.columns) == ["carrier", "origin", "n", "median"]
    assert list(zip(out["carrier"], out["origin"], strict=True)) == keys
    with pytest.raises(MakeError, match="grouping column"):
        ctx.query(epsilon=1.0).group_by(["carrier", "origin"], keys=keys).agg(origin=dp.count())
    approx = context(pd.DataFrame(data), loss=dp.loss_of(epsilon=1.0, delta=1e-6), domain=domain)
    discovered = approx.query(epsilon=1.0, delta=1e-6).group_by(["carrier", "origin"]).agg(n=dp.count())
    epsilon, delta = discovered.resolve().map(1)        # keys of several columns are discovered too
    assert epsilon <= 1.0 and 0 < delta <= 1e-6
