"""Privacy bounds and parameter solvers for the smooth-sensitivity measurements.

Every function named ``*_epsilon`` returns, rounded up, the "epsilon" of one
noise law for one step of the smooth-sensitivity mechanism
``T(x) + S(x)/s * Z``: a bound on the privacy loss when the data move by one
neighbour, i.e. when the release moves by the additive shift ``|s'| <= s`` and
the multiplicative distortion ``|t'| <= t`` (file 004, §3.1.1):

* LLN, ULN, arsinh-normal: the release is ``eps^2/2``-zCDP (Theorems 18, 22, 25);
* Student's T and the polynomial tail: the release is ``eps``-DP (Theorem 31;
  Duff paper, Proposition 3, i.e. Nissim, Raskhodnikova & Smith, Lemmas 2.6-2.7);
* Laplace: the release is ``(eps, delta)``-DP (Theorem 34).

Each bound is increasing in ``|t|`` and ``|s|``, so evaluating it at the
largest allowed values is safe.  Exact rationals (``fractions.Fraction``) are
used wherever possible; the transcendental steps go through the outward
rounded functions of :mod:`opendp_duff.arithmetic`.  The parameter solvers
work in floats and then *check* their answer with the exact maps, stepping
``s`` down until the rounded-up map meets the target.
"""
import math
from fractions import Fraction

from .. import arithmetic as ar
from ..errors import MakeError

__all__ = []

INF = math.inf
PI_LOW = Fraction(math.pi)  # the float pi is below the real pi (3.14159265358979311... < pi)
ZCDP_NOISES = ("lln", "uln", "arsinh_normal")
PURE_NOISES = ("student_t", "polynomial_tail")
APPROX_NOISES = ("laplace",)
NOISES = ZCDP_NOISES + PURE_NOISES + APPROX_NOISES
ARSINH_SIGMA = 2 / math.sqrt(3)   # minimises 2/(3 sigma) + sigma/2 (file 004, §3.3)
ULN_SIGMA = math.sqrt(2)          # the float sqrt(2) is above the real sqrt(2)


def Q(x):
    return ar.Q(x)


def _up_sum(*terms):
    """Round up an exact sum; any +inf float term makes it inf."""
    if any(isinstance(x, float) and x == INF for x in terms):
        return INF
    return ar.up(sum((Q(x) for x in terms), Fraction(0)))


# ---- one-step bounds (d_in = 1), each rounded up ----------------------------

def lln_epsilon(t, s, sigma):
    """Theorem 18: eps = t/sigma + e^{3 sigma^2 / 2} s."""
    e = ar.exp_up(ar.up(Fraction(3, 2) * Q(sigma) ** 2))
    if e == INF:
        return INF
    return ar.up(Q(t) / Q(sigma) + Q(e) * Q(s))


def uln_epsilon(t, s, sigma):
    """Theorem 22 (sigma >= sqrt 2): eps = t/sigma + e^{3 sigma^2/2} sqrt(2/(pi sigma^2)) s."""
    e = ar.exp_up(ar.up(Fraction(3, 2) * Q(sigma) ** 2))
    if e == INF:
        return INF
    root = ar.sqrt_up(Fraction(2) / (PI_LOW * Q(sigma) ** 2))  # pi >= PI_LOW makes this an upper bound
    return ar.up(Q(t) / Q(sigma) + Q(e) * Q(root) * Q(s))


def arsinh_epsilon(t, s, sigma):
    """Theorem 25: eps = sqrt(t (t/sigma^2 + 1/sigma + 2)) + s (2/(3 sigma) + sigma/2)."""
    t_, s_, g = Q(t), Q(s), Q(sigma)
    root = ar.sqrt_up(t_ * (t_ / g ** 2 + 1 / g + 2))
    return ar.up(Q(root) + s_ * (Fraction(2, 3) / g + g / 2))


def student_t_epsilon(t, s, d):
    """Theorem 31: eps = t (d+1) + s (d+1) / (2 sqrt d)."""
    d_ = Q(d)
    return ar.up(Q(t) * (d_ + 1) + Q(s) * (d_ + 1) / (2 * Q(ar.sqrt_down(d))))


def polynomial_tail_epsilon(t, s, gamma):
    """Duff paper, Proposition 3 (NRS07 Lemmas 2.6-2.7) in (t, s) form: eps = (gamma+1)(t + s).
    With t = s = eps/(2(gamma+1)) this is the proposition's alpha = beta."""
    return ar.up((Q(gamma) + 1) * (Q(t) + Q(s)))


