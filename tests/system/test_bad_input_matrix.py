"""The bad-input matrix.

Part A -- every public constructor (and the public functions that take parameters) against
each bad parameter value: NaN, +-inf, True, a string, None, negative, zero, 1e308, a
subnormal and a numpy scalar of every dtype.  The only acceptable outcomes are

* a TypeError or ValueError at construction, whose message shows no data value; or
* a normal construction, after which a release on a valid member works (finite, in the
  output domain) and the map is a sensible non-negative number.

Some values have one right answer and are asserted (NaN, a string, ``True`` and
``np.bool_`` are never numbers; a scale may be +inf; ...).  A numpy scalar must behave
exactly like the Python number it holds (same accept/reject, same map).

Part B -- every release against awkward *members*: empty data, n = 1, all values equal,
values at the bounds, the input types list / tuple / float32 / int64 arrays, and one
large-duplicate dataset per mechanism family; plus inputs that are *not* members (NaN, inf)
fed in front of ``make_clamp``, where only "no crash" is asserted and the behaviour is
recorded.

Randomness: every release runs under ``seeded_rng_for_tests``; nothing here is a
statistical assertion (the checks hold for every draw), so no test can fail by chance.
"""
import math
import warnings

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.core import Measurement, Transformation
from opendp_duff.experiments import _baselines
from opendp_duff.measures import PrivacyProfile
from opendp_duff.metrics_id import symmetric_id_distance
from opendp_duff.samplers import seeded_rng_for_tests

# --------------------------------------------------------------------------- shared data
# Distinctive values: an error message that quotes the data would contain one of these.
SECRET = [3.14159271, 2.71828183, 1.41421357, 9.87654321, 0.57721566]
N_SECRET = len(SECRET)
SECRET_TEXT = ["3.14159", "2.71828", "1.41421", "9.87654", "0.57721"]
LO, HI = 0.0, 10.0

NP_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
             np.uint8, np.uint16, np.uint32, np.uint64]
BAD = [("nan", math.nan), ("+inf", math.inf), ("-inf", -math.inf), ("True", True),
       ("str", "2.0"), ("None", None), ("negative", -1.0), ("zero", 0.0), ("1e308", 1e308),
       ("subnormal", 5e-324)]
NP_LABELS = [f"np.{t.__name__}" for t in NP_DTYPES] + ["np.bool_"]
ALWAYS_REJECT = {"nan", "True", "str", "np.bool_"}

# What each kind of parameter must do with the plain values ("either" where both outcomes
# are within the contract; the generic checks still apply).
KINDS = {
    "scale": dict(accept={"+inf", "zero", "1e308", "subnormal"}, reject={"-inf", "negative"}),
    "scale_pos": dict(accept={"+inf", "1e308", "subnormal"}, reject={"-inf", "negative", "zero"}),
    "positive": dict(accept=set(), reject={"+inf", "-inf", "negative", "zero"}),
    "prob": dict(accept=set(), reject={"+inf", "-inf", "negative", "zero", "1e308"}),
    "lo": dict(accept={"negative", "zero", "subnormal"}, reject={"+inf", "-inf", "1e308"}),
    "hi": dict(accept={"zero", "1e308", "subnormal"}, reject={"+inf", "-inf", "negative"}),
    "int_lo": dict(accept={"negative", "zero"}, reject={"+inf", "-inf", "1e308", "subnormal"}),
    "int_hi": dict(accept={"zero"}, reject={"+inf", "-inf", "negative", "subnormal"}),
    "size": dict(accept={"zero"}, reject={"+inf", "-inf", "negative", "subnormal"}),
    "nonneg_int": dict(accept={"zero"}, reject={"+inf", "-inf", "negative", "subnormal"}),
    "candidate": dict(accept={"negative", "zero", "1e308", "subnormal"}, reject={"+inf", "-inf"}),
    "int_candidate": dict(accept={"negative", "zero"}, reject={"+inf", "-inf", "subnormal"}),
    "dist_float": dict(accept={"+inf", "zero", "1e308", "subnormal"}, reject={"-inf", "negative"}),
    "dist_int": dict(accept={"zero", "1e308"}, reject={"+inf", "-inf", "negative", "subnormal"}),
    "free": dict(accept=set(), reject=set()),
}


def float_space():
    return dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def bounded_sorted(lo=LO, hi=HI, size=None, metric=None):
    dom = dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi)), size=size, sorted=True)
    return dom, metric or dp.symmetric_distance()


def sized(n=N_SECRET, metric=None):
    """clamp >> sort on vectors of public size n (the smooth-sensitivity input space)."""
    dom = dp.vector_domain(dp.atom_domain(T=float), size=n)
    return (dom, metric or dp.change_one_distance()) >> dp.t.then_clamp(bounds=(LO, HI)) >> dp.t.then_sort()


def member_of(domain, x=SECRET):
    """A member of a float or int vector domain built from x (clipped, sized, sorted)."""
    elem = domain.element_domain
    arr = np.asarray(x, dtype=np.float64)
    if elem.bounds is not None:
        lo, hi = (float(b) for b in elem.bounds)
        arr = np.clip(arr, lo, hi)
    if domain.size is not None:
        arr = np.resize(arr, domain.size) if arr.size else np.full(domain.size, 0.0)
    if elem.T is int:
        arr = np.round(arr).astype(np.int64)
        if elem.bounds is not None:
            arr = np.clip(arr, elem.bounds[0], elem.bounds[1])
    if domain.sorted:
        arr = np.sort(arr)
    assert domain.member(arr)
    return arr


