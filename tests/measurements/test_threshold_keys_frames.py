"""Key discovery on frames: persons truncated to one group and one row per group, the counts of a
key column, thresholded noisy counts (Laplace, and Gaussian cast to (eps, delta)).

Statistical tests (seeded, ``rerun_once``): at delta = 1e-6 for one person (d_in = 1), the key
held by one person -- here with 50 rows, which the truncation counts once -- appears in none of
2,000 releases: each release shows it with probability at most p = 1e-6 (the pass probability
``threshold_pass_probability`` bounds, which the test also checks), so a false failure has
probability at most 2,000 p = 2e-3 per attempt, 4e-6 with the rerun; the key held by 10,000
persons appears every time (missing it once has probability below 2,000 x e^-9000).  The counts
are computed once (they are deterministic); every release draws fresh noise."""
import pytest

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.measurements.threshold_keys import threshold_keys_parameters, threshold_pass_probability
from opendp_duff.metrics_id import symmetric_id_distance

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

PEOPLE = dp.dataframe_domain({"user": dp.atom_domain(T=int), "product": dp.atom_domain(T=str)})


def frame(library):
    users = list(range(10_000)) + [10_000] * 50
    products = ["common"] * 10_000 + ["rare"] * 50             # "rare": one person, 50 rows
    data = {"user": users, "product": products}
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data).lazy()


def counts(library):
    return ((PEOPLE, symmetric_id_distance("user"))
            >> dp.t.then_truncate_per_group("product", max_groups=1, contributions=1, key=bytes(range(16)))
            >> dp.t.then_count_by_key(by="product"))


@pytest.mark.slow
@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@rerun_once(81)
def test_a_key_of_one_person_never_appears_and_a_key_of_many_always_does(library, noise):
    t = counts(library)
    assert t.map(1) == (1, 1, 1)
    tally = t(frame(library))
    assert tally == {"common": 10_000, "rare": 1}
    if noise == "laplace":
        scale, threshold = threshold_keys_parameters(t.map(1), 1e-6, epsilon=1.0)
    else:
        scale, threshold = threshold_keys_parameters(t.map(1), 1e-6, rho=0.5)
    assert threshold_pass_probability(1, scale, threshold, noise)[1] <= 1e-6
    keys = dp.m.make_threshold_keys(t.output_domain, t.output_metric, scale, threshold, noise)
    chain = t >> keys
    if noise == "gaussian":
        chain = dp.c.make_approximate_zCDP_to_approxDP(chain, delta=1e-7)
        assert chain.map(1)[1] <= 1e-6 + 1e-7 + 1e-15
    else:
        assert chain.map(1)[1] <= 1e-6
    assert "common" in chain(frame(library))            # the whole chain, from the frame, once
    releases = [keys(tally) for _ in range(2000)]
    assert not any("rare" in r for r in releases)
    assert all("common" in r for r in releases)