def laplace_epsilon(t, s, delta):
    """Theorem 34 (delta < e^-2): eps = s + (e^t - 1) log(1/delta) - t."""
    log_inv = -ar.log_down(delta)             # >= log(1/delta)
    em1 = ar.expm1_up(t)                      # >= e^t - 1
    if em1 == INF:
        return INF
    return max(0.0, ar.up(Q(s) + Q(em1) * Q(log_inv) - Q(t)))


def laplace_group_epsilon(t, s, delta, k):
    """Theorem 34 at group size k via the scaling of the smooth sensitivity:
    t_k = k t and s_k = s (e^{kt} - 1)/(e^t - 1); eps = s_k + (e^{t_k} - 1) log(1/delta) - t_k."""
    if k == 1:
        return laplace_epsilon(t, s, delta)
    tk = Q(k) * Q(t)
    em1_k = ar.expm1_up(ar.up(tk))
    if em1_k == INF:
        return INF
    ratio = Q(em1_k) / Q(ar.expm1_down(t))      # >= (e^{kt} - 1)/(e^t - 1)
    log_inv = -ar.log_down(delta)
    return max(0.0, ar.up(Q(s) * ratio + Q(em1_k) * Q(log_inv) - tk))


def one_step_epsilon(noise, t, s, shape):
    """The one-step bound of ``noise`` with its shape parameter (sigma, d, gamma or delta)."""
    return {"lln": lln_epsilon, "uln": uln_epsilon, "arsinh_normal": arsinh_epsilon,
            "student_t": student_t_epsilon, "polynomial_tail": polynomial_tail_epsilon,
            "laplace": laplace_epsilon}[noise](t, s, shape)


def group_map(noise, t, s, shape):
    """The privacy map k -> bound for change-one distance k (k = 0 gives 0).

    zCDP noises: rho(k) = k^2 eps^2 / 2 (group privacy of zCDP, file 004 Lemma 11 applied k-1 times);
    pure noises: eps(k) = k eps (triangle inequality of the max divergence);
    Laplace: (laplace_group_epsilon(k), delta) (Theorem 34 at the scaled t, s).
    """
    if noise == "laplace":
        def privacy_map(k):
            if k == 0:
                return (0.0, 0.0)
            return (laplace_group_epsilon(t, s, shape, k), shape)
        return privacy_map
    eps1 = one_step_epsilon(noise, t, s, shape)
    if noise in ZCDP_NOISES:
        def privacy_map(k):
            if k == 0:
                return 0.0
            if eps1 == INF:
                return INF
            return ar.up(Q(k) ** 2 * Q(eps1) ** 2 / 2)
        return privacy_map

    def privacy_map(k):
        if k == 0:
            return 0.0
        return ar.mul_up(k, eps1)
    return privacy_map


# ---- parameter solvers -------------------------------------------------------

