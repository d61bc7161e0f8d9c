"""Privacy maps do not rest on the platform's libm.

``math.exp``, ``math.log``, ``math.log1p`` and ``math.expm1`` (and every alias of them held by a
module of the package) are replaced by versions whose results are 1e-12 relatively too low, or
too high; then every public constructor of ``dp.m`` and ``dp.c`` is built and mapped over a grid
of parameters and d_in.  Each map must come out unchanged or larger than with the real libm: a
map that leaned on libm being accurate would shrink under one of the two perturbations.

The registry ``CASES`` has an entry for every name in ``dp.m.__all__`` and ``dp.c.__all__``
(a constructor added without one fails ``test_every_public_name_has_an_entry``); entries for
names that are not public (any more) are not run.  Names that are
not constructors (samplers, parameter helpers) are listed in ``HELPERS`` with what is checked
instead: parameter helpers must return parameters whose measurement, mapped with the real libm,
meets the budget they were asked for.

What this cannot see: constants computed with libm when a module is imported (they are fixed
before the patch), and numpy's transcendental functions.  The platform assumptions that remain
are listed in ``proofs/platform.tex``.
"""
from __future__ import annotations

import contextlib
import functools
import math
import sys
from typing import Callable, Iterator

import pytest

import opendp_duff as dp
from opendp_duff.experiments import _baselines
from opendp_duff.map_domain import count_map_domain
from opendp_duff.measures import PrivacyProfile
from opendp_duff.metrics import l01inf_distance

PATCHED = ("exp", "log", "log1p", "expm1")
REAL = {name: getattr(math, name) for name in PATCHED}
REL = 1e-12
DELTAS = (1e-300, 1e-12, 1e-6, 1e-3, 0.1, 0.5)          # where a privacy profile is read
FLOAT_D_INS = (0.0, 5e-324, 1e-9, 0.5, 1.0, 3.0, 1e6)
INT_D_INS = (0, 1, 2, 5, 40)


def _skewed(fn: Callable[..., float], sign: int) -> Callable[..., float]:
    """fn with results moved by 1e-12 of their magnitude: down (sign -1) or up (sign +1)."""
    @functools.wraps(fn)
    def skewed(*args):
        r = fn(*args)
        return r + sign * REL * abs(r) if math.isfinite(r) else r
    return skewed


