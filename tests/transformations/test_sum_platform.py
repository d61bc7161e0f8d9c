"""make_sum checks what its proof assumes: IEEE binary64 round-to-nearest without double
rounding (an exact probe, shown to catch a simulated x87 double rounding) and n < 2^40."""
import math
from fractions import Fraction

import pytest

import opendp_duff as dp
from opendp_duff.transformations import sum as sum_module


def round_to_bits(q, bits):
    """The nearest number with a ``bits``-bit significand to the rational q (ties to even)."""
    if q == 0:
        return q
    e = math.floor(math.log2(abs(q)))
    while Fraction(2) ** e > abs(q):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(q):
        e += 1
    scale = Fraction(2) ** (bits - 1 - e)
    return Fraction(round(q * scale)) / scale          # Fraction rounds half to even


def double_rounding_add(a, b):
    """a + b rounded first to a 64-bit significand (x87 extended), then to binary64."""
    return float(round_to_bits(Fraction(a) + Fraction(b), 64))


def upward_add(a, b):
    exact = Fraction(a) + Fraction(b)
    f = float(exact)
    return f if Fraction(f) >= exact else math.nextafter(f, math.inf)


def test_this_platform_passes_the_probe():
    assert sum_module.binary64_probe() and sum_module.BINARY64


@pytest.mark.parametrize("add", [double_rounding_add, upward_add], ids=["x87 double rounding", "upward"])
def test_the_probe_catches_a_wrong_adder(add):
    assert not sum_module.binary64_probe(add=add)


def test_the_probe_catches_a_wrong_fsum():
    assert not sum_module.binary64_probe(fsum=lambda xs: double_rounding_add(double_rounding_add(*xs[:2]), xs[2]))


def test_construction_refuses_a_platform_that_fails_the_probe(monkeypatch):
    monkeypatch.setattr(sum_module, "BINARY64", False)
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=3)
    with pytest.raises(ValueError, match="double"):
        dp.t.make_sum(dom, dp.symmetric_distance())


def test_construction_refuses_sizes_from_2_40():
    ok = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=2 ** 40 - 1)
    dp.t.make_sum(ok, dp.symmetric_distance())
    for n in (2 ** 40, 2 ** 41):
        dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=n)
        with pytest.raises(ValueError, match="2\\^40"):
            dp.t.make_sum(dom, dp.symmetric_distance())
