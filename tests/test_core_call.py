"""``Transformation.__call__`` and ``Measurement.__call__`` admit the data before the function
runs and before any randomness is drawn.  Each chain below was found releasing data that is
not a member of its input domain; each is now refused."""
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import samplers
from opendp_duff.errors import NotAMember, NotAMemberTypeError, NotAMemberValueError

SPACE = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
B = 2 ** 53


class NoBytes:
    """A byte source that fails the test if anything asks it for randomness."""

    name = "no bytes"

    def random_bytes(self, n):
        pytest.fail("randomness was drawn for data that is not a member")


def refused(meas, x, error=NotAMember):
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises(error):
            meas(x)


def median_chain():
    return SPACE >> dp.t.then_clamp((0, 10)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=2)


@pytest.mark.parametrize("x,error", [
    ([1.0, math.nan, 3.0], NotAMemberValueError), (np.ones((4, 2)), NotAMemberTypeError),
    (5.0, NotAMemberTypeError), (["1.0", "2.0"], NotAMemberTypeError),
])
def test_median_chain_refuses_non_members(x, error):
    refused(median_chain(), x, error)


def test_median_chain_releases_members():
    with samplers.seeded_rng_for_tests(1):
        assert 0.0 <= median_chain()([1.0, 2.0, 3]) <= 10.0


def test_sized_sum_refuses_the_wrong_number_of_records():
    sized = dp.vector_domain(dp.atom_domain(T=float), size=3), dp.symmetric_distance()
    meas = sized >> dp.t.then_clamp((0, 1)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1)
    refused(meas, [0.5] * 50, NotAMemberValueError)
    with samplers.seeded_rng_for_tests(2):
        assert math.isfinite(meas([0.5] * 3))


@pytest.mark.parametrize("n", [99, 105, 0])
def test_smooth_median_refuses_the_wrong_number_of_records(n):
    sized = dp.vector_domain(dp.atom_domain(T=float), size=100), dp.symmetric_distance()
    meas = sized >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sort() >> dp.m.then_smooth_median(
        t=0.1, s=0.2, noise="student_t")
    refused(meas, [0.5] * n, NotAMemberValueError)


def test_float_scores_beyond_2_53_are_refused():
    scores = dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance()
    noisy_max = scores >> dp.m.then_report_noisy_max_gumbel(scale=1.0)
    refused(noisy_max, [B + 1, B + 2], NotAMemberValueError)
    laplace = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    refused(laplace, B + 1, NotAMemberValueError)
    with samplers.seeded_rng_for_tests(3):
        assert noisy_max([B, B - 1]) in (0, 1) and math.isfinite(laplace(B))


def test_atom_float_domain_refuses_a_huge_integer_without_overflow():
    assert dp.atom_domain(T=float).member(10 ** 400) is False


@pytest.mark.parametrize("x", [[1, None], [1, 1.5], [1, 1.0]])
def test_int_chain_refuses_none_and_floats(x):
    ints = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    mode = ints >> dp.t.then_clamp((0, 9)) >> dp.m.then_duff_mode(candidates=[1, 2], scale=1.0)
    refused(mode, x, NotAMemberTypeError)


def recording_identity():
    """An identity transformation on float vectors, and the list of what its function received."""
    ran = []

    def function(x):
        ran.append(x)
        return x

    dom = dp.vector_domain(dp.atom_domain(T=float))
    return dp.Transformation(dom, dom, dp.symmetric_distance(), dp.symmetric_distance(), function, lambda d: d), ran


def test_transformation_refuses_before_its_function_runs():
    t, ran = recording_identity()
    with pytest.raises(NotAMemberValueError):
        t([math.nan])
    assert ran == []
    assert t([1.0]).tolist() == [1.0] and len(ran) == 1


def test_measurement_admits_then_checks_entropy_then_runs():
    order = []
    dom = dp.atom_domain(T=float)

    class Counting:
        name = "counting"

        def random_bytes(self, n):
            order.append("bytes")
            return bytes(i % 251 for i in range(n))   # not constant: the entropy check passes

    m = dp.Measurement(dom, dp.absolute_distance(), dp.max_divergence(),
                       lambda x: order.append(("function", x)), lambda d: d)
    with samplers.byte_source_for_tests(Counting()):
        with pytest.raises(NotAMemberTypeError):
            m("secret")
        assert order == []
        m(np.float32(0.5))
    assert order == ["bytes", ("function", 0.5)]


def test_composition_and_postprocessing_refuse_too():
    lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    refused(dp.c.make_composition([lap, lap]), None)
    refused(lap >> (lambda y: y + 1), "1.0")
    refused(dp.c.make_pureDP_to_zCDP(lap), math.nan)


SECRET = "831.25"


def test_public_function_admits_before_the_stored_function_runs():
    """``.function`` is the call behind admission: a non-member is refused before the stored
    function sees it, and the message quotes nothing of the data."""
    t, ran = recording_identity()
    for bad in ([SECRET], [float(SECRET), math.nan]):
        with pytest.raises(NotAMember) as info:
            t.function(bad)
        assert SECRET not in str(info.value) and "831" not in repr(info.value.args)
    assert ran == []
    assert t.function([1.0]).tolist() == [1.0] and len(ran) == 1


def test_public_function_of_a_measurement_admits_and_checks_entropy():
    lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises(NotAMemberTypeError) as info:
            lap.function(SECRET)
    assert SECRET not in str(info.value)
    chain = median_chain()
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises(NotAMemberValueError) as info:
            chain.function([1.0, math.nan, float(SECRET)])
    assert SECRET not in str(info.value)
    with samplers.seeded_rng_for_tests(4):
        assert math.isfinite(lap.function(0.5)) and 0.0 <= chain.function([1.0, 2.0]) <= 10.0


def test_the_stored_function_is_private_and_given_as_function():
    dom = dp.atom_domain(T=float)
    m = dp.Measurement(dom, dp.absolute_distance(), dp.max_divergence(), function=lambda x: x, privacy_map=lambda d: d)
    assert m.function == m.__call__ and callable(m._function)
    with pytest.raises(AttributeError):
        m.function = lambda x: x   # frozen: the public name cannot be rebound either
