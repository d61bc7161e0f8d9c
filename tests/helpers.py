"""Helpers shared by the test modules (importable as ``helpers`` from every folder of tests/).

* ``rerun_once(seed)``: a statistical test runs with a seeded (insecure, test-only) generator;
  if its assertion fails it is run once more with another seed before the failure is reported,
  so a test with false-failure rate p per attempt fails spuriously with probability p^2.  It
  also marks the test ``statistical``.
* ``Recorder`` and ``replay_laplace``: a byte source that records every byte a release drew, and
  the exact recomputation (at ample decimal precision) of the nearest floats of c + sigma Z at
  both ends of the dyadic interval of the Laplace release's uniform.
* ``multiset_distance``: the change-one or symmetric distance between two finite multisets.
* ``frames_of(columns)``: the same columns as a pandas frame, a Polars frame and a lazy Polars
  frame, each with its name (a test of every local engine loops over them).
* Persons with many rows, by brute force: ``canonical_rows`` (rows as comparable tuples, -0.0 as
  0.0 and every missing float as one value, ordered as the truncation kernels order content),
  ``id_distance`` (persons added or removed), ``grouped_distance`` (the triple (l0, l1, linf)
  over groups) and ``reference_truncation`` (what a truncation keeps, given its hashes).
* ``missing(tool, ...)`` and ``missing_libraries(code)``: why a test that needs optional tools
  (Chromium, TeX, Sphinx, Spark, pandas, Polars, matplotlib), or example code that imports
  optional libraries, cannot run here: the skip reason, "" when it can.
"""
import functools
import importlib.util
import math
import os
import re
import shutil
import sys
from collections import Counter
from decimal import Decimal, localcontext

import pytest

from opendp_duff.samplers import SeededRandomForTests, seeded_rng_for_tests

MAX = sys.float_info.max


