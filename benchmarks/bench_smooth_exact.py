"""Exact smooth-sensitivity releases: cost of exactness, as ratios measured in the same run.

    python benchmarks/bench_smooth_exact.py
    python benchmarks/bench_smooth_exact.py --smoke   # SMOKE: checks that it runs (figures meaningless)

For each noise: the time of one exact noise draw + rounding (``exact_rounded_release``) against
the float path (``distributions.X(shape).sample()`` then ``c + scale * z``), and the time of a
whole ``make_smooth_median`` / ``make_smooth_trimmed_mean`` release at n = 1e3 and 1e6 against
the float-path release of the same measurement (statistic + smooth sensitivity + float draw);
and the exact trimmed-mean sum against np.sort and np.mean of the same (sorted) data.
Secure random source (os.urandom), best of several repeats.
"""

from _timing import benchmark_parser, per_call

import numpy as np

import opendp_duff as dp
from opendp_duff import distributions as D
from opendp_duff.smooth import sensitivity as ss
from opendp_duff.exact_sum import exact_mean
from opendp_duff.samplers import exact_noise as X
from opendp_duff.samplers.exact_noise import exact_rounded_release

NOISES = [(X.LAPLACE, None, D.Laplace(1.0)), (X.STUDENT_T, 3.0, D.StudentT(3.0)),
          (X.POLYNOMIAL_TAIL, 2.0, D.PolynomialTail(2.0)), (X.LLN, 0.5, D.LaplaceLogNormal(0.5)),
          (X.ULN, 2 ** 0.5, D.UniformLogNormal(2 ** 0.5)),
          (X.ARSINH_NORMAL, 2 / 3 ** 0.5, D.ArsinhNormal(2 / 3 ** 0.5))]
BOUNDS = (-10.0, 10.0)
# sizes and calls per timing: of exact_mean, of a noise draw, of a whole release (small n, large n)
SIZES = {"mean": (10_000, 1_000_000), "mean_calls": 5, "draw_calls": 400, "release": (1000, 1_000_000),
         "release_calls": (30, 5), "repeat": 3}
# --smoke: the test that runs every benchmark (tests/system)
SMOKE = {"mean": (1_000,), "mean_calls": 1, "draw_calls": 5, "release": (1000,), "release_calls": (1, 1),
         "repeat": 1}


def float_median(x, law):
    """The float path of a smooth median release: statistic + S^t / s * a float draw."""
    n = x.size
    return float(x[(n + 1) // 2 - 1]) + ss.smooth_sensitivity_median(x, 0.05, BOUNDS) / 0.2 * law.sample()


def float_trimmed_mean(x, law):
    """The float path of a smooth 10%-trimmed-mean release."""
    n = x.size
    return (float(np.mean(x[n // 10:n - n // 10]))
            + ss.smooth_sensitivity_trimmed_mean(x, 0.05, BOUNDS, m=n // 10) / 0.2 * law.sample())


def float_release(law):
    """A float-path noise draw and rescaling (the baseline of ``exact_rounded_release``)."""
    return 0.3 + 0.02 / 0.7 * law.sample()


def main(sizes=SIZES):
    calls, repeat = sizes["mean_calls"], sizes["repeat"]
    rng0 = np.random.default_rng(1)
    for n in sizes["mean"]:
        x = np.sort(rng0.normal(size=n))
        te = per_call(exact_mean, x, calls=calls, repeat=repeat)
        ts = per_call(np.sort, x, calls=calls, repeat=repeat)
        tm = per_call(np.mean, x, calls=calls, repeat=repeat)
        print(f"exact_mean n={n}: {te * 1e3:.2f} ms = {te / ts:.2f} x np.sort, {te / tm:.1f} x np.mean")
    print("noise draw + rounding: exact vs float path (microseconds per release)")
    for noise, shape, law in NOISES:
        exact = per_call(exact_rounded_release, 0.3, (0.02, 0.7), noise, shape, calls=sizes["draw_calls"],
                         repeat=repeat)
        flt = per_call(float_release, law, calls=sizes["draw_calls"], repeat=repeat)
        print(f"  {noise.name:16s} exact {exact * 1e6:8.1f}  float {flt * 1e6:8.1f}  ratio {exact / flt:6.2f}")
    print("whole release: exact vs float path (same statistic and smooth sensitivity)")
    rng = np.random.default_rng(0)
    for n in sizes["release"]:
        x = np.sort(rng.normal(size=n)).clip(*BOUNDS)
        dom = dp.vector_domain(dp.atom_domain(T=float, bounds=BOUNDS), size=n, sorted=True)
        for noise, shape, law in NOISES[:2]:
            kw = dict(delta=1e-6) if noise is X.LAPLACE else dict(d=shape)
            med = dp.m.make_smooth_median(dom, dp.change_one_distance(), t=0.05, s=0.2, noise=noise.name, **kw)
            tm = dp.m.make_smooth_trimmed_mean(dom, dp.change_one_distance(), m=n // 10, t=0.05, s=0.2,
                                               noise=noise.name, **kw)
            k = sizes["release_calls"][0 if n < 1e5 else 1]
            for name, exact_f, float_f in (("median", med, float_median), ("trimmed_mean", tm, float_trimmed_mean)):
                te = per_call(exact_f, x, calls=k, repeat=repeat)
                tf = per_call(float_f, x, law, calls=k, repeat=repeat)
                print(f"  n={n:>8d} {name:13s} {noise.name:10s} exact {te * 1e3:8.3f} ms  float {tf * 1e3:8.3f} ms"
                      f"  ratio {te / tf:5.2f}")


if __name__ == "__main__":
    ap = benchmark_parser(__doc__)
    main(SMOKE if ap.parse_args().smoke else SIZES)