# --------------------------------------------------------------------------- generic checks
def sensible_distance(d):
    """A map's output: a non-negative number (not NaN), or an (eps, delta) pair of them."""
    if isinstance(d, PrivacyProfile):
        d = d(1e-6)
    if isinstance(d, tuple):
        assert len(d) == 2
        for part in d:
            sensible_distance(part)
        assert d[1] <= 1
        return
    assert isinstance(d, (int, float)) and not isinstance(d, bool), type(d)
    assert not math.isnan(d) and d >= 0, d


def check_release(meas, x, *, bounds=None, index_range=None, values=None):
    """One release on member x: it returns, and the value is of the documented kind."""
    with seeded_rng_for_tests(7):
        out = meas(x)
    if index_range is not None:
        assert out in range(index_range) or (out is None and index_range == 0), out
    elif values is not None:
        assert out in values, out
    else:
        out_arr = np.asarray(out, dtype=np.float64)
        assert np.all(np.isfinite(out_arr)), out
        if bounds is not None:
            assert np.all(out_arr >= bounds[0]) and np.all(out_arr <= bounds[1]), (out, bounds)
    return out


def check_maps(obj):
    one = obj.input_metric.distance_type(1)
    sensible_distance(obj.map(one))
    zero = obj.map(obj.input_metric.distance_type(0))
    if isinstance(zero, PrivacyProfile):
        zero = zero(1e-6)
    assert (zero[0] if isinstance(zero, tuple) else zero) == 0, zero


def summary(obj):
    """What must agree between a numpy scalar and the Python number it holds."""
    if isinstance(obj, Measurement):
        d = obj.map(obj.input_metric.distance_type(1))
        return ("M", repr(d(1e-6) if isinstance(d, PrivacyProfile) else d))
    if isinstance(obj, Transformation):
        return ("T", repr(obj.map(obj.input_metric.distance_type(1))), repr(obj.output_domain))
    if hasattr(obj, "left") and hasattr(obj, "levels"):   # a StepFunction
        return ("S", np.asarray(obj.left).tolist(), np.asarray(obj.levels).tolist())
    if isinstance(obj, dict):
        return ("D", repr(sorted(obj.items())))
    if isinstance(obj, np.ndarray):
        return ("A", obj.tolist())
    return ("V", repr(obj))


# --------------------------------------------------------------------------- the cases
# Each case: (id, kind, build, np_value, none_ok).  build(value, run=True) constructs with the
# parameter set to value and, when run, exercises the result (releases on a valid member,
# maps); it returns the constructed object.  The builders are registered by the ``case``
# decorator, so they may all share the throwaway name ``_c``.
CASES = []


def case(name, kind, np_value=2, none_ok=False):
    def deco(build_and_exercise):
        CASES.append((name, kind, build_and_exercise, np_value, none_ok))
        return build_and_exercise
    return deco


def _release_median_on(domain):
    meas = (domain, dp.symmetric_distance()) >> dp.m.then_duff_median(scale=1.0)
    check_release(meas, member_of(domain), bounds=domain.element_domain.bounds)
    mean = (domain, dp.symmetric_distance()) >> dp.m.then_duff_mean(scale=1.0)
    check_release(mean, member_of(domain), bounds=domain.element_domain.bounds)


# ---- domains
@case("atom_domain.bounds[0]", "lo")
def _c(v, run=True):
    dom = dp.atom_domain(T=float, bounds=(v, HI))
    if run:
        _release_median_on(dp.vector_domain(dom, sorted=True))
    return dom


@case("atom_domain.bounds[1]", "hi")
def _c(v, run=True):
    dom = dp.atom_domain(T=float, bounds=(LO, v))
    if run:
        _release_median_on(dp.vector_domain(dom, sorted=True))
    return dom


@case("atom_domain(T=int).bounds[1]", "int_hi")
def _c(v, run=True):
    dom = dp.atom_domain(T=int, bounds=(0, v))
    if run and dom.bounds[1] <= 2 ** 53:
        space = dp.vector_domain(dom), dp.symmetric_distance()
        meas = space >> dp.m.then_duff_mode(candidates=[0, 1, 2], scale=1.0)
        check_release(meas, member_of(space[0]), values={0, 1, 2})
    return dom


@case("vector_domain.size", "size")
def _c(v, run=True):
    elem = dp.atom_domain(T=float, bounds=(LO, HI))
    dom = dp.vector_domain(elem, size=v)
    if run and dom.size <= 1000:
        meas = (dom, dp.symmetric_distance()) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)
        check_release(meas, member_of(dom))
        check_maps(meas)
    return dom


# ---- transformations
@case("make_clamp.bounds[0]", "lo")
def _c(v, run=True):
    t = dp.t.make_clamp(*float_space(), bounds=(v, HI))
    if run:
        assert t.output_domain.member(t(SECRET))
        check_maps(t)
        _release_median_on((t >> dp.t.then_sort()).output_domain)
    return t


@case("make_clamp.bounds[1]", "hi")
def _c(v, run=True):
    t = dp.t.make_clamp(*float_space(), bounds=(LO, v))
    if run:
        assert t.output_domain.member(t(SECRET))
        check_maps(t)
        _release_median_on((t >> dp.t.then_sort()).output_domain)
    return t


@case("make_clamp(T=int).bounds[0]", "int_lo")
def _c(v, run=True):
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    t = dp.t.make_clamp(*space, bounds=(v, 10))
    if run:
        assert t.output_domain.member(t([3, -5, 12, 7]))
        check_maps(t)
    return t


