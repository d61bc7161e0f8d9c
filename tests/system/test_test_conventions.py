"""The test suite's own conventions, checked on every test file under tests/:

* it starts with a docstring saying what it covers, and a file with statistical tests
  (``rerun_once``) states their false-failure rate there;
* it imports shared code from ``helpers`` only, never from conftest or another test module
  (with ``--import-mode=importlib`` test modules are not importable by their basename);
* it does not set the global decimal context at import (``getcontext().prec = ...`` leaks into
  every module collected after it): a test that needs more digits uses ``localcontext``;
* it speaks of the project, not of the work items that produced it: no "issue N", "item N" or
  "file 00N" (papers are cited by key from docs/references.md; other projects' bugs as
  "<project> GitHub #N");
* a test over about half a second is marked ``slow``: the CPU budget of tests/conftest.py is on in
  this run, and it does fail an unmarked test over its limit (run on a throwaway suite with the
  real conftest, in a subprocess) while a marked one, or one within the limit, passes.
"""
import ast
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parents[1]
FILES = sorted(p for p in TESTS.rglob("test_*.py"))
IDS = [str(p.relative_to(TESTS)) for p in FILES]
HISTORY = re.compile(r"\b(issue|item)\s+\d|\bfile\s+00\d", re.IGNORECASE)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_file_starts_with_a_docstring(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and doc.strip(), f"{path.name}: no module docstring"
    if "rerun_once" in path.read_text():
        assert re.search(r"false[- ]failure", doc), f"{path.name}: statistical tests but no false-failure rate"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_imports_shared_code_from_helpers_only(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top != "conftest" and not top.startswith("test_"), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_no_work_item_references(path):
    hits = [line.strip() for line in path.read_text().splitlines() if HISTORY.search(line)]
    assert not hits, f"{path.name}: {hits}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_does_not_set_the_global_decimal_context(path):
    assert not re.search(r"^getcontext\(\)", path.read_text(), re.M), f"{path.name}: use decimal.localcontext"


def test_the_cpu_budget_of_unmarked_tests_is_on(request):
    if os.environ.get("OPENDP_DUFF_TEST_CPU_LIMIT", "") == "0":
        pytest.skip("OPENDP_DUFF_TEST_CPU_LIMIT=0 turns the CPU budget off in this run")
    assert request.config.pluginmanager.has_plugin("opendp-duff-cpu-budget")


BUSY = """
import subprocess, sys, time
import pytest

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_unmarked_and_busy():
    burn(0.6)

def test_unmarked_and_busy_in_a_subprocess():
    subprocess.run([sys.executable, "-c", "import time\\nend = time.process_time() + 0.6\\n"
                    "while time.process_time() < end: pass"], check=True)

@pytest.mark.slow
def test_marked_and_busy():
    burn(0.6)

def test_unmarked_and_quick():
    burn(0.05)
"""


@pytest.mark.slow
def test_the_cpu_budget_fails_an_unmarked_slow_test(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(TESTS / "helpers.py", tmp_path / "helpers.py")
    (tmp_path / "test_busy.py").write_text(BUSY)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    env = {**os.environ, "OPENDP_DUFF_TEST_CPU_LIMIT": "0.3",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS.parent)])}
    env = {k: v for k, v in env.items() if not k.startswith("OPENDP_DUFF_REQUIRE_")}
    res = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rA",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    out = res.stdout
    assert res.returncode == 1, out[-3000:]
    assert "FAILED test_busy.py::test_unmarked_and_busy " in out, out[-3000:]
    assert "FAILED test_busy.py::test_unmarked_and_busy_in_a_subprocess" in out, out[-3000:]
    assert "PASSED test_busy.py::test_marked_and_busy" in out and "PASSED test_busy.py::test_unmarked_and_quick" in out
    assert "over the limit of 0.3 s for a test not marked slow" in out
