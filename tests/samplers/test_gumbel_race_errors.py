"""The exact samplers refuse malformed public parameters with the library's MakeError
(a ValueError), before drawing any random byte."""
import math

import numpy as np
import pytest

from opendp_duff.errors import MakeError
from opendp_duff.samplers import byte_source_for_tests
from opendp_duff.samplers.gumbel_race import exact_gumbel_race
from opendp_duff.samplers.lazy_race import LazyGroup, exact_race_with_lazy_blocks
from opendp_duff.samplers.race import sample_step_function
from opendp_duff.samplers.uniform import exact_uniform_float, exact_uniform_floats


class NoBytes:
    def random_bytes(self, n):
        raise AssertionError("randomness drawn before the parameters were checked")


BLOCK = LazyGroup(0.0, 0.0, 1.0, lambda: ([0.0], [0.0], [1.0]))

BAD_CALLS = [
    lambda: exact_gumbel_race([]),
    lambda: exact_gumbel_race([0.0, math.nan]),
    lambda: exact_gumbel_race([0.0], denom=0.0),
    lambda: exact_gumbel_race([0.0], denom=math.inf),
    lambda: exact_gumbel_race([0.0], left=[0.0]),
    lambda: exact_gumbel_race([0.0, 1.0], left=[0.0], right=[1.0]),
    lambda: exact_gumbel_race([0.0], left=[1.0], right=[0.0]),
    lambda: exact_gumbel_race([0.0], left=[0.0], right=[math.inf]),
    lambda: exact_gumbel_race([0.0, 1.0], groups=[1]),
    lambda: exact_gumbel_race([-math.inf, -math.inf]),
    lambda: exact_race_with_lazy_blocks([0.0], 0.0, [0.0], [1.0], []),
    lambda: exact_race_with_lazy_blocks([math.inf], 1.0, [0.0], [1.0], []),
    lambda: exact_race_with_lazy_blocks([0.0], 1.0, [0.0, 1.0], [1.0], []),
    lambda: exact_race_with_lazy_blocks([], 1.0, [], [], [LazyGroup(0.0, 1.0, 0.0, BLOCK.members)]),
    lambda: exact_uniform_float(1.0, 0.0),
    lambda: exact_uniform_float(0.0, math.inf),
    lambda: exact_uniform_floats(0.0, 1.0, -1),
    lambda: sample_step_function([0.0], [1.0, 2.0], [0.0], 1.0),
    lambda: sample_step_function([0.0], [1.0], [0.0], -1.0),
]


@pytest.mark.parametrize("call", range(len(BAD_CALLS)))
def test_bad_parameters_raise_make_error_before_any_byte(call):
    with byte_source_for_tests(NoBytes()):
        with pytest.raises(MakeError):
            BAD_CALLS[call]()


def test_no_positive_weight_after_drawing_is_a_make_error_too():
    # every lazy block turns out empty: refused (the bound was positive, its members are not)
    empty = LazyGroup(0.0, 0.0, 1.0, lambda: (np.array([-np.inf]), np.array([0.0]), np.array([1.0])))
    with pytest.raises(MakeError):
        exact_race_with_lazy_blocks([], 1.0, [], [], [empty])
