"""The privacy maps and the parameter solver reach transcendental functions only through
opendp_duff.arithmetic (outward rounded, libm-independent there), never math.* or numpy directly:
with those names removed from the smooth modules, every map and every solved parameter is
unchanged."""
import math

import pytest

import opendp_duff as dp
from opendp_duff.measurements import smooth_sensitivity as msm
from opendp_duff.smooth import maps, noises, parameters

TRANSCENDENTAL = {"exp", "expm1", "log", "log1p", "log2", "log10", "pow", "sinh", "cosh", "asinh", "erf", "erfc",
                  "gamma", "lgamma"}


class _NoTranscendentals:
    """``math`` without its transcendental functions."""

    def __getattr__(self, name):
        if name in TRANSCENDENTAL:
            raise AssertionError(f"math.{name} used directly")
        return getattr(math, name)


CASES = [("lln", dict(sigma=0.6)), ("uln", {}), ("arsinh_normal", {}), ("student_t", {}),
         ("polynomial_tail", dict(gamma=3.0)), ("laplace", dict(delta=1e-6))]


def _maps_and_parameters():
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=101, sorted=True)
    out = []
    for noise, kw in CASES:
        meas = dp.m.make_smooth_median(dom, dp.change_one_distance(), t=0.05, s=0.3, noise=noise, **kw)
        out.append([meas.map(k) for k in (0, 1, 2, 5)])
        budget = dict(epsilon=1.0, delta=1e-6) if noise == "laplace" else dict(epsilon=1.0)
        out.append(dp.smooth.smooth_parameters(noise, size=101, t=0.05, **budget))
    return out


def test_no_module_of_the_maps_imports_numpy():
    for module in (maps, noises):
        assert not hasattr(module, "np") and not hasattr(module, "numpy")


def test_maps_and_parameters_do_not_call_libm_directly(monkeypatch):
    before = _maps_and_parameters()
    for module in (maps, noises, parameters, msm):
        if hasattr(module, "math"):
            monkeypatch.setattr(module, "math", _NoTranscendentals())
    assert _maps_and_parameters() == before


def test_the_guard_is_not_vacuous(monkeypatch):
    monkeypatch.setattr(maps, "math", _NoTranscendentals())
    with pytest.raises(AssertionError, match="math.exp"):
        maps.math.exp(1.0)
