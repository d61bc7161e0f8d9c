"""The sequential compositor keeps its own copy of the admitted data: changing the caller's
array or frame after the compositor was called (to a non-member, say with NaN) never reaches
a query."""
import math

import numpy as np
import pytest

import opendp_duff as dp


def _sum_query(domain):
    """A query whose release is the exact sum of the data (infinite budget, no noise needed:
    the test reads the data a query sees, nothing is private here)."""
    from opendp_duff.core import Measurement
    return Measurement(domain, dp.symmetric_distance(), dp.max_divergence(),
                       lambda x: float(np.sum(np.asarray(x["v"] if not isinstance(x, np.ndarray) else x))),
                       lambda d: 0.0)


def _compositor(domain):
    return dp.c.make_sequential_composition(domain, dp.symmetric_distance(), dp.max_divergence(),
                                            d_in=1, d_out=1.0)


@pytest.mark.usefixtures("honest_but_curious")      # _sum_query is user-built
def test_changing_the_callers_array_after_admission_does_not_reach_a_query():
    domain = dp.vector_domain(dp.atom_domain(T=float))
    data = np.array([1.0, 2.0, 3.0])
    queryable = _compositor(domain)(data)
    data[0] = math.nan                                  # the caller's array is now a non-member
    assert queryable(_sum_query(domain), 0.0) == 6.0


@pytest.mark.usefixtures("honest_but_curious")
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_changing_the_callers_frame_after_admission_does_not_reach_a_query(library):
    lib = pytest.importorskip(library)
    domain = dp.dataframe_domain({"v": dp.atom_domain(T=float)})
    frame = lib.DataFrame({"v": [1.0, 2.0, 3.0]})
    queryable = _compositor(domain)(frame)
    if library == "pandas":
        frame.loc[0, "v"] = math.nan
    else:
        frame[0, "v"] = math.nan
    assert queryable(_sum_query(domain), 0.0) == 6.0
