"""The interactive layer against a careless or hostile analyst (``docs/threat-model.md``).

* No free releases: a query is charged when its function starts and never refunded, so a
  post-processing step that raises an exception carrying the release gets no more answers
  than the budget allows, through ``make_sequential_composition`` and through a Context
  (per-query budgets and shares); ``spent`` is the number of started queries times their cost,
  exactly.  A sampler that fails after the entropy check is charged too.
* No nested interactivity: a compositor, however wrapped (post-processing, casts, a tuple), is
  refused by ``make_composition``, ``make_parallel_composition`` and a Queryable before any data
  is read.
* Only the library's measurements run without consent: a user-built measurement (its own
  function and map, here a map of 0 releasing the data) is refused by the compositors and the
  context unless "honest-but-curious" is on; combinators, ``attrs.evolve``, subclasses and
  equality tricks do not launder it.
"""
import math
from fractions import Fraction

import attrs
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import BudgetExceeded, FeatureNotEnabled, MakeError
from opendp_duff.metrics import SymmetricDistance
from opendp_duff.samplers import seeded_rng_for_tests

SPACE = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
DATA = np.linspace(0.0, 100.0, 101)
PURE = dp.max_divergence()


class Leak(Exception):
    """What a hostile post-processor raises: the release, inside an exception."""

    def __init__(self, release):
        super().__init__("look inside")
        self.release = release


def leak(release):
    raise Leak(release)


def leaky_count(domain, metric):
    """A library-built count (eps = 0.25 at d_in = 1) whose post-processing raises the release."""
    return dp.t.make_count(domain, metric) >> dp.m.then_laplace(scale=4.0) >> leak


def context(**kwargs):
    return dp.Context.compositor(data=DATA, privacy_unit=dp.unit_of(contributions=1),
                                 privacy_loss=dp.loss_of(epsilon=1.0), **kwargs)


def harvest(ask, tries=2000):
    """Ask ``tries`` times; the releases that came back inside exceptions, and the refusals."""
    got, refused = [], 0
    with seeded_rng_for_tests(1):
        for _ in range(tries):
            try:
                ask()
            except Leak as exc:
                got.append(exc.release)
            except BudgetExceeded:
                refused += 1
    return got, refused


# ---- no free releases ---------------------------------------------------------------------

def test_a_raising_post_processor_gets_no_free_release_from_the_compositor():
    queryable = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)
    query = leaky_count(*SPACE)
    assert query.certified                          # post-processing keeps the library's certificate
    got, refused = harvest(lambda: queryable(query, 0.25))
    assert len(got) == 4 and refused == 1996
    assert queryable.queries == 4 and queryable.spent_exact == 4 * Fraction(0.25) == 1


def test_a_raising_post_processor_gets_no_free_release_from_a_context():
    ctx = context()
    got, refused = harvest(lambda: ctx.query(epsilon=0.25).then(dp.PartialConstructor(leaky_count)).release())
    assert len(got) == 4 and refused == 1996
    assert ctx.spent == 1.0 and ctx._queryable.spent_exact == 1 and ctx.remaining == 0.0


def test_a_raising_post_processor_uses_up_its_share():
    ctx = context(split_evenly_over=4)
    got, refused = harvest(lambda: ctx.query().then(dp.PartialConstructor(leaky_count)).release(), tries=50)
    assert len(got) == 4 and refused == 46 and ctx.spent == 1.0
    with pytest.raises(BudgetExceeded, match="shares"):
        ctx.query()


def test_grouped_post_processing_that_raises_is_charged_too():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"g": ["a", "b", "a"], "x": [1.0, 2.0, 3.0]})
    ctx = dp.Context.compositor(data=frame, privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0))
    grouped = ctx.resolve(dp.query().group_by("g", keys=["a", "b"]).column("g").count(), epsilon=0.5)
    measurement = grouped >> leak                    # the library's measurement, post-processed
    with seeded_rng_for_tests(2):
        with pytest.raises(Leak):
            ctx.query(epsilon=0.5).then(dp.PartialConstructor(lambda d, m: measurement)).release()
    assert ctx.spent == 0.5


def test_a_sampler_that_fails_after_the_check_is_charged():
    """The source passes the entropy check, then sticks at zero: the Laplace release's loop bound
    raises EntropyError after the function started, and the query stays charged."""
    class Stuck:
        def __init__(self):
            self.prefix = bytes(range(1, 33))

        def random_bytes(self, n):
            take, self.prefix = self.prefix[:n], self.prefix[n:]
            return take + bytes(n - len(take))

    queryable = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)
    count = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=4.0)
    with dp.samplers.byte_source_for_tests(Stuck()):
        with pytest.raises(dp.samplers.EntropyError):
            queryable(count, 0.25)
    assert queryable.spent == 0.25 and queryable.queries == 1


