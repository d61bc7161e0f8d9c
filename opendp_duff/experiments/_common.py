"""Helpers shared by the experiments: progress lines, Markdown tables, optional plots,
the randomness in force, and a description of the machine.

Nothing here draws random bits for a mechanism: releases come from the mechanisms'
samplers (:mod:`opendp_duff.samplers`), secure by default.  Synthetic *data* is drawn
with numpy's ``default_rng(seed)``; the seed is recorded in every output.
"""
import contextlib
import datetime
import json
import math
import os
import platform
import sys
import time

import numpy as np

from ..samplers import current_rng, seeded_rng_for_tests


class Progress:
    """One line per step on stderr, with the elapsed time."""

    def __init__(self, name, stream=None):
        self.name, self.start = name, time.monotonic()
        self.stream = sys.stderr if stream is None else stream

    def __call__(self, message):
        print(f"[{self.name} {self.elapsed():7.1f}s] {message}", file=self.stream, flush=True)

    def elapsed(self):
        return time.monotonic() - self.start


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend, or None if matplotlib (the
    optional ``plots`` extra) is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


@contextlib.contextmanager
def mechanism_randomness(noise_seed):
    """The randomness the mechanisms use: the secure default (``noise_seed=None``) or, for a
    reproducible run that must be labelled as such, the seeded *insecure* test generator."""
    if noise_seed is None:
        yield
    else:
        with seeded_rng_for_tests(noise_seed):
            yield


def randomness_label(noise_seed):
    if noise_seed is None:
        return f"secure ({current_rng().name}), not reproducible draw for draw"
    return (f"SEEDED for reproducibility (seeded_rng_for_tests({noise_seed}), insecure: "
            "this run is an experiment, not a private release)")


def machine():
    """A one-line description of where the run happened."""
    return (f"{platform.node() or 'host'}: {os.cpu_count()} cores, {platform.machine()}, "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")


def fmt(x, digits=3):
    """A number for a table: significant digits, 'inf', or '—' for missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isinf(x):
        return "inf"
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits or abs(x) < 10 ** -(digits - 1):
        return f"{x:.{max(digits - 1, 1)}e}"
    return f"{x:.{digits}g}" if abs(x) >= 1 else f"{x:.{digits}f}".rstrip("0").rstrip(".")


def table(headers, rows):
    """A GitHub-flavoured Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def header(title, command, quick, data_seed, noise_seed, seconds):
    """The block every report starts with: what ran, how, where, with which randomness."""
    mode = "QUICK mode (reduced scale: a smoke test, not the paper's scale)" if quick else "full scale"
    return "\n".join([
        f"# {title}", "",
        f"- command: `{command}`",
        f"- mode: {mode}",
        f"- machine: {machine()}",
        f"- wall time: {seconds:.1f} s",
        f"- data: numpy default_rng(seed={data_seed})",
        f"- mechanism randomness: {randomness_label(noise_seed)}", ""])


def save(out_dir, name, markdown, raw):
    """Write ``name.md`` and ``name.json`` into ``out_dir``; return the Markdown path."""
    os.makedirs(out_dir, exist_ok=True)
    md_path = os.path.join(out_dir, f"{name}.md")
    with open(md_path, "w", encoding="utf-8") as f:
        f.write(markdown.rstrip() + "\n")
    with open(os.path.join(out_dir, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump(raw, f, indent=1, default=_json_default)
    return md_path


def _json_default(o):
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(type(o))