def rerun_once(seed):
    def deco(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            try:
                with seeded_rng_for_tests(seed):
                    return test(*args, **kwargs)
            except AssertionError:
                with seeded_rng_for_tests(seed + 1_000_003):
                    return test(*args, **kwargs)
        return pytest.mark.statistical(wrapper)
    return deco


class Recorder:
    """A byte source: ``prefix`` first (crafted bytes), then seeded random bytes; records everything."""

    def __init__(self, seed, prefix=b""):
        self.inner, self.prefix, self.log = SeededRandomForTests(seed), bytearray(prefix), bytearray()

    def random_bytes(self, n):
        take = bytes(self.prefix[:n])
        del self.prefix[:n]
        out = take + self.inner.random_bytes(n - len(take))
        self.log += out
        return out


def replay_laplace(log, center, scale):
    """The release's uniform is bytes 0..7 then every byte after the sign byte (8): return the
    nearest floats of c + sigma Z at both ends of its dyadic interval, at ample precision."""
    bits = bytes(log[:8]) + bytes(log[9:])
    m, b = int.from_bytes(bits, "big"), 8 * len(bits)
    sign = -1 if log[8] & 1 else 1
    with localcontext() as ctx:
        ctx.prec = 60 + b  # far beyond what the enclosure needs
        ctx.Emin, ctx.Emax = -10 ** 6, 10 ** 6
        c = Decimal(center[0]) / Decimal(center[1]) if isinstance(center, tuple) else Decimal(center)
        s = Decimal(scale[0]) / Decimal(scale[1]) if isinstance(scale, tuple) else Decimal(scale)
        ends = []
        for k in (m, m + 1):
            z = -(Decimal(k) / Decimal(2) ** b).ln() * sign
            r = min(max(float(c + s * z), -MAX), MAX)
            ends.append((r, math.copysign(1.0, r)))      # the sign of a zero is part of the release
    return ends


def multiset_distance(x, y, change_one):
    """The distance between multisets x and y: the number of substitutions (change-one, equal
    sizes) or of additions and removals (symmetric)."""
    common = sum((Counter(x) & Counter(y)).values())
    return len(x) - common if change_one else len(x) + len(y) - 2 * common


def frames_of(columns):
    """Yield ("pandas", frame), ("polars", frame), ("polars-lazy", lazy frame) of ``columns``
    (name -> values).  The test skips at the first Polars frame when Polars is missing, after
    running on pandas (pandas itself is imported with ``pytest.importorskip`` too)."""
    pd = pytest.importorskip("pandas")
    yield "pandas", pd.DataFrame(columns)
    pl = pytest.importorskip("polars")
    yield "polars", pl.DataFrame(columns)
    yield "polars-lazy", pl.DataFrame(columns).lazy()


_MISSING = (1, 0.0)          # every NaN or missing float, ordered after every number


def canonical_value(value, T):
    """A value as the truncation kernels compare it: floats as (0, v) with -0.0 read as 0.0, or
    (1, 0.0) for NaN and None; ints as int; strings as they are."""
    if T is float:
        return _MISSING if value is None or value != value else (0, float(value) + 0.0)
    return int(value) if T is int else value


def canonical_rows(columns, types):
    """The rows of ``columns`` (name -> list of values) as tuples of canonical values over the
    columns sorted by name."""
    names = sorted(types)
    n = len(columns[names[0]])
    return [tuple(canonical_value(columns[c][i], types[c]) for c in names) for i in range(n)]


def _persons(rows, id_index):
    persons = {}
    for r in rows:
        persons.setdefault(r[id_index], Counter())[r] += 1
    return persons


def id_distance(x, y, id_index):
    """Persons added or removed between the row lists x and y: 1 per person present on one side
    only, 2 per person present on both sides with different rows."""
    px, py = _persons(x, id_index), _persons(y, id_index)
    return sum(0 if px.get(u) == py.get(u) else 1 if u not in px or u not in py else 2
               for u in set(px) | set(py))


def grouped_distance(x, y, by_indexes):
    """(l0, l1, linf) of the symmetric distances between the groups of the row lists x and y."""
    gx, gy = {}, {}
    for rows, groups in ((x, gx), (y, gy)):
        for r in rows:
            groups.setdefault(tuple(r[i] for i in by_indexes), []).append(r)
    d = [multiset_distance(gx.get(v, []), gy.get(v, []), False) for v in set(gx) | set(gy)]
    return (sum(1 for e in d if e), sum(d), max(d, default=0))


def reference_truncation(rows, row_hash, id_index, k, group_hash=None, by_indexes=(), g=None):
    """The multiset (Counter) a truncation keeps, by its definition: per person (grouped: the g
    groups first in the order (group hash, group value)), the k rows first in the order
    (row hash, row)."""
    kept = Counter()
    people = {}
    for r, h, gh in zip(rows, row_hash, group_hash if group_hash is not None else [None] * len(rows),
                        strict=True):
        group = tuple(r[i] for i in by_indexes)
        people.setdefault(r[id_index], {}).setdefault((gh, group), []).append((h, r))
    for groups in people.values():
        chosen = sorted(groups)[:g] if group_hash is not None else groups
        for key in chosen:
            kept.update(r for _, r in sorted(groups[key])[:k])
    return kept



# --------------------------------------------------------------------------- optional tools
# tool -> (is it here?, what to install).  Each is optional for the test suite: a test that
# needs a missing one skips with the reason, unless CI requires it (REQUIRE, tests/conftest.py).
TOOLS = {
    "chromium": (lambda: chromium() is not None, "headless Chromium (Debian: chromium)"),
    "tex": (lambda: bool(shutil.which("latexmk") and shutil.which("pdflatex")),
            "the TeX toolchain, latexmk and pdflatex (Debian: latexmk, texlive-latex-recommended)"),
    "sphinx": (lambda: _importable("sphinx") and _importable("myst_parser"), "Sphinx and myst-parser (the docs extra)"),
    "spark": (lambda: _importable("pyspark") and bool(shutil.which("java") or os.environ.get("JAVA_HOME")),
              "pyspark and a Java runtime (the spark extra; Debian: openjdk-17-jre-headless)"),
    "pandas": (lambda: _importable("pandas"), "pandas (the pandas extra)"),
    "polars": (lambda: _importable("polars"), "Polars (the polars extra)"),
    "matplotlib": (lambda: _importable("matplotlib"), "matplotlib (the plots extra)"),
    "mypy": (lambda: _importable("mypy"), "mypy (the lint extra)"),
}
# the variable that CI sets (.ci/run) -> the tools it requires: a missing one stops the session
REQUIRE = {
    "OPENDP_DUFF_REQUIRE_BROWSER": ("chromium",),
    "OPENDP_DUFF_REQUIRE_TEX": ("tex",),
    "OPENDP_DUFF_REQUIRE_SPHINX": ("sphinx",),
    "OPENDP_DUFF_REQUIRE_SPARK": ("spark",),
    "OPENDP_DUFF_REQUIRE_EXTRAS": ("pandas", "polars", "matplotlib"),
}
OPTIONAL_IMPORT = re.compile(r"^(?:>>> |\.\.\. )?[ \t]*(?:import [^\n#]*?|from )\b(pandas|polars|matplotlib)\b", re.M)


def _importable(name):
    return importlib.util.find_spec(name) is not None


def chromium():
    """The path of the Chromium executable, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing(*tools):
    """Why a test that needs ``tools`` (names of TOOLS) cannot run here: "needs ..." naming the
    missing ones and what to install, or "" when all are here."""
    absent = [TOOLS[tool][1] for tool in tools if not TOOLS[tool][0]()]
    return "needs " + "; ".join(absent) if absent else ""


def missing_libraries(code):
    """``missing(...)`` for the optional libraries that ``code`` (a script or a doctest) imports."""
    return missing(*sorted(set(OPTIONAL_IMPORT.findall(code))))
