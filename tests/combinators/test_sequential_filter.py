"""make_sequential_composition and its Queryable: every refusal happens before the data is
touched (no random byte drawn, the measurement's function never runs) and charges nothing; a
query is charged when its function starts and a release that raises stays charged (a failing
random source is caught before the charge); budgets add exactly (Fractions) and are shown
rounded in the safe direction; the three measures (componentwise for (eps, delta)); the map;
interactive queries are refused, and a Queryable released anyway is dropped and stays charged;
concurrent queries never overspend.

The measurements built here (``Recorder``) are user-written, so the module runs with the
feature "honest-but-curious" on (the root conftest's fixture)."""
import math
import threading
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import samplers
from opendp_duff.core import Measurement
from opendp_duff.errors import BudgetExceeded, MakeError, MapError
from opendp_duff.samplers import EntropyError, seeded_rng_for_tests

pytestmark = pytest.mark.usefixtures("honest_but_curious")

SPACE = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
DATA = [1.0, 2.0, 3.0, 4.0]
PURE, ZCDP, APPROX = dp.max_divergence(), dp.zero_concentrated_divergence(), dp.approximate_divergence()


class NoBytes:
    name = "no bytes"

    def random_bytes(self, n):
        pytest.fail("a random byte was drawn")


class Recorder:
    """A measurement on SPACE whose function records each run; its map is d * cost."""

    def __init__(self, measure=PURE, cost=0.25, release=None, fail=False):
        self.runs = 0
        recorder = self

        def function(x):
            recorder.runs += 1
            if fail:
                raise RuntimeError("the release failed")
            return len(x) if release is None else release

        cost_of = (lambda d: (d * cost, 0.0)) if measure == APPROX else (lambda d: d * cost)
        self.m = Measurement(SPACE[0], SPACE[1], measure, function, cost_of)


def queryable(measure=PURE, d_out=1.0, d_in=1):
    with seeded_rng_for_tests(0):                      # calling the compositor checks the source
        return dp.c.make_sequential_composition(*SPACE, measure, d_in=d_in, d_out=d_out)(DATA)


def refused(q, measurement, d_mid, error):
    before = q.spent_exact
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises(error):
            q(measurement, d_mid)
    assert q.spent_exact == before


def test_refusals_come_before_the_data_and_charge_nothing():
    q = queryable()
    ok = Recorder()
    lap = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=4.0)             # 0.25 at d_in = 1
    other_domain = Measurement(dp.vector_domain(dp.atom_domain(T=int)), SPACE[1], PURE, lambda x: 0, lambda d: 0.0)
    other_metric = Measurement(SPACE[0], dp.change_one_distance(), PURE, lambda x: 0, lambda d: 0.0)
    cases = [
        (other_domain, 0.1, dp.DomainMismatch), (other_metric, 0.1, dp.MetricMismatch),
        (Recorder(ZCDP).m, 0.1, dp.MeasureMismatch), (lambda x: 0, 0.1, TypeError),
        (ok.m, 0.2, MakeError),                       # check(1, 0.2) fails: the map is 0.25
        (ok.m, -1.0, MapError), (ok.m, math.nan, MapError), (ok.m, "0.5", MapError),
        (ok.m, 1.5, BudgetExceeded),                  # fits check, not the budget
    ]
    for measurement, d_mid, error in cases:
        refused(q, measurement, d_mid, error)
    assert ok.runs == 0 and q.spent == 0.0 and q.remaining == 1.0
    with seeded_rng_for_tests(1):
        assert isinstance(q(lap, 0.25), float) and q(ok.m, 0.5) == 4
    assert ok.runs == 1 and q.spent == 0.75
    refused(q, ok.m, 0.5, BudgetExceeded)
    assert ok.runs == 1 and q.remaining_exact == Fraction(1, 4)


def test_budget_exceeded_is_a_make_error_and_shows_public_numbers_only():
    q = queryable(d_out=0.5)
    with pytest.raises(MakeError) as info:
        q(Recorder(cost=1.0).m, 1.0)
    assert isinstance(info.value, BudgetExceeded) and "0.5" in str(info.value)
    assert "4.0" not in str(info.value) and "1.0, 2.0" not in str(info.value)