# ---- no nested interactivity ---------------------------------------------------------------

def compositor(measure=PURE, domain=SPACE[0]):
    d_out = (1.0, 0.0) if measure == dp.approximate_divergence() else 1.0
    return dp.c.make_sequential_composition(domain, SPACE[1], measure, d_in=1, d_out=d_out)


@pytest.mark.parametrize("wrap", [
    lambda c: c, lambda c: c >> (lambda q: (q, 1)), lambda c: c >> (lambda q: {"q": [q]}) >> str,
    lambda c: dp.t.make_clamp(*SPACE, (0.0, 1.0)) >> dp.c.then_sequential_composition(PURE, d_in=1, d_out=1.0),
], ids=["bare", "tuple", "dict_then_str", "after_a_transformation"])
def test_make_composition_refuses_a_compositor_however_wrapped(wrap):
    wrapped = wrap(compositor())
    assert wrapped.interactive
    lap = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    for parts in ([wrapped], [lap, wrapped]):
        with pytest.raises(MakeError, match="interactive"):
            dp.c.make_composition(parts)


def test_casts_keep_interactivity_and_are_refused():
    cast = dp.c.make_pureDP_to_zCDP(compositor())
    assert cast.interactive and cast.output_measure == dp.zero_concentrated_divergence()
    with pytest.raises(MakeError, match="interactive"):
        dp.c.make_composition([cast >> (lambda q: (q,))])
    approx = dp.c.make_pureDP_to_approxDP(compositor())
    outer = compositor(dp.approximate_divergence())(DATA)
    with pytest.raises(MakeError, match="interactive"):
        outer(approx, (1.0, 0.0))
    assert outer.spent == (0.0, 0.0)


def test_parallel_composition_refuses_an_interactive_part():
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a", "b"])
    part_domain = parts.output_domain.part_domain
    inner = dp.c.make_sequential_composition(part_domain, dp.symmetric_distance(), PURE, d_in=1, d_out=1.0)
    for wrapped in (inner, inner >> (lambda q: [q])):
        with pytest.raises(MakeError, match="interactive"):
            parts >> dp.c.then_parallel_composition(wrapped)


def test_a_queryable_refuses_an_interactive_query_before_the_data():
    outer = compositor()(DATA)
    for wrapped in (compositor(), compositor() >> (lambda q: (q,))):
        with pytest.raises(MakeError, match="interactive"):
            outer(wrapped, 0.5)
    assert outer.spent == 0.0 and outer.queries == 0


def test_the_spark_grouped_release_refuses_an_interactive_or_user_built_part():
    # one parallel composition for every engine: on a Spark frame domain (no pyspark needed to build)
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=int), "x": dp.atom_domain(T=float)}, engine="spark")
    parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=[1, 2])
    part = parts.output_domain.part_domain
    inner = dp.c.make_sequential_composition(part, dp.symmetric_distance(), PURE, d_in=1, d_out=1.0)
    with pytest.raises(MakeError, match="interactive"):
        parts >> dp.c.then_parallel_composition(inner >> (lambda q: (q,)))
    library = ((part, dp.symmetric_distance()) >> dp.t.then_select_column("x") >> dp.t.then_count()
               >> dp.m.then_laplace(scale=1.0))
    assert (parts >> dp.c.then_parallel_composition(library)).certified
    user = dp.Measurement(part, dp.symmetric_distance(), PURE, lambda f: 0, lambda d: d)
    refused(lambda: parts >> dp.c.then_parallel_composition(user))
    dp.enable_features("honest-but-curious")
    try:
        assert not (parts >> dp.c.then_parallel_composition(user)).certified
    finally:
        dp.disable_features("honest-but-curious")


# ---- only the library's measurements, unless the analyst is trusted ------------------------------

def the_column():
    """A user-built measurement: map 0, function the data itself."""
    return dp.Measurement(SPACE[0], SPACE[1], PURE, lambda x: np.asarray(x).tolist(), lambda d: 0.0)


def refused(action):
    with pytest.raises(FeatureNotEnabled, match="honest-but-curious") as info:
        action()
    assert info.value.feature == "honest-but-curious"