def _clear_caches() -> None:
    """Empty every memo of the package (a value cached with the real libm must not answer)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("opendp_duff"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@contextlib.contextmanager
def skewed_libm(sign: int) -> Iterator[list[str]]:
    """Patch math.<f> and every module attribute of the package that is math.<f>; yield the
    patched places."""
    mp = pytest.MonkeyPatch()
    places = []
    try:
        for name, fn in REAL.items():
            fake = _skewed(fn, sign)
            mp.setattr(math, name, fake)
            places.append(f"math.{name}")
            for mod_name, module in list(sys.modules.items()):
                if not mod_name.startswith("opendp_duff"):
                    continue
                for attr, value in list(vars(module).items()):
                    if value is fn:
                        mp.setattr(module, attr, fake)
                        places.append(f"{mod_name}.{attr}")
        _clear_caches()
        yield places
    finally:
        mp.undo()
        _clear_caches()


def test_the_patch_reaches_math_and_its_aliases():
    with skewed_libm(-1) as places:
        assert math.exp(1.0) < REAL["exp"](1.0) and math.log(0.5) < REAL["log"](0.5)
        assert set(f"math.{n}" for n in PATCHED) <= set(places)
    assert math.exp is REAL["exp"]


# ---- the grid ------------------------------------------------------------------------------

LO, HI, N = -2.0, 5.0, 7
NOISES = {"lln": {"sigma": 0.9}, "uln": {}, "arsinh_normal": {}, "student_t": {"d": 3.0},
          "polynomial_tail": {"gamma": 2.5}, "laplace": {"delta": 1e-6}}
TS = ((0.01, 0.3), (0.1, 0.05), (0.5, 0.01))           # (t, s) pairs for the smooth maps


def atom():
    return dp.atom_domain(T=float), dp.absolute_distance(T=float)


def sorted_space(metric=None, n=N):
    space = dp.vector_domain(dp.atom_domain(T=float), size=n), metric or dp.symmetric_distance()
    return space >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sort()


def gaussian(scale=1.5):
    return dp.m.make_gaussian(*atom(), scale=scale)


def laplace(scale=1.5):
    return dp.m.make_laplace(*atom(), scale=scale)


def smooth(statistic, noise, metric, t, s, then):
    kw = dict(t=t, s=s, noise=noise, **NOISES[noise])
    if statistic == "trimmed_mean":
        kw["m"] = 2
        if then:
            return sorted_space(metric) >> dp.m.then_smooth_trimmed_mean(**kw)
        return dp.m.make_smooth_trimmed_mean(*_sorted_pair(metric), **kw)
    if then:
        return sorted_space(metric) >> dp.m.then_smooth_median(**kw)
    return dp.m.make_smooth_median(*_sorted_pair(metric), **kw)


def _sorted_pair(metric):
    chain = sorted_space(metric)
    return chain.output_domain, chain.output_metric


def _smooth_cases(statistic, then):
    return [(f"{statistic}[{noise},{metric_name},t={t},s={s}]",
             functools.partial(smooth, statistic, noise, metric(), t, s, then))
            for noise in NOISES for metric_name, metric in (("change_one", dp.change_one_distance),
                                                             ("symmetric", dp.symmetric_distance))
            for t, s in TS]


def _baseline_cases(then):
    def build(name, eps, delta, t):
        if then:
            return sorted_space(dp.change_one_distance()) >> _baselines.then_smooth_median_baseline(
                name, eps, delta, t=t)
        return _baselines.make_smooth_median_baseline(*_sorted_pair(dp.change_one_distance()), name, eps,
                                                delta, t=t)
    return [("SMOOTHSENS_eps", functools.partial(build, "SMOOTHSENS_eps", 1.0, None, None)),
            ("SMOOTHSENS_eps_delta", functools.partial(build, "SMOOTHSENS_eps_delta", 1.0, 1e-3, 0.05)),
            ("LAPLACELN", functools.partial(build, "LAPLACELN", 1.0, 1e-6, 0.1))]


def _scaled(make, scales, *args, **kw):
    return [(f"scale={s}", functools.partial(make, *args, scale=s, **kw)) for s in scales]


SCALES = (0.3, 1.5, 10.0)
CANDS = [0.0, 1.0, 2.0]
VEC_L1 = (dp.vector_domain(dp.atom_domain(T=float)), dp.l1_distance(T=float))
VEC_L2 = (dp.vector_domain(dp.atom_domain(T=float)), dp.l2_distance(T=float))
RAW = (dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance())
SCORES = (dp.vector_domain(dp.atom_domain(T=float)), dp.linf_distance(monotonic=True))
ZCDP = dp.zero_concentrated_divergence()


def _compositions():
    return [
        ("pure", lambda: dp.c.make_composition([laplace(0.7), laplace(3.0), laplace(11.0)])),
        ("zCDP", lambda: dp.c.make_composition([gaussian(0.7), gaussian(3.0)])),
        ("approx", lambda: dp.c.make_composition([
            dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian(s)), delta=1e-7) for s in (0.5, 2.0)])),
        ("smooth laplace", lambda: dp.c.make_composition([
            smooth("median", "laplace", dp.change_one_distance(), 0.1, 0.05, True)] * 2)),
        ("smooth zCDP", lambda: dp.c.make_composition([
            smooth("median", noise, dp.change_one_distance(), 0.1, 0.05, True) for noise in ("lln", "uln")])),
    ]


def _zcdp_sources():
    return ([(f"gaussian({s})", functools.partial(gaussian, s)) for s in (0.05, 1.5, 40.0)]
            + [(f"pureDP_to_zCDP(laplace({s}))", lambda s=s: dp.c.make_pureDP_to_zCDP(laplace(s)))
               for s in (0.2, 5.0)]
            + [(f"smooth[{noise}]", functools.partial(smooth, "median", noise, dp.change_one_distance(),
                                                      0.1, 0.05, True))
               for noise in ("lln", "uln", "arsinh_normal")])


FRAME = (dp.dataframe_domain({"g": dp.atom_domain(T=str), "x": dp.atom_domain(T=float)}), dp.symmetric_distance())


def _grouped(via_then: bool) -> list:
    """partition_by >> parallel composition of a pure, a zCDP and an (eps, delta) release."""
    parts = FRAME >> dp.t.then_partition_by("g", keys=["a", "b", "c"])
    part = parts.output_domain.part_domain, dp.symmetric_distance()
    inners = {
        "duff_median": lambda s: part >> dp.t.then_select_column("x") >> dp.t.then_clamp((0.0, 1.0))
        >> dp.t.then_sort() >> dp.m.then_duff_median(scale=s),
        "count>>gaussian": lambda s: part >> dp.t.then_select_column("x") >> dp.t.then_count()
        >> dp.m.then_gaussian(scale=s),
        "fix_delta(gaussian)": lambda s: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(
            part >> dp.t.then_select_column("x") >> dp.t.then_count() >> dp.m.then_gaussian(scale=s)), delta=1e-7),
    }

    def build(inner, s):
        if via_then:
            return parts >> dp.c.then_parallel_composition(inner(s))
        return parts >> dp.c.make_parallel_composition(parts.output_domain, parts.output_metric, inner(s))
    return [(f"{name}({s})", functools.partial(build, inner, s)) for name, inner in inners.items() for s in SCALES]


def _sequential(via_then: bool) -> list:
    def build(measure, d_out):
        if via_then:
            return RAW >> dp.c.then_sequential_composition(measure, 40, d_out)
        return dp.c.make_sequential_composition(*RAW, measure, d_in=40, d_out=d_out)
    return [("pure", functools.partial(build, dp.max_divergence(), 1.3)),
            ("zCDP", functools.partial(build, ZCDP, 0.2)),
            ("approx", functools.partial(build, dp.approximate_divergence(), (1.3, 1e-7)))]


CASES: dict[str, Callable[[], list]] = {
    "make_gaussian": lambda: _scaled(dp.m.make_gaussian, SCALES, *atom())
    + _scaled(dp.m.make_gaussian, SCALES, *VEC_L2),
    "then_gaussian": lambda: [(f"sum>>gaussian({s})", lambda s=s: sorted_space() >> dp.t.then_sum()
                               >> dp.m.then_gaussian(scale=s)) for s in SCALES],
    "make_laplace": lambda: _scaled(dp.m.make_laplace, SCALES, *atom())
    + _scaled(dp.m.make_laplace, SCALES, *VEC_L1),
    "then_laplace": lambda: [(f"sum>>laplace({s})", lambda s=s: sorted_space() >> dp.t.then_sum()
                              >> dp.m.then_laplace(scale=s)) for s in SCALES],
    "make_duff_median": lambda: _scaled(dp.m.make_duff_median, SCALES, *_sorted_pair(None)),
    "then_duff_median": lambda: [(f"{s}", lambda s=s: sorted_space() >> dp.m.then_duff_median(scale=s))
                                 for s in SCALES],
    "make_duff_quantile": lambda: _scaled(dp.m.make_duff_quantile, SCALES, *_sorted_pair(None), alpha=0.3),
    "then_duff_quantile": lambda: [(f"{s}", lambda s=s: sorted_space() >> dp.m.then_duff_quantile(
        alpha=0.8, scale=s)) for s in SCALES],
    "make_duff_mean": lambda: _scaled(dp.m.make_duff_mean, SCALES, *_sorted_pair(None)),
    "then_duff_mean": lambda: [(f"{s}", lambda s=s: sorted_space() >> dp.m.then_duff_mean(scale=s))
                               for s in SCALES],
    "make_duff_mode": lambda: _scaled(dp.m.make_duff_mode, SCALES, *RAW, candidates=CANDS),
    "then_duff_mode": lambda: [(f"{s}", lambda s=s: RAW >> dp.m.then_duff_mode(candidates=CANDS, scale=s))
                               for s in SCALES],
    "make_report_noisy_max_gumbel": lambda: _scaled(dp.m.make_report_noisy_max_gumbel, SCALES, *SCORES)
    + _scaled(dp.m.make_report_noisy_max_gumbel, SCALES, *SCORES, output_measure=ZCDP),
    "then_report_noisy_max_gumbel": lambda: [(f"{s}", lambda s=s: SCORES >> dp.m.then_report_noisy_max_gumbel(
        scale=s, output_measure=ZCDP)) for s in SCALES],
    "make_smooth_median": lambda: _smooth_cases("median", False),
    "then_smooth_median": lambda: _smooth_cases("median", True),
    "make_smooth_trimmed_mean": lambda: _smooth_cases("trimmed_mean", False),
    "then_smooth_trimmed_mean": lambda: _smooth_cases("trimmed_mean", True),
    "make_smooth_median_baseline": lambda: _baseline_cases(False),
    "then_smooth_median_baseline": lambda: _baseline_cases(True),
    "make_composition": _compositions,
    "make_pureDP_to_zCDP": lambda: [(f"laplace({s})", lambda s=s: dp.c.make_pureDP_to_zCDP(laplace(s)))
                                    for s in SCALES]
    + [("smooth[student_t]", lambda: dp.c.make_pureDP_to_zCDP(
        smooth("median", "student_t", dp.change_one_distance(), 0.1, 0.05, True)))],
    "make_zCDP_to_approxDP": lambda: [(name, lambda b=b: dp.c.make_zCDP_to_approxDP(b()))
                                      for name, b in _zcdp_sources()],
    "make_fix_delta": lambda: [(f"{name},delta={d}", lambda b=b, d=d: dp.c.make_fix_delta(
        dp.c.make_zCDP_to_approxDP(b()), delta=d)) for name, b in _zcdp_sources() for d in (1e-9, 0.05)],
    "make_pureDP_to_approxDP": lambda: [(f"laplace({s})", lambda s=s: dp.c.make_pureDP_to_approxDP(laplace(s)))
                                        for s in SCALES],
    "make_threshold_keys": lambda: [(f"{noise}({s},{t})", lambda s=s, t=t, noise=noise: RAW >> dp.t.then_count_by_key()
                                     >> dp.m.make_threshold_keys(count_map_domain(float), l01inf_distance(),
                                                                 scale=s, threshold=t, noise=noise))
                                    for noise in ("laplace", "gaussian") for s in SCALES for t in (2.5, 30.0)],
    "then_threshold_keys": lambda: [(f"{s}", lambda s=s: RAW >> dp.t.then_count_by_key()
                                     >> dp.m.then_threshold_keys(scale=s, threshold=12.0)) for s in SCALES],
    "make_approximate_zCDP_to_approxDP": lambda: [
        (f"gaussian keys({s}),delta={d}", lambda s=s, d=d: dp.c.make_approximate_zCDP_to_approxDP(
            RAW >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=s, threshold=30.0, noise="gaussian"),
            delta=d)) for s in SCALES for d in (1e-9, 0.05)],
    "make_parallel_composition": lambda: _grouped(False),
    "then_parallel_composition": lambda: _grouped(True),
    "make_sequential_composition": lambda: _sequential(False),
    "then_sequential_composition": lambda: _sequential(True),
}


# constructors that choose their parameters from a privacy budget
BUDGET_DERIVED = {"make_smooth_median_baseline", "then_smooth_median_baseline"}


# ---- helpers that are not constructors: what is checked instead ---------------------------

def _meets_budget(params: dict, epsilon: float) -> None:
    """The smooth median built from ``params`` with the real libm maps d_in = 1 within epsilon."""
    meas = sorted_space(dp.change_one_distance()) >> dp.m.then_smooth_median(**params)
    d = meas.map(1)
    assert (d[0] if isinstance(d, tuple) else d) <= epsilon, (params, d)


def _check_smooth_parameters(sign):
    asked = []
    with skewed_libm(sign):
        for noise in NOISES:
            if noise == "lln":
                asked.append((dp.smooth.smooth_parameters(noise, size=N, t=0.1, rho=0.5), 0.5))
            elif noise == "laplace":
                asked.append((dp.smooth.smooth_parameters(noise, size=N, t=0.01, epsilon=1.0, delta=1e-6), 1.0))
            else:
                asked.append((dp.smooth.smooth_parameters(noise, size=N, t=0.1, epsilon=1.0), 1.0))
    for params, budget in asked:          # for lln the budget is rho, and the map gives rho
        _meets_budget(params, budget)


def _check_baseline_parameters(sign):
    with skewed_libm(sign):
        got = [_baselines.smooth_median_baseline_parameters("SMOOTHSENS_eps", 1.0, size=N, bounds=(LO, HI)),
               _baselines.smooth_median_baseline_parameters("SMOOTHSENS_eps_delta", 1.0, 1e-3, size=N,
                                                      bounds=(LO, HI), t=0.05)]
        lln = _baselines.smooth_median_baseline_parameters("LAPLACELN", 1.0, 1e-6, size=N, bounds=(LO, HI), t=0.1)
    for params in got:
        _meets_budget(params, 1.0)
    rho = lln.pop("rho")
    _meets_budget(lln, rho)
    meas = sorted_space(dp.change_one_distance()) >> dp.m.then_smooth_median(**lln)
    assert dp.c.make_zCDP_to_approxDP(meas).map(1)(1e-6) <= 1.0


def _check_binary_search(sign):
    def make(scale):
        return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian(scale)), delta=1e-6)
    with skewed_libm(sign):
        scale = dp.binary_search_param(make, d_in=1.0, d_out=(1.0, 1e-6))
    assert make(scale).check(1.0, (1.0, 1e-6))


HELPERS: dict[str, tuple[str, Callable[[int], None] | None]] = {
    "duff_quantile_sample": ("a sampler, no map", None),
    "duff_mean_step_function": ("the utility's step function, no map", None),
    "smooth_release_sample": ("a sampler, no map", None),
    "choose_smoothing": ("picks t; every t > 0 is valid, the map is checked for fixed t above", None),
    "smooth_variance_lower_bound": ("a plotting aid, no privacy quantity", None),
    "smooth_parameters": ("parameters from a budget", _check_smooth_parameters),
    "smooth_median_baseline_parameters": ("parameters from a budget", _check_baseline_parameters),
    "binary_search_param": ("a parameter from a budget", _check_binary_search),
}


# the parameter helpers (dp.smooth) and the papers' baselines (experiments) are checked too
SMOOTH_HELPERS = {"smooth_parameters", "choose_smoothing", "smooth_variance_lower_bound", "smooth_release_sample",
                  "smooth_median_baseline_parameters", "make_smooth_median_baseline", "then_smooth_median_baseline"}
PUBLIC = set(dp.m.__all__) | set(dp.c.__all__) | SMOOTH_HELPERS


def test_every_public_name_has_an_entry():
    missing = sorted(PUBLIC - set(CASES) - set(HELPERS))
    assert not missing, f"no libm-independence entry for: {missing}"
    assert not (set(CASES) & set(HELPERS))


# ---- the comparison -------------------------------------------------------------------------

def _reading(obj, d_in):
    """map(d_in) as a tuple of numbers (a privacy profile is read at DELTAS)."""
    d = obj.map(d_in)
    if isinstance(d, PrivacyProfile):
        return tuple(d(delta) for delta in DELTAS)
    return d if isinstance(d, tuple) else (d,)


def _readings(build):
    obj = build()
    d_ins = INT_D_INS if obj.input_metric.distance_type is int else FLOAT_D_INS
    return {d: _reading(obj, d) for d in d_ins}


@pytest.mark.slow
@pytest.mark.parametrize("sign", [-1, 1], ids=["libm_low", "libm_high"])
@pytest.mark.parametrize("name", sorted(set(CASES) & PUBLIC))
def test_maps_do_not_shrink_when_libm_errs(name, sign):
    """Built and mapped under the skewed libm vs the real one.  The constructors that choose
    their parameters from a budget are built with the real libm and only mapped under the skew
    (a different libm may choose different parameters: see the two tests below)."""
    cases = CASES[name]()
    assert cases
    real = {label: _readings(build) for label, build in cases}
    if name in BUDGET_DERIVED:
        built = {label: build() for label, build in cases}
        cases = [(label, lambda obj=obj: obj) for label, obj in built.items()]
    with skewed_libm(sign):
        skewed = {label: _readings(build) for label, build in cases}
    shrunk = [(label, d, real[label][d], skewed[label][d]) for label, _ in cases for d in real[label]
              if any(s < r for s, r in zip(skewed[label][d], real[label][d], strict=True))]
    assert not shrunk, f"{name}: maps below the real-libm value (label, d_in, real, skewed): {shrunk[:5]}"


@pytest.mark.parametrize("sign", [-1, 1], ids=["libm_low", "libm_high"])
@pytest.mark.parametrize("name", sorted(n for n, (_, check) in HELPERS.items() if check and n in PUBLIC))
def test_parameter_helpers_meet_their_budget_when_libm_errs(name, sign):
    HELPERS[name][1](sign)


@pytest.mark.parametrize("sign", [-1, 1], ids=["libm_low", "libm_high"])
@pytest.mark.parametrize("name", sorted(BUDGET_DERIVED & PUBLIC))
def test_budget_derived_constructors_meet_their_budget_when_libm_errs(name, sign):
    """Built under the skewed libm, mapped with the real one: (eps, delta) within the budget."""
    with skewed_libm(sign):
        built = [(label, build()) for label, build in CASES[name]()]
    for label, meas in built:
        eps = meas.map(1)
        assert (eps[0] if isinstance(eps, tuple) else eps) <= 1.0, (label, eps)


def test_baseline_parameters_do_not_depend_on_libm():
    # the solvers return the largest float meeting the budget, whatever float guess starts the search
    def params():
        return [_baselines.smooth_median_baseline_parameters(name, 1.0, delta, size=N, bounds=(LO, HI), t=t)
                for name, delta, t in (("SMOOTHSENS_eps_delta", 1e-3, 0.05), ("LAPLACELN", 1e-6, 0.1))]
    real = params()
    for sign in (-1, 1):
        with skewed_libm(sign):
            assert params() == real
