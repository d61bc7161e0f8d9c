"""Numerical companion of the ULN shift lemma (proofs/measurements/smooth_sensitivity/smooth_common.inc,
Lemma "ULN shift"): the proof rests on Birnbaum's Mills-ratio bound [Bir42], proved there; these
checks only confirm each inequality of the chain on grids, for every sigma the code accepts.

With h = sigma + log(z)/sigma and r(h) = phi(h)/Phibar(h) the density's log-derivative is
|f'/f|(z) = e^{sigma^2} e^{-sigma h} r(h) / sigma, and the map uses L = e^{3 sigma^2/2} sqrt(2/(pi sigma^2)).
"""
import math

import numpy as np
import pytest
from scipy import special

from opendp_duff import distributions as D
from opendp_duff.smooth import maps

H = np.concatenate([-np.geomspace(1e-6, 200, 4000)[::-1], [0.0], np.geomspace(1e-6, 200, 4000)])
SIGMAS = [math.sqrt(2), 1.5, 1.64, 2.0, 3.0, 5.0, 10.0, 30.0]


def log_mills(h):
    """log(Phibar(h) / phi(h)) = log(sqrt(pi/2) erfcx(h / sqrt 2)), accurate for all h."""
    return 0.5 * math.log(math.pi / 2) + np.log(special.erfcx(h / math.sqrt(2)))


def test_birnbaum_mills_ratio_bound():
    h = H[H >= 0]
    assert np.all(log_mills(h) > np.log((np.sqrt(4 + h * h) - h) / 2))


@pytest.mark.parametrize("sigma", SIGMAS)
def test_each_step_of_the_chain(sigma):
    log_L = 1.5 * sigma ** 2 + 0.5 * math.log(2 / (math.pi * sigma ** 2))
    log_term = -sigma * H - log_mills(H)                 # log(e^{-sigma h} r(h))
    neg, pos = H <= 0, H >= 0
    # h <= 0: Phibar(h) >= 1/2, and -sigma h - h^2/2 <= sigma^2/2
    assert np.all(log_term[neg] <= 0.5 * math.log(2 / math.pi) + sigma ** 2 / 2 + 1e-12)
    # h >= 0: Birnbaum, then g(h) = e^{-sigma h}(h + sqrt(h^2 + 4))/2 is decreasing, g(0) = 1
    g = -sigma * H[pos] + np.log((H[pos] + np.sqrt(H[pos] ** 2 + 4)) / 2)
    assert np.all(log_term[pos] <= g + 1e-12) and np.all(np.diff(g) <= 0) and g[0] == 0.0
    assert 0.0 <= 0.5 * math.log(2 / math.pi) + sigma ** 2 / 2          # 1 <= sqrt(2/pi) e^{sigma^2/2}
    # so |f'/f| <= L everywhere
    assert np.all(sigma ** 2 - math.log(sigma) + log_term <= log_L + 1e-12)


def test_the_bound_the_map_uses_holds_at_the_default_sigma():
    sigma = math.sqrt(2)
    L = math.exp(1.5 * sigma ** 2) * math.sqrt(2 / (math.pi * sigma ** 2))
    sup = math.exp(np.max(sigma ** 2 - math.log(sigma) - sigma * H - log_mills(H)))
    assert 6.2 < sup < 6.3 < L < 11.34                   # the true supremum is far below L
    # the step this replaces claimed (1 + 1/sigma) e^{sigma^2} + 1/(sigma^2 e)) / (1 - e^-2) <= L: false here
    old_left = ((1 + 1 / sigma) * math.exp(sigma ** 2) + 1 / (sigma ** 2 * math.e)) / (1 - math.exp(-2))
    assert old_left > 14.7 > L
    # and the map's one-step bound is this L per unit of s (t = 0)
    assert maps.uln_epsilon(0.0, 1.0, sigma) >= L


@pytest.mark.parametrize("sigma", [math.sqrt(2), 1.6, 2.2])
def test_the_density_of_uln_has_log_slope_at_most_L(sigma):
    law = D.UniformLogNormal(sigma)
    z = np.sinh(np.linspace(-25, 25, 40001))
    z, h = z[np.abs(z) > 1e-4], 1e-6
    with np.errstate(all="ignore"):
        slope = (law.logpdf(z * (1 + h)) - law.logpdf(z * (1 - h))) / (2 * h * z)
    slope = slope[np.isfinite(slope)]
    L = math.exp(1.5 * sigma ** 2) * math.sqrt(2 / (math.pi * sigma ** 2))
    assert slope.size > 1000 and np.abs(slope).max() <= L