def test_a_user_built_measurement_is_refused_by_the_compositor():
    queryable = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)
    user = the_column()
    assert not user.certified
    for wrapped in (user, user >> str, dp.c.make_pureDP_to_approxDP(user)):
        if wrapped.output_measure == PURE:
            refused(lambda w=wrapped: queryable(w, 0.0))
    assert queryable.spent == 0.0 and queryable.queries == 0


def test_a_user_built_measurement_is_refused_by_a_context():
    ctx = context()
    partial = dp.PartialConstructor(lambda d, m: the_column())
    refused(lambda: ctx.query().then(partial).release())
    refused(lambda: ctx.query(epsilon=0.5).then(partial).release())
    assert ctx.spent == 0.0


def test_a_user_built_part_is_refused_by_the_other_compositors():
    refused(lambda: dp.c.make_composition([the_column()]))
    dom = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
    parts = (dom, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a"])
    user = dp.Measurement(parts.output_domain.part_domain, dp.symmetric_distance(), PURE, len, lambda d: 0.0)
    refused(lambda: parts >> dp.c.then_parallel_composition(user))


def test_with_honest_but_curious_the_user_built_measurement_runs(honest_but_curious):
    queryable = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)
    assert queryable(the_column(), 0.0) == DATA.tolist()
    ctx = context()
    assert ctx.query().then(dp.PartialConstructor(lambda d, m: the_column())).release() == DATA.tolist()
    assert dp.c.make_composition([the_column()])(DATA) == (DATA.tolist(),)


def test_combinators_and_copies_do_not_launder_a_user_built_piece():
    lap = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    count = dp.t.make_count(*SPACE)
    user_t = dp.Transformation(SPACE[0], count.output_domain, SPACE[1], count.output_metric,
                               lambda x: 0, lambda d: 0)
    user_m = dp.Measurement(count.output_domain, count.output_metric, PURE, lambda y: y, lambda d: 0.0)
    assert lap.certified and count.certified
    suspects = {
        "user transformation >> library measurement": user_t >> dp.m.then_laplace(scale=1.0),
        "library transformation >> user measurement": count >> user_m,
        "evolve with a zero map": attrs.evolve(lap, privacy_map=lambda d: 0.0),
        "library function, library map, user-made": dp.Measurement(
            lap.input_domain, lap.input_metric, PURE, count._function, lap.privacy_map),
        "public function attribute reused": dp.Measurement(
            lap.input_domain, lap.input_metric, PURE, count.function, lap.privacy_map),
        "cast of a user measurement": dp.c.make_pureDP_to_zCDP(count >> user_m),
    }
    for name, m in suspects.items():
        assert not m.certified, name
    for m in suspects.values():
        if m.output_measure == PURE:
            with pytest.raises(FeatureNotEnabled):
                dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)(m, 1.0)


def test_a_subclass_is_never_certified():
    class Mine(dp.Measurement):
        pass

    lap = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
    mine = Mine(lap.input_domain, lap.input_metric, PURE, lap._function, lap.privacy_map)
    assert not mine.certified and not dp.core.certified(mine)


def test_a_metric_that_claims_equality_does_not_fit():
    """A subclass redefining == would be asked first by Python; the fit compares exact types."""
    class Lenient(SymmetricDistance):
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = SymmetricDistance.__hash__

        def validate_distance(self, d, name="d_in"):
            return 0

    lying = dp.t.make_count(SPACE[0], Lenient()) >> dp.m.then_laplace(scale=1e-9)
    assert lying.map(1) == 0.0                   # its own map believes the lie
    queryable = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=1.0)(DATA)
    with pytest.raises(dp.MetricMismatch):
        queryable(lying, 1.0)
    with pytest.raises(dp.MetricMismatch):
        dp.c.make_composition([SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0), lying])


def test_a_custom_smooth_noise_record_is_refused():
    from opendp_duff.smooth.noises import NOISES
    forged = attrs.evolve(NOISES["student_t"], one_step=lambda *a: 0.0)
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=10), dp.symmetric_distance()
    with pytest.raises(dp.MakeTypeError, match="registry"):
        space >> dp.t.then_sort() >> dp.m.then_smooth_median(t=0.1, s=0.2, noise=forged)


