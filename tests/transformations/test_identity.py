"""make_identity: any domain and metric in, the same out, the member returned as it is, map d -> d;
a non-member refused before the function runs; anything that is not a domain or a metric refused."""
import numpy as np
import pytest

import opendp_duff as dp

pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("space", [
    (dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()),
    (dp.vector_domain(dp.atom_domain(T=int), size=3), dp.change_one_distance()),
    (dp.dataframe_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance()),
    (dp.atom_domain(T=float), dp.absolute_distance(T=float)),
], ids=["vector", "sized-change-one", "frame", "atom"])
def test_the_identity_keeps_the_space_and_the_distance(space):
    t = dp.t.make_identity(*space)
    assert (t.input_domain, t.input_metric) == (t.output_domain, t.output_metric) == space
    distance = 1.5 if space[1] == dp.absolute_distance(T=float) else 3
    assert t.map(distance) == distance and t.map(0) == 0


def test_a_member_is_returned_as_it_is_and_a_non_member_refused():
    t = dp.t.make_identity(dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance())
    x = np.array([1.0, 2.0])
    assert t(x) is x
    frame = pd.DataFrame({"x": [1.0]})
    frames = dp.t.make_identity(dp.dataframe_domain({"x": dp.atom_domain(T=float)}), dp.symmetric_distance())
    assert frames(frame) is frame
    with pytest.raises(dp.NotAMemberValueError):
        t(np.array([float("nan")]))


def test_not_a_domain_or_not_a_metric_is_refused():
    with pytest.raises(dp.MakeTypeError, match="input_domain"):
        dp.t.make_identity(object(), dp.symmetric_distance())
    with pytest.raises(dp.MakeTypeError, match="input_metric"):
        dp.t.make_identity(dp.vector_domain(dp.atom_domain(T=float)), "symmetric")