def test_a_failing_release_stays_charged_and_a_failing_source_charges_nothing():
    q = queryable()
    bad = Recorder(fail=True)
    with seeded_rng_for_tests(2):
        with pytest.raises(RuntimeError):
            q(bad.m, 0.5)
    assert bad.runs == 1 and q.spent_exact == Fraction(1, 2) and q.queries == 1

    class Broken:
        name = "broken"

        def random_bytes(self, n):
            raise EntropyError("the source failed")

    good = Recorder()
    with samplers.byte_source_for_tests(Broken()):
        with pytest.raises(EntropyError):
            q(good.m, 0.5)
    assert good.runs == 0 and q.spent_exact == Fraction(1, 2) and q.queries == 1


def test_budgets_add_exactly():
    q = queryable(d_out=1.0)
    tenth = Recorder(cost=0.1)
    with seeded_rng_for_tests(3):
        for _ in range(9):
            q(tenth.m, 0.1)
        assert q.spent_exact == 9 * Fraction(0.1)            # 0.1 is a little above 1/10
        with pytest.raises(BudgetExceeded):                  # so a tenth 0.1 does not fit in 1.0
            q(tenth.m, 0.1)
        assert q.remaining_exact == 1 - 9 * Fraction(0.1) and tenth.runs == 9
        q(Recorder(cost=0.0).m, 0.0)                         # a free query always fits
    q = queryable(d_out=0.75)
    quarter = Recorder(cost=0.25)
    with seeded_rng_for_tests(4):
        for _ in range(3):
            q(quarter.m, 0.25)
        assert q.remaining_exact == 0 and q.remaining == 0.0 and q.spent == 0.75
        with pytest.raises(BudgetExceeded):
            q(Recorder(cost=5e-324).m, 5e-324)               # the least positive float does not fit


def test_displayed_budgets_are_rounded_in_the_safe_direction():
    q = queryable(d_out=1.0)
    with seeded_rng_for_tests(5):
        q(Recorder(cost=0.1).m, 0.1)
        q(Recorder(cost=0.2).m, 0.2)
    exact_spent = Fraction(0.1) + Fraction(0.2)
    assert q.spent_exact == exact_spent and Fraction(q.spent) >= exact_spent
    assert Fraction(math.nextafter(q.spent, 0)) < exact_spent              # the least float above
    left = 1 - exact_spent
    assert q.remaining_exact == left and Fraction(q.remaining) <= left
    assert Fraction(math.nextafter(q.remaining, 1)) > left                 # the largest float below


def test_zcdp_budget():
    q = queryable(ZCDP, d_out=0.5)
    gauss = SPACE >> dp.t.then_count() >> dp.m.then_gaussian(scale=2.0)      # rho = 1/8 at d_in = 1
    with seeded_rng_for_tests(6):
        for _ in range(4):
            q(gauss, 0.125)
    assert q.remaining_exact == 0
    refused(q, gauss, 0.125, BudgetExceeded)


def test_approx_budget_is_componentwise():
    q = queryable(APPROX, d_out=(5.0, 1e-6))
    gauss = SPACE >> dp.t.then_count() >> dp.m.then_gaussian(scale=4.0)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), delta=4e-7)
    eps = fixed.map(1)[0]
    with seeded_rng_for_tests(7):
        q(fixed, (eps, 4e-7))
        q(fixed, (eps, 4e-7))
    assert q.spent_exact == (2 * Fraction(eps), 2 * Fraction(4e-7))
    refused(q, fixed, (eps, 4e-7), BudgetExceeded)             # epsilon would fit, delta does not
    pure = dp.c.make_pureDP_to_approxDP(SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=100.0))
    with seeded_rng_for_tests(8):
        q(pure, (0.01, 0.0))
    assert q.spent_exact[1] == 2 * Fraction(4e-7) and q.remaining[1] <= 2e-7
    with pytest.raises(MapError):
        q(pure, 0.01)                                           # a pair is needed


def test_the_map_is_d_out_up_to_d_in():
    sc = dp.c.make_sequential_composition(*SPACE, PURE, d_in=2, d_out=1.5)
    assert sc.map(0) == sc.map(1) == sc.map(2) == 1.5 and sc.check(2, 1.5) and not sc.check(2, 1.4)
    with pytest.raises(MapError, match="d_in"):
        sc.map(3)
    approx = dp.c.make_sequential_composition(*SPACE, APPROX, d_in=1, d_out=(1.0, 1e-9))
    assert approx.map(1) == (1.0, 1e-9)


