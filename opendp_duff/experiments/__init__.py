"""Reproductions of the papers' experiments, runnable as

    python -m opendp_duff.experiments <name> [--quick] [--out DIR]

with ``<name>`` one of ``duff-medians`` (Duff paper §6.1, Figure 1; short paper Table 1),
``bun-steinke-means`` (Bun & Steinke §7, Figures 2-6), ``real-medians`` (the spirit of the
Duff paper's §6.2) or ``all``.  Each writes ``<name>.md`` (tables, with the papers' numbers
beside ours), ``<name>.json`` (raw numbers) and, when matplotlib (the optional ``plots``
extra) is installed, ``<name>.png``.  Progress goes to stderr.

Mechanism randomness is the library's secure default unless ``--seeded-noise SEED`` is given,
which switches to the insecure test generator and says so in every output.  Synthetic data
comes from numpy's ``default_rng(--data-seed)``.  Not part of the privacy API.
"""
EXPERIMENTS = {
    "duff-medians": "opendp_duff.experiments.duff_medians",
    "bun-steinke-means": "opendp_duff.experiments.bun_steinke_means",
    "real-medians": "opendp_duff.experiments.real_medians",
}
