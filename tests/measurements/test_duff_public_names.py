"""``dp.m`` holds constructors only: the Duff samplers and step functions that are not
constructors stay importable from their modules but are not re-exported."""
import importlib

import opendp_duff as dp

HELPERS = {"opendp_duff.measurements.duff": "duff_quantile_sample",
           "opendp_duff.duff_mean_utility": "duff_mean_step_function"}
CONSTRUCTORS = ["make_duff_median", "make_duff_quantile", "make_duff_mean", "make_duff_mode",
                "make_report_noisy_max_gumbel"]


def test_helpers_are_not_in_dp_m_but_stay_importable():
    for module, name in HELPERS.items():
        assert name not in dp.m.__all__ and not hasattr(dp.m, name)
        assert callable(getattr(importlib.import_module(module), name))


def test_duff_constructors_and_their_partial_forms_are_in_dp_m():
    for name in CONSTRUCTORS:
        assert name in dp.m.__all__ and name.replace("make_", "then_", 1) in dp.m.__all__