@case("make_impute_constant.constant", "candidate")
def _c(v, run=True):
    nan_space = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
    t = dp.t.make_impute_constant(*nan_space, constant=v)
    if run:
        assert t.output_domain.member(t(SECRET + [math.nan]))
        check_maps(t)
    return t


@case("make_count_by_candidates.candidates[0]", "candidate")
def _c(v, run=True):
    t = dp.t.make_count_by_candidates(*float_space(), candidates=[v, 5.0])
    if run:
        assert t.output_domain.member(t(SECRET + [5.0]))
        check_maps(t)
        meas = t >> dp.m.then_report_noisy_max_gumbel(scale=1.0)
        check_release(meas, SECRET, index_range=2)
    return t


@case("make_count_by_candidates(T=int).candidates[0]", "int_candidate")
def _c(v, run=True):
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    t = dp.t.make_count_by_candidates(*space, candidates=[v, 5])
    if run:
        assert t.output_domain.member(t([1, 5, 5, 2]))
        check_maps(t)
    return t


@case("make_partition_by.keys[0]", "candidate")
def _c(v, run=True):
    pd = pytest.importorskip("pandas", reason="a data frame needs pandas (the pandas extra)")
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=float), "x": dp.atom_domain(T=float)})
    t = dp.t.make_partition_by(dom, dp.symmetric_distance(), by="k", keys=[v, 5.0])
    if run:
        parts = t(pd.DataFrame({"k": [float(t.output_domain.keys[0]), 5.0, 7.0], "x": SECRET[:3]}))
        assert t.output_domain.member(parts) and [len(p) for p in parts] == [1, 1]
        assert t.map(1) == (1, 1, 1) and t.map(0) == (0, 0, 0)
    return t


@case("make_filter.predicate", "free")
def _c(v, run=True):
    pd = pytest.importorskip("pandas", reason="a data frame needs pandas (the pandas extra)")
    dom = dp.dataframe_domain({"k": dp.atom_domain(T=float), "x": dp.atom_domain(T=float)})
    t = dp.t.make_filter(dom, dp.symmetric_distance(), predicate=v)
    if run:
        assert t.output_domain.member(t(pd.DataFrame({"k": [1.0, 5.0], "x": SECRET[:2]}))) and t.map(1) == 1
    return t


def _truncate_release(t, k_rows):
    import pandas as pd
    frame = pd.DataFrame({"id": [1, 1, 1, 2], "g": ["a", "b", "a", "a"], "x": SECRET[:4]})
    out = t(frame)
    assert t.output_domain.member(out) and len(out) == k_rows
    one, zero = (tuple(d) if isinstance(d, tuple) else (d,) for d in (t.map(1), t.map(0)))
    assert all(type(c) is int and c > 0 for c in one) and zero == (0,) * len(one)


_ID_SPACE = (dp.dataframe_domain({"id": dp.atom_domain(T=int), "g": dp.atom_domain(T=str),
                                  "x": dp.atom_domain(T=float)}),
             symmetric_id_distance("id"))


@case("make_truncate_per_id.contributions", "positive")
def _c(v, run=True):
    t = dp.t.make_truncate_per_id(*_ID_SPACE, contributions=v, key=bytes(16))
    if run:
        _truncate_release(t, min(3, t.map(1)) + 1)
    return t


@case("make_truncate_per_group.max_groups", "positive")
def _c(v, run=True):
    t = dp.t.make_truncate_per_group(*_ID_SPACE, by="g", max_groups=v, contributions=1, key=bytes(16))
    if run:
        _truncate_release(t, min(2, t.map(1)[0]) + 1)
    return t


@case("make_sequential_composition.d_out", "dist_float")
def _c(v, run=True):
    sc = dp.c.make_sequential_composition(*float_space(), dp.max_divergence(), d_in=1, d_out=v)
    if run:
        with seeded_rng_for_tests(7):
            q = sc(SECRET)
            count = float_space() >> dp.t.then_count() >> dp.m.then_laplace(scale=math.inf)
            assert q(count, 0.0) is not None and q.remaining == sc.map(1)
    return sc


# ---- measurements: noise
def _atom_release(meas):
    check_release(meas, 1.5)
    check_maps(meas)


@case("make_laplace.scale", "scale")
def _c(v, run=True):
    meas = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=v)
    if run:
        _atom_release(meas)
        vec = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float)), dp.l1_distance(T=float), scale=v)
        check_release(vec, SECRET)
    return meas


@case("make_gaussian.scale", "scale")
def _c(v, run=True):
    meas = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=v)
    if run:
        _atom_release(meas)
        vec = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float)), dp.l2_distance(T=float), scale=v)
        check_release(vec, SECRET)
    return meas


def _threshold_keys(scale, threshold):
    return float_space() >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=scale, threshold=threshold)


def _release_keys(meas):
    with seeded_rng_for_tests(7):
        out = meas(SECRET)
    assert isinstance(out, dict) and set(out) <= set(SECRET)
    assert all(isinstance(v, float) and math.isfinite(v) for v in out.values()), out
    check_maps(meas)


@case("make_threshold_keys.scale", "scale")
def _c(v, run=True):
    meas = _threshold_keys(v, 5.0)
    if run:
        _release_keys(meas)
    return meas


@case("make_threshold_keys.threshold", "candidate")
def _c(v, run=True):
    meas = _threshold_keys(1.0, v)
    if run:
        _release_keys(meas)
    return meas


