"""People with many rows: ``dp.unit_of(identifier="user", contributions=k, max_groups=g)``.

* The unit: one person (all their rows), d_in = 1; refused without contributions, with changes,
  or max_groups without an identifier; a context refuses a frame without the identifier column.
* Each query keeps at most k rows of each person (g groups of k rows when it groups with
  ``max_groups``), with a secret key per context drawn from the samplers and never shown.
* A user with 10,000 rows at an extreme value moves the median's law exactly as two rows at that
  value would, with contributions=2: the exact laws (``output_law``) of the two releases are
  equal, piece for piece.  Without the truncation the same user would drag the median to the
  extreme value.
* A grouped statistic is charged for g groups of k rows: the partition distance of one person
  is (g, g k, k).
"""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import MakeError, MakeTypeError
from opendp_duff.metrics import PartitionBound
from opendp_duff.samplers import seeded_rng_for_tests

pd = pytest.importorskip("pandas")

DOMAIN = dp.dataframe_domain({"user": dp.atom_domain(T=int), "airline": dp.atom_domain(T=str),
                              "delay": dp.atom_domain(T=float)})
BOUNDS = (0.0, 100.0)


def people(extra_user_rows=0, extra_value=100.0, users=400):
    """One row per user (delays spread over [0, 90]), plus user -1 with ``extra_user_rows`` rows."""
    delays = np.linspace(0.0, 90.0, users)
    user = np.arange(users)
    airline = np.where(user % 2 == 0, "A", "B")
    df = pd.DataFrame({"user": user, "airline": airline, "delay": delays})
    if extra_user_rows:
        heavy = pd.DataFrame({"user": np.full(extra_user_rows, -1), "airline": ["A"] * extra_user_rows,
                              "delay": np.full(extra_user_rows, extra_value)})
        df = pd.concat([df, heavy], ignore_index=True)
    return df


def context(df, unit=None, loss=None):
    return dp.Context.compositor(data=df, privacy_unit=unit or dp.unit_of(identifier="user", contributions=2),
                                 privacy_loss=loss or dp.loss_of(epsilon=1.0), domain=DOMAIN)


@pytest.mark.parametrize("kwargs, error", [
    ({"identifier": "user"}, MakeError),
    ({"identifier": "user", "changes": 1}, MakeError),
    ({"contributions": 1, "max_groups": 2}, MakeError),
    ({"identifier": "user", "contributions": 0}, MakeError),
    ({"identifier": "", "contributions": 1}, MakeTypeError),
])
def test_the_unit_is_checked(kwargs, error):
    with pytest.raises(error):
        dp.unit_of(**kwargs)


def test_the_unit_unpacks_as_metric_and_distance():
    metric, d_in = dp.unit_of(identifier="user", contributions=3)
    assert d_in == 1 and metric.identifier == "user"


def test_a_frame_without_the_identifier_is_refused():
    with pytest.raises(MakeError, match="identifier"):
        dp.Context.compositor(data=pd.DataFrame({"delay": [1.0]}), privacy_unit=dp.unit_of(identifier="user",
                              contributions=1), privacy_loss=dp.loss_of(epsilon=1.0))


def test_the_key_is_drawn_per_context_from_the_samplers_and_never_shown():
    with seeded_rng_for_tests(1):
        first = context(people())
    with seeded_rng_for_tests(1):
        again = context(people())
    other = context(people())
    assert first.target.key == again.target.key != other.target.key and len(first.target.key) == 16
    plan = first.query(epsilon=0.5).column("delay").clamp(BOUNDS).median()
    for text in (repr(first), repr(first.target), repr(plan), repr(plan.resolve()), plan.to_json()):
        assert first.target.key.hex() not in text and repr(first.target.key) not in text


def _law(df):
    ctx = context(df)
    return ctx.resolve(dp.query().column("delay").clamp(BOUNDS).median(scale=1.0)).output_law(df)


@pytest.mark.slow
def test_a_user_with_ten_thousand_rows_moves_the_median_as_two_rows_would():
    heavy = _law(people(extra_user_rows=10_000))
    two = _law(people(extra_user_rows=2))
    assert np.array_equal(heavy.left, two.left) and np.array_equal(heavy.right, two.right)
    assert np.allclose(heavy.log_density, two.log_density, rtol=0, atol=1e-12)
    base = _law(people())
    # the two rows at 100 move the median by one rank; 10,000 rows untruncated would move it to 100
    assert abs(_median_of(heavy) - _median_of(base)) < 1.0
    plain = dp.Context.compositor(data=people(extra_user_rows=10_000), privacy_unit=dp.unit_of(contributions=1),
                                  privacy_loss=dp.loss_of(epsilon=1.0), domain=DOMAIN)
    untruncated = plain.resolve(dp.query().column("delay").clamp(BOUNDS).median(scale=1.0)).output_law(
        people(extra_user_rows=10_000))
    assert _median_of(untruncated) > 90.0            # above every other row


def _median_of(law):
    """The median of a piecewise-constant law (where its CDF crosses 1/2)."""
    grid = np.linspace(0.0, 100.0, 20_001)
    return float(grid[np.searchsorted(law.cdf(grid), 0.5)])


def test_a_grouped_statistic_is_charged_for_g_groups_of_k_rows():
    ctx = context(people(), unit=dp.unit_of(identifier="user", contributions=3, max_groups=2))
    plan = dp.query().group_by("airline", keys=["A", "B", "C"]).agg(n=dp.count(scale=1.0))
    grouping = ctx.compile(plan).state.grouping
    assert grouping.outer.map(1) == PartitionBound(2, 6, 3)
    assert ctx.resolve(plan).map(1) == 6.0                       # 2 groups, each count by 3, scale 1
    ungrouped = context(people(), unit=dp.unit_of(identifier="user", contributions=3, max_groups=2))
    assert ungrouped.resolve(dp.query().agg(n=dp.count(scale=1.0))).map(1) == 3.0   # k rows
