"""The consent switches (``opendp_duff.features``): features are off unless turned on by name,
unknown names are refused, and no public name of ``samplers``, ``audit`` or ``experiments``
seeds or replaces the random source while "insecure-randomness" is off (each refuses with an
error that names the switch).  The whole suite runs with "insecure-randomness" on (the root
conftest); the tests of refusals turn it off for themselves."""
import importlib
import inspect
import pkgutil
import re

import pytest

import opendp_duff as dp
from opendp_duff import samplers
from opendp_duff.errors import FeatureNotEnabled

PACKAGES = ("opendp_duff.samplers", "opendp_duff.audit", "opendp_duff.experiments")


def _modules():
    for name in PACKAGES:
        package = importlib.import_module(name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            yield importlib.import_module(info.name)


def _parameters(obj):
    try:
        return list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return []


def _seeding_names():
    """Public callables defined in those packages whose name or parameters speak of a seed or a
    byte source.  ``data_seed`` seeds the synthetic *data* of an experiment (public), not the
    mechanisms, so it does not count."""
    found = set()
    for module in _modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != module.__name__:
                continue
            params = [p for p in _parameters(obj) if p != "data_seed"]
            if re.search(r"seed|byte_source", name, re.I) or any(re.search(r"seed|source", p) for p in params):
                found.add(f"{module.__name__}.{name}")
    return found


def _run_experiment(module_name):
    def call(tmp_path):
        module = importlib.import_module(module_name)
        return module.run(str(tmp_path), quick=True, noise_seed=3, plots=False)
    return call


# Every seeding entry point, and how to ask it to seed.
ENTRY_POINTS = {
    "opendp_duff.samplers.byte_sources.seeded_rng_for_tests": lambda tmp: samplers.seeded_rng_for_tests(1),
    "opendp_duff.samplers.byte_sources.byte_source_for_tests":
        lambda tmp: samplers.byte_source_for_tests(samplers.SecureRandom()),
    "opendp_duff.samplers.byte_sources.SeededRandomForTests": lambda tmp: samplers.SeededRandomForTests(1),
    "opendp_duff.experiments._common.mechanism_randomness":
        lambda tmp: importlib.import_module("opendp_duff.experiments._common").mechanism_randomness(3),
    "opendp_duff.experiments.duff_medians.run": _run_experiment("opendp_duff.experiments.duff_medians"),
    "opendp_duff.experiments.bun_steinke_means.run": _run_experiment("opendp_duff.experiments.bun_steinke_means"),
    "opendp_duff.experiments.real_medians.run": _run_experiment("opendp_duff.experiments.real_medians"),
}

# Names the scan finds that do not seed anything themselves, and why.
NOT_ENTRY_POINTS = {
    "opendp_duff.experiments._runner.Options": "a description of a run; run() seeds, through mechanism_randomness",
    "opendp_duff.experiments._common.randomness_label": "a label for the report",
    "opendp_duff.experiments.real_medians.load": "its source is where the data comes from (sklearn or synthetic)",
    "opendp_duff.experiments.real_medians.compute": "its source is where the data comes from",
}


def test_features_are_switched_by_name():
    assert set(dp.features.FEATURES) == {"insecure-randomness", "honest-but-curious"}
    assert "honest-but-curious" not in dp.enabled_features()
    dp.enable_features("honest-but-curious")
    try:
        assert {"honest-but-curious", "insecure-randomness"} <= dp.enabled_features()
    finally:
        dp.disable_features("honest-but-curious")
    assert "honest-but-curious" not in dp.enabled_features()
    dp.disable_features("honest-but-curious")                  # turning off what is off does nothing
    with pytest.raises(dp.MakeError, match="unknown feature"):
        dp.enable_features("contrib")
    with pytest.raises(dp.MakeTypeError):
        dp.enable_features(None)
    assert isinstance(dp.enabled_features(), frozenset)


def test_the_scan_finds_every_seeding_entry_point():
    found = _seeding_names()
    assert found == set(ENTRY_POINTS) | set(NOT_ENTRY_POINTS), (
        f"new: {sorted(found - set(ENTRY_POINTS) - set(NOT_ENTRY_POINTS))}, "
        f"gone: {sorted(set(ENTRY_POINTS) | set(NOT_ENTRY_POINTS) - found)}")


@pytest.mark.usefixtures("insecure_randomness_off")
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_no_public_name_seeds_without_the_switch(name, tmp_path):
    with pytest.raises(FeatureNotEnabled, match="insecure-randomness") as info:
        ENTRY_POINTS[name](tmp_path)
    assert info.value.feature == "insecure-randomness" and "enable_features" in str(info.value)
    assert isinstance(samplers.current_rng(), samplers.SecureRandom)
    assert not list(tmp_path.iterdir())                       # refused before anything ran or was written


def test_with_the_switch_the_test_sources_work():
    with samplers.seeded_rng_for_tests(7):
        a = samplers.current_rng().random_bytes(8)
    with samplers.seeded_rng_for_tests(7):
        assert samplers.current_rng().random_bytes(8) == a
    assert isinstance(samplers.current_rng(), samplers.SecureRandom)
