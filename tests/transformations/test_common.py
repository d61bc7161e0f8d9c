"""The dataset-space checks shared by the transformations (transformations/_common.py):
a change-one metric needs a known size; non-dataset spaces and NaN domains are refused."""
import pytest

import opendp_duff as dp

FLOATS = dp.vector_domain(dp.atom_domain(T=float))


def test_change_one_needs_known_size():
    with pytest.raises(ValueError, match="input_metric"):
        dp.t.make_sort(FLOATS, dp.change_one_distance())


def test_transformations_refuse_non_dataset_spaces():
    with pytest.raises(TypeError, match="input_metric"):
        dp.t.make_sort(FLOATS, dp.absolute_distance())
    with pytest.raises(TypeError, match="input_domain"):
        dp.t.make_count(dp.atom_domain(), dp.symmetric_distance())
    with pytest.raises(ValueError, match="NaN"):
        dp.t.make_sort(dp.vector_domain(dp.atom_domain(nan=True)), dp.symmetric_distance())
