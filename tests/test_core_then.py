"""``then_x`` (core.then): the real signature of make_x without the input space, arguments
bound at call time, and make_x's documentation."""
import inspect

import pytest

import opendp_duff as dp

THEN_NAMES = [n for mod in (dp.t, dp.m) for n in mod.__all__ if n.startswith("then_")]


def test_then_duff_median_shows_scale():
    sig = inspect.signature(dp.m.then_duff_median)
    assert list(sig.parameters) == ["scale"]


@pytest.mark.parametrize("name", THEN_NAMES)
def test_then_has_the_signature_of_make_without_the_input_space(name):
    mod = dp.t if name in dp.t.__all__ else dp.m
    then_x, make_x = getattr(mod, name), getattr(mod, name.replace("then_", "make_", 1))
    make_params = list(inspect.signature(make_x).parameters.values())
    assert [p.name for p in make_params[:2]] == ["input_domain", "input_metric"]
    assert list(inspect.signature(then_x).parameters.values()) == make_params[2:]
    assert then_x.__name__ == name
    assert inspect.cleandoc(make_x.__doc__) in then_x.__doc__


def test_arguments_are_bound_when_then_is_called():
    with pytest.raises(TypeError, match="scal"):
        dp.m.then_laplace(scal=1.0)
    with pytest.raises(TypeError):
        dp.m.then_laplace()
    with pytest.raises(TypeError):
        dp.t.then_clamp((0.0, 1.0), (2.0, 3.0))


def test_then_builds_what_make_builds():
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    partial = dp.t.then_clamp(bounds=(0.0, 1.0))
    assert "then_clamp(bounds=(0.0, 1.0))" in repr(partial)
    via_then, via_make = space >> partial, dp.t.make_clamp(*space, bounds=(0.0, 1.0))
    assert via_then.output_domain == via_make.output_domain and via_then.map(3) == via_make.map(3)
    assert (space >> partial)([2.0]).tolist() == [1.0]
