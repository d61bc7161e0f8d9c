"""Reproductions of the papers' experiments, runnable as

    python -m opendp_duff.experiments <name> [--quick] [--out DIR]
    python -m opendp_duff.experiments --from-json FILE.json [...] [--out DIR]

with ``<name>`` one of ``duff-medians`` ([GM-Duff] §6.1, Figure 1; [GM-Duff-short] Table 1),
``bun-steinke-means`` ([BS19] §7, Figures 2–6), ``real-medians`` (in the manner of
[GM-Duff] §6.2, Figure 2) or ``all``.  Each run writes ``<name>.json`` (every number, and how
the run was made), ``<name>.md`` (tables, with the papers' numbers beside ours) and, when
matplotlib (the optional ``plots`` extra) is installed, ``<name>*.png``; quick runs add
``_quick`` to every file name.  ``--from-json`` re-renders the tables and figures of a saved
run without computing anything.  Progress goes to stderr.

Mechanism randomness is the library's secure default unless ``--seeded-noise SEED`` is given,
which turns the feature "insecure-randomness" on, switches to the insecure test generator and
says so in every output (report, JSON, figure titles and captions).  Synthetic data
comes from numpy's ``default_rng(--data-seed)``.  Not part of the privacy API.
"""
EXPERIMENTS = {
    "duff-medians": "opendp_duff.experiments.duff_medians",
    "bun-steinke-means": "opendp_duff.experiments.bun_steinke_means",
    "real-medians": "opendp_duff.experiments.real_medians",
}
