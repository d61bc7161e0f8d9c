"""A person with 10,000 rows at an extreme value, behind make_truncate_per_id(k=2): the exact law
of ``truncate >> select >> clamp >> sort >> duff_median`` on the data with that person is the
law of the median on the others' values plus two of theirs, and the exact privacy loss
against the data without them stays within the chain's map at d_in = 1.  Without the
truncation the same person moves the release far beyond it (the test has teeth).  Exact
laws, no sampling: deterministic."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.audit import exact_privacy_loss
from opendp_duff.metrics_id import symmetric_id_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

KEY = bytes(range(16))
DOM = dp.dataframe_domain({"user": dp.atom_domain(T=int), "value": dp.atom_domain(T=float)})
BASE = np.linspace(0.5, 9.5, 31)
HEAVY = 10_000


def median_of_vectors():
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    return space >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort() >> dp.m.then_duff_median(scale=1.0)


def frames(library):
    users = np.arange(len(BASE))
    without = {"user": users, "value": BASE}
    with_heavy = {"user": np.concatenate([users, np.full(HEAVY, 999)]),
                  "value": np.concatenate([BASE, np.full(HEAVY, 1e9)])}
    make = pd.DataFrame if library == "pandas" else pl.DataFrame
    return make(without), make(with_heavy)


def laws_equal(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("left", "right", "log_density"))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_heavy_person_moves_the_median_as_two_rows_would(library):
    chain = ((DOM, symmetric_id_distance("user")) >> dp.t.then_truncate_per_id(contributions=2, key=KEY)
             >> dp.t.then_select_column("value") >> median_of_vectors())
    median = median_of_vectors()
    assert chain.map(1) == median.map(2)
    x, x_heavy = frames(library)
    assert laws_equal(chain.output_law(x_heavy), median.output_law(list(BASE) + [1e9, 1e9]))
    audit = exact_privacy_loss(chain, x, x_heavy)
    assert audit.within(chain.map(1))
    untruncated = exact_privacy_loss(median, list(BASE), list(BASE) + [1e9] * HEAVY)
    assert not untruncated.within(chain.map(1))