@case("make_report_noisy_max_gumbel.scale", "scale")
def _c(v, run=True):
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance()
    meas = dp.m.make_report_noisy_max_gumbel(*space, scale=v)
    if run:
        check_release(meas, SECRET, index_range=len(SECRET))
        check_maps(meas)
        zc = dp.m.make_report_noisy_max_gumbel(*space, scale=v, output_measure=dp.zero_concentrated_divergence())
        check_maps(zc)
    return meas


# ---- measurements: Duff
def _duff_space():
    return float_space() >> dp.t.then_clamp(bounds=(LO, HI))


@case("make_duff_mode.scale", "scale")
def _c(v, run=True):
    meas = _duff_space() >> dp.m.then_duff_mode(candidates=[1.0, 2.0, 3.0], scale=v)
    if run:
        check_release(meas, SECRET, values={1.0, 2.0, 3.0})
        check_maps(meas)
    return meas


@case("make_duff_mode.candidates[0]", "candidate")
def _c(v, run=True):
    meas = _duff_space() >> dp.m.then_duff_mode(candidates=[v, 2.0, 3.0], scale=1.0)
    if run:
        check_release(meas, SECRET, values={float(v), 2.0, 3.0})
        check_maps(meas)
    return meas


def _duff(then_x, **kw):
    return _duff_space() >> dp.t.then_sort() >> then_x(**kw)


@case("make_duff_median.scale", "scale")
def _c(v, run=True):
    meas = _duff(dp.m.then_duff_median, scale=v)
    if run:
        check_release(meas, SECRET, bounds=(LO, HI))
        check_maps(meas)
    return meas


@case("make_duff_quantile.scale", "scale")
def _c(v, run=True):
    meas = _duff(dp.m.then_duff_quantile, alpha=0.25, scale=v)
    if run:
        check_release(meas, SECRET, bounds=(LO, HI))
        check_maps(meas)
    return meas


@case("make_duff_quantile.alpha", "prob", np_value=0.5)
def _c(v, run=True):
    meas = _duff(dp.m.then_duff_quantile, alpha=v, scale=1.0)
    if run:
        check_release(meas, SECRET, bounds=(LO, HI))
        check_maps(meas)
    return meas


@case("make_duff_mean.scale", "scale")
def _c(v, run=True):
    meas = _duff(dp.m.then_duff_mean, scale=v)
    if run:
        check_release(meas, SECRET, bounds=(LO, HI))
        check_maps(meas)
    return meas


# ---- measurements: smooth sensitivity
def _smooth(make=dp.m.then_smooth_median, **kw):
    return sized() >> make(**kw)


def _smooth_case(case_id, kind, np_value=2, none_ok=False, make=dp.m.then_smooth_median, **fixed):
    param = case_id.rsplit(".", 1)[1]

    @case(case_id, kind, np_value, none_ok)
    def _c(v, run=True):
        meas = _smooth(make, **{**fixed, param: v})
        if run:
            check_release(meas, SECRET)
            check_maps(meas)
        return meas


_smooth_case("make_smooth_median[student_t].t", "positive", np_value=0.5, s=0.2, noise="student_t")
_smooth_case("make_smooth_median[student_t].s", "positive", np_value=0.5, t=0.1, noise="student_t")
_smooth_case("make_smooth_median[student_t].d", "positive", none_ok=True, t=0.1, s=0.2, noise="student_t")
_smooth_case("make_smooth_median[lln].sigma", "positive", np_value=1, t=0.1, s=0.2, noise="lln")
_smooth_case("make_smooth_median[uln].sigma", "positive", none_ok=True, t=0.1, s=0.2, noise="uln")
_smooth_case("make_smooth_median[arsinh_normal].sigma", "positive", none_ok=True, t=0.1, s=0.2,
             noise="arsinh_normal")
_smooth_case("make_smooth_median[polynomial_tail].gamma", "positive", none_ok=True, t=0.1, s=0.2,
             noise="polynomial_tail")
_smooth_case("make_smooth_median[laplace].delta", "prob", np_value=0.0625, t=0.1, s=0.2, noise="laplace")
_smooth_case("make_smooth_trimmed_mean.m", "nonneg_int", np_value=1, make=dp.m.then_smooth_trimmed_mean,
             t=0.1, s=0.2, noise="student_t")
_smooth_case("make_smooth_trimmed_mean.t", "positive", np_value=0.5, make=dp.m.then_smooth_trimmed_mean,
             m=1, s=0.2, noise="student_t")
_smooth_case("make_smooth_median[laplace].t", "positive", np_value=0.5, s=0.2, noise="laplace", delta=1e-6)
_smooth_case("make_smooth_trimmed_mean.s", "positive", np_value=0.5, make=dp.m.then_smooth_trimmed_mean,
             m=1, t=0.1, noise="student_t")
_smooth_case("make_smooth_median_baseline[laplaceln].delta", "prob", np_value=0.0625,
             make=_baselines.then_smooth_median_baseline, name="LAPLACELN", epsilon=1.0, t=0.1)
_smooth_case("make_smooth_median_baseline[eps].epsilon", "positive", np_value=1,
             make=_baselines.then_smooth_median_baseline, name="SMOOTHSENS_eps")
_smooth_case("make_smooth_median_baseline[eps_delta].delta", "prob", np_value=0.0625,
             make=_baselines.then_smooth_median_baseline, name="SMOOTHSENS_eps_delta", epsilon=1.0, t=0.1)