def test_parameters_are_checked():
    with pytest.raises(TypeError, match="output_measure"):
        dp.c.make_sequential_composition(*SPACE, dp.smoothed_max_divergence(), d_in=1, d_out=1.0)
    with pytest.raises(MapError, match="d_out"):
        dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=-1.0)
    with pytest.raises(MapError, match="d_in"):
        dp.c.make_sequential_composition(*SPACE, PURE, d_in=0.5, d_out=1.0)
    with pytest.raises(TypeError, match="input_domain"):
        dp.c.make_sequential_composition(float, SPACE[1], PURE, d_in=1, d_out=1.0)
    with pytest.raises(TypeError, match="input_metric"):
        dp.c.make_sequential_composition(SPACE[0], "sym", PURE, d_in=1, d_out=1.0)


def test_data_is_admitted_once_when_the_compositor_is_called():
    sc = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises(dp.NotAMember):
            sc([1.0, math.nan])
    assert "1.0, 2.0" not in repr(queryable())


def test_an_infinite_budget():
    q = queryable(d_out=math.inf)
    with seeded_rng_for_tests(9):
        q(Recorder(cost=math.inf).m, math.inf)
        q(Recorder().m, 0.25)
    assert q.spent == math.inf and q.remaining == math.inf


def test_an_interactive_query_is_refused_before_the_data_and_charges_nothing():
    inner = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=0.5)
    q = queryable()
    for wrapped in (inner, inner >> (lambda qb: (qb,)), inner >> (lambda qb: {"q": [qb]}) >> str):
        refused(q, wrapped, 0.5, MakeError)
    z = queryable(ZCDP, d_out=1.0)
    refused(z, dp.c.make_pureDP_to_zCDP(inner) >> (lambda qb: [qb]), 0.125, MakeError)   # cast, then post-processed
    assert q.spent == 0.0 and z.spent == 0.0


@pytest.mark.parametrize("wrap", [lambda qb: qb, lambda qb: (1.0, qb), lambda qb: [[{"k": {qb}}]],
                                  lambda qb: {qb: 1}, lambda qb: np.array([1.0, qb], dtype=object)])
def test_a_released_queryable_is_dropped_and_stays_charged(wrap):
    inner = queryable(d_out=0.5)                  # made elsewhere: a non-interactive-looking release holds it
    q = queryable()
    sneaky = Recorder(release=wrap(inner))
    with seeded_rng_for_tests(10):
        with pytest.raises(MakeError, match="Queryable"):
            q(sneaky.m, 0.5)
    assert q.spent == 0.5 and sneaky.runs == 1


def test_a_self_referencing_release_ends():
    loop = []
    loop.append(loop)
    q = queryable()
    with seeded_rng_for_tests(13):
        assert q(Recorder(release=loop).m, 0.25) is loop


def test_concurrent_queries_never_overspend():
    q = queryable(d_out=1.0)
    quarter = Recorder(cost=0.25)
    outcomes = []
    lock = threading.Lock()

    def ask():
        try:
            q(quarter.m, 0.25)
            result = "ok"
        except BudgetExceeded:
            result = "refused"
        with lock:
            outcomes.append(result)

    with seeded_rng_for_tests(11):
        threads = [threading.Thread(target=ask) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert outcomes.count("ok") == 4 and outcomes.count("refused") == 8 and q.remaining_exact == 0


def test_works_on_frames_with_grouped_queries():
    pd = pytest.importorskip("pandas")
    dom = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
    sc = dp.c.make_sequential_composition(dom, dp.symmetric_distance(), PURE, d_in=1, d_out=1.0)
    with seeded_rng_for_tests(12):
        q = sc(pd.DataFrame({"region": ["N", "S", "N"], "income": [1.0, 5.0, 9.0]}))
        parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("region", keys=["N", "S", "W"])
        median = ((parts.output_domain.part_domain, dp.symmetric_distance()) >> dp.t.then_select_column("income")
                  >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=4.0))
        grouped = parts >> dp.c.then_parallel_composition(median)
        releases = q(grouped, grouped.map(1))
    assert len(releases) == 3 and all(0.0 <= r <= 10.0 for r in releases) and q.spent == 0.5
