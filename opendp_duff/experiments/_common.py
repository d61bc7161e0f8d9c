"""Helpers shared by the experiments: progress lines, Markdown tables, the randomness in force,
a description of the machine and the code, and the JSON files every run writes.

Nothing here draws random bits for a mechanism: releases come from the mechanisms'
samplers (:mod:`opendp_duff.samplers`), secure by default.  Synthetic *data* is drawn
with numpy's ``default_rng(seed)``; the seed is recorded in every output.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

import numpy as np

from ..samplers import current_rng, seeded_rng_for_tests

__all__ = ["Progress", "PLOTS_MISSING", "pyplot", "mechanism_randomness", "randomness_label", "machine",
           "code_version", "fmt", "table", "header", "write_json", "read_json", "json_round_trip"]

PLOTS_MISSING = 'plot skipped: matplotlib not installed (install the plots extra: pip install "opendp_duff[plots]")'
"""What the reports and the progress lines say when matplotlib is missing."""


class Progress:
    """One line per step on stderr, prefixed by the experiment's name and the elapsed time."""

    def __init__(self, name: str, stream: IO[str] | None = None) -> None:
        self.name, self.start = name, time.monotonic()
        self.stream = sys.stderr if stream is None else stream

    def __call__(self, message: str) -> None:
        print(f"[{self.name} {self.elapsed():7.1f}s] {message}", file=self.stream, flush=True)

    def elapsed(self) -> float:
        """Seconds since this progress reporter was created."""
        return time.monotonic() - self.start


def pyplot() -> Any:
    """matplotlib.pyplot with the non-interactive Agg backend, or None if matplotlib (the
    optional ``plots`` extra) is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def mechanism_randomness(noise_seed: int | None) -> contextlib.AbstractContextManager[None]:
    """The randomness the mechanisms use: the secure default (``noise_seed=None``) or, for a
    reproducible run that must be labelled as such, the seeded *insecure* test generator, which
    is refused at once unless the feature "insecure-randomness" is on (the command line's
    ``--seeded-noise`` turns it on)."""
    return contextlib.nullcontext() if noise_seed is None else seeded_rng_for_tests(noise_seed)


def randomness_label(noise_seed: int | None) -> str:
    """How the mechanisms' noise was drawn, for the report's header."""
    if noise_seed is None:
        source = current_rng()
        return f"secure ({getattr(source, 'name', type(source).__name__)}), not reproducible draw for draw"
    return (f"SEEDED for reproducibility (seeded_rng_for_tests({noise_seed}), feature insecure-randomness on, "
            "insecure: this run is an experiment, not a private release)")


def machine() -> str:
    """A one-line description of where the run happened."""
    return (f"{platform.node() or 'host'}: {os.cpu_count()} cores, {platform.machine()}, "
            f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")


def code_version() -> str:
    """The git commit of the package's checkout, with ``-dirty`` if the package's own files have
    uncommitted changes, or ``unknown`` outside a git checkout."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=package, capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--", package)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


def fmt(x: Any, digits: int = 3) -> str:
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


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def header(meta: dict[str, Any]) -> str:
    """The block every report starts with: what ran, how, where, with which code and randomness."""
    mode = "QUICK mode (reduced scale: a smoke test, not the paper's scale)" if meta["quick"] else "full scale"
    lines = [f"# {meta['title']}", "",
             f"- command: `{meta['command']}`",
             f"- code: opendp_duff {meta['code']}",
             f"- mode: {mode}",
             f"- machine: {meta['machine']}",
             f"- wall time: {meta['seconds']:.1f} s",
             f"- data: numpy default_rng(seed={meta['data_seed']})",
             f"- mechanism randomness: {meta['randomness']}"]
    if meta.get("rendered"):
        lines.append(f"- tables and figures re-rendered from the saved JSON: {meta['rendered']}")
    return "\n".join(lines + [""])


_NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[+-]?\d+)?$")


def _numeric_keys(d: dict[str, Any]) -> dict[Any, Any]:
    """JSON object keys that spell a number become floats again (epsilons are dict keys)."""
    return {float(k) if _NUMBER.match(k) else k: v for k, v in d.items()}


def _json_default(o: Any) -> Any:
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(type(o))


def json_round_trip(res: dict[str, Any]) -> dict[str, Any]:
    """``res`` as it reads back from its JSON file: arrays and tuples become lists, keys that
    spell numbers become floats.  Rendering always works on this form, so a report re-rendered
    from a saved file is the report of the original run."""
    return json.loads(json.dumps(res, default=_json_default), object_hook=_numeric_keys)


def write_json(path: str, res: dict[str, Any]) -> None:
    """Write ``res`` (numpy arrays allowed) to ``path``, creating its directory."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(res, f, default=_json_default, separators=(",", ":"))
        f.write("\n")


def read_json(path: str) -> dict[str, Any]:
    """Read a file written by :func:`write_json` (keys that spell numbers become floats)."""
    with open(path, encoding="utf-8") as f:
        res: dict[str, Any] = json.load(f, object_hook=_numeric_keys)
    return res