_smooth_case("make_smooth_median_baseline[laplaceln].t", "positive", np_value=0.5, none_ok=True,
             make=_baselines.then_smooth_median_baseline, name="LAPLACELN", epsilon=1.0, delta=1e-6)


# ---- combinators
def _lap():
    return dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)


def _gauss():
    return dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)


@case("make_fix_delta.delta", "prob", np_value=0.0625)
def _c(v, run=True):
    meas = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_gauss()), delta=v)
    if run:
        _atom_release(meas)
    return meas


@case("make_approximate_zCDP_to_approxDP.delta", "prob", np_value=0.0625)
def _c(v, run=True):
    rows = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
    keys = rows >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=1.0, threshold=9.0, noise="gaussian")
    meas = dp.c.make_approximate_zCDP_to_approxDP(keys, delta=v)
    if run:
        assert set(meas(["a", "b"])) <= {"a", "b"}
        eps, delta = meas.map(1)
        assert eps > 0 and delta >= float(v)
    return meas


def _make_lap(s):
    return dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=s)


@case("binary_search_param.d_in", "free")
def _c(v, run=True):
    return dp.binary_search_param(_make_lap, d_in=v, d_out=1.0)


@case("binary_search_param.d_out", "free")
def _c(v, run=True):
    return dp.binary_search_param(_make_lap, d_in=1.0, d_out=v)


@case("binary_search_param.bounds[1]", "free", np_value=8)
def _c(v, run=True):
    return dp.binary_search_param(_make_lap, d_in=1.0, d_out=0.5, bounds=(0.0, v))


# ---- maps: d_in (the core validates it before a map sees it)
@case("Measurement.map.d_in[float metric]", "dist_float")
def _c(v, run=True):
    d = _lap().map(v)
    sensible_distance(d)
    return d


@case("Measurement.map.d_in[dataset metric]", "dist_int")
def _c(v, run=True):
    d = _duff(dp.m.then_duff_median, scale=1.0).map(v)
    sensible_distance(d)
    return d


@case("Transformation.map.d_in[dataset metric]", "dist_int")
def _c(v, run=True):
    return dp.t.make_count(*float_space()).map(v)


@case("Measurement.check.d_out", "dist_float")
def _c(v, run=True):
    return _lap().check(1.0, v)


# ---- public parameter helpers of the smooth measurements
@case("smooth_parameters.epsilon", "positive", np_value=1)
def _c(v, run=True):
    p = dp.smooth.smooth_parameters("student_t", size=5, t=0.05, epsilon=v)
    if run:
        check_release(sized() >> dp.m.then_smooth_median(**p), SECRET)
    return p


@case("smooth_parameters.size", "positive", np_value=5)
def _c(v, run=True):
    return dp.smooth.smooth_parameters("student_t", size=v, t=0.05, epsilon=1.0)


@case("smooth_parameters.rho", "positive", np_value=1)
def _c(v, run=True):
    return dp.smooth.smooth_parameters("lln", size=5, t=0.05, rho=v)


@case("choose_smoothing.epsilon", "positive", np_value=1)
def _c(v, run=True):
    return dp.smooth.choose_smoothing("student_t", 11, (LO, HI), epsilon=v)


@case("choose_smoothing.size", "positive", np_value=11)
def _c(v, run=True):
    return dp.smooth.choose_smoothing("student_t", v, (LO, HI), epsilon=1.0)


@case("smooth_variance_lower_bound.t", "positive", np_value=1)
def _c(v, run=True):
    return dp.smooth.smooth_variance_lower_bound(1.0, v)


@case("smooth_parameters.t", "positive", np_value=1)
def _c(v, run=True):
    return dp.smooth.smooth_parameters("student_t", size=5, t=v, epsilon=1.0)


@case("smooth_parameters.delta", "prob", np_value=0.0625)
def _c(v, run=True):
    return dp.smooth.smooth_parameters("laplace", size=5, t=0.05, epsilon=1.0, delta=v)


# ---- public functions that take data (their messages must not show it)
@case("duff_utility[median].bounds[1]", "free", np_value=12)
def _c(v, run=True):
    return dp.duff_utility(SECRET, "median", bounds=(LO, v))


@case("duff_utility[quantile].alpha", "prob", np_value=0.5)
def _c(v, run=True):
    return dp.duff_utility(SECRET, "quantile", bounds=(LO, HI), alpha=v)


@case("duff_utility[mean].bounds[0]", "lo")
def _c(v, run=True):
    return dp.duff_utility(SECRET, "mean", bounds=(v, HI))


@case("duff_utility[mode].candidates[0]", "free")
def _c(v, run=True):
    return dp.duff_utility(SECRET, "mode", candidates=[v, 2.0])


@case("smooth_sensitivity_median.t", "positive", np_value=1)
def _c(v, run=True):
    return dp.smooth_sensitivity_median(sorted(SECRET), v, (LO, HI))


@case("smooth_sensitivity_median.bounds[1]", "free", np_value=12)
def _c(v, run=True):
    return dp.smooth_sensitivity_median(sorted(SECRET), 0.1, (LO, v))


@case("smooth_sensitivity_quantile.alpha", "free", np_value=0.5)
def _c(v, run=True):
    return dp.smooth_sensitivity_quantile(sorted(SECRET), 0.1, (LO, HI), alpha=v)


@case("smooth_sensitivity_trimmed_mean.m", "nonneg_int", np_value=1)
def _c(v, run=True):
    return dp.smooth_sensitivity_trimmed_mean(sorted(SECRET), 0.1, (LO, HI), m=v)


