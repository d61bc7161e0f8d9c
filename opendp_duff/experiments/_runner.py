"""Running an experiment and rendering its report: the part the three experiments share.

An experiment is a module with

* ``NAME`` (the stem of its output files), ``COMMAND`` (its name on the command line),
  ``TITLE`` (the report's title) and ``DRAWS_NOISE`` (False when no mechanism noise is drawn);
* ``compute(*, quick, data_seed, progress, **extra) -> dict``: the numbers, JSON-serialisable
  up to numpy arrays; the mechanisms' randomness is set by the caller;
* ``markdown(res) -> str``: the report's body (tables), from ``res`` as read back from JSON;
* ``figures(res, plt) -> {suffix: (figure, title)}``: matplotlib figures, not yet titled;
* optionally ``file_suffix(res) -> str``, a suffix of the output stem (e.g. ``_synthetic``).

:func:`run` computes, records how (command, code, machine, seeds, wall time) in ``res["meta"]``
and writes ``<stem>.json``; :func:`render` writes ``<stem>.md`` and the figures from it, so
:func:`rerender` can redo both from a saved JSON file without running anything.  Quick runs get
``_quick`` in every file name and a QUICK mark in every title.
"""
from __future__ import annotations

import datetime
import os
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..features import enabled_features
from ._common import (PLOTS_MISSING, Progress, code_version, header, json_round_trip, machine,
                      mechanism_randomness, pyplot, randomness_label, read_json, write_json)

__all__ = ["DPI", "QUICK_MARK", "SEEDED_MARK", "Options", "run", "render", "rerender", "output_stem"]

DPI = 150
"""Resolution of every figure written (dots per inch)."""

QUICK_MARK = "QUICK RUN (reduced scale, a smoke test: not the paper's numbers)"
"""Appended to the title of every figure of a quick run."""

SEEDED_MARK = "SEEDED, INSECURE NOISE (feature insecure-randomness on): an experiment, not a private release"
"""Appended to the title (and caption) of every figure of a run whose noise was seeded."""


@dataclass(frozen=True)
class Options:
    """How to run an experiment: output directory, scale, seeds, plots, the command line to
    record, and experiment-specific keyword arguments for ``compute`` (``extra``)."""

    out_dir: str = "results"
    quick: bool = False
    data_seed: int = 5
    noise_seed: int | None = None
    plots: bool = True
    command: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def output_stem(module: ModuleType, res: dict[str, Any], figure: str = "") -> str:
    """The stem of a run's output files: ``NAME``, the experiment's own suffix, the figure's
    suffix (for a figure), then ``_quick`` for a quick run."""
    own = module.file_suffix(res) if hasattr(module, "file_suffix") else ""
    return module.NAME + own + figure + ("_quick" if res["meta"]["quick"] else "")


def run(module: ModuleType, options: Options) -> dict[str, Any]:
    """Run ``module``'s experiment: compute, write ``<stem>.json``, render the report and the
    figures into ``options.out_dir``; progress on stderr.  Returns the results as saved."""
    progress = Progress(module.NAME)
    start = time.monotonic()
    with mechanism_randomness(options.noise_seed):
        res = module.compute(quick=options.quick, data_seed=options.data_seed, progress=progress,
                             **options.extra)
    flag = " --quick" if options.quick else ""
    res["meta"] = {
        "experiment": module.COMMAND, "title": module.TITLE, "quick": options.quick,
        "command": options.command or f"python -m opendp_duff.experiments {module.COMMAND}{flag}",
        "code": code_version(), "machine": machine(), "seconds": time.monotonic() - start,
        "data_seed": options.data_seed, "noise_seed": options.noise_seed,
        "randomness": (randomness_label(options.noise_seed) if module.DRAWS_NOISE
                       else "none drawn: the tables are exact expectations over the noise"),
        "features": sorted(enabled_features())}
    res = json_round_trip(res)
    json_path = os.path.join(options.out_dir, output_stem(module, res) + ".json")
    write_json(json_path, res)
    progress(f"wrote {json_path}")
    render(module, res, options.out_dir, plots=options.plots, progress=progress)
    return res


def render(module: ModuleType, res: dict[str, Any], out_dir: str, plots: bool = True,
           progress: Progress | None = None) -> list[str]:
    """Write ``<stem>.md`` and (with ``plots`` and matplotlib) the figures ``<stem><suffix>.png``
    into ``out_dir`` from saved results; return the paths written."""
    progress = progress or Progress(module.NAME)
    os.makedirs(out_dir, exist_ok=True)
    stem = output_stem(module, res)
    body = [header(res["meta"]), module.markdown(res).rstrip(), ""]
    written = []
    plt = pyplot() if plots else None
    if plt is None:
        body.append(f"({PLOTS_MISSING})" if plots else "(plots not requested: --no-plots)")
        if plots:
            progress(PLOTS_MISSING)
    else:
        marks = _marks(res["meta"])
        for suffix, (fig, title) in module.figures(res, plt).items():
            name = output_stem(module, res, suffix)
            written.append(_save_figure(plt, fig, title, marks, os.path.join(out_dir, name + ".png")))
            caption = " — ".join([title] + [m for m in marks if m == SEEDED_MARK])
            body.append(f"![{caption}]({name}.png)\n")
    md_path = os.path.join(out_dir, stem + ".md")
    with open(md_path, "w", encoding="utf-8") as f:
        f.write("\n".join(body).rstrip() + "\n")
    written.insert(0, md_path)
    progress("wrote " + ", ".join(written))
    return written


def _marks(meta: dict[str, Any]) -> list[str]:
    """The warnings a run's figures carry: seeded noise, a quick run."""
    seeded = meta.get("noise_seed") is not None and str(meta.get("randomness", "")).startswith("SEEDED")
    return [m for m, on in ((SEEDED_MARK, seeded), (QUICK_MARK, meta["quick"])) if on]


def _save_figure(plt: Any, fig: Any, title: str, marks: list[str], path: str) -> str:
    fig.suptitle("\n".join([title] + marks), fontsize=11, color="firebrick" if marks else "black")
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def rerender(module: ModuleType, json_path: str, out_dir: str | None = None, plots: bool = True) -> list[str]:
    """Re-render the report and figures of a saved run from its JSON file, without computing
    anything; ``out_dir`` defaults to the file's directory.  Returns the paths written."""
    res = read_json(json_path)
    res["meta"]["rendered"] = (f"opendp_duff {code_version()}, "
                               f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    return render(module, res, out_dir or os.path.dirname(json_path) or ".", plots=plots)