def test_every_library_mechanism_of_the_context_is_certified():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"g": ["a", "b", "a"] * 10, "x": np.linspace(0.0, 10.0, 30)})
    unit = dp.unit_of(contributions=1)
    for loss in (dp.loss_of(epsilon=1.0), dp.loss_of(rho=0.5), dp.loss_of(epsilon=1.0, delta=1e-6)):
        ctx = dp.Context.compositor(data=frame, privacy_unit=unit, privacy_loss=loss, split_evenly_over=8,
                                    domain=FRAME)
        queries = [ctx.query().column("x").clamp((0.0, 10.0)).median(),
                   ctx.query().column("x").clamp((0.0, 10.0)).quantile(0.25),
                   ctx.query().column("x").clamp((0.0, 10.0)).mean(),
                   ctx.query().column("g").mode(candidates=["a", "b"]),
                   ctx.query().column("x").count(),
                   ctx.query().group_by("g", keys=["a", "b", "c"]).column("x").clamp((0.0, 10.0)).median()]
        for query in queries:
            assert query.resolve().certified, query


def test_an_infinite_cost_is_refused_as_over_budget():
    ctx = context()
    with pytest.raises(BudgetExceeded, match="inf"):
        ctx.query().then(dp.t.then_count()).laplace(scale=0.0).release()
    assert ctx.spent == 0.0
    unbounded = dp.c.make_sequential_composition(*SPACE, PURE, d_in=1, d_out=math.inf)(DATA)
    exact_count = SPACE >> dp.t.then_count() >> dp.m.then_laplace(scale=0.0)
    assert unbounded(exact_count, math.inf) == 101 and unbounded.spent == math.inf


COUNT = dp.t.make_count(*SPACE)
INTS = COUNT.output_domain, COUNT.output_metric
CLAMP = dp.t.make_clamp(*SPACE, (0.0, 1.0))
CLAMPED = CLAMP.output_domain, CLAMP.output_metric
FRAME = dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)})
PARTS = (FRAME, dp.symmetric_distance()) >> dp.t.then_partition_by("g", keys=["a"])
PART_SPACE = PARTS.output_domain.part_domain, dp.symmetric_distance()


def user_t(space, out):
    return dp.Transformation(space[0], out[0], space[1], out[1], lambda x: x, lambda d: d)


def user_m(space, measure=PURE):
    return dp.Measurement(space[0], space[1], measure, lambda x: 0, lambda d: d)


def lap():
    return INTS >> dp.m.then_laplace(scale=1.0)


def gauss():
    return INTS >> dp.m.then_gaussian(scale=1.0)


# Every library constructor that takes a measurement or transformation: the part, built by the
# user or by the library, and what the constructor makes of it.
COMBINATORS = {
    "make_chain_tt (first)": (lambda: user_t(SPACE, SPACE), lambda: dp.t.make_clamp(*SPACE, (0.0, 1.0)),
                              lambda t: t >> dp.t.then_count()),
    "make_chain_tt (second)": (lambda: user_t(CLAMPED, CLAMPED), lambda: dp.t.make_sort(*CLAMPED),
                               lambda t: CLAMP >> t),
    "make_chain_mt (transformation)": (lambda: user_t(SPACE, INTS), lambda: COUNT,
                                       lambda t: t >> dp.m.then_laplace(scale=1.0)),
    "make_chain_mt (measurement)": (lambda: user_m(INTS), lap, lambda m: COUNT >> m),
    "make_chain_pm": (lambda: user_m(INTS), lap, lambda m: m >> str),
    "make_pureDP_to_zCDP": (lambda: user_m(INTS), lap, dp.c.make_pureDP_to_zCDP),
    "make_pureDP_to_approxDP": (lambda: user_m(INTS), lap, dp.c.make_pureDP_to_approxDP),
    "make_zCDP_to_approxDP": (lambda: user_m(INTS, dp.zero_concentrated_divergence()), gauss,
                              dp.c.make_zCDP_to_approxDP),
    "make_fix_delta": (lambda: user_m(INTS, dp.zero_concentrated_divergence()), gauss,
                       lambda m: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), 1e-6)),
    "make_composition": (lambda: user_m(INTS), lap, lambda m: dp.c.make_composition([lap(), m])),
    "make_parallel_composition": (
        lambda: user_m(PART_SPACE),
        lambda: PART_SPACE >> dp.t.then_select_column("x") >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0),
        lambda m: PARTS >> dp.c.then_parallel_composition(m)),
}


@pytest.mark.usefixtures("honest_but_curious")
@pytest.mark.parametrize("name", sorted(COMBINATORS))
def test_every_combinator_derives_its_certificate_from_its_parts(name):
    user, library, combine = COMBINATORS[name]
    assert not user().certified and library().certified
    assert not combine(user()).certified
    assert combine(library()).certified