@case("smooth_sensitivity_rounding_slack.n", "positive", np_value=5)
def _c(v, run=True):
    return dp.smooth_sensitivity_rounding_slack(v)


# --------------------------------------------------------------------------- part A
def _outcome(build, value, run=True):
    """("accept", object) or ("reject", exception); any other exception fails the test."""
    try:
        with warnings.catch_warnings():
            # overflow warnings on absurd parameters (scale 1e308 times a noise draw, ...) are
            # harmless: the outputs are checked to be finite and in range instead
            warnings.simplefilter("ignore", RuntimeWarning)
            return "accept", build(value, run=run)
    except (TypeError, ValueError) as exc:
        msg = str(exc)
        for s in SECRET_TEXT:
            assert s not in msg, f"error message shows a data value: {msg!r}"
        return "reject", exc
    except Exception as exc:   # noqa: BLE001 - the point of the test
        pytest.fail(f"{type(exc).__name__} (not TypeError/ValueError): {exc}")


MATRIX = [(c, label, val) for c in CASES for label, val in BAD]
MATRIX += [(c, label, None) for c in CASES for label in NP_LABELS]

# Parameter cases that fail today, each naming its bug, marked xfail(strict=True) so that the mark
# must be removed when the bug is fixed.
KNOWN_BUGS = {}  # parameter cases that fail today; each entry names the bug (none at present)


def _params(matrix):
    out = []
    for c, label, val in matrix:
        pid = f"{c[0]}-{label}"
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[pid])] if pid in KNOWN_BUGS else []
        out.append(pytest.param(c, label, val, id=pid, marks=marks))
    return out


def _np_scalar(label, np_value):
    if label == "np.bool_":
        return np.bool_(True)
    dtype = getattr(np, label[3:])
    return dtype(np_value)


@pytest.mark.parametrize("the_case,label,value", _params(MATRIX))
def test_constructor_bad_parameter(the_case, label, value):
    name, kind, build, np_value, none_ok = the_case
    if label.startswith("np."):
        value = _np_scalar(label, np_value)
    result, obj = _outcome(build, value)
    expect = KINDS[kind]
    if label in ALWAYS_REJECT or (label == "None" and not none_ok):
        assert result == "reject", f"{name}={value!r} must be rejected, got {obj!r}"
    elif label == "None":
        assert result == "accept", f"{name}=None means the default, but raised {obj!r}"
    elif label in expect["accept"]:
        assert result == "accept", f"{name}={value!r} must be accepted, but raised {obj!r}"
    elif label in expect["reject"]:
        assert result == "reject", f"{name}={value!r} must be rejected, got {obj!r}"
    if label.startswith("np.") and label != "np.bool_":
        if kind in ("scale", "scale_pos"):   # np.float32(2.0), np.uint8(2), ... are fine scales
            assert result == "accept", f"{name}={value!r} must be accepted, but raised {obj!r}"
        # a numpy scalar behaves exactly like the Python number it holds
        py_result, py_obj = _outcome(build, value.item(), run=False)
        assert result == py_result, (name, value, obj, py_obj)
        if result == "accept":
            assert summary(obj) == summary(py_obj)
    if result == "reject":
        assert isinstance(obj, (TypeError, ValueError))


def test_matrix_covers_every_public_constructor():
    """Every make_* of dp.t / dp.m / dp.c appears in a case (or is parameter-free)."""
    names = {c[0] for c in CASES}
    covered = {n.split(".")[0].split("[")[0].split("(")[0] for n in names}
    parameter_free = {"make_count", "make_sort", "make_sum", "make_symmetric_to_change_one", "make_identity",
                      "make_int_to_float",
                      "make_change_one_to_symmetric", "make_composition", "make_pureDP_to_zCDP",
                      "make_select_column", "make_select_columns", "make_parallel_composition",
                      "make_pureDP_to_approxDP", "make_count_by_key",
                      "make_zCDP_to_approxDP",
                      "make_with_column"}   # a name and an expression (str): tests/transformations/test_row_wise.py
    public = {n for mod in (dp.t, dp.m, dp.c) for n in mod.__all__ if n.startswith("make_")}
    assert public - parameter_free <= covered, public - parameter_free - covered


@pytest.mark.parametrize("scale", [True, math.nan, "2.0"])
def test_duff_quantile_sample_validates_scale(scale):
    from opendp_duff.measurements.duff import duff_quantile_sample
    with pytest.raises((TypeError, ValueError), match="scale"):
        duff_quantile_sample(sorted(SECRET), (LO, HI), 0.5, scale)


# =========================================================================== part B
# Every release against awkward members.  ``MECHS``: name -> (build(n) -> Measurement on raw
# float vectors (clamping to [LO, HI] where it needs bounds), what the output must be).
CANDS = [LO, 4.0, HI]


def _raw(n=None, metric=None):
    dom = dp.vector_domain(dp.atom_domain(T=float), size=n)
    return dom, metric or dp.symmetric_distance()


def _clamped(n=None, metric=None):
    return _raw(n, metric) >> dp.t.then_clamp(bounds=(LO, HI))


def _sorted(n=None, metric=None):
    return _clamped(n, metric) >> dp.t.then_sort()


def _smooth_release(n, **kw):
    return _sorted(n, dp.change_one_distance()) >> dp.m.then_smooth_median(t=0.1, s=0.2, **kw)


