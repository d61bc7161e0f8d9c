"""The test suite on an install without the optional extras: a fresh virtual environment (no
system site packages) with only the runtime dependencies (numpy, scipy, attrs), the test runner
(pytest, pytest-xdist, hypothesis) and this checkout installed without extras collects every
test without an error.  A test that needs pandas, Polars, matplotlib, Sphinx, pyspark or a tool
then skips with its reason instead of failing (tests/conftest.py, ``helpers.missing``).

Slow: it installs packages with pip (from pip's cache when it can, without byte-compiling them).
Skipped when pip cannot reach a package index.
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = ["numpy", "scipy", "attrs", "pytest", "pytest-xdist", "hypothesis"]
OPTIONAL = ["pandas", "polars", "matplotlib", "sphinx", "pyspark"]
OFFLINE = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
           "No matching distribution found")


def _pip(python, *args):
    # --no-compile: byte-compiling every installed module (scipy's thousands) costs more CPU than
    # the one collection below saves by finding it compiled
    res = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile",
                          *args],
                         capture_output=True, text=True, timeout=900)
    if res.returncode != 0 and any(marker in res.stdout + res.stderr for marker in OFFLINE):
        pytest.skip("pip could not install from a package index: " + (res.stdout + res.stderr)[-300:])
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]


@pytest.mark.slow
def test_the_suite_collects_without_the_optional_extras(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    _pip(python, *RUNNER)
    _pip(python, "--no-deps", "-e", str(ROOT))
    probe = "import importlib.util as u; print([m for m in %r if u.find_spec(m)])" % (OPTIONAL,)
    present = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout
    assert present.strip() == "[]", f"the environment is meant to lack the extras, but has {present}"

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENDP_DUFF_REQUIRE_", "PYTHONPATH"))}
    res = subprocess.run([str(python), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    tail = (res.stdout + res.stderr)[-5000:]
    assert res.returncode == 0 and "ERROR" not in res.stdout, tail           # 2 on a collection error
    counts = [int(line.rsplit(": ", 1)[1]) for line in res.stdout.splitlines()   # "tests/x/test_y.py: N"
              if line.startswith(("tests/", "opendp_duff/")) and line.rsplit(": ", 1)[-1].isdigit()]
    assert sum(counts) > 1000, tail
