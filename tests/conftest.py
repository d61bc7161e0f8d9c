"""Shared test helpers.

``rerun_once(seed)``: a statistical test runs with a seeded (insecure, test-only)
generator; if its assertion fails it is run once more with a fresh seed before
the failure is reported, so a test with false-failure rate p fails spuriously
with probability p^2.
"""
import functools

import pytest

from opendp_duff.samplers import seeded_rng_for_tests


def rerun_once(seed):
    def deco(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            try:
                with seeded_rng_for_tests(seed):
                    return test(*args, **kwargs)
            except AssertionError:
                with seeded_rng_for_tests(seed + 1_000_003):
                    return test(*args, **kwargs)
        return pytest.mark.statistical(wrapper)
    return deco