FINITE, IN_BOUNDS, INDEX, CANDIDATE = "finite", "in_bounds", "index", "candidate"
MECHS = {
    "count>>laplace": (lambda n: _raw() >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0), FINITE),
    "count>>gaussian": (lambda n: _raw() >> dp.t.then_count() >> dp.m.then_gaussian(scale=1.0), FINITE),
    "sum>>laplace": (lambda n: _clamped(n) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0), FINITE),
    "sum>>gaussian": (lambda n: _clamped(n, dp.change_one_distance()) >> dp.t.then_sum()
                      >> dp.m.then_gaussian(scale=1.0), FINITE),
    "count_by_candidates>>noisy_max": (
        lambda n: _raw() >> dp.t.then_count_by_candidates(candidates=CANDS)
        >> dp.m.then_report_noisy_max_gumbel(scale=1.0), INDEX),
    "count_by_candidates>>noisy_max[zCDP,min]": (
        lambda n: _raw() >> dp.t.then_count_by_candidates(candidates=CANDS)
        >> dp.m.then_report_noisy_max_gumbel(scale=1.0, optimize="min",
                                             output_measure=dp.zero_concentrated_divergence()), INDEX),
    "duff_mode": (lambda n: _clamped() >> dp.m.then_duff_mode(candidates=CANDS, scale=1.0), CANDIDATE),
    "duff_median": (lambda n: _sorted() >> dp.m.then_duff_median(scale=2.0), IN_BOUNDS),
    "duff_quantile[0.1]": (lambda n: _sorted() >> dp.m.then_duff_quantile(alpha=0.1, scale=2.0), IN_BOUNDS),
    "duff_quantile[0.9]": (lambda n: _sorted() >> dp.m.then_duff_quantile(alpha=0.9, scale=2.0), IN_BOUNDS),
    "duff_mean": (lambda n: _sorted() >> dp.m.then_duff_mean(scale=2.0), IN_BOUNDS),
    "smooth_median[lln]": (lambda n: _smooth_release(n, noise="lln", sigma=1.0), FINITE),
    "smooth_median[uln]": (lambda n: _smooth_release(n, noise="uln"), FINITE),
    "smooth_median[arsinh_normal]": (lambda n: _smooth_release(n, noise="arsinh_normal"), FINITE),
    "smooth_median[student_t]": (lambda n: _smooth_release(n, noise="student_t"), FINITE),
    "smooth_median[polynomial_tail]": (lambda n: _smooth_release(n, noise="polynomial_tail"), FINITE),
    "smooth_median[laplace]": (lambda n: _smooth_release(n, noise="laplace", delta=1e-6), FINITE),
    "smooth_median[symmetric]": (lambda n: _sorted(n) >> dp.m.then_smooth_median(
        t=0.1, s=0.2, noise="student_t"), FINITE),
    "smooth_trimmed_mean": (lambda n: _sorted(n, dp.change_one_distance()) >> dp.m.then_smooth_trimmed_mean(
        m=n // 4, t=0.1, s=0.2, noise="student_t"), FINITE),
    "smooth_median_baseline[SMOOTHSENS_eps]": (
        lambda n: _sorted(n, dp.change_one_distance())
        >> _baselines.then_smooth_median_baseline("SMOOTHSENS_eps", 1.0), FINITE),
    "smooth_median_baseline[LAPLACELN]": (lambda n: _sorted(n, dp.change_one_distance())
                                          >> _baselines.then_smooth_median_baseline("LAPLACELN", 1.0, 1e-6, t=0.1),
                                          FINITE),
    "composition[duff_median,duff_mean]": (lambda n: dp.c.make_composition(
        [_sorted() >> dp.m.then_duff_median(scale=2.0), _sorted() >> dp.m.then_duff_mean(scale=2.0)]),
        IN_BOUNDS),
    "pureDP_to_zCDP(duff_quantile)": (lambda n: dp.c.make_pureDP_to_zCDP(
        _sorted() >> dp.m.then_duff_quantile(alpha=0.5, scale=2.0)), IN_BOUNDS),
    "fix_delta(zCDP_to_approxDP(noisy_max[zCDP]))": (lambda n: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(
        _raw() >> dp.t.then_count_by_candidates(candidates=CANDS)
        >> dp.m.then_report_noisy_max_gumbel(scale=1.0, output_measure=dp.zero_concentrated_divergence())),
        delta=1e-6), INDEX),
}

INPUTS = {
    "empty": [],
    "n=1": [4.0],
    "all_equal": [4.0] * 50,
    "all_at_lo": [LO] * 9,
    "all_at_hi": [HI] * 9,
    "at_both_bounds": [LO] * 10 + [HI] * 11,
    "beyond_bounds": [-1e300, 1e300, -5.0, 15.0, 5e-324],
    "infinities": [math.inf, -math.inf, 3.0],        # members: infinities are floats
    "list": [float(v) for v in SECRET],
    "tuple": tuple(SECRET),
    "float32_array": np.asarray(SECRET, dtype=np.float32),
    "int64_array": np.array([0, 3, 3, 7, 10, 12, -4], dtype=np.int64),
}


def _expect(kind, out, meas=None):
    if kind == INDEX:
        assert isinstance(out, int) and 0 <= out < len(CANDS), out
    elif kind == CANDIDATE:
        assert out in CANDS, out
    else:
        arr = np.asarray(out, dtype=np.float64)
        assert arr.size >= 1 and np.all(np.isfinite(arr)), out
        if kind == IN_BOUNDS:
            assert np.all((arr >= LO) & (arr <= HI)), out


