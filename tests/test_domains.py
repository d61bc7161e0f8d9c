"""atom_domain and vector_domain: membership (bounds, NaN, sortedness, size, 64-bit integers) and
bad arguments."""
import math

import numpy as np
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


def test_atom_domain_membership():
    d = dp.atom_domain(T=float, bounds=(0.0, 1.0))
    assert d.member(0.0) and d.member(1.0) and d.member(0.5)
    assert not d.member(1.5) and not d.member(math.nan) and not d.member(True) and not d.member("0.5")
    assert dp.atom_domain(T=float).member(math.inf)
    assert not dp.atom_domain(T=float).member(math.nan)
    assert dp.atom_domain(T=float, nan=True).member(math.nan)
    assert dp.atom_domain(T=int).member(3) and not dp.atom_domain(T=int).member(3.5)


def test_vector_domain_membership():
    bounded = dp.atom_domain(T=float, bounds=(0.0, 1.0))
    v = dp.vector_domain(bounded, size=2, sorted=True)
    assert v.member([0.1, 0.2]) and v.member(np.array([0.1, 0.2]))
    assert not v.member([0.2, 0.1])           # unsorted
    assert not v.member([0.1])                # wrong size
    assert not v.member([0.1, 2.0])           # out of bounds
    assert not v.member([[0.1, 0.2]])         # not 1-d
    assert not v.member("ab")
    assert dp.vector_domain(bounded).member([])
    assert not FLOATS.member([1.0, math.nan])


@pytest.mark.parametrize("bounds", [(math.nan, 1.0), (0.0, math.inf), (-math.inf, 0.0), (2.0, 1.0),
                                    (True, 2.0), ("0", 1.0), (0.0,), [0.0, 1.0, 2.0]])
def test_bad_bounds(bounds):
    with pytest.raises((TypeError, ValueError), match="bounds"):
        dp.atom_domain(T=float, bounds=bounds)


def test_bad_domain_arguments():
    with pytest.raises(TypeError, match="T"):
        dp.atom_domain(T=bytes)   # str is a record type; bytes is not
    with pytest.raises(TypeError, match="element_domain"):
        dp.vector_domain(float)
    with pytest.raises((TypeError, ValueError), match="size"):
        dp.vector_domain(dp.atom_domain(), size=-1)
    with pytest.raises(TypeError, match="sorted"):
        dp.vector_domain(dp.atom_domain(), sorted="yes")


def test_int_domains_are_64_bit():
    ints = dp.atom_domain(T=int)
    assert ints.member(2 ** 63 - 1) and not ints.member(2 ** 63) and not ints.member(-2 ** 63 - 1)
    vec = dp.vector_domain(ints)
    assert not vec.member([2 ** 70, 1])
    assert not vec.member(np.array([2 ** 64 - 1], dtype=np.uint64))
    assert vec.member(np.array([5], dtype=np.uint64))
    t = dp.t.make_sort(vec, dp.symmetric_distance())
    assert t([2 ** 62, 1]).tolist() == [1, 2 ** 62]


def test_the_domain_classes_validate_their_fields_however_built():
    """atom_domain's checks are the class's: a direct AtomDomain (or attrs.evolve) cannot hold NaN
    together with bounds, which would admit values outside the bounds."""
    import attrs
    from opendp_duff.errors import MakeError, MakeTypeError
    with pytest.raises(MakeError, match="nan"):
        dp.AtomDomain(float, (0.0, 1.0), True)
    with pytest.raises(MakeError, match="nan"):
        attrs.evolve(dp.atom_domain(T=float, bounds=(0.0, 1.0)), nan=True)
    with pytest.raises(MakeError, match="lo <= hi"):
        dp.AtomDomain(float, (1.0, 0.0))
    with pytest.raises(MakeError):
        dp.AtomDomain(float, (0.0, math.nan))
    with pytest.raises(MakeError, match="only meaningful"):
        dp.AtomDomain(int, None, True)
    with pytest.raises(MakeTypeError):
        dp.AtomDomain(bool)
    with pytest.raises(MakeError):
        dp.VectorDomain(dp.atom_domain(T=str), sorted=True)
    with pytest.raises(MakeError):
        dp.VectorDomain(dp.atom_domain(T=float), size=-1)
    with pytest.raises(MakeTypeError):
        dp.VectorDomain("float")
    assert dp.AtomDomain(float, (0, 1)) == dp.atom_domain(T=float, bounds=(0.0, 1.0))   # converted alike
    assert dp.AtomDomain(float, None, True).member(math.nan)
