"""The README's main job: a private release on the embedded wages dataset.

Prints the release, what it costs (``map(1)``: epsilon for one person added or
removed) and where its proof is.
"""
from __future__ import annotations

import pathlib

import opendp_duff as dp
from opendp_duff.data import load_wages

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    """Release a private median and a private count of the wages, and their total cost."""
    wages = load_wages()
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    bounds = (0.0, 200.0)      # public: chosen without looking at the data

    # The private median: clamp >> sort >> Duff exponential mechanism, epsilon = 1.
    median = (space >> dp.t.then_clamp(bounds=bounds) >> dp.t.then_sort()
              >> dp.m.then_duff_median(scale=2.0))
    print(f"private median wage : {median(wages):8.2f}   (epsilon = map(1) = {median.map(1)})")
    print(f"  proof             : {ROOT / 'proofs/measurements/duff/make_duff_median.tex'}")

    # A private count with the Laplace mechanism, epsilon = 0.5.
    count = space >> dp.t.then_count() >> dp.m.then_laplace(scale=2.0)
    print(f"private count       : {count(wages):8.1f}   (epsilon = map(1) = {count.map(1)})")
    print(f"  proof             : {ROOT / 'proofs/measurements/laplace/make_laplace.tex'}")
    # Both releases together, by sequential composition (the epsilons add, rounded up).
    both = dp.c.make_composition([median, count])
    print(f"total epsilon spent : {both.map(1)}   (make_composition of the two)")


if __name__ == "__main__":
    main()