def _build_sized(build, n):
    """Build for a public size n; a size the constructor refuses (for example n = 0 for the
    smooth releases) is a public TypeError/ValueError, never a data-dependent one."""
    try:
        return build(n)
    except (TypeError, ValueError) as exc:
        assert n == 0, f"construction failed for n={n}: {exc!r}"
        return None


@pytest.mark.parametrize("data_name", list(INPUTS))
@pytest.mark.parametrize("mech_name", list(MECHS))
def test_release_on_awkward_members(mech_name, data_name):
    build, kind = MECHS[mech_name]
    x = INPUTS[data_name]
    meas = _build_sized(build, len(x))
    if meas is None:
        return
    assert meas.input_domain.member(x), (mech_name, data_name)
    with seeded_rng_for_tests(11):
        out = meas(x)
    _expect(kind, out)


def test_clamp_maps_infinities_into_bounds_and_nan_is_refused():
    """±inf are members of an unbounded float domain and clamp maps them to the bounds.
    NaN is NOT a member (atom_domain(nan=False)): refused before clamp runs; raw data with
    NaN goes through make_impute_constant first."""
    t = dp.t.make_clamp(*_raw(), bounds=(LO, HI))
    out = t([math.inf, -math.inf, 5.0])
    assert out.tolist() == [HI, LO, 5.0] and t.output_domain.member(out)
    assert not t.input_domain.member([math.nan, 1.0])
    with pytest.raises(dp.errors.NotAMemberValueError):
        t([math.nan, 1.0])


# Non-members (NaN in front of clamp): every mechanism refuses them before it runs and
# before any randomness is drawn.
@pytest.mark.parametrize("mech_name", list(MECHS))
def test_release_on_nan_non_member_is_refused(mech_name):
    build, _ = MECHS[mech_name]
    x = [math.nan, 1.0, 2.0, 3.0]
    meas = build(len(x))
    assert not meas.input_domain.member(x)
    with pytest.raises(dp.errors.NotAMemberValueError):
        meas(x)


# One large-duplicate dataset per mechanism family.  All use 10^7 copies of one value;
# the Duff mean's O(n) step function takes ~7 s at that size on a loaded 2-core machine,
# so it is marked slow.
BIG = 10 ** 7
FAMILIES = {
    "noise (sum>>laplace)": ("sum>>laplace", None),
    "noisy max (count_by_candidates>>noisy_max)": ("count_by_candidates>>noisy_max", None),
    "duff_mode": ("duff_mode", None),
    "duff median/quantile": ("duff_median", None),
    "duff_mean": ("duff_mean", pytest.mark.slow),
    "smooth (smooth_median[student_t])": ("smooth_median[student_t]", None),
}


@pytest.mark.slow
@pytest.mark.parametrize("family", [pytest.param(f, marks=[m] if m else [])
                                    for f, (_, m) in FAMILIES.items()])
def test_release_on_ten_million_duplicates(family):
    mech_name, _ = FAMILIES[family]
    build, kind = MECHS[mech_name]
    x = np.full(BIG, 4.0)
    meas = build(BIG)
    with seeded_rng_for_tests(17):
        out = meas(x)
    _expect(kind, out)


@pytest.mark.parametrize("T", [float, int])
@pytest.mark.parametrize("empty", [[], (), np.array([]), np.array([], dtype=np.int64)])
def test_empty_dataset_is_a_member_of_every_unsized_vector_domain(T, empty):
    """Regression: [] (a float64 array to numpy) was not a member of vector_domain(T=int),
    so the empty dataset fell outside the domain of every int pipeline."""
    bounded = dp.atom_domain(T=T, bounds=(T(0), T(9)))
    for dom in (dp.vector_domain(dp.atom_domain(T=T)), dp.vector_domain(bounded, sorted=True),
                dp.vector_domain(bounded, size=0)):
        assert dom.member(empty)
    assert not dp.vector_domain(bounded, size=1).member(empty)
    space = dp.vector_domain(dp.atom_domain(T=T)), dp.symmetric_distance()
    mode = space >> dp.t.then_clamp(bounds=(T(0), T(9))) >> dp.m.then_duff_mode(candidates=[T(1), T(2)], scale=1.0)
    with seeded_rng_for_tests(3):
        assert mode(empty) in (1, 2)


@pytest.mark.parametrize("fn", [
    lambda x, t: dp.smooth_sensitivity_median(x, t, (LO, HI)),
    lambda x, t: dp.smooth_sensitivity_median(x, t, (LO, HI), metric=dp.symmetric_distance()),
    lambda x, t: dp.smooth_sensitivity_quantile(x, t, (LO, HI), alpha=0.2),
    lambda x, t: dp.smooth_sensitivity_trimmed_mean(x, t, (LO, HI), m=1),
], ids=["median", "median_symmetric", "quantile", "trimmed_mean"])
def test_smooth_sensitivity_at_extreme_smoothing(fn):
    """Regression: t = 5e-324 raised OverflowError (int(ceil(4 / t))) and t = 1e308 overflowed
    k t to inf (inf - inf could drop rows as NaN).  For huge t only k = 0 counts, so the result
    equals the one at t = 4096; for a subnormal t nothing is damped, so it equals the limit
    t -> 0 (the largest spread, at most the cap (b - a)/w), checked against t = 1e-300."""
    x = sorted(SECRET)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert fn(x, 1e308) == fn(x, 4096.0) == fn(x, 1e4)
        tiny = fn(x, 5e-324)
        assert tiny == fn(x, 1e-300) and 0 < tiny <= HI - LO
        assert fn(x, 1.0) <= tiny
