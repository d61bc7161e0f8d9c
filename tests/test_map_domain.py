"""opendp_duff.map_domain (maps key -> value, counts per key) and the metric on them,
L01InfDistance: members and canonical forms, refusals that never quote a key or a value,
foreign mappings that raise, and the validation of (l0, l1, linf) distances."""
import collections
import math

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.errors import NotAMemberTypeError, NotAMemberValueError
from opendp_duff.map_domain import MapDomain, count_map_domain, map_domain
from opendp_duff.metrics import L01InfDistance, PartitionBound, l01inf_distance

COUNTS = count_map_domain(str)


def test_members_and_canonical_forms():
    assert COUNTS.member({"a": 1, "b": 0}) and COUNTS.member({}) and COUNTS.member(collections.Counter("aab"))
    out = COUNTS.admit({np.str_("a"): np.int64(3)})
    assert out == {"a": 3} and type(next(iter(out))) is str and type(out["a"]) is int
    floats = count_map_domain(float).admit({-0.0: 2, np.float32(0.5): 1, 3: 1})
    assert list(floats) == [0.0, 0.5, 3.0] and math.copysign(1, list(floats)[0]) == 1
    assert count_map_domain(int).admit({np.int8(4): 2}) == {4: 2}


@pytest.mark.parametrize("bad,error", [
    (["secret"], NotAMemberTypeError), ("secret", NotAMemberTypeError), ({"secret": -4}, NotAMemberValueError),
    ({"secret": 2 ** 54}, NotAMemberValueError), ({"secret": 1.0}, NotAMemberTypeError),
    ({31415: 1}, NotAMemberTypeError), ({b"secret": 1}, NotAMemberTypeError), ({"secret": True}, NotAMemberTypeError)])
def test_non_members_are_refused_without_quoting_them(bad, error):
    assert not COUNTS.member(bad)
    with pytest.raises(error) as info:
        COUNTS.admit(bad)
    text = str(info.value) + repr(info.value.args)
    assert "secret" not in text and "31415" not in text and str(2 ** 54) not in text


def test_nan_keys_and_colliding_keys_are_refused():
    floats = count_map_domain(float)
    with pytest.raises(NotAMemberValueError):
        floats.admit({math.nan: 1})

    class Twins(collections.abc.Mapping):     # two distinct keys that convert to one float
        def __getitem__(self, k):
            return 1

        def __iter__(self):
            return iter([np.float64(0.5), np.float16(0.5)])

        def __len__(self):
            return 2

        def items(self):
            return [(np.float64(0.5), 1), (np.float16(0.5), 1)]

    with pytest.raises(NotAMemberValueError, match="distinct"):
        floats.admit(Twins())


def test_a_mapping_that_raises_is_refused_without_its_error():
    class Hostile(collections.abc.Mapping):
        def __getitem__(self, k):
            raise KeyError("secret")

        def __iter__(self):
            raise RuntimeError("secret")

        def __len__(self):
            return 1

    with pytest.raises(NotAMemberTypeError) as info:
        COUNTS.admit(Hostile())
    assert "secret" not in str(info.value) and info.value.__cause__ is None


def test_map_domain_validation_and_repr():
    assert isinstance(COUNTS, MapDomain) and "MapDomain(keys=AtomDomain(T=str)" in repr(COUNTS)
    with pytest.raises(TypeError, match="key_domain"):
        map_domain("str", dp.atom_domain(T=int))
    with pytest.raises(ValueError, match="labels"):
        map_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), dp.atom_domain(T=int))
    with pytest.raises(ValueError, match="labels"):
        map_domain(dp.atom_domain(T=float, nan=True), dp.atom_domain(T=int))
    assert map_domain(dp.atom_domain(T=int), dp.atom_domain(T=int)) == MapDomain(dp.atom_domain(T=int),
                                                                                 dp.atom_domain(T=int))


def test_l01inf_distance():
    metric = l01inf_distance()
    assert metric == L01InfDistance() and metric.distance_type is PartitionBound
    assert metric.validate_distance([1, 2, 2]) == PartitionBound(1, 2, 2)
    for bad in [(1, 2), (1, -1, 1), (1, 1.5, 1), "abc", (1, 1, math.inf)]:
        with pytest.raises(ValueError):
            metric.validate_distance(bad)


def test_tuple_keys_of_several_columns():
    """Keys of several columns: tuples of as many values, each checked by its domain (a float
    zero canonical as +0.0); a key domain of one element, or with NaN or bounds, is refused."""
    counts = map_domain((dp.atom_domain(T=str), dp.atom_domain(T=float)), dp.atom_domain(T=int))
    assert counts.admit({("JFK", -0.0): 2, ("LGA", 1.5): 1}) == {("JFK", 0.0): 2, ("LGA", 1.5): 1}
    assert str(counts.admit({("JFK", -0.0): 2})) == "{('JFK', 0.0): 2}"
    for bad in ({"JFK": 1}, {("JFK",): 1}, {("JFK", 0.0, 1.0): 1}, {("JFK", "x"): 1}, {("JFK", float("nan")): 1}):
        assert not counts.member(bad)
    with pytest.raises(ValueError, match="at least two"):
        map_domain((dp.atom_domain(T=str),), dp.atom_domain(T=int))
    with pytest.raises(ValueError, match="labels"):
        map_domain((dp.atom_domain(T=str), dp.atom_domain(T=float, nan=True)), dp.atom_domain(T=int))
    with pytest.raises(TypeError, match="key_domain"):
        map_domain((dp.atom_domain(T=str), "float"), dp.atom_domain(T=int))
