"""Root pytest configuration: it covers tests/ and the doctests under opendp_duff/.

The tests reproduce releases with a seeded source (``seeded_rng_for_tests``) and feed samplers
crafted bytes (``byte_source_for_tests``): both replace the secure random source, which the
library refuses unless the feature "insecure-randomness" is on.  The suite turns it on here,
once, so that every test and doctest that seeds says so by running under this file; nothing
released while it is on is private.  "honest-but-curious" stays off: the tests that run
user-built measurements through a compositor turn it on for themselves (a fixture).
"""
import pytest

import opendp_duff


def pytest_configure(config):
    opendp_duff.enable_features("insecure-randomness")


@pytest.fixture
def honest_but_curious():
    """Turn the feature "honest-but-curious" on for one test, then off again: the test runs a
    user-built measurement (its own function and map) through a compositor."""
    was_on = "honest-but-curious" in opendp_duff.enabled_features()
    opendp_duff.enable_features("honest-but-curious")
    yield
    if not was_on:
        opendp_duff.disable_features("honest-but-curious")


@pytest.fixture
def insecure_randomness_off():
    """Turn the feature "insecure-randomness" off for one test (it checks a refusal), then on again."""
    opendp_duff.disable_features("insecure-randomness")
    yield
    opendp_duff.enable_features("insecure-randomness")