def lln_optimal_sigma(epsilon, t):
    """The real root of 5 (eps/t) sigma^3 - 5 sigma^2 - 1 = 0 (file 004, §3.1.1), by bisection
    on [t/eps, max(2t/eps, 1/2)]; it minimises the variance 2 e^{2 sigma^2} / s^2 at fixed eps, t."""
    def cubic_over_x3(x):  # the cubic divided by 5 x^3 > 0: same sign, and no overflow
        return epsilon / t - 1 / x - 0.2 / x / x / x
    lo, hi = t / epsilon, max(2 * t / epsilon, 0.5)
    if not math.isfinite(hi):
        raise MakeError(f"t ({t!r}) is too large for epsilon ({epsilon!r}): no LLN sigma meets the budget")
    for _ in range(200):
        mid = (lo + hi) / 2
        if cubic_over_x3(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _float_scale(noise, epsilon, t, shape):
    """The s making the one-step bound equal epsilon, in floats (<= 0 when t is too large)."""
    if noise == "lln":
        return math.exp(-1.5 * shape ** 2) * (epsilon - t / shape)
    if noise == "uln":
        return (epsilon - t / shape) / (math.exp(1.5 * shape ** 2) * math.sqrt(2 / (math.pi * shape ** 2)))
    if noise == "arsinh_normal":
        return (epsilon - math.sqrt(t * (t / shape ** 2 + 1 / shape + 2))) / (2 / (3 * shape) + shape / 2)
    if noise == "student_t":
        return (epsilon - t * (shape + 1)) * 2 * math.sqrt(shape) / (shape + 1)
    if noise == "polynomial_tail":
        return epsilon / (shape + 1) - t
    if noise == "laplace":
        return epsilon - math.expm1(t) * math.log(1 / shape) + t
    raise AssertionError(noise)


def fit_scale(noise, epsilon, t, shape):
    """The largest float s (found by a float solve, then stepped down) with
    one_step_epsilon(noise, t, s, shape) <= epsilon; MakeError if none is positive."""
    s = _float_scale(noise, epsilon, t, shape)
    for _ in range(200):
        if not s > 0:
            break
        if one_step_epsilon(noise, t, s, shape) <= epsilon:
            return s
        s = s * (1 - 2.0 ** -40) if s > 1e-300 else ar.next_down(s)
    raise MakeError(f"t ({t!r}) is too large for the budget epsilon={epsilon!r} with noise {noise!r}: "
                    "no positive s meets it; choose a smaller t")


def best_shape(noise, epsilon, t):
    """The variance-minimising shape parameter of file 004 §7: LLN solves the cubic of §3.1.1,
    ULN sqrt 2, arsinh-normal 2/sqrt 3, Student's T d = 3; the polynomial tail keeps gamma = 2."""
    if noise == "lln":
        return lln_optimal_sigma(epsilon, t)
    return {"uln": ULN_SIGMA, "arsinh_normal": ARSINH_SIGMA, "student_t": 3.0,
            "polynomial_tail": 2.0}[noise]


def zcdp_epsilon_from_rho(rho):
    """The largest float eps with eps^2/2 <= rho (so a map of up(eps^2/2) never exceeds rho)."""
    eps = ar.sqrt_down(Fraction(2) * Q(rho))
    while ar.up(Q(eps) ** 2 / 2) > rho:
        eps = ar.next_down(eps)
    return eps


def lemma9_rho(epsilon, delta):
    """The largest rho (stepped down) with rho + 2 sqrt(rho log(1/delta)) <= epsilon when
    rounded up, i.e. the zCDP budget that Lemma 9 of file 004 turns into (epsilon, delta)."""
    from ..combinators.measure_cast import zcdp_epsilon_lemma9
    L = math.log(1 / delta)
    rho = (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2
    for _ in range(400):
        if rho > 0 and zcdp_epsilon_lemma9(rho, delta) <= epsilon:
            return rho
        rho *= 1 - 2.0 ** -30
    raise MakeError(f"epsilon ({epsilon!r}) is too small to convert with delta={delta!r}")


# ---- lower bound (file 004, Proposition 36) -----------------------------------

_MAX_K = 400


def variance_lower_bound(epsilon, t, max_k=None):
    """Proposition 36 of file 004 with s = 1: a lower bound L(eps, t) such that any noise Z giving
    eps^2/2-zCDP when scaled to t-smooth sensitivity has E[(S/s Z)^2] >= S^2 L(eps, t).

    Maximised over k, l >= 0, k + l > 0 (up to ``max_k``, default enough for e^{eps^2 k^2} to
    dominate).  A float plotting aid, not a privacy quantity.
    """
    if not (epsilon > 0 and t > 0 and math.isfinite(epsilon) and math.isfinite(t)):
        raise MakeError(f"epsilon ({epsilon!r}) and t ({t!r}) must be positive and finite")
    if max_k is None:
        # The max over a subset of (k, l) is still a valid lower bound, so the cap (which keeps
        # the O(max_k^2) loop cheap for tiny epsilon) costs tightness only, never validity.
        max_k = max(2, min(_MAX_K, int(math.ceil(6 / epsilon)) + 2))
    best = 0.0
    one_minus_et = -math.expm1(-t)  # 1 - e^{-t}, > 0 even for a subnormal t
    for k in range(0, max_k + 1):
        for ell in range(0, max_k + 1 - k):
            if k + ell == 0:
                continue
            try:
                denom = math.expm1(epsilon ** 2 * (k + ell) ** 2)
                num = (math.exp((k + ell - 1) * t) - math.exp((ell - 1) * t) + math.expm1(ell * t)) ** 2
                val = (num / denom - math.expm1(ell * t) ** 2) / one_minus_et ** 2
            except (OverflowError, ZeroDivisionError):
                continue  # this (k, l) gives no finite bound; the others still do
            if math.isfinite(val):
                best = max(best, val)
    return best
