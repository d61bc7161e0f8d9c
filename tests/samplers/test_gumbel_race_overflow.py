"""Gumbel race on scores near -MAX: the float key bounds overflow towards the safe side, which
is no warning and no error on a member (noisy max on [-MAX, -MAX, 0] at scale 1)."""
import warnings

import opendp_duff as dp
from opendp_duff._constants import MAX
from opendp_duff.samplers import seeded_rng_for_tests


def test_noisy_max_near_minus_max_raises_no_warning():
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance()
    m = space >> dp.m.then_report_noisy_max_gumbel(scale=1.0)
    with warnings.catch_warnings(), seeded_rng_for_tests(7):
        warnings.simplefilter("error")
        picks = {m([-MAX, -MAX, 0.0]) for _ in range(50)}
    assert picks == {2}   # the other two scores are e^-MAX less likely: never drawn
